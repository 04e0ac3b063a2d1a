// The speedup explorer: how far to draft, for what a draft step and checking a position cost, under each rule, and
// under the accept test how wide a tree to draft (explorer_tree.js works a tree's speedups exactly).

const { bestTree, bestWidthAt, clamp, figure, fill, node, partsOf, ratioText, starts, treeColumn, treeNodes,
  treeRoundCost, whole } = shared;

const EXPLORER_PARTS = {
  k: '[data-explorer-k]', cost: '[data-explorer-cost]', rule: '[data-explorer-rule]', verify: '[data-explorer-verify]',
  readout: '[data-explorer-readout]', bars: '[data-explorer-bars]', kOut: '[data-explorer-k-out]',
  m: '[data-explorer-m]', mOut: '[data-explorer-m-out]', way: '[data-explorer-way]'
};

function startExplorer(root, trace) {
  const ui = partsOf(root, EXPLORER_PARTS);
  const start = { k: trace.k, cost: Number(ui.cost.value), rule: ui.rule.value, verify: Number(ui.verify.value),
    m: Number(ui.m.value), way: ui.way.value };
  const fig = figure(root, trace, start, limitExplorer, renderExplorer);
  fig.ui = ui;
  fig.E = trace.text.explorer;
  fig.T = trace.text.explorer_trees;
  ui.k.addEventListener('input', () => { fig.update({ k: ui.k.value }); });
  ui.cost.addEventListener('change', () => { fig.update({ cost: ui.cost.value }); });
  ui.rule.addEventListener('change', () => { fig.update({ rule: ui.rule.value }); });
  ui.verify.addEventListener('change', () => { fig.update({ verify: ui.verify.value }); });
  ui.m.addEventListener('input', () => { fig.update({ m: ui.m.value }); });
  ui.way.addEventListener('change', () => { fig.update({ way: ui.way.value }); });
  fig.update({});
  return fig;
}

function limitExplorer(fig) {
  const s = fig.state, ex = fig.trace.explorer;
  s.k = clamp(whole(s.k, 1), 1, fig.trace.k);
  s.cost = clamp(whole(s.cost, 0), 0, ex.costs.length - 1);
  if (!fig.trace.rules.some(r => r.id === s.rule)) s.rule = fig.trace.rules[0].id;
  s.verify = clamp(whole(s.verify, 0), 0, ex.verify.length - 1);
  s.m = clamp(whole(s.m, 1), 1, ex.max_m);
  if (!ex.ways.includes(s.way)) s.way = ex.ways[0];
}

// The tree width the figures follow: the chosen m under the accept test, one candidate under any other rule.
const widthOf = fig => (fig.state.rule === fig.trace.explorer.tree_rule ? fig.state.m : 1);

// The costs a tree's round adds up, as exact strings: a draft step c, the target pass, each scored node v.
function treeCost(fig) {
  const ex = fig.trace.explorer, s = fig.state;
  return { c: ex.costs[s.cost], one: ex.verify_round, v: ex.verify[s.verify] };
}

// One profile's figures at the chosen rule, verification cost, draft cost and width: values [k], slow flags [k], best
// k. One candidate reads the build's tables; a wider tree is worked from its A.
function explored(fig, p) {
  const s = fig.state, sp = p.explorer, r = s.rule, v = s.verify, c = s.cost, m = widthOf(fig);
  if (m > 1) return treeColumn(sp.tree[s.way][m - 1], m, treeCost(fig));
  return { values: sp.values[r][v][c], slow: sp.slow[r][v][c], best: sp.best[r][v][c] };
}

// Under the accept test, a draft's best (k, m) at these costs, then its speedup by width at the chosen k.
function treeLine(fig, p) {
  const T = fig.T, k = fig.state.k, best = bestTree(p.explorer.tree[fig.state.way], treeCost(fig));
  const list = best.cols.map((c, j) => fill(T.item, { m: j + 1, value: c.values[k - 1] })).join(T.sep);
  const m = bestWidthAt(best.cols, k), widest = m === best.cols.length;
  const stop = fill(widest ? T.widest : T.stop, { m });
  const head = best.pays ? fill(T.best, { k: best.k, m: best.m, value: best.text }) : fill(T.none, { max: best.cols.length });
  return head + fill(T.widths, { k, list, stop });
}

// The bars' heights are the displayed values over sp.top, divided by the stylesheet.
function explorerRow(fig, p) {
  const e = explored(fig, p), wrap = node('div', 'explorer-row');
  const cols = e.values.map((v, j) => {
    const k = j + 1;
    const col = node('span', `explorer-col${e.slow[j] ? ' is-slow' : ''}${k === fig.state.k ? ' is-k' : ''}${k === e.best ? ' is-best' : ''}`);
    col.style.setProperty('--h', v);
    col.append(node('span', 'explorer-bar'), node('span', 'explorer-val', fill(fig.E.times, { value: v })), node('span', 'explorer-k', String(k)));
    return col;
  });
  const chart = node('div', 'explorer-chart');
  chart.style.setProperty('--top', String(p.explorer.top));
  chart.append(...cols);
  wrap.append(node('p', 'fig-sub', p.name), chart);
  if (fig.state.rule === fig.trace.explorer.tree_rule) wrap.append(node('p', 'explorer-tree', treeLine(fig, p)));
  return wrap;
}

// The noun after a cost in target passes: "1 target pass", "1/2 of a target pass", "3/2 target passes".
function stepsNoun(E, cost) {
  const part = /^(\d+)\/(\d+)$/.exec(cost);
  return cost === '1' ? E.step_one : part && Number(part[1]) < Number(part[2]) ? E.step_part : E.step_many;
}

// What a round costs: today's sentence when checking is free, else the sum k·c + verify_round + k·v; for a tree of
// width m, its nodes in place of k.
function roundLine(fig) {
  const E = fig.E, s = fig.state, k = s.k, ex = fig.trace.explorer, v = ex.verify[s.verify], m = widthOf(fig);
  const round = m > 1 ? ratioText(treeRoundCost(treeCost(fig), k, m)) : ex.round_costs[s.verify][s.cost][k - 1];
  const fields = { k_text: fill(k === 1 ? E.k_one : E.k_many, { k }), cost: ex.cost_text[s.cost], k,
    c: ex.costs[s.cost], one: ex.verify_round, v, verify: ex.verify_text[s.verify], round_cost: round,
    steps: stepsNoun(E, round), m, nodes: treeNodes(m, k) };
  if (m > 1) return `${fill(fig.T.nodes, fields)} ${fill(v === '0' ? E.readout : fig.T.readout_verify, fields)}`;
  return fill(v === '0' ? E.readout : E.readout_verify, fields);
}

// The readout: what a round costs, then each profile's speedup at this k and its best k.
function explorerLines(fig) {
  const E = fig.E, k = fig.state.k, lines = [roundLine(fig)], rules = fig.trace.rules;
  const rule = rules.find(r => r.id === fig.state.rule);
  if (rule !== rules[0]) lines.unshift(fill(E.under, { rule: rule.name }));  // the accept test goes unsaid
  if (fig.state.m > 1 && widthOf(fig) === 1) lines.push(fill(fig.T.off, { rule: rule.name }));
  fig.trace.profiles.forEach(p => {
    const e = explored(fig, p), best = e.best;
    lines.push(fill(best ? E.profile : E.profile_none, { name: p.name, value: e.values[k - 1], k, best,
      best_value: best ? e.values[best - 1] : '', slower: e.slow[k - 1] ? E.slower : '' }));
  });
  return lines;
}

function renderExplorer(fig) {
  const ui = fig.ui, s = fig.state, k = s.k;
  ui.k.value = String(k);
  ui.k.setAttribute('aria-valuetext', fill(fig.E.k_value, { k }));
  ui.cost.value = String(s.cost);
  ui.rule.value = String(s.rule);
  ui.verify.value = String(s.verify);
  ui.m.value = String(s.m);
  ui.m.setAttribute('aria-valuetext', fill(fig.T.m_value, { m: s.m }));
  ui.mOut.textContent = String(s.m);
  ui.way.value = s.way;
  ui.m.disabled = ui.way.disabled = s.rule !== fig.trace.explorer.tree_rule;
  ui.kOut.textContent = String(k);
  ui.readout.textContent = explorerLines(fig).join(' ');
  ui.bars.replaceChildren(...fig.trace.profiles.map(p => explorerRow(fig, p)));
  fig.root.hidden = false;
}

starts('explorer', '[data-explorer]', startExplorer);

// The speedup explorer: how far to draft, for what a draft step and checking a position cost, under each rule.

const { clamp, figure, fill, node, partsOf, starts, whole } = shared;

const EXPLORER_PARTS = {
  k: '[data-explorer-k]', cost: '[data-explorer-cost]', rule: '[data-explorer-rule]', verify: '[data-explorer-verify]',
  readout: '[data-explorer-readout]', bars: '[data-explorer-bars]', kOut: '[data-explorer-k-out]'
};

function startExplorer(root, trace) {
  const ui = partsOf(root, EXPLORER_PARTS);
  const start = { k: trace.k, cost: Number(ui.cost.value), rule: ui.rule.value, verify: Number(ui.verify.value) };
  const fig = figure(root, trace, start, limitExplorer, renderExplorer);
  fig.ui = ui;
  fig.E = trace.text.explorer;
  ui.k.addEventListener('input', () => { fig.update({ k: ui.k.value }); });
  ui.cost.addEventListener('change', () => { fig.update({ cost: ui.cost.value }); });
  ui.rule.addEventListener('change', () => { fig.update({ rule: ui.rule.value }); });
  ui.verify.addEventListener('change', () => { fig.update({ verify: ui.verify.value }); });
  fig.update({});
  return fig;
}

function limitExplorer(fig) {
  const s = fig.state, ex = fig.trace.explorer;
  s.k = clamp(whole(s.k, 1), 1, fig.trace.k);
  s.cost = clamp(whole(s.cost, 0), 0, ex.costs.length - 1);
  if (!fig.trace.rules.some(r => r.id === s.rule)) s.rule = fig.trace.rules[0].id;
  s.verify = clamp(whole(s.verify, 0), 0, ex.verify.length - 1);
}

// One profile's figures at the chosen rule, verification cost and draft cost: values [k], slow flags [k], best k.
function explored(fig, p) {
  const s = fig.state, sp = p.explorer, r = s.rule, v = s.verify, c = s.cost;
  return { values: sp.values[r][v][c], slow: sp.slow[r][v][c], best: sp.best[r][v][c] };
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
  return wrap;
}

// The noun after a cost in target passes: "1 target pass", "1/2 of a target pass", "3/2 target passes".
function stepsNoun(E, cost) {
  const part = /^(\d+)\/(\d+)$/.exec(cost);
  return cost === '1' ? E.step_one : part && Number(part[1]) < Number(part[2]) ? E.step_part : E.step_many;
}

// What a round costs: today's sentence when checking is free, else the sum k·c + verify_round + k·v.
function roundLine(fig) {
  const E = fig.E, s = fig.state, k = s.k, ex = fig.trace.explorer, v = ex.verify[s.verify];
  const round = ex.round_costs[s.verify][s.cost][k - 1];
  const fields = { k_text: fill(k === 1 ? E.k_one : E.k_many, { k }), cost: ex.cost_text[s.cost], k,
    c: ex.costs[s.cost], one: ex.verify_round, v, verify: ex.verify_text[s.verify], round_cost: round,
    steps: stepsNoun(E, round) };
  return fill(v === '0' ? E.readout : E.readout_verify, fields);
}

// The readout: what a round costs, then each profile's speedup at this k and its best k.
function explorerLines(fig) {
  const E = fig.E, k = fig.state.k, lines = [roundLine(fig)], rules = fig.trace.rules;
  const rule = rules.find(r => r.id === fig.state.rule);
  if (rule !== rules[0]) lines.unshift(fill(E.under, { rule: rule.name }));  // the accept test goes unsaid
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
  ui.kOut.textContent = String(k);
  ui.readout.textContent = explorerLines(fig).join(' ');
  ui.bars.replaceChildren(...fig.trace.profiles.map(p => explorerRow(fig, p)));
  fig.root.hidden = false;
}

starts('explorer', '[data-explorer]', startExplorer);

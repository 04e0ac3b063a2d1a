// The accept-test lab: the reader drives u (and, on a rejection, the replacement draw);
// the thresholds and cut points the build precomputed decide.

const {
  acceptStrip, bindTally, clamp, cloned, decoded, eighthsBars, eighthsBroken, eighthsFacts, figure, fill, FLOATS, fracValue, ids,
  limitTally, node, offerBack, overlapRows, partsOf, renderTally, segmentAt, starts, variantPieces, whole,
  bigDecimal, bigEighths, bigText, EXACT, freshChain, renderTrees, TREE_FLOATS, treeRoutes, treeSetup
} = shared;

const LAB_PARTS = {
  select: '[data-lab-position]', tokens: '[data-lab-tokens]', bars: '[data-lab-bars]', u: '[data-lab-u]',
  strip: '[data-lab-strip]', verdict: '[data-lab-verdict]', ghost: '[data-lab-verdict-ghost]',
  residual: '[data-lab-residual]', r: '[data-lab-r]', segments: '[data-lab-segments]', rep: '[data-lab-rep]', repGhosts: '[data-lab-rep-ghosts]',
  rules: '[data-lab-rules]', own: '[data-lab-own]', grid: '[data-lab-own-grid]', row: '[data-lab-own-row]', off: '[data-lab-off]',
  rate: '[data-lab-rate]', test: '[data-lab-test]', sampler: '[data-lab-sampler]', variantAt: '[data-lab-variant-at]',
  candidates: '[data-lab-candidates]', way: '[data-lab-way]', treesAt: '[data-lab-trees-at]', treeStep: '[data-lab-trees-step]',
  note: '[data-lab-note]'
};

// "divergent/4" -> that profile's position 4: {prof, pos, n}; `where` must name one (limitLab sees to it).
function labAt(trace, where) {
  const parts = where.split('/'), prof = trace.profiles.find(x => x.id === parts[0]);
  return { prof, pos: prof.positions[Number(parts[1]) - 1], n: Number(parts[1]) };
}

// A position of a known profile, its number clamped to the profile's positions; the lab's opening one otherwise.
function limitWhere(trace, where) {
  const parts = String(where).split('/'), prof = trace.profiles.find(x => x.id === parts[0]);
  return prof ? `${prof.id}/${clamp(whole(parts[1], 1), 1, prof.positions.length)}` : trace.lab.where;
}

// The tokens the draft can propose at a position: those with an accept probability; a greedy draft only its top one.
function proposable(pos, rule) {
  return rule === 'greedy-draft' ? [pos.greedy] : ids(pos.accept).filter(y => pos.accept[y] !== null);
}

function startLab(root, trace) {
  const d = trace.lab, start = { where: d.where, token: d.token, u: Number(d.u), r: 0.5, rule: trace.rules[0].id, sampler: 0,
    p: [], q: [], m: 1, way: d.ways[0].id, chain: [] };
  const fig = figure(root, trace, Object.assign(start, ownFromHash(location.hash)), limitLab, renderLab);
  fig.ui = partsOf(root, LAB_PARTS);
  fig.legend = fig.ui.tokens.querySelector('legend');
  fig.L = trace.text.lab;
  fig.O = trace.text.own;
  fig.A = trace.text.accept;
  bindLab(fig);
  bindTally(fig);
  fig.update({});
  if (fig.state.where === OWN_WHERE) root.scrollIntoView();  // a shared link to an edited position opens on it
  return fig;
}

// The position exists (or is the reader's own, clamped to whole eighths), the token is one the rule can propose
// there (else the first it can), draws stay in [0, 1), and the tally is the position's and the rule's own.
// fig.pos holds the position's facts: the build's, or eighths.js's for the reader's own.
function limitLab(fig) {
  const s = fig.state, size = fig.trace.vocabulary.length;
  const rules = fig.trace.rules, first = rules[0].id;  // the accept test
  if (!rules.some(r => r.id === s.rule)) s.rule = first;
  const samplers = fig.trace.samplers.length + fig.trace.lab.tree_broken.length;  // then the broken ways of several candidates
  s.sampler = s.rule !== first ? 0 : clamp(whole(s.sampler, 0), 0, samplers - 1);  // broken ones bend the accept test
  s.p = eighthsList(s.p, size);
  s.q = eighthsList(s.q, size);
  if (s.where !== OWN_WHERE) s.where = limitWhere(fig.trace, s.where);
  fig.pos = s.where === OWN_WHERE ? eighthsFacts(s.p, s.q, fig.trace.text.own) : labAt(fig.trace, s.where).pos;
  fig.off = s.where === OWN_WHERE ? offText(s, fig.trace.text.own) : '';
  const ok = proposable(fig.pos, s.rule);
  s.token = Number(s.token);
  if (ok.indexOf(s.token) < 0) s.token = ok.length ? ok[0] : 0;
  s.u = clamp(Number(s.u) || 0, 0, 0.999);
  s.r = clamp(Number(s.r) || 0, 0, 0.999);
  fig.broken = s.sampler && s.sampler < fig.trace.samplers.length ? brokenHere(fig) : null;
  limitTrees(fig);
  limitTally(s, size, [s.where, s.rule, s.sampler, s.m, s.way].concat(s.where === OWN_WHERE ? [s.p, s.q] : []).join('/'));
}

// Several candidates: m is 1 to max_candidates, 1 under another rule than the accept test or a one-candidate broken
// sampler, at least 2 under a broken way of several; the way is one of trees.SPECS. At m ≥ 2 fig.tree holds the
// way's figures (its A: the build's at a shipped position, exact here at the reader's own), and a broken way's
// exact distribution is fig.broken, as a one-candidate broken sampler's.
function limitTrees(fig) {
  const s = fig.state, lab = fig.trace.lab, n = fig.trace.samplers.length, broken = s.sampler >= n ? s.sampler - n : -1;
  s.m = clamp(whole(s.m, 1), 1, lab.max_candidates);
  if (!lab.ways.some(w => w.id === s.way)) s.way = lab.ways[0].id;
  if (s.rule !== fig.trace.rules[0].id) s.m = 1;
  else if (broken >= 0) s.m = Math.max(2, s.m);
  else if (s.sampler > 0) s.m = 1;
  const chain = [].concat(s.chain).map(Number).filter(x => x >= 0 && x < 1);
  s.chain = chain.length === 2 * lab.max_candidates + 1 ? chain : new Array(2 * lab.max_candidates + 1).fill(0.5);
  fig.tree = null;
  if (s.m < 2 || fig.off) return;
  const way = broken >= 0 ? lab.tree_broken[broken] : lab.ways.find(w => w.id === s.way);
  const key = [s.where, s.m, way.id].concat(s.where === OWN_WHERE ? [s.p, s.q] : []).join('/');
  if (fig.treeKey !== key) fig.treeCache = treeFigures(fig, way, broken);
  fig.treeKey = key;
  fig.tree = fig.treeCache;
  if (broken >= 0) fig.broken = fig.tree.broken;
}

// The figures of m candidates under a way at the position shown: the float shares and set-up the tally draws with,
// A for a correct way, and for a broken one what it commits, as brokenHere gives a one-candidate sampler's.
function treeFigures(fig, way, broken) {
  const s = fig.state, lab = fig.trace.lab, own = s.where === OWN_WHERE, k = s.m - 2;
  const P = fig.pos.target.map(EXACT.of), Q = fig.pos.draft.map(EXACT.of);
  const p = P.map(EXACT.toFloat), q = Q.map(EXACT.toFloat), floats = treeRoutes(p, q, s.m, way, TREE_FLOATS, lab.typical);
  const exact = own ? treeRoutes(P, Q, s.m, way, EXACT, lab.typical) : null;
  const t = { way, P, Q, shares: floats.kept.map((a, y) => [a, floats.drawn[y]]), setup: treeSetup(p, q, s.m, way, lab.typical),
    denom: BigInt(own ? 8 : lab.denoms[s.where.split('/')[0]]) };  // the one p and q are written over
  if (broken < 0) {
    t.a = own ? bigEighths(exact.acceptance) : lab.trees[s.where].a[way.id][s.m - 1];
    return t;
  }
  const json = own ? exactBroken(exact.committed, P) : lab.trees[s.where].broken[broken][k], shows = lab.tree_shows[broken][k];
  t.broken = { spec: way, committed: json[0], tv: json[1], tv_f: json[2], signs: json[3], shares: t.shares, shows,
    shows_tv: shows ? lab.trees[shows].broken[broken][k][2] : '' };
  return t;
}

// What a broken way commits at the reader's own position, exact, as the trace writes a shipped position's
// (figures/lab.py's Broken.json): [committed texts, TV as a fraction, TV to 3 decimals, signs].
function exactBroken(c, P) {
  const A = EXACT, gaps = c.map((x, y) => A.less(x, P[y]) ? A.sub(P[y], x) : A.sub(x, P[y]));
  const tv = A.div(gaps.reduce((sum, g) => A.add(sum, g), A.zero), [2n, 1n]);
  const signs = c.map((x, y) => A.less(P[y], x) ? '+' : A.less(x, P[y]) ? '-' : '=');
  return [c.map(bigEighths), bigText(tv), bigDecimal(tv, 3), signs.join('')];
}

// The chosen broken sampler here: what it commits, exact (the build's at a shipped position, variants.js's at the
// reader's own), and its pieces in floats, which the tally draws with.
function brokenHere(fig) {
  const s = fig.state, spec = fig.trace.samplers[s.sampler], own = s.where === OWN_WHERE;
  const exact = own ? eighthsBroken(spec, s.p, s.q) : fig.trace.lab.broken[s.where][s.sampler - 1];
  const p = fig.pos.target.map(fracValue), q = fig.pos.draft.map(fracValue);
  const shows = fig.trace.lab.shows[s.sampler - 1];
  return { spec, committed: exact[0], tv: exact[1], tv_f: exact[2], signs: exact[3],
           pieces: variantPieces(spec, p, q, FLOATS), shows, shows_tv: shows ? fig.trace.lab.broken[shows][s.sampler - 1][2] : '' };
}

function renderLab(fig) {
  const s = fig.state, pos = fig.pos, ui = fig.ui, ok = !fig.off;
  ui.select.value = s.where;
  ui.sampler.value = String(s.sampler);
  renderTreeControls(fig);
  ui.rules.querySelectorAll('input').forEach(input => { input.checked = input.value === s.rule; });
  renderOwn(fig);
  renderLabTokens(fig, pos);
  ui.bars.replaceChildren(...overlapRows(pos, fig.trace.vocabulary, ok ? s.token : -1, fig.trace.text.walkthrough.bar_numbers));
  // the check by hand is the rule's, of one candidate or of several; a broken sampler shows what it commits instead
  const hands = ok && !fig.broken && s.m === 1;
  ui.tokens.hidden = ui.test.hidden = ui.rate.hidden = !hands;
  fig.tally.drawU.hidden = !!fig.broken || s.m > 1;  // several candidates draw by their own button
  renderTrees(fig, ok && !!fig.tree && !fig.broken);
  const passed = !hands || renderLabTest(fig, pos);
  // where u can still reject, the replacement keeps its room while u passes: Draw u never moves the buttons below
  ui.residual.hidden = !hands || !fig.canFail || s.rule === 'exact-match';
  ui.residual.classList.toggle('is-held', passed);
  const greedy = s.rule === 'greedy-draft';
  if (!ui.residual.hidden) renderLabResidual(fig, greedy ? pos.greedy_cuts : pos.cuts, greedy ? pos.greedy_res : pos.residual);
  if (hands) renderLabRate(fig, pos);
  renderLabVariant(fig, ok);
  renderTally(fig, pos);
  renderLabLink(fig);
  announcePick(fig);
  fig.root.hidden = false;
}

// Tells the page (the identity figure) the position and token shown, with their facts, whenever they change: at the
// reader's own position also the eighths typed, and nothing while those do not sum to 8/8.
function announcePick(fig) {
  const s = fig.state, own = s.where === OWN_WHERE, picked = [s.where, s.token].concat(own ? [s.p, s.q] : []).join('/');
  if (fig.off || picked === fig.picked) return;
  fig.picked = picked;
  document.dispatchEvent(new CustomEvent('lab-pick', { detail: { where: s.where, token: s.token, pos: fig.pos, p: s.p, q: s.q } }));
}

// The template's legend stays; the radios follow the position and the rule.
function renderLabTokens(fig, pos) {
  const vocab = fig.trace.vocabulary, radios = proposable(pos, fig.state.rule).map(y => {
    const label = node('label', 'fig-radio'), input = node('input');
    input.type = 'radio'; input.name = 'lab-token'; input.value = String(y); input.checked = y === fig.state.token;
    label.append(input, ' ', node('bdi', '', vocab[y]));
    return label;
  });
  fig.ui.tokens.replaceChildren(...[fig.legend].concat(radios));
}

// What the single check shows under each rule, by its id: u passes in [at, at + w), and the drawn token y when u
// itself draws it (exact match draws y from p's cut points).
const LAB_CHECKS = {
  'accept-test': (pos, x, u) => ({ at: 0, w: pos.accept_f[x], y: u < pos.accept_f[x] ? x : -1 }),
  'greedy-draft': (pos, x, u) => ({ at: 0, w: pos.greedy_f, y: u < pos.greedy_f ? x : -1 }),
  'exact-match': (pos, x, u) => {
    const lo = x ? pos.p_cuts[x - 1] : 0;
    return { at: lo, w: pos.p_cuts[x] - lo, y: segmentAt(pos.p_cuts, u) };
  }
};

function renderLabTest(fig, pos) {
  const ui = fig.ui, s = fig.state, x = s.token, labels = fig.trace.labels, u = s.u.toFixed(3);
  const c = LAB_CHECKS[s.rule](pos, x, s.u), W = fig.trace.text.rule_words[s.rule], passed = c.y === x, lo = c.at.toFixed(3);
  const f = { u, worked: pos.worked[x], accept: s.rule === 'greedy-draft' ? pos.rates[s.rule] : pos.accept[x], tok: labels[x],
    lo, hi: (c.at + c.w).toFixed(3), rep: labels[c.y] };
  ui.u.value = u;
  ui.u.setAttribute('aria-valuetext', fill(fig.trace.text.walkthrough.u, f));
  // exact match keeps the proposal where u lands in its segment of p; the other rules where u is below a bound
  const range = s.rule === 'exact-match' ? { lo: f.lo, hi: f.hi } : {};
  acceptStrip(ui.strip, Object.assign({ at: c.at, a: c.w, u, bound: f.accept, below: passed, kept: passed }, range), fig.A);
  fig.canFail = c.w < 1;
  ui.verdict.className = `lab-verdict ${passed ? 'is-accepted' : 'is-rejected'}`;
  ui.verdict.replaceChildren(node('strong', '', passed ? fig.L.accepted : fig.L.rejected), fill(passed ? W.pass : W.fail, f));
  // the other verdict, laid out unseen in the same cell: the cell is as tall as the taller of the two, so the
  // buttons below stay put when u crosses the bound
  const other = node('p', 'lab-verdict');
  other.append(node('strong', '', passed ? fig.L.rejected : fig.L.accepted), fill(passed ? W.fail : W.pass, f));
  ui.ghost.replaceChildren(other);
  return passed;
}

// The replacement strip: `cuts` are the cumulative shares of the distribution it draws from, `shares` its values.
function renderLabResidual(fig, cuts, shares) {
  const ui = fig.ui, y = segmentAt(cuts, fig.state.r), r = fig.state.r.toFixed(3), labels = fig.trace.labels;
  const lo = (y ? cuts[y - 1] : 0).toFixed(3), hi = cuts[y].toFixed(3);
  ui.r.value = r;
  ui.r.setAttribute('aria-valuetext', fill(fig.L.r_text, { r }));
  acceptStrip(ui.segments, { cuts, names: fig.trace.vocabulary, shares, chosen: y, u: r, lo, hi, tok: labels[y] }, fig.A);
  ui.rep.textContent = fill(fig.L.replacement, { r, rep: labels[y], lo, hi });
  // every token r could draw says its sentence unseen in the same cell: the cell is as tall as the longest, so the
  // buttons below stay put whichever token a draw lands on
  ui.repGhosts.replaceChildren(...cuts.map((c, z) => (z ? cuts[z - 1] : 0) < c ? node('p', 'lab-verdict', fill(fig.L.replacement,
    { r, rep: labels[z], lo: (z ? cuts[z - 1] : 0).toFixed(3), hi: c.toFixed(3) })) : null).filter(Boolean));
}

// How often the chosen rule passes a proposal here, exact; under the accept test, every token's accept probability.
function renderLabRate(fig, pos) {
  const O = fig.O, labels = fig.trace.labels, none = fig.trace.text.walkthrough.no_token;
  const list = pos.accept.map((a, y) => fill(O.item, { tok: labels[y], accept: a === null ? none : a }));
  const rule = fig.state.rule, other = rule !== fig.trace.rules[0].id;  // the bars' key is the accept test's
  fig.ui.rate.textContent = fill(fig.trace.text.rule_words[rule].rate,
    { rate: pos.rates[rule], list: list.join(O.sep), tok: labels[pos.greedy] }) + (other ? O.key_other : '');
}

function bindLab(fig) {
  const ui = fig.ui;
  ui.select.addEventListener('change', () => {
    const v = ui.select.value, own = v === OWN_WHERE;
    // a shipped position opens on the data file's own proposal there
    choose(fig, ui.select, own && fig.state.where !== OWN_WHERE ? ownStart(fig.pos, fig.trace.vocabulary.length)
      : own ? { where: v } : { where: v, token: labAt(fig.trace, limitWhere(fig.trace, v)).pos.proposal });
  });
  ui.rules.addEventListener('change', e => { choose(fig, ui.rules, { rule: e.target.value, sampler: 0, m: 1 }); });
  ui.sampler.addEventListener('change', () => {
    const v = Number(ui.sampler.value), several = v >= fig.trace.samplers.length;  // a broken way of several candidates
    choose(fig, ui.sampler, { sampler: v, rule: fig.trace.rules[0].id, m: several ? Math.max(2, fig.state.m) : v ? 1 : fig.state.m });
  });
  ui.candidates.addEventListener('change', () => {
    const m = Number(ui.candidates.value), s = fig.state, n = fig.trace.samplers.length;
    const keep = s.sampler >= n ? m > 1 : s.sampler === 0 || m === 1;  // a broken sampler stays while it still applies
    choose(fig, ui.candidates, { m, rule: fig.trace.rules[0].id, sampler: keep ? s.sampler : 0, chain: freshChain(fig) });
  });
  ui.way.addEventListener('change', () => { choose(fig, ui.way, { way: ui.way.value, chain: freshChain(fig) }); });
  ui.grid.addEventListener('input', e => {
    const t = e.target, patch = {};
    patch[t.dataset.labOwnValue] = fig.state[t.dataset.labOwnValue].slice();
    patch[t.dataset.labOwnValue][Number(t.dataset.y)] = t.value;
    fig.update(patch);
  });
  window.addEventListener('hashchange', () => { const own = ownFromHash(location.hash); if (own) fig.update(own); });
  ui.tokens.addEventListener('change', e => { fig.update({ token: Number(e.target.value) }); });
  ui.u.addEventListener('input', () => { fig.update({ u: ui.u.value }); });
  ui.r.addEventListener('input', () => { fig.update({ r: ui.r.value }); });
  // "Try it here" links in the Positions section open the lab at their position, and leave a way back to the link.
  document.addEventListener('click', e => {
    const a = e.target.closest && e.target.closest('[data-lab-open]');
    if (!a) return;
    offerBack(fig.root.querySelector('[data-lab-back]'), a);
    const parts = a.dataset.labOpen.split('/');
    // links name accept-test proposals, and the u that shows their point (a rejecting one where chance decides)
    fig.update({ where: `${parts[0]}/${parts[1]}`, token: Number(parts[2]), rule: fig.trace.rules[0].id, u: parts[3] === undefined ? fig.state.u : parts[3] });
  });
}

// A control the reader changed (`control`: its element in fig.ui) and what it sets; the controls that setting
// moves besides (the rule, the sampler, the candidates, the draw menu's lock) are said in a sentence each beside them.
function choose(fig, control, patch) {
  const s = fig.state, before = { rule: s.rule, sampler: s.sampler, m: s.m };
  fig.update(patch);
  fig.ui.note.textContent = resetText(fig, control, before);
}

// What moved besides the control chosen, and why: "" when nothing did. Each sentence may name a sampler: the one
// chosen, or the one the change put back.
function resetText(fig, control, before) {
  const s = fig.state, ui = fig.ui, R = fig.trace.text.trees.resets, n = fig.trace.samplers.length, lab = fig.trace.lab, out = [];
  if (control !== ui.rules && s.rule !== before.rule) out.push([control === ui.candidates ? R.rule_for_m : R.rule_for_sampler]);
  if (control !== ui.candidates && s.m !== before.m) {
    out.push(control === ui.rules ? [R.m_for_rule] : s.sampler >= n ? [R.m_for_tree] : [R.m_for_one, s.sampler]);
  }
  if (control !== ui.sampler && s.sampler !== before.sampler) {
    const back = before.sampler >= n ? R.sampler_for_tree : R.sampler_for_one;
    out.push(control === ui.rules ? [R.sampler_for_rule] : [back, before.sampler]);
  }
  if (control === ui.sampler && s.sampler >= n && s.sampler !== before.sampler) out.push([R.way_for_tree, s.sampler]);
  return out.map(([pattern, v]) => {
    const broken = v >= n ? lab.tree_broken[v - n] : null, named = broken || fig.trace.samplers[v || 0];
    const way = broken ? lab.ways[broken.replace ? 0 : 1].name : '';
    return fill(pattern, { rule: fig.trace.samplers[0].name, m: s.m, name: named.name, way });
  }).join(' ');
}

// The two controls of several candidates: the way applies only at m ≥ 2 under a correct way (a broken way of several
// candidates fixes its own: it shows it).
function renderTreeControls(fig) {
  const s = fig.state, ui = fig.ui, n = fig.trace.samplers.length, broken = s.sampler >= n ? fig.trace.lab.tree_broken[s.sampler - n] : null;
  ui.candidates.value = String(s.m);
  ui.way.value = broken ? fig.trace.lab.ways[broken.replace ? 0 : 1].id : s.way;
  ui.way.disabled = s.m < 2 || !!broken;
}

/* ---------- a broken sampler: what it commits here, beside p ---------- */

// The committed distribution against p as overlap bars (solid: shared; hatched: p's share it misses; the draft's
// colour: what it commits beyond p), its distance from p, and which tokens gain or lose, and why.
function renderLabVariant(fig, ok) {
  const b = fig.broken, L = fig.L;
  if (!b || !ok) { if (fig.variant) fig.variant.root.remove(); return; }
  // made from its template only while a broken sampler is chosen: the page at rest keeps none of its elements
  const ui = fig.variant || (fig.variant = cloned(fig.ui.variantAt, { text: '[data-lab-variant-text]', bars: '[data-lab-variant-bars]' }));
  if (!ui.root.isConnected) fig.ui.variantAt.after(ui.root);
  const spec = b.spec, p = fig.pos.target, c = b.committed, name = spec.name;
  const pos = { target: p, draft: c, bars: eighthsBars(p.map(fracValue), c.map(fracValue)) };
  ui.bars.replaceChildren(...overlapRows(pos, fig.trace.vocabulary, -1, L.variant_numbers));
  ui.text.textContent = (b.tv === '0' ? '' : `${fill(L.variant_caption, { name, tv: b.tv, tv_f: b.tv_f })} `) +
    changeText(fig, b);
}

// Which tokens gain and which lose, and why; where nothing moves, a shipped position that shows the fault.
function changeText(fig, b) {
  const L = fig.L, labels = fig.trace.labels, pick = sign => andList(ids(labels).filter(y => b.signs[y] === sign).map(y => fill(L.quoted, { tok: labels[y] })), L);
  const gain = pick('+'), lose = pick('-'), count = sign => b.signs.split(sign).length - 1;
  if (gain) {
    const f = { gain, lose, why: b.spec.why, gain_verb: count('+') === 1 ? L.gains : L.gain,
              lose_verb: count('-') === 1 ? L.loses : L.lose };
    return fill(lose ? L.variant_change : L.variant_gain_only, f);
  }
  if (!b.shows) return fill(L.variant_never, { name: b.spec.name });
  const parts = b.shows.split('/'), prof = fig.trace.profiles.find(x => x.id === parts[0]);
  return fill(L.variant_same, { name: b.spec.name, tv: b.shows_tv, where: fill(L.variant_where, { name: prof.name, pos: parts[1] }) });
}

// "a", "a and b", "a, b and c", as text.and_list writes a list.
function andList(items, L) {
  return items.length < 2 ? items.join('') : items.slice(0, -1).join(L.list_sep) + L.and + items[items.length - 1];
}

/* ---------- "Your own position": p and q in whole eighths, the select's last option ---------- */

const OWN_WHERE = 'lab-own';

// Whole eighths 0-8, one per token: missing or bad entries are 0.
function eighthsList(list, size) {
  return ids(new Array(size).fill(0)).map(y => clamp(whole(list[y], 0), 0, 8));
}

// "" while p and q each sum to 8/8; otherwise what to do about it.
function offText(s, O) {
  return [['p', s.p], ['q', s.q]].map(d => {
    const sum = d[1].reduce((a, b) => a + b, 0);
    return sum === 8 ? '' : fill(sum < 8 ? O.off : O.over, { d: d[0], sum, gap: Math.abs(8 - sum) });
  }).filter(Boolean).join('; ');
}

// A shipped distribution's strings in whole eighths, or null when one is not a multiple of 1/8.
function eighthsOf(dist) {
  const e = dist.map(t => fracValue(t) * 8);
  return e.every(v => Math.abs(v - Math.round(v)) < 1e-9) ? e.map(Math.round) : null;
}

// 8 eighths spread as evenly as the tokens allow, the remainder to the first tokens (or the last, reversed).
function spread(size, reversed) {
  const list = ids(new Array(size).fill(0)).map(y => Math.floor(8 / size) + (y < 8 % size ? 1 : 0));
  return reversed ? list.reverse() : list;
}

// The reader's own position starts from the shipped one last shown, or from an even spread when that one is
// not in eighths.
function ownStart(pos, size) {
  const p = eighthsOf(pos.target), q = eighthsOf(pos.draft);
  return p && q ? { where: OWN_WHERE, p, q } : { where: OWN_WHERE, p: spread(size, false), q: spread(size, true) };
}

// "#lab/p=4.1.0.0.2.1/q=3.1.1.1.1.1" -> the reader's own position; null for any other fragment (limitLab clamps).
function ownFromHash(hash) {
  const m = /^#lab\/p=([\d.]{0,40})\/q=([\d.]{0,40})$/.exec(decoded(hash));
  return m ? { where: OWN_WHERE, p: m[1].split('.'), q: m[2].split('.') } : null;
}

// The fragment follows the reader's own position; leaving it drops the stale link.
function renderLabLink(fig) {
  const s = fig.state, now = decoded(location.hash);
  const want = s.where === OWN_WHERE ? ['#lab', `p=${s.p.join('.')}`, `q=${s.q.join('.')}`].join('/') : ownFromHash(now) ? '#lab' : now;
  if (want !== now) history.replaceState(history.state, '', want);
}

// The inputs exist only while the reader's own position is shown (cloned from the template's row): the page at
// rest stays small. Draws wait until both distributions sum to 8/8.
function renderOwn(fig) {
  const ui = fig.ui, s = fig.state, on = s.where === OWN_WHERE;
  fig.root.querySelectorAll('[data-lab-draw-u], [data-lab-tally-draw]').forEach(b => { b.disabled = !!fig.off; });
  ui.own.hidden = ui.off.hidden = !on;
  ui.off.textContent = fig.off;
  if (!on) { ui.grid.replaceChildren(); return; }
  if (!ui.grid.firstChild) ownInputs(fig);
  ui.grid.querySelectorAll('input').forEach(input => {
    const v = s[input.dataset.labOwnValue][Number(input.dataset.y)];
    if (input.value === '' || Number(input.value) !== v) input.value = String(v);
  });
}

function ownInputs(fig) {
  const O = fig.O, ui = fig.ui;
  ui.grid.append(node('span'), node('span', '', O.col_p), node('span', '', O.col_q));
  fig.trace.vocabulary.forEach((tok, y) => {
    const row = ui.row.content.cloneNode(true), inputs = row.querySelectorAll('input');
    row.querySelector('bdi').textContent = tok;
    inputs[0].setAttribute('aria-label', fill(O.p_label, { tok }));
    inputs[1].setAttribute('aria-label', fill(O.q_label, { tok }));
    inputs[0].dataset.y = inputs[1].dataset.y = String(y);
    ui.grid.append(row);
  });
}

starts('lab', '[data-lab]', startLab);

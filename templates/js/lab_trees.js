// Several candidates per position in the lab: speculative/trees.py's twin. At one position the draft proposes m
// candidates, tried in turn against a target r that shrinks: r starts as p, candidate j (from q_j) is kept with
// chance min(1, r/q_j), a rejection makes r max(0, r − q_j) renormalised, and after m rejections the token is drawn
// from r. The arithmetic is written once over a number system: exact fractions of BigInts (the reader's own position,
// whose A and committed distribution the page prints; tests hold them equal to trees.position fraction for fraction),
// or floats (the tally's draws and the bars' shares, for drawing only). A shipped position's exact figures are the
// build's.

const { acceptStrip, cloned, eighthsBars, fill, firstLargest, FLOATS, fracValue, inverseCdf, node, overlapRows, sumIn } = shared;

function bigGcd(a, b) {
  while (b) [a, b] = [b, a % b];
  return a < 0n ? -a : a;
}

// n/d as a reduced [n, d] pair of BigInts.
function big(n, d) { const g = bigGcd(n, d) || 1n; return [n / g, d / g]; }

// The exact system: a number is a reduced [numerator, denominator] pair of BigInts.
const EXACT = {
  zero: [0n, 1n], one: [1n, 1n],
  add: (a, b) => big(a[0] * b[1] + b[0] * a[1], a[1] * b[1]),
  sub: (a, b) => big(a[0] * b[1] - b[0] * a[1], a[1] * b[1]),
  mul: (a, b) => big(a[0] * b[0], a[1] * b[1]),
  div: (a, b) => big(a[0] * b[1], a[1] * b[0]),
  less: (a, b) => a[0] * b[1] < b[0] * a[1],
  of: text => { const parts = String(text).split('/'); return big(BigInt(parts[0]), BigInt(parts[1] || 1)); },
  // a double is m·2^e: doubling it until it is whole is exact, so this is its value as Python's Fraction(x) gives it
  fromFloat: x => { let n = x, d = 1n; while (!Number.isInteger(n)) { n *= 2; d *= 2n; } return big(BigInt(n), d); },
  toFloat: a => Number(a[0]) / Number(a[1])
};

const TREE_FLOATS = Object.assign({}, FLOATS, { of: fracValue, fromFloat: x => x, toFloat: x => x });

// "3/8", "1", "0": a fraction as Python's str(Fraction) writes it.
function bigText(a) { return a[1] === 1n ? String(a[0]) : `${a[0]}/${a[1]}`; }

// A probability as the build writes it over the position's denominator d, a BigInt (prob_str in text.py): "2/8" over
// 8, or reduced ("7/16", "1/3") where it is not a multiple of 1/d, and reduced too over a denominator above 32.
function bigOver(a, d) {
  return a[0] === 0n || a[0] === a[1] || d > 32n || d % a[1] ? bigText(a) : `${a[0] * (d / a[1])}/${d}`;
}

// ... over the denominator 8, the reader's own position's.
function bigEighths(a) { return bigOver(a, 8n); }

// A fraction of 0 to 1 rounded half-up to `places` decimals, from the exact value (as text.decimal_str).
function bigDecimal(a, places) {
  const scale = 10n ** BigInt(places), n = (2n * a[0] * scale + a[1]) / (2n * a[1]);
  return (Number(n) / Number(scale)).toFixed(places);
}

function normalisedT(v, A) {
  const total = sumIn(v, A);
  return A.less(A.zero, total) ? v.map(x => A.div(x, total)) : null;
}

// max(0, r − q) renormalised: the target the next candidate is checked against; null when r ≤ q everywhere.
function shrunkT(r, q, A) { return normalisedT(r.map((a, y) => A.less(q[y], a) ? A.sub(a, q[y]) : A.zero), A); }

// q without the removed tokens, renormalised; null when nothing is left to draw.
function withoutT(q, removed, A) { return normalisedT(q.map((b, y) => removed.indexOf(y) < 0 ? b : A.zero), A); }

function keepT(a, b, A) { const x = A.div(a, b); return A.less(x, A.one) ? x : A.one; }

// min(eps, delta · exp(−H(p))), in floats as trees.typical_threshold computes it.
function typicalThreshold(p, typical) {
  let h = 0;
  p.forEach(a => { if (a) h += a * Math.log(a); });
  return Math.min(typical[0], typical[1] * Math.exp(-h));
}

// Every path of a position verified with m candidates under a way (trees.paths), in A: per token, the chance it is
// committed by a kept candidate (kept) and by the last draw (drawn); their sum, committed; and A, the chance some
// candidate is kept. `typical` is trees.TYPICAL.
function treeRoutes(p, q, m, way, A, typical) {
  const out = { kept: p.map(() => A.zero), drawn: p.map(() => A.zero) };
  if (way.typical) typicalRoutes(p, q, m, A, out, typical);
  else if (way.replace) treeLevels({ p, q, m, way, A, out });
  else treeWalk({ p, q, m, way, A, out }, p, [], A.one);
  out.committed = out.kept.map((k, y) => A.add(k, out.drawn[y]));
  out.acceptance = sumIn(out.kept, A);
  return out;
}

// With replacement every candidate is drawn from q, and a rejection leaves the same r whichever candidate it was:
// the paths fold into one chain of levels, each reached with the chance that every candidate before it failed.
function treeLevels(c) {
  const A = c.A, way = c.way;
  let r = c.p, reach = A.one;
  for (let j = 0; j < c.m; j++) {
    const against = way.against_p ? c.p : r;
    let miss = A.zero;
    c.q.forEach((qx, x) => {
      if (!A.less(A.zero, qx)) return;
      const keep = keepT(against[x], qx, A);
      c.out.kept[x] = A.add(c.out.kept[x], A.mul(A.mul(reach, qx), keep));
      miss = A.add(miss, A.mul(qx, A.sub(A.one, keep)));
    });
    reach = A.mul(reach, miss);
    if (!way.against_p) r = shrunkT(r, c.q, A) || r;
  }
  addDrawn(c, way.against_p ? shrunkT(c.p, c.q, A) || r : r, reach);
}

// One node of the paths without replacement: target r, the candidates tried so far, the chance of getting here. A
// rejection leaves the same next r whichever candidate it was, so the last candidate's rejections fold into one draw.
function treeWalk(c, r, tried, chance) {
  const A = c.A, qj = withoutT(c.q, tried, A);
  if (!qj) { addDrawn(c, r, chance); return; }  // nothing left to draw: the token comes from r
  const check = c.way.plain_q ? c.q : qj, next = shrunkT(r, check, A) || r, last = tried.length === c.m - 1;
  let miss = A.zero;
  qj.forEach((qx, x) => {
    if (!A.less(A.zero, qx)) return;
    const keep = keepT(r[x], check[x], A), w = A.mul(chance, qx);
    c.out.kept[x] = A.add(c.out.kept[x], A.mul(w, keep));
    if (!A.less(keep, A.one)) return;
    const away = A.mul(w, A.sub(A.one, keep));
    if (last) miss = A.add(miss, away);
    else treeWalk(c, next, tried.concat([x]), away);
  });
  if (last) addDrawn(c, next, miss);
}

function addDrawn(c, r, chance) {
  r.forEach((a, y) => { c.out.drawn[y] = c.A.add(c.out.drawn[y], c.A.mul(chance, a)); });
}

// Typical acceptance (Medusa): the first of m candidates from q whose p passes the threshold is kept; if none does,
// the target's most likely token is taken.
function typicalRoutes(p, q, m, A, out, typical) {
  const t = A.fromFloat(typicalThreshold(p.map(A.toFloat), typical));
  const passes = p.map((a, y) => A.less(t, a) && A.less(A.zero, q[y]));
  const fail = sumIn(q.filter((b, y) => !passes[y]), A);
  let miss = A.one;
  for (let j = 0; j < m; j++) {
    q.forEach((b, y) => { if (passes[y]) out.kept[y] = A.add(out.kept[y], A.mul(miss, b)); });
    miss = A.mul(miss, fail);
  }
  const top = firstLargest(p, A);
  out.drawn[top] = A.add(out.drawn[top], miss);
}

/* ---------- the tally's draws: one run of the whole position per draw, in floats ---------- */

// What every draw at a position reads: p and q as floats, m, the way, and typical acceptance's test.
function treeSetup(p, q, m, way, typical) {
  const t = typicalThreshold(p, typical);
  return { p, q, m, way, passes: p.map((a, y) => a > t && q[y] > 0), top: firstLargest(p, FLOATS),
           fixP: shrunkT(p, q, FLOATS) || p };
}

// One run from the uniforms u[i..i + 2m]: u[i + 2j] draws candidate j, u[i + 2j + 1] checks it, u[i + 2m] draws the
// last token. It counts each candidate in `prop` and returns the token, as y when a candidate was kept, else −1 − y.
function treeDraw(c, u, i, prop) {
  const F = FLOATS, way = c.way, tried = [];
  let r = c.p;
  for (let j = 0; j < c.m; j++) {
    const qj = way.replace ? c.q : withoutT(c.q, tried, F);
    if (!qj) break;
    const x = inverseCdf(qj, u[i + 2 * j]);
    prop[x] += 1;
    if (way.typical ? c.passes[x] : u[i + 2 * j + 1] < keepT((way.against_p ? c.p : r)[x], (way.plain_q ? c.q : qj)[x], F)) return x;
    if (!way.against_p && !way.typical) r = shrunkT(r, way.plain_q ? c.q : qj, F) || r;
    tried.push(x);
  }
  if (way.typical) return -1 - c.top;
  return -1 - inverseCdf(way.against_p ? c.fixP : r, u[i + 2 * c.m]);
}

// n runs: the counts of each token proposed, committed by a kept candidate, and committed by the last draw.
function drawTree(c, n, uniforms) {
  const acc = c.p.map(() => 0), rep = acc.slice(), prop = acc.slice(), step = 2 * c.m + 1;
  const u = uniforms(new Float64Array(step * n));
  for (let i = 0; i < u.length; i += step) {
    const y = treeDraw(c, u, i, prop);
    if (y >= 0) acc[y] += 1;
    else rep[-1 - y] += 1;
  }
  return { acc, rep, prop };
}

/* ---------- the check by hand: one run, each candidate's check in turn, in exact fractions ---------- */

// One run of a correct way from the chain of uniforms (as the draws read them): each candidate's target r, its
// draft q_j, the candidate x, the draw d, its keep chance and u; then the last draw from r when all are rejected.
function treeSteps(P, Q, m, way, chain) {
  const A = EXACT, steps = [], tried = [];
  let r = P;
  for (let j = 0; j < m; j++) {
    const qj = way.replace ? Q : withoutT(Q, tried, A);
    if (!qj) break;
    const x = inverseCdf(qj.map(A.toFloat), chain[2 * j]), keep = keepT(r[x], qj[x], A), u = chain[2 * j + 1];
    const kept = u < A.toFloat(keep), lo = sumIn(qj.slice(0, x), A);
    steps.push({ r, qj, x, d: chain[2 * j], lo, hi: A.add(lo, qj[x]), u, keep, kept, tried: tried.slice() });
    if (kept) return { steps, final: null };
    r = shrunkT(r, qj, A) || r;
    tried.push(x);
  }
  const cuts = [];
  r.reduce((run, a) => { cuts.push(run + A.toFloat(a)); return run + A.toFloat(a); }, 0);
  return { steps, final: { r, cuts, y: inverseCdf(r.map(A.toFloat), chain[2 * m]), d: chain[2 * m], tried: steps.length } };
}

// "“the” 1/3, “cat” 2/8": the tokens a distribution gives any chance, with their chances over the denominator d.
function distText(dist, labels, T, d) {
  return dist.map((a, y) => a[0] ? fill(T.item, { tok: labels[y], p: bigOver(a, d) }) : '').filter(Boolean).join(T.sep);
}

// One candidate's part of the run: its heading (with the draw d that drew it from q_j, and the segment d landed in),
// its target r against its draft q_j as overlap bars (x marked), both over the position's denominator as p and q are,
// and its accept strip, u against min(1, r(x)/q_j(x)).
function renderTreeStep(fig, li, step, j) {
  const T = fig.trace.text.trees, labels = fig.trace.labels, m = fig.state.m, way = fig.tree.way, d = fig.tree.denom;
  const source = !step.tried.length || way.replace ? T.source_q
    : fill(T.source_without, { removed: step.tried.map(y => fill(fig.L.quoted, { tok: labels[y] })).join(T.sep) });
  const target = j ? fill(T.target_r, { r: distText(step.r, labels, T, d) }) : T.target_p;
  li.head.textContent = fill(T.head, { j: j + 1, m, tok: labels[step.x], source, d: step.d.toFixed(3), target,
    lo: bigOver(step.lo, d), hi: bigOver(step.hi, d) });
  const r = step.r.map(EXACT.toFloat), q = step.qj.map(EXACT.toFloat), over = a => bigOver(a, d);
  const pos = { target: step.r.map(over), draft: step.qj.map(over), bars: eighthsBars(r, q) };
  li.bars.hidden = false;
  li.bars.replaceChildren(...overlapRows(pos, fig.trace.vocabulary, step.x, T.numbers));
  acceptStrip(li.strip, { at: 0, a: EXACT.toFloat(step.keep), u: step.u.toFixed(3), bound: bigText(step.keep),
    below: step.kept, kept: step.kept, tok: labels[step.x] }, fig.A);
}

// The last draw after m rejections: the residual strip's look, r's segments and the draw.
function renderTreeFinal(fig, li, final) {
  const T = fig.trace.text.trees, labels = fig.trace.labels, y = final.y, cuts = final.cuts, d = fig.tree.denom;
  li.head.textContent = fill(T.final_head, { m: final.tried, r: distText(final.r, labels, T, d) });
  li.bars.hidden = true;
  acceptStrip(li.strip, { cuts, names: fig.trace.vocabulary, shares: final.r.map(a => bigOver(a, d)), chosen: y,
    u: final.d.toFixed(3), lo: (y ? cuts[y - 1] : 0).toFixed(3), hi: cuts[y].toFixed(3), tok: labels[y] }, fig.A);
}

// The run by hand, made from its template only while m ≥ 2 and the way is a correct one: the rate, the how, every
// candidate's check in turn and what was committed.
function renderTrees(fig, show) {
  if (!show) { if (fig.trees) fig.trees.root.remove(); return; }
  const ui = fig.trees || (fig.trees = cloned(fig.ui.treesAt, { rate: '[data-lab-trees-rate]', how: '[data-lab-trees-how]',
    steps: '[data-lab-trees-steps]', verdict: '[data-lab-trees-verdict]', draw: '[data-lab-trees-draw]' }));
  if (!ui.root.isConnected) { fig.ui.treesAt.after(ui.root); ui.draw.onclick = () => { fig.update({ chain: freshChain(fig) }); }; }
  const T = fig.trace.text.trees, s = fig.state, t = fig.tree, labels = fig.trace.labels;
  ui.rate.textContent = fill(T.rate, { m: s.m, way: T.ways[t.way.id], a: t.a, alpha: fig.pos.alpha });
  ui.how.textContent = fill(T.how, { m: s.m });
  const run = treeSteps(t.P, t.Q, s.m, t.way, s.chain);
  const items = run.steps.concat(run.final ? [run.final] : []).map((step, j) => {
    const li = cloned(fig.ui.treeStep, { head: '[data-lab-trees-head]', bars: '[data-lab-trees-bars]', strip: '[data-accept]' });
    if (step === run.final) renderTreeFinal(fig, li, step); else renderTreeStep(fig, li, step, j);
    return li.root;
  });
  ui.steps.replaceChildren(...items);
  const last = run.steps[run.steps.length - 1];
  ui.verdict.className = `lab-verdict ${run.final ? 'is-rejected' : 'is-accepted'}`;
  ui.verdict.textContent = run.final ? fill(T.all_rejected, { m: run.steps.length, tok: labels[run.final.y] })
    : fill(T.kept, { j: run.steps.length, m: s.m, tok: labels[last.x] });
}

// A fresh chain of uniforms for one run by hand, on the sliders' grid of 0.001.
function freshChain(fig) {
  return Array.from(fig.uniforms(new Float64Array(2 * fig.trace.lab.max_candidates + 1)), x => Math.floor(x * 1000) / 1000);
}

Object.assign(shared, { bigDecimal, bigEighths, bigText, drawTree, EXACT, freshChain, renderTrees, TREE_FLOATS, treeRoutes,
  treeSetup });

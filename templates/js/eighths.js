// "Your own position": the one place the browser works out exact probabilities that the page prints. The reader's
// p and q are whole eighths (integers 0-8 summing to 8), so every fact is an exact fraction, kept as a reduced
// [numerator, denominator] pair and written as the build writes it (speculative/figures/common.py); tests hold the
// two equal. (The tally's frequencies and distances, and the generator's models, are floats about draws.)

const { committedIn, fill, sumIn, variantPieces } = shared;

function gcd(a, b) { return b ? gcd(b, a % b) : a; }

// n/d as a reduced [n, d] pair.
function frac(n, d) { const g = gcd(n, d) || 1; return [n / g, d / g]; }

function sumOf(list) { return list.reduce((s, v) => s + v, 0); }

function cumulated(list) { let run = 0; return list.map(v => { run += v; return run; }); }

// A list of counts over `total` as cut points; all 0 when there is nothing to cut.
function cutsOver(list, total) { return cumulated(list).map(c => total ? frac(c, total) : [0, 1]); }

// The first largest entry: the greedy draft's proposal, the first in vocabulary order on a tie.
function topIndex(list) { return list.indexOf(Math.max(...list)); }

// p, q [V] in whole eighths -> the exact facts of the position, every fraction a reduced [n, d] pair; rates by the
// verification rule's id.
function eighthsExact(p, q) {
  const raw = p.map((a, y) => Math.max(0, a - q[y])), total = sumOf(raw);
  const x = topIndex(q), rest = 8 - p[x], kept = p.map((a, y) => y === x ? 0 : a);
  const alpha = frac(sumOf(p.map((a, y) => Math.min(a, q[y]))), 8);
  return {
    alpha,
    ratio: p.map((a, y) => q[y] ? frac(a, q[y]) : null),
    accept: p.map((a, y) => q[y] ? frac(Math.min(a, q[y]), q[y]) : null),
    residual_raw: raw.map(r => frac(r, 8)),
    residual: total ? raw.map(r => frac(r, total)) : null,
    res_total: frac(total, 8),
    cuts: cutsOver(raw, total),
    q_cuts: cutsOver(q, 8),
    p_cuts: cutsOver(p, 8),
    greedy: x,
    greedy_cuts: cutsOver(kept, rest),
    greedy_res: rest ? kept.map(a => frac(a, rest)) : null,
    rates: { 'accept-test': alpha, 'greedy-draft': frac(p[x], 8), 'exact-match': frac(sumOf(p.map((a, y) => a * q[y])), 64) }
  };
}

// [3, 8] -> "3/8", [4, 3] -> "4/3", [1, 1] -> "1": a fraction as Python's str(Fraction) writes it.
function fracText(f) { return f[1] === 1 ? String(f[0]) : `${f[0]}/${f[1]}`; }

// A probability as the build writes it over the common denominator 8: "0", "1", "2/8", or reduced ("7/16").
function eighthsText(f) {
  return f[0] === 0 || f[0] === f[1] || 8 % f[1] ? fracText(f) : `${f[0] * 8 / f[1]}/8`;
}

function fracNumber(f) { return f[0] / f[1]; }

function maybe(f, write) { return f === null ? null : write(f); }

// The accept probability worked out, as text.ratio_text writes it: "min(1, (4/8)/(3/8)) = min(1, 4/3) = 1".
function workedText(p, q, ratio, accept, W) {
  const top = p.indexOf('/') < 0 ? p : `(${p})`, bottom = q.indexOf('/') < 0 ? q : `(${q})`;
  const f = { top, bottom, ratio: fracText(ratio), accept: fracText(accept) };
  return fill(ratio[0] <= ratio[1] ? W.worked : W.worked_capped, f);
}

// [min(p, q), |p − q|, p > q] per token, as shares of the largest p or q: the overlap bars' widths.
function eighthsBars(p, q) {
  const top = Math.max(...p.concat(q)) || 1;
  return p.map((a, y) => [Math.min(a, q[y]) / top, Math.abs(a - q[y]) / top, a > q[y] ? 1 : 0]);
}

// p, q [V] in whole eighths -> the position's facts in the shape the build gives a shipped position (PositionFacts),
// so every part of the lab reads both alike. W holds the worked-ratio patterns.
function eighthsFacts(p, q, W) {
  const e = eighthsExact(p, q), texts = list => list.map(eighthsText);
  const target = texts(p.map(a => frac(a, 8))), draft = texts(q.map(b => frac(b, 8)));
  return {
    target, draft, alpha: eighthsText(e.alpha),
    rates: Object.fromEntries(Object.entries(e.rates).map(([rule, f]) => [rule, eighthsText(f)])),
    accept: e.accept.map(f => maybe(f, fracText)),
    ratio: e.ratio.map(f => maybe(f, fracText)),
    worked: e.accept.map((f, y) => maybe(f, () => workedText(target[y], draft[y], e.ratio[y], f, W))),
    residual_raw: texts(e.residual_raw),
    residual: p.map((a, y) => e.residual && fracText(e.residual[y])),
    res_total: eighthsText(e.res_total),
    accept_f: e.accept.map(f => maybe(f, fracNumber)),
    cuts: e.cuts.map(fracNumber), q_cuts: e.q_cuts.map(fracNumber), p_cuts: e.p_cuts.map(fracNumber),
    greedy: e.greedy, greedy_f: p[e.greedy] / 8, greedy_cuts: e.greedy_cuts.map(fracNumber),
    greedy_res: p.map((a, y) => e.greedy_res && fracText(e.greedy_res[y])),
    bars: eighthsBars(p, q)
  };
}

/* ---------- a broken sampler at the reader's own position, exact (variants.js's arithmetic in fractions) ---------- */

// The arithmetic of variants.js's pieces in reduced [numerator, denominator] pairs.
const FRACTIONS = {
  zero: [0, 1], one: [1, 1],
  add: (a, b) => frac(a[0] * b[1] + b[0] * a[1], a[1] * b[1]),
  sub: (a, b) => frac(a[0] * b[1] - b[0] * a[1], a[1] * b[1]),
  mul: (a, b) => frac(a[0] * b[0], a[1] * b[1]),
  div: (a, b) => frac(a[0] * b[1], a[1] * b[0]),
  less: (a, b) => a[0] * b[1] < b[0] * a[1]
};

// Half the L1 distance between two distributions in A.
function distanceIn(a, b, A) {
  const total = sumIn(a.map((x, y) => A.less(x, b[y]) ? A.sub(b[y], x) : A.sub(x, b[y])), A);
  return A.div(total, A.add(A.one, A.one));
}

// A sampler at a whole-eighths position (p, q integers summing to 8): what it commits, exact, as the trace writes
// a shipped position's (figures/lab.py's Broken.json): [committed texts, TV as a fraction, TV to 3 decimals, signs].
function eighthsBroken(spec, p, q) {
  const P = p.map(a => frac(a, 8)), Q = q.map(b => frac(b, 8));
  const c = committedIn(variantPieces(spec, P, Q, FRACTIONS), FRACTIONS), tv = distanceIn(c, P, FRACTIONS);
  const signs = c.map((x, y) => FRACTIONS.less(P[y], x) ? '+' : FRACTIONS.less(x, P[y]) ? '-' : '=');
  return [c.map(eighthsText), fracText(tv), decimalText(tv, 3), signs.join('')];
}

// A fraction [n, d] of 0 to 1 rounded half-up to `places` decimals, from the exact value (as text.decimal_str).
function decimalText(f, places) {
  const scale = 10**places, n = Math.floor((2 * f[0] * scale + f[1]) / (2 * f[1]));
  return (n / scale).toFixed(places);
}

Object.assign(shared, { eighthsBars, eighthsBroken, eighthsFacts });

// Watch it generate with several candidates per position (a speculative tree, speculative/trees.py): one round, as
// speculative/generate.py's tree_round runs it, draw for draw. Per round, k * m draft draws first, m to a depth
// (every node of a depth reads that depth's m draws, so the whole tree is fixed before any check); then, depth by
// depth, the candidates drafted at the kept path's context are checked in turn, one draw each, against a target r
// that shrinks on each rejection, until one is kept; if all fail, one draw for the token from the last r, which ends
// the round; after k kept depths, one draw for the bonus from the target. Sums are taken left to right, as np.cumsum.

const { inverseCdf } = shared;

const TREE_ACCEPTED = 0, TREE_REPLACED = 1, TREE_BONUS = 2;  // a committed token's kind (trace.generator.kinds)

// w over its sum taken left to right, or null when it sums to 0 (generate.spread).
function spreadOut(w) {
  let total = 0, y;
  for (y = 0; y < w.length; y++) total += w[y];
  if (!(total > 0)) return null;
  const out = new Float64Array(w.length);
  for (y = 0; y < w.length; y++) out[y] = w[y] / total;
  return out;
}

// The candidates the draws pick in turn, and the q_j each came from: q itself with replacement, q without the earlier
// candidates (renormalised) without, stopping once nothing is left to draw (generate.tree_candidates).
function treeCandidates(q, draws, replace) {
  const out = [], qjs = [], removed = new Set();
  for (const u of draws) {
    const qj = replace || !out.length ? q : spreadOut(q.map((v, y) => removed.has(y) ? 0 : v));
    if (qj === null) break;
    out.push(inverseCdf(qj, u));
    qjs.push(qj);
    removed.add(out[out.length - 1]);
  }
  return { candidates: out, qjs };
}

// Each candidate tried against r (p at first, then max(0, r - q_j) renormalised after each rejection) until one is
// kept: its min(1, r/q_j) and draw u, whether the last tried was kept, and the last r (generate.tree_checks).
function treeChecks(p, drafted, draw) {
  let r = p;
  const checks = [];
  for (let j = 0; j < drafted.candidates.length; j++) {
    const x = drafted.candidates[j], qj = drafted.qjs[j], a = Math.min(1, r[x] / qj[x]), u = draw();
    checks.push({ x, a, u, r: r[x], q: qj[x] });
    if (u < a) return { checks, kept: true, r };
    const next = spreadOut(r.map((v, y) => Math.max(0, v - qj[y])));
    if (next !== null) r = next;
  }
  return { checks, kept: false, r };
}

// One round of depth k with m candidates per position (generate.tree_round); its depths keep what the tree drawing
// and the chosen token's sentence show.
function treeRound(P, Q, context, k, m, replace, draw) {
  const drafts = Array.from({ length: k * m }, () => draw());
  const round = { context, m, replace, depths: [], committed: [], kinds: [], r: null, tree: true };
  let ctx = context;
  for (let d = 0; d < k; d++) {
    const drafted = treeCandidates(Q(ctx), drafts.slice(d * m, (d + 1) * m), replace), tried = treeChecks(P(ctx), drafted, draw);
    round.depths.push({ ctx, candidates: drafted.candidates, checks: tried.checks, kept: tried.kept });
    if (!tried.kept) {
      round.r = draw();
      round.committed.push(inverseCdf(tried.r, round.r));
      round.kinds.push(TREE_REPLACED);
      return round;
    }
    const x = tried.checks[tried.checks.length - 1].x;
    round.committed.push(x);
    round.kinds.push(TREE_ACCEPTED);
    ctx = ctx.slice(1).concat([x]);
  }
  return withBonus(round, ctx, P, draw);
}

// A round that kept a token at every position ends with the bonus: one draw from the target after its last token
// (the chain's rounds and the tree's alike).
function withBonus(round, ctx, P, draw) {
  round.r = draw();
  round.bonusCtx = ctx;
  round.committed.push(inverseCdf(P(ctx), round.r));
  round.kinds.push(TREE_BONUS);
  return round;
}

Object.assign(shared, { treeRound, withBonus });

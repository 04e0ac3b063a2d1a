// The roofline figure's model: the float twin of speculative/roofline.py (which works in exact fractions). A pass of
// a model with P parameters at b bytes each, scoring T tokens on hardware of bandwidth B and throughput F, takes
// max(P·b/B, 2·P·T/F) seconds; a round drafts k positions of m candidates each and checks them in one target pass.
// Pure: each function reads only its arguments. hw: {bandwidth, flops}; pair: {target, draft} (parameters).

const { fracValue } = shared;

const ROOFLINE_MAX_BATCH = 65536;  // roofline.MAX_BATCH: the largest batch the crossing is looked for at

// The seconds one pass of `params` parameters takes to score `tokens` tokens.
function passTime(params, tokens, hw, bytes) {
  return Math.max(params * bytes / hw.bandwidth, 2 * params * tokens / hw.flops);
}

// The tokens per pass where arithmetic starts to cost more than reading the weights: F·b / (2·B).
const kneeTokens = (hw, bytes) => hw.flops * bytes / (2 * hw.bandwidth);

// The positions a check scores per sequence: m + m² + … + m^k drafted nodes, and the one after them.
function scoredPositions(k, m) {
  let nodes = 1, level = 1;
  for (let i = 1; i <= k; i++) nodes += (level *= m);
  return nodes;
}

// One step of plain decoding at batch n: one target pass scoring n tokens.
const plainTime = (pair, hw, bytes, n) => passTime(pair.target, n, hw, bytes);

// One round at batch n: k draft passes (depth i scores n·m^i tokens, i from 0), then the check of n·scored tokens.
function roundTime(pair, hw, bytes, n, k, m) {
  let drafting = 0, tokens = n;
  for (let i = 0; i < k; i++) {
    drafting += passTime(pair.draft, tokens, hw, bytes);
    tokens *= m;
  }
  return drafting + passTime(pair.target, n * scoredPositions(k, m), hw, bytes);
}

// E = 1 + A_1 + A_1·A_2 + … over the first k of A (numbers, or exact fractions as text).
function expectedOf(A, k) {
  let expected = 1, reach = 1;
  for (let j = 0; j < k; j++) expected += (reach *= fracValue(A[j]));
  return expected;
}

// The speedup per sequence at batch n: E tokens per round over the round's time in plain steps.
function speedupAt(setting, n) {
  const { expected, pair, hw, bytes, k, m } = setting;
  return expected * plainTime(pair, hw, bytes, n) / roundTime(pair, hw, bytes, n, k, m);
}

// The smallest batch whose speedup is below 1 (1: it never pays), or null when it holds up to ROOFLINE_MAX_BATCH.
// The speedup never rises with n, so a bisection finds it, as roofline.stops_paying does.
function stopsPaying(setting) {
  const loses = n => speedupAt(setting, n) < 1;
  if (!loses(ROOFLINE_MAX_BATCH)) return null;
  let lo = 0, hi = ROOFLINE_MAX_BATCH;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (loses(mid)) hi = mid; else lo = mid;
  }
  return hi;
}

Object.assign(shared, { expectedOf, kneeTokens, passTime, plainTime, roundTime, ROOFLINE_MAX_BATCH, scoredPositions,
  speedupAt, stopsPaying });

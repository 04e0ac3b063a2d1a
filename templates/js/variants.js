// The samplers a reader may switch on: the rule, and broken ones that each get one piece wrong. Their one home is
// speculative/variants.py; the trace carries each as four switches (trace.samplers), each the index of its value in
// variants.PROPOSE, RATIO, TEST and FIX (0 is the rule's: q, p/q, below, the residual), and this file does their
// arithmetic the way variants.pieces does, in either of two number systems: floats (the generator's rows and the
// lab's draws) or exact fractions (the lab's "Your own position", in eighths). Tests hold the two equal to Python.

// The first y with u < cumsum[y]; the last token of nonzero probability takes what rounding leaves.
function inverseCdf(probs, u) {
  let acc = 0, last = 0, found = -1;
  for (let y = 0; y < probs.length; y++) {
    if (probs[y] > 0) last = y;
    acc += probs[y];
    if (found < 0 && u < acc) found = y;
  }
  return found < 0 ? last : Math.min(found, last);
}

// The arithmetic the pieces are written in: numbers (eighths.js's FRACTIONS is the same in exact fractions).
const FLOATS = {
  zero: 0, one: 1,
  add: (a, b) => a + b, sub: (a, b) => a - b,
  mul: (a, b) => a * b, div: (a, b) => a / b,
  less: (a, b) => a < b
};
function sumIn(list, A) { return list.reduce((s, v) => A.add(s, v), A.zero); }

// weights / their sum, or null when they sum to 0 (nothing to draw from).
function normalisedIn(weights, A) {
  const total = sumIn(weights, A);
  return A.less(A.zero, total) ? weights.map(w => A.div(w, total)) : null;
}

// min(1, a/b), and 1 where b = 0 (a token never proposed).
function ratioIn(a, b, A) { return A.less(A.zero, b) && A.less(a, b) ? A.div(a, b) : A.one; }

// The draft's most likely token; of equals, the earliest (sampler.greedy's proposal).
function firstLargest(q, A) {
  let top = 0;
  for (let y = 1; y < q.length; y++) if (A.less(q[top], q[y])) top = y;
  return top;
}

// One sampler's pieces at a position with target p and draft q [V] (numbers in A): the distribution proposals
// come from, the ratio the test reads, the chance the test keeps each token, and what a rejection draws from.
function variantPieces(spec, p, q, A) {
  const top = firstLargest(q, A), propose = [], accept = [], kept = [], raw = [];
  for (let y = 0; y < p.length; y++) {
    const above = A.less(q[y], p[y]), a = spec.ratio ? ratioIn(q[y], p[y], A) : ratioIn(p[y], q[y], A);  // 1: q/p
    propose.push(spec.propose ? (y === top ? A.one : A.zero) : q[y]);  // 1: the draft's top token
    accept.push(a);
    kept.push(spec.test ? A.sub(A.one, a) : a);  // 1: kept when u >= the ratio
    raw.push(spec.fix === 1 || (spec.fix === 2 && above) ? p[y] : above ? A.sub(p[y], q[y]) : A.zero);  // 1: p, 2: p where p > q
  }
  const fix = spec.fix === 1 ? p.slice() : normalisedIn(raw, A);
  return { propose, accept, kept, fix: fix || p.slice(), below: !spec.test };
}

// What the pieces commit [V]: a proposal kept by its test, else a draw from fix.
function committedIn(pieces, A) {
  const kept = pieces.propose.map((x, y) => A.mul(x, pieces.kept[y]));
  const rejected = A.sub(A.one, sumIn(kept, A));
  return kept.map((k, y) => A.add(k, A.mul(rejected, pieces.fix[y])));
}

Object.assign(shared, { committedIn, firstLargest, FLOATS, inverseCdf, sumIn, variantPieces });

// Watch it generate's model pair: n-gram models counted here from the prose's token ids (speculative/ngram.py is the
// same model: interpolated Kneser-Ney, one discount, uniform at the bottom), and their rows tempered. Pure functions
// of the page's words; generator.js runs the race with them.

// The corpus: every section's tokens (its data-corpus, space-separated, in page order), as ids into the vocabulary
// ngram.vocabulary orders: most frequent first, then in order of first appearance.
function corpusIds(doc) {
  const counts = new Map(), first = new Map();  // Maps: a token may be "constructor"
  let tokens = [];
  doc.querySelectorAll('[data-corpus]').forEach(s => {
    if (s.dataset.corpus) tokens = tokens.concat(s.dataset.corpus.split(' '));
  });
  tokens.forEach((t, i) => { counts.set(t, (counts.get(t) || 0) + 1); if (!first.has(t)) first.set(t, i); });
  const vocab = Array.from(first.keys()).sort((a, b) => counts.get(b) - counts.get(a) || first.get(a) - first.get(b));
  const index = new Map();
  vocab.forEach((t, i) => { index.set(t, i); });
  return { vocab, ids: tokens.map(t => index.get(t)) };
}

// Level m's counts: raw m-gram counts (top) or continuation counts N1+(. h w) (below): "h" -> {ids, counts, total}.
// The grams' starts are sorted by context h, then next token w, then (below) the token before h, so each h, each w
// and each distinct gram is one run of the sorted starts, and each h's ids come in increasing order.
function levelCounts(ids, m, top) {
  const n = top ? m : m + 1, hLen = m - 1, order = Array.from({ length: n }, (_, j) => top ? j : (j + 1) % n);
  const same = (a, b, upto) => { for (let j = 0; j < upto; j++) if (ids[a + order[j]] !== ids[b + order[j]]) return false; return true; };
  const starts = Array.from({ length: Math.max(0, ids.length - n + 1) }, (_, i) => i);
  starts.sort((a, b) => { for (let j = 0; j < n; j++) { const d = ids[a + order[j]] - ids[b + order[j]]; if (d) return d; } return 0; });
  const table = {};
  let e = null, prev = -1;
  starts.forEach(i => {
    const sameH = prev >= 0 && same(prev, i, hLen), sameW = sameH && same(prev, i, hLen + 1), w = ids[i + order[hLen]];
    if (!sameH) e = table[order.slice(0, hLen).map(j => ids[i + j]).join(' ')] = { counts: {}, total: 0, ids: [] };
    if (!sameW) { e.counts[w] = 0; e.ids.push(w); }
    if (top || !sameW || !same(prev, i, n)) { e.counts[w] += 1; e.total += 1; }
    prev = i;
  });
  return table;
}

// A model of one order: row(context) -> Float64Array [V], cached per context, computed as ngram.Model._level does.
// `counted` (optional): a function (m, top) -> levelCounts(ids, m, top), which may hand out levels counted before.
function ngramModel(ids, V, order, d, counted) {
  const levels = [], cache = {}, count = counted || ((m, top) => levelCounts(ids, m, top));
  for (let m = 1; m <= order; m++) levels.push(count(m, m === order));
  function level(m, h) {
    const lower = m > 1 ? level(m - 1, h.slice(1)) : new Float64Array(V).fill(1.0 / V);
    const e = levels[m - 1][h.join(' ')];
    if (!e) return lower;
    const g = d * e.ids.length / e.total, out = new Float64Array(V);
    for (let y = 0; y < V; y++) out[y] = lower[y] * g;
    e.ids.forEach(w => { out[w] += Math.max(e.counts[w] - d, 0) / e.total; });
    return out;
  }
  return context => {
    const h = order > 1 ? context.slice(context.length - order + 1) : [], key = h.join(' ');
    return cache[key] || (cache[key] = level(order, h));
  };
}

// p^(1/T) renormalised; T = 0: all mass on the top token, the first on a tie (ngram.tempered).
function tempered(p, T) {
  if (T === 1) return p;
  const out = new Float64Array(p.length);
  let top = 0, y;
  if (T === 0) {
    for (y = 1; y < p.length; y++) if (p[y] > p[top]) top = y;
    out[top] = 1;
    return out;
  }
  let sum = 0, most = 0;  // over the row's largest first, as ngram.py does: no row underflows to all zeros
  for (y = 0; y < p.length; y++) if (p[y] > most) most = p[y];
  for (y = 0; y < p.length; y++) { out[y] = (p[y] / most)**(1 / T); sum += out[y]; }
  for (y = 0; y < p.length; y++) out[y] /= sum;
  return out;
}

// A model's rows at temperature T, cached per context.
function temperedRows(row, T) {
  const cache = {};
  return ctx => { const key = ctx.join(' '); return cache[key] || (cache[key] = tempered(row(ctx), T)); };
}

Object.assign(shared, { corpusIds, levelCounts, ngramModel, tempered, temperedRows });

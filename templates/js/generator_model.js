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
function levelCounts(ids, m, top) {
  const grams = {}, table = {};
  const n = top ? m : m + 1;
  for (let i = 0; i + n <= ids.length; i++) {
    const gram = ids.slice(i, i + n), key = gram.join(' ');
    if (top) grams[key] = (grams[key] || 0) + 1; else grams[key] = 1;
  }
  Object.keys(grams).forEach(key => {
    const gram = key.split(' ').map(Number), tail = top ? gram : gram.slice(1);
    const h = tail.slice(0, -1).join(' '), w = tail[tail.length - 1];
    const e = table[h] || (table[h] = { counts: {}, total: 0 });
    e.counts[w] = (e.counts[w] || 0) + grams[key];
    e.total += grams[key];
  });
  Object.keys(table).forEach(h => {
    const e = table[h];
    e.ids = Object.keys(e.counts).map(Number).sort((a, b) => a - b);
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
  let sum = 0;
  for (y = 0; y < p.length; y++) { out[y] = p[y]**(1 / T); sum += out[y]; }
  for (y = 0; y < p.length; y++) out[y] /= sum;
  return out;
}

// A model's rows at temperature T, cached per context.
function temperedRows(row, T) {
  const cache = {};
  return ctx => { const key = ctx.join(' '); return cache[key] || (cache[key] = tempered(row(ctx), T)); };
}

Object.assign(shared, { corpusIds, levelCounts, ngramModel, tempered, temperedRows });

// The lab's draws and tally. Each draw of the whole position compares uniforms with the cut points the build
// precomputed: the draft's cumulative q picks the proposal x, x's accept threshold decides, and on a rejection
// the residual's cut points pick the replacement. A broken sampler draws with its own pieces (variants.js). The exact
// probabilities the page prints for a shipped position are the build's; what the browser works out here is about
// its own draws: their frequencies, their total variation from p (and from a broken sampler's exact distribution),
// the noise bound at their count, and the bars' exact shares, in floats, for drawing only.

const { drawTree, fill, fracValue, grouped, headRow, inverseCdf, node, partsOf, row, uniformSource } = shared;

const TALLY_PARTS = { root: '[data-lab-tally]', drawU: '[data-lab-draw-u]', readout: '[data-lab-tally-readout]' };

// The noise level of the tally's bound, as the analysis's total-variation bound uses (tests hold the two equal).
const NOISE_DELTA = 1e-6;

// The token whose segment of the cumulative cut points holds r: the first cut above r.
function segmentAt(cuts, r) {
  for (let y = 0; y < cuts.length; y++) if (r < cuts[y]) return y;
  return cuts.length - 1;
}

// One run of a position under each rule, by its id (trace.rules), from three uniforms u[i..i+2]: it counts its
// proposal x in `prop`, and returns the committed token y, as y when x was accepted and as -1 - y when y replaced it.
const DRAW_RULES = {
  'accept-test': (pos, u, i, prop) => {  // accept test: x from q, accepted when u < min(1, p/q), else a draw from the residual
    const x = segmentAt(pos.q_cuts, u[i]);
    prop[x] += 1;
    return u[i + 1] < pos.accept_f[x] ? x : -1 - segmentAt(pos.cuts, u[i + 2]);
  },
  'greedy-draft': (pos, u, i, prop) => {  // greedy draft: x is the draft's top token, accepted when u < p(x), else a draw from p without x
    prop[pos.greedy] += 1;
    return u[i + 1] < pos.greedy_f ? pos.greedy : -1 - segmentAt(pos.greedy_cuts, u[i + 2]);
  },
  'exact-match': (pos, u, i, prop) => {  // exact match: x from q, y from p; x stays when y = x, else y is committed
    const x = segmentAt(pos.q_cuts, u[i]), y = segmentAt(pos.p_cuts, u[i + 1]);
    prop[x] += 1;
    return x === y ? x : -1 - y;
  }
};

// One run of a broken sampler from its pieces: x from its proposal distribution, its test, else a draw from its fix.
function drawBroken(pieces) {
  return (pos, u, i, prop) => {
    const x = inverseCdf(pieces.propose, u[i]), a = pieces.accept[x];
    prop[x] += 1;
    return (pieces.below ? u[i + 1] < a : u[i + 1] >= a) ? x : -1 - inverseCdf(pieces.fix, u[i + 2]);
  };
}

// n runs of one position under a rule, or under a broken sampler's pieces when given: the counts of each token
// proposed, committed by acceptance, and committed as a replacement.
function drawPosition(pos, n, uniforms, rule, pieces) {
  const acc = pos.q_cuts.map(() => 0), rep = acc.slice(), prop = acc.slice();
  const u = uniforms(new Float64Array(3 * n)), run = pieces ? drawBroken(pieces) : DRAW_RULES[rule];
  for (let i = 0; i < u.length; i += 3) {
    const y = run(pos, u, i, prop);
    if (y >= 0) acc[y] += 1;
    else rep[-1 - y] += 1;
  }
  return { acc, rep, prop };
}

function added(a, b) { return a.map((v, i) => v + b[i]); }

// The tally belongs to one position under one rule (`key`): a new one, or a reset, starts it again from nothing.
function limitTally(s, size, key) {
  if (s.tallyAt === key && s.acc && s.acc.length === size) return;
  s.acc = new Array(size).fill(0);
  s.rep = new Array(size).fill(0);
  s.prop = new Array(size).fill(0);
  s.n = 0;
  s.tallyAt = key;
}

/* ---------- actions: each calls update() ---------- */

// One fresh u, on the slider's grid so the verdict reads as the slider shows it; a replacement draw with it,
// which the lab shows when u rejects.
function drawU(fig) {
  if (fig.off) return;
  const u = fig.uniforms(new Float64Array(2));
  fig.update({ u: Math.floor(u[0] * 1000) / 1000, r: Math.floor(u[1] * 1000) / 1000 });
}

function drawMany(fig, n) {
  if (fig.off) return;
  const s = fig.state, d = fig.tree ? drawTree(fig.tree.setup, n, fig.uniforms)  // several candidates per position
    : drawPosition(fig.pos, n, fig.uniforms, s.rule, fig.broken && fig.broken.pieces);
  fig.update({ acc: added(s.acc, d.acc), rep: added(s.rep, d.rep), prop: added(s.prop, d.prop), n: s.n + n });
}

function bindTally(fig) {
  fig.uniforms = uniformSource(window.__labSeed);
  fig.tally = partsOf(fig.root, TALLY_PARTS);
  fig.tally.box = tallyBox(fig.L);
  fig.tally.drawU.addEventListener('click', () => { drawU(fig); });
  fig.root.addEventListener('click', e => {
    const b = e.target.closest('[data-lab-tally-draw], [data-lab-tally-reset]');
    if (!b) return;
    if (b.hasAttribute('data-lab-tally-reset')) fig.update({ tallyAt: null });
    else drawMany(fig, Number(b.dataset.labTallyDraw));
  });
}

/* ---------- render ---------- */

// The tally's table, made once and put in the figure only while there are draws (a page at rest stays small).
function tallyBox(L) {
  const box = node('div', 'table-scroll'), table = node('table', 'dist fig-table'), caption = node('caption');
  box.setAttribute('role', 'region');
  box.tabIndex = 0;
  caption.id = 'tally-cap';
  box.setAttribute('aria-labelledby', caption.id);
  box.caption = caption;
  box.head = node('thead');
  box.body = node('tbody');
  table.append(caption, box.head, box.body);
  box.append(table);
  return box;
}

function renderTally(fig, pos) {
  const s = fig.state, ps = pos.target.map(fracValue), box = fig.tally.box;
  const freq = s.n ? s.acc.map((a, y) => (a + s.rep[y]) / s.n) : null;
  renderTallyReadout(fig, ps, freq, pos);
  if (!freq) { box.remove(); return; }
  if (!box.isConnected) fig.tally.root.append(box);
  renderTallyTable(fig, pos, freq);
}

// Total variation from p, against the bound that n honest draws exceed with probability below NOISE_DELTA
// (the Bretagnolle-Huber-Carol inequality, as in the analysis).
function renderTallyReadout(fig, ps, freq, pos) {
  const L = fig.L, s = fig.state, n = s.n;
  const T = fig.trace.text.trees;
  // several candidates have no Draw u (also while the reader's own position does not sum to 8/8 and there is no tree)
  if (!freq) { fig.tally.readout.textContent = fig.broken ? L.tally_empty_broken : s.m > 1 ? fill(T.tally_empty, { m: s.m }) : L.tally_empty; return; }
  const tv = distance(freq, ps), C = fig.trace.text.convergence;
  const bound = Math.sqrt((ps.length * Math.LN2 + Math.log(1 / NOISE_DELTA)) / (2 * n));
  const accepted = s.acc.reduce((a, b) => a + b, 0), f = { n: grouped(n, L.group), tv: tv.toFixed(4),
    bound: bound.toFixed(4), rel: tv <= bound ? C.within : C.above, acc: grouped(accepted, L.group), seen: (accepted / n).toFixed(3) };
  let out = fill(bound >= 1 ? L.tally_vacuous : L.tally, f);
  if (!fig.broken) {
    const seen = fig.tree ? fill(T.seen, Object.assign(f, { rate: fig.tree.a })) : fill(fig.O.rate_seen, Object.assign(f, { rate: pos.rates[s.rule] }));
    fig.tally.readout.textContent = out + seen;
    return;
  }
  const own = distance(freq, fig.broken.committed.map(fracValue)), g = { tv: own.toFixed(4), exact: fig.broken.tv_f,
    rel: own <= bound ? C.within : C.above, n: f.n };
  if (!/[+-]/.test(fig.broken.signs)) out += L.still_p;  // it commits p here: the draws cannot tell it from the rule
  else if (tv > bound) out += fill(L.broken, Object.assign({}, f, { far: tv > 2 * bound ? L.far : L.beyond, tv: tv.toFixed(3), bound: bound.toFixed(3) })) + fill(L.own_tv, g);
  else if (bound < 1) out += fill(L.own_tv_unseen, g);
  fig.tally.readout.textContent = out + fill(L.seen_broken, f);
}

// Total variation between two distributions of numbers.
function distance(a, b) { return 0.5 * a.reduce((sum, x, y) => sum + Math.abs(x - b[y]), 0); }

// The identity as an experiment: per token, the counts by route and the observed frequency, its bar stacked the
// same way as the exact shares drawn just above it, on one scale (exactShares: what each rule commits by each route).
// With several candidates the heads are short (a kept candidate, the last draw), the caption saying what each is.
function renderTallyTable(fig, pos, freq) {
  const s = fig.state, L = fig.L, T = fig.trace.text.walkthrough, top = Math.max(...pos.target.concat(pos.draft).map(fracValue));
  const TT = fig.trace.text.trees, heads = fig.tree ? TT.heads : [L.col_prop, L.col_acc, L.col_kept, L.col_rep, L.col_freq];
  fig.tally.box.caption.textContent = fig.tree ? TT.counts + (fig.broken ? TT.caption_broken : TT.caption)
    : L.tally_counts + (fig.broken ? L.tally_caption_broken : fig.trace.text.rule_words[s.rule].caption);
  fig.tally.box.head.replaceChildren(headRow([T.col_token].concat(heads, [T.col_p])));
  fig.tally.box.body.replaceChildren(...fig.trace.vocabulary.map((tok, y) => {
    const share = fig.tree ? fig.tree.shares[y] : fig.broken ? brokenShares(fig.broken.pieces, y) : exactShares(pos, y, s.rule);
    const kept = s.prop[y] ? (s.acc[y] / s.prop[y]).toFixed(3) : L.no_share;  // accepted of proposed: its own acceptance
    return row([[tok], grouped(s.prop[y], L.group), grouped(s.acc[y], L.group), kept, grouped(s.rep[y], L.group),
      [freq[y].toFixed(3), stackedTrack(share[0] / top, share[1] / top), stackedTrack(s.acc[y] / s.n / top, s.rep[y] / s.n / top)],
      pos.target[y]]);
  }));
}

// A token's exact shares [by acceptance, as a replacement] under a rule, for drawing only. The accept test's are
// min(p, q), which is p or q as the trace writes it (whichever the overlap bars mark as smaller), and max(0, p − q);
// a greedy draft's, p at its proposal and p elsewhere; exact match's, p·q and p·(1 − q).
function exactShares(pos, y, rule) {
  const p = fracValue(pos.target[y]), q = fracValue(pos.draft[y]);
  if (rule === 'greedy-draft') return y === pos.greedy ? [p, 0] : [0, p];
  if (rule === 'exact-match') return [p * q, p * (1 - q)];
  return [fracValue(pos.bars[y][2] ? pos.draft[y] : pos.target[y]), fracValue(pos.residual_raw[y])];
}

// A broken sampler's exact shares [by acceptance, as a replacement] of a token, from its pieces, for drawing only.
function brokenShares(pieces, y) {
  const kept = pieces.propose.reduce((sum, x, z) => sum + x * pieces.kept[z], 0);
  return [pieces.propose[y] * pieces.kept[y], (1 - kept) * pieces.fix[y]];
}

function stackedTrack(a, b) {
  const track = node('span', 'bar-track is-res');
  track.style.setProperty('--a', String(a));
  track.style.setProperty('--b', String(b));
  return track;
}

Object.assign(shared, { bindTally, limitTally, renderTally, segmentAt });

// The lab's draws and tally. Each draw of the whole position compares uniforms with the cut points the build
// precomputed: the draft's cumulative q picks the proposal x, x's accept threshold decides, and on a rejection
// the residual's cut points pick the replacement. The browser works out no probability of a shipped position.

var TALLY_PARTS = { root: '[data-tally]', drawU: '[data-lab-draw-u]', readout: '[data-tally-readout]' };

// The noise level of the tally's bound, as the analysis's total-variation bound uses (tests hold the two equal).
var NOISE_DELTA = 1e-6;

// Uniforms in [0, 1): the browser's crypto by default; a seeded mulberry32 stream only when a test opts in by
// setting window.__labSeed to a whole number before the page loads. fill(out) fills a Float64Array.
function uniformSource(seed) {
  if (Number.isInteger(seed)) {
    var a = seed >>> 0;
    return function (out) {
      for (var i = 0; i < out.length; i++) {
        var t = a = (a + 0x6D2B79F5) >>> 0;
        t = Math.imul(t ^ t >>> 15, t | 1);
        t ^= t + Math.imul(t ^ t >>> 7, t | 61);
        out[i] = ((t ^ t >>> 14) >>> 0) / 4294967296;
      }
      return out;
    };
  }
  return function (out) {
    var words = new Uint32Array(out.length);
    for (var i = 0; i < words.length; i += 16384) crypto.getRandomValues(words.subarray(i, i + 16384));
    for (var j = 0; j < out.length; j++) out[j] = words[j] / 4294967296;
    return out;
  };
}

// n runs of one position: the counts of each token committed by acceptance and as a replacement.
function drawPosition(pos, n, uniforms) {
  var acc = pos.q_cuts.map(function () { return 0; }), rep = acc.slice(), u = uniforms(new Float64Array(3 * n));
  for (var i = 0; i < u.length; i += 3) {
    var x = segmentAt(pos.q_cuts, u[i]);
    if (u[i + 1] < pos.accept_f[x]) acc[x] += 1;
    else rep[segmentAt(pos.cuts, u[i + 2])] += 1;
  }
  return { acc: acc, rep: rep };
}

function added(a, b) { return a.map(function (v, i) { return v + b[i]; }); }

// 1234567 -> "1,234,567", the separator from the text table.
function grouped(n, separator) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, separator); }

// The tally belongs to one position: a new position, or a reset, starts it again from nothing.
function limitTally(s, size) {
  if (s.tallyAt === s.where && s.acc && s.acc.length === size) return;
  s.acc = new Array(size).fill(0);
  s.rep = new Array(size).fill(0);
  s.n = 0;
  s.tallyAt = s.where;
}

/* ---------- actions: each calls update() ---------- */

// One fresh u, on the slider's grid so the verdict reads as the slider shows it; a replacement draw with it,
// which the lab shows when u rejects.
function drawU(fig) {
  var u = fig.uniforms(new Float64Array(2));
  fig.update({ u: Math.floor(u[0] * 1000) / 1000, r: Math.floor(u[1] * 1000) / 1000 });
}

function drawMany(fig, n) {
  var s = fig.state, d = drawPosition(labAt(fig.trace, s.where).pos, n, fig.uniforms);
  fig.update({ acc: added(s.acc, d.acc), rep: added(s.rep, d.rep), n: s.n + n });
}

function bindTally(fig) {
  fig.uniforms = uniformSource(window.__labSeed);
  fig.tally = partsOf(fig.root, TALLY_PARTS);
  fig.tally.box = tallyBox(fig.L);
  fig.tally.drawU.addEventListener('click', function () { drawU(fig); });
  fig.root.addEventListener('click', function (e) {
    var b = e.target.closest('[data-tally-draw], [data-tally-reset]');
    if (!b) return;
    if (b.hasAttribute('data-tally-reset')) fig.update({ tallyAt: null });
    else drawMany(fig, Number(b.dataset.tallyDraw));
  });
}

/* ---------- render ---------- */

// The tally's table, made once and put in the figure only while there are draws (a page at rest stays small).
function tallyBox(L) {
  var box = node('div', 'table-scroll'), table = node('table', 'dist player-table'), caption = node('caption', '', L.tally_caption);
  box.setAttribute('role', 'region');
  box.tabIndex = 0;
  caption.id = 'tally-cap';
  box.setAttribute('aria-labelledby', caption.id);
  box.head = node('thead');
  box.body = node('tbody');
  table.append(caption, box.head, box.body);
  box.append(table);
  return box;
}

function renderTally(fig, pos) {
  var s = fig.state, ps = pos.target.map(fracValue), box = fig.tally.box;
  var freq = s.n ? s.acc.map(function (a, y) { return (a + s.rep[y]) / s.n; }) : null;
  renderTallyReadout(fig, ps, freq);
  if (!freq) { box.remove(); return; }
  if (!box.isConnected) fig.tally.root.append(box);
  renderTallyTable(fig, pos, freq);
}

// Total variation from p, against the bound that n honest draws exceed with probability below NOISE_DELTA
// (the Bretagnolle-Huber-Carol inequality, as in the analysis).
function renderTallyReadout(fig, ps, freq) {
  var L = fig.L, n = fig.state.n;
  if (!freq) { fig.tally.readout.textContent = L.tally_empty; return; }
  var tv = 0.5 * freq.reduce(function (sum, f, y) { return sum + Math.abs(f - ps[y]); }, 0);
  var bound = Math.sqrt((ps.length * Math.LN2 + Math.log(1 / NOISE_DELTA)) / (2 * n));
  fig.tally.readout.textContent = fill(bound >= 1 ? L.tally_vacuous : L.tally, { n: grouped(n, L.group),
    tv: tv.toFixed(4), bound: bound.toFixed(4), rel: tv <= bound ? fig.trace.text.conv.within : fig.trace.text.conv.above });
}

// The identity as an experiment: per token, the counts by route and the observed frequency, its bar stacked the
// same way as the exact shares min(p, q) + max(0, p − q) = p drawn just above it, on one scale. min(p, q) is p or q as the trace
// writes it, whichever the overlap bars mark as smaller; the browser adds nothing up.
function renderTallyTable(fig, pos, freq) {
  var s = fig.state, L = fig.L, T = fig.trace.text.player, top = Math.max.apply(Math, pos.target.concat(pos.draft).map(fracValue));
  fig.tally.box.head.replaceChildren(headRow([T.col_token, L.col_acc, L.col_rep, L.col_freq, T.col_p]));
  fig.tally.box.body.replaceChildren.apply(fig.tally.box.body, fig.trace.vocabulary.map(function (tok, y) {
    var least = fracValue(pos.bars[y][2] ? pos.draft[y] : pos.target[y]), extra = fracValue(pos.residual_raw[y]);
    return row([[tok], grouped(s.acc[y], L.group), grouped(s.rep[y], L.group),
      [freq[y].toFixed(3), stackedTrack(least / top, extra / top), stackedTrack(s.acc[y] / s.n / top, s.rep[y] / s.n / top)],
      pos.target[y]]);
  }));
}

function stackedTrack(a, b) {
  var track = node('span', 'bar-track is-res');
  track.style.setProperty('--a', String(a));
  track.style.setProperty('--b', String(b));
  return track;
}

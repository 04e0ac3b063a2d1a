// What every figure shares: pure helpers, the builders of detached nodes, the trace loader and the one
// figure helper. The build joins the files of templates/js into one strict function (render.SCRIPTS);
// every word a figure shows comes from trace.text, which speculative/text.py fills.

function clamp(x, lo, hi) { return Math.min(hi, Math.max(lo, x)); }

// A whole number from a control's value, or `otherwise` when there is none.
function whole(x, otherwise) { return Math.round(Number(x)) || otherwise; }

// "3/8" -> 0.375, "1" -> 1: only for drawing; every number shown is the trace's exact string.
function fracValue(text) {
  const parts = String(text).split('/');
  return parts.length === 2 ? Number(parts[0]) / Number(parts[1]) : Number(parts[0]);
}

// The same fill as text.fill in Python: {name} -> fields[name].
function fill(pattern, fields) {
  return pattern.replace(/\{(\w+)\}/g, (m, name) => String(fields[name]));
}

// The trace the build embeds in #trace (plain JSON, read as it is), or null on a page without one.
function loadTrace(doc) {
  const source = doc.getElementById('trace');
  return source ? JSON.parse(source.textContent) : null;
}

// Calls fn once, soon after load and whatever the reader's scroll: after the next paint, in one task with every other
// part waiting so, for one layout of the page, not one each (nor in an idle task, which waits for the generator's
// seeded race); or at once if the page is printed first. The name and `el`, unused, stay for the callers that still
// name an element: a part built this way was once held back until scrolled near, and so missing from print and from
// a full-page capture; now it is only kept off the first paint.
function whenNear(el, fn) {
  let done = false;
  joining.parts++;
  function go() {
    if (done) return;
    done = true;
    try { fn(); } finally { joining.parts--; settle(); }
  }
  if (due.push(go) === 1) requestAnimationFrame(() => { nextTask(joinDue); });
  window.addEventListener('beforeprint', go);
  const media = window.matchMedia('print');
  media.addEventListener('change', e => { if (e.matches) go(); });
  if (media.matches) go();  // printing began before this part's figure started
}

const due = [];  // the parts whenNear holds until after the next paint

function joinDue() {
  due.splice(0).forEach(go => {
    try { go(); } catch (error) { console.error(error); }  // every other part still joins
  });
}

// Runs fn in a task of its own, soon: a message to the page's own channel, which, unlike a chain of setTimeout(fn, 0),
// is not held 4 ms a time once nested (the HTML standard's clamp); input and painting still come between tasks.
// The channel is made on first use: an open one would keep Node, where the tests run the page's pure functions,
// from exiting.
const tasks = [];
let channel = null;

function nextTask(fn) {
  if (!channel) {
    channel = new MessageChannel();
    channel.port1.onmessage = () => { tasks.shift()(); };
  }
  tasks.push(fn);
  channel.port2.postMessage(null);
}

// The root element gains data-started once every figure has started (boot.js) and every part whenNear holds has
// joined: from then on the page's layout only moves when the reader does something (a live reload's hold and the
// browser tests wait for it).
const joining = { parts: 0, started: false };

function settle(started) {
  if (started) joining.started = true;
  if (joining.started && !joining.parts) document.documentElement.dataset.started = '';
}

// A figure's "Back to where you were" (its `holder`, a hidden paragraph around one link): once a link elsewhere
// on the page has opened the figure, it shows, and returns the reader to that link, then hides again.
function offerBack(holder, origin) {
  if (!holder) return;
  holder.hidden = false;
  holder.firstChild.onclick = e => {
    e.preventDefault();
    holder.hidden = true;
    origin.scrollIntoView({ block: 'center' });
    origin.focus();
  };
}

// A figure: one state, and one way to change it. update(patch) merges the patch, lets the figure's
// limit() clamp the merged state, then calls render(); render reads the state and writes only the page.
function figure(root, trace, state, limit, render) {
  const fig = { root, trace, state };
  fig.update = patch => {
    Object.assign(state, patch);
    limit(fig);
    render(fig);
  };
  return fig;
}

// A figure's parts, found once inside its root: {name: selector} -> {name: element}.
function partsOf(root, selectors) {
  const ui = {};
  Object.keys(selectors).forEach(name => { ui[name] = root.querySelector(selectors[name]); });
  return ui;
}

function ids(list) { return list.map((x, i) => i); }

// 1234567 -> "1,234,567", the separator from the text table.
function grouped(n, separator) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, separator); }

// A location's fragment decoded, or as it is where it does not decode.
function decoded(hash) {
  try { return decodeURIComponent(hash || ''); } catch { return String(hash); }
}


/* ---------- detached nodes: a figure's render puts them on the page ---------- */

function node(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

// A <template>'s one element, cloned, with its parts: { root, name: the element `selectors[name]` finds }.
function cloned(template, selectors) {
  const root = template.content.firstElementChild.cloneNode(true), parts = partsOf(root, selectors);
  parts.root = root;
  return parts;
}

function row(cells, className) {
  const tr = node('tr', className || '');
  cells.forEach((c, i) => {
    const cell = i === 0 ? node('th') : node('td', 'num');
    if (i === 0) cell.scope = 'row';
    cell.append(...[].concat(c));
    tr.append(cell);
  });
  return tr;
}

function headRow(names) {
  const tr = node('tr');
  names.forEach(n => { const th = node('th', '', n); th.scope = 'col'; tr.append(th); });
  return tr;
}

// A share's bar under its number; a share of 0 gets none (its border alone read as a small nonzero share).
function bar(value, text) {
  if (!(Number(value) > 0)) return [text];
  const span = node('span', 'dist-bar');
  span.style.setProperty('--w', String(value));
  return [text, span];
}

function tokenCell(token, note) {
  return note ? [`${token} `, node('span', 'row-note', note)] : [token];
}

// One row per token: min(p, q), the p − q residual part and the q − p excess, widths precomputed in the trace;
// `numbers` is the pattern of the row's p and q.
function overlapRows(pos, vocab, mark, numbers) {
  return vocab.map((tok, y) => {
    // one track, drawn by its background: min(p, q) solid, then p − q hatched or q − p in the draft's colour
    const w = pos.bars[y], li = node('div', `bar-row${y === mark ? ' is-mark' : ''}`);
    const track = node('span', `bar-track${w[2] ? ' is-res' : ' is-exc'}`);
    track.style.setProperty('--a', String(w[0]));
    track.style.setProperty('--b', String(w[1]));
    li.append(node('bdi', 'bar-tok', tok), track, node('span', 'bar-num', fill(numbers, { p: pos.target[y], q: pos.draft[y] })));
    return li;
  });
}

/* ---------- the accept strip (templates/accept_strip.html.j2): one picture of a check, in every figure ---------- */

// Draws the accept strip `el` from d, in the words W (trace.text.accept). A check: the region where u keeps the
// proposal, [at, at + a) (at is 0 unless given), u as shown (a string), whether u is below the bound the words name
// (`bound`, or the range [lo, hi) when lo is given), whether the proposal was kept, and `tok`, which names it first.
// A draw from a distribution: its cumulative shares `cuts` (token y owns [cuts[y - 1], cuts[y])), `names` and `shares`
// for the segments' labels, the `chosen` token, u the draw r as shown, in [lo, hi), and `tok` the chosen token's label.
function acceptStrip(el, d, W) {
  const drawn = !!d.cuts, u = Number(d.u), at = d.at || 0, a = clamp(d.a || 0, 0, 1 - at);
  el.classList.add('is-live');  // the track shows once it is drawn: before, the words alone
  el.classList.toggle('is-residual', drawn);
  el.classList.toggle('is-never', !drawn && a === 0);
  el.classList.toggle('is-kept', !drawn && !!d.kept);
  el.classList.toggle('is-rejected', !drawn && !d.kept);
  el.style.setProperty('--at', String(at));
  el.style.setProperty('--a', String(a));
  el.style.setProperty('--u', String(u));
  el.dataset.acceptEnd = u < 0.2 ? 'lo' : u > 0.8 ? 'hi' : '';  // the tick's label keeps clear of that end's number
  el.querySelector('[data-accept-segs]').replaceChildren(...drawn ? stripSegments(d) : []);
  el.querySelector('[data-accept-u]').textContent = fill(drawn ? W.r : W.u, { u: d.u });
  el.querySelector('[data-accept-text]').textContent = acceptWords(d, W);
}

// The strip's words: "u = 0.306 < 5/6: kept", "u = 0.300 in [0.250, 0.625): kept", "r = 0.054 in [0, 0.667): “sat”",
// and with tok a check names its proposal first: "“the”: u = 0.3061 < 0.8333: kept" (figures/common.accept_words).
function acceptWords(d, W) {
  const f = { u: d.u, bound: d.bound, lo: d.lo, hi: d.hi, tok: d.tok, verdict: d.kept ? W.kept : W.rejected };
  if (d.cuts) return fill(W.drawn, f);
  f.rel = d.lo === undefined ? (d.below ? W.lt : W.ge) : (d.kept ? W.in : W.out);
  const test = fill(d.lo === undefined ? W.test : W.range, f);
  return d.tok === undefined ? test : fill(W.named, { tok: d.tok, test });
}

// One segment per token, as wide as its share, labelled with its name and share; the chosen one marked.
function stripSegments(d) {
  return d.cuts.map((cut, y) => {
    const width = cut - (y ? d.cuts[y - 1] : 0);
    const seg = node('span', `fig-accept-seg${y === d.chosen ? ' is-drawn' : ''}${width > 0 ? '' : ' is-empty'}`);
    seg.style.setProperty('--w', String(width));
    seg.append(node('bdi', '', d.names[y]), ' ', d.shares[y] === null ? '0' : d.shares[y]);
    return seg;
  });
}

// What print.js's startNear tells the page when a part far below the fold has joined it.
const NEAR_EVENT = 'data-near';

// mulberry32, a 32-bit generator of uniforms in [0, 1): speculative/generate.py's mulberry32 draws the same ones,
// so a seeded run here and the build's agree draw for draw. next() -> the next uniform.
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    let t = a = (a + 0x6D2B79F5) >>> 0;
    t = Math.imul(t ^ t >>> 15, t | 1);
    t ^= t + Math.imul(t ^ t >>> 7, t | 61);
    return ((t ^ t >>> 14) >>> 0) / 4294967296;
  };
}

// Uniforms in [0, 1): the browser's crypto by default; a seeded mulberry32 stream only when a test (or the page's
// seeded run) gives a whole number. fill(out) fills a Float64Array.
function uniformSource(seed) {
  if (Number.isInteger(seed)) {
    const next = mulberry32(seed);
    return out => {
      for (let i = 0; i < out.length; i++) out[i] = next();
      return out;
    };
  }
  return out => {
    const words = new Uint32Array(out.length);
    for (let i = 0; i < words.length; i += 16384) crypto.getRandomValues(words.subarray(i, i + 16384));
    for (let j = 0; j < out.length; j++) out[j] = words[j] / 4294967296;
    return out;
  };
}

// One uniform at a time from a source's fills, 256 at a time.
function oneAtATime(fill) {
  const buffer = new Float64Array(256);
  let i = buffer.length;
  return () => {
    if (i === buffer.length) { fill(buffer); i = 0; }
    return buffer[i++];
  };
}

// Each figure's script names its root and its start function here; boot.js starts every root it finds.
const STARTERS = [];  // [name, selector, start, many]

function starts(name, selector, start, many) { STARTERS.push([name, selector, start, !!many]); }

Object.assign(shared, {
  acceptStrip, bar, clamp, cloned, decoded, figure, fill, fracValue, grouped, headRow, ids, loadTrace, NEAR_EVENT, nextTask, node,
  offerBack, oneAtATime, overlapRows, partsOf, row, settle, STARTERS, starts, tokenCell, uniformSource, whenNear, whole
});

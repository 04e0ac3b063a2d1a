// Watch it generate: n-gram models counted here from the prose's token ids (speculative/ngram.py is the same
// model: interpolated Kneser-Ney, one discount, uniform at the bottom), then rounds run live. The draws come from
// crypto (core.js's uniformSource), or, where a test opts in before the page loads, from window.__generateSeed (the
// mulberry32 of speculative/generate.py's page run) or window.__generateUniforms ({spec: [...], plain: [...]}).
// A run is a race to trace.generator.goal tokens (a test may opt in to another length with window.__generateRace,
// and then starts from an empty race): each lane stops there, and once both have, the figure says who was first.

const {
  acceptStrip, clamp, cloned, committedIn, figure, fill, firstLargest, FLOATS, inverseCdf, node, oneAtATime, overlapRows,
  partsOf, starts, uniformSource, variantPieces, whole
} = shared;

const GENERATOR_PARTS = {
  play: '[data-generator-play]', step: '[data-generator-step]', reset: '[data-generator-reset]', draft: '[data-generator-draft]',
  k: '[data-generator-k]', kOut: '[data-generator-k-out]', temp: '[data-generator-temp]', spec: '[data-generator-spec]',
  plain: '[data-generator-plain]', specStats: '[data-generator-spec-stats]', plainStats: '[data-generator-plain-stats]',
  specBar: '[data-generator-spec-bar]', plainBar: '[data-generator-plain-bar]', measured: '[data-generator-measured]',
  expected: '[data-generator-expected]', note: '[data-generator-note]', check: '[data-generator-check-text]', bars: '[data-generator-bars]',
  how: '[data-generator-how]', sampler: '[data-generator-sampler]', brokenAt: '[data-generator-broken-at]',
  verdict: '[data-generator-verdict]', checksTitle: '[data-generator-checks-title]', cells: '[data-generator-cells]',
  cellAt: '[data-generator-cell-at]'
};
const GENERATOR_MS = 300;  // play: milliseconds per target pass of the clock
const GENERATOR_TIE = 1e-9;  // clock times this close are the same (figures/generator.TIE)
const GENERATOR_PLACES = 15;  // the most decimals a probability below 1 gets to show it is not 1 (figures/generator.PLACES)
let KINDS = [];  // a committed token's kinds, from the trace: accepted, replaced, bonus
let KEYS = [];  // the keys that choose a focused token, from the trace: Enter and space, as a button's
// The keys that move between a lane's tokens, which take one stop in the tab order between them (a roving tabindex).
const GENERATOR_MOVES = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1, Home: -Infinity, End: Infinity };

/* ---------- the model: counts, then rows ---------- */

function listUniform(list) {
  let i = 0;
  return () => list[i++];
}

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
function ngramModel(ids, V, order, d) {
  const levels = [], cache = {};
  for (let m = 1; m <= order; m++) levels.push(levelCounts(ids, m, m === order));
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

function temperedRows(row, T) {
  const cache = {};
  return ctx => { const key = ctx.join(' '); return cache[key] || (cache[key] = tempered(row(ctx), T)); };
}

/* ---------- one round, as generate.one_round runs it with the chosen sampler (variants.js) ---------- */

// The draft's proposal distribution at a context: q, or all of it on q's top token for a greedy proposal.
function proposalRow(spec, q) {
  if (!spec.propose) return q;  // 1: the top token (variants.PROPOSE)
  const one = new Float64Array(q.length);
  one[firstLargest(q, FLOATS)] = 1;
  return one;
}

function generatorRound(P, Q, context, k, draw, spec) {
  const proposals = [];
  let ctx = context, i;
  for (i = 0; i < k; i++) { proposals.push(inverseCdf(proposalRow(spec, Q(ctx)), draw())); ctx = ctx.slice(1).concat([proposals[i]]); }
  const round = { context, proposals, checks: [], committed: [], kinds: [], r: null };
  ctx = context;
  for (i = 0; i < k; i++) {
    const p = P(ctx), q = Q(ctx), x = proposals[i], pieces = variantPieces(spec, p, q, FLOATS), a = pieces.accept[x], u = draw();
    round.checks.push({ ctx, p: p[x], q: q[x], a, u, below: pieces.below });
    if (pieces.below ? !(u < a) : u < a) {
      round.r = draw();
      round.committed.push(inverseCdf(pieces.fix, round.r));
      round.kinds.push(KINDS[1]);
      return round;
    }
    round.committed.push(x);
    round.kinds.push(KINDS[0]);
    ctx = ctx.slice(1).concat([x]);
  }
  round.r = draw();
  round.bonusCtx = ctx;
  round.committed.push(inverseCdf(P(ctx), round.r));
  round.kinds.push(KINDS[2]);
  return round;
}

/* ---------- the figure ---------- */

function startGenerator(root, trace) {
  const g = trace.generator;
  KINDS = g.kinds;
  KEYS = g.keys;
  const fig = figure(root, trace, { draft: g.draft, k: g.k, temp: g.temp, sampler: 0, playing: false }, limitGenerator, renderGenerator);
  fig.ui = partsOf(root, GENERATOR_PARTS);
  fig.G = trace.text.generator;
  fig.A = trace.text.accept;
  fig.pure = { tempered, inverseCdf, probText };  // what a test opting in with __playerDebug may call
  fig.reduced = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  fig.goal = Number.isInteger(window.__generateRace) ? window.__generateRace : g.goal;
  if (fig.reduced) fig.ui.play.hidden = true;
  fig.ui.how.textContent = fill(fig.reduced ? fig.G.how_still : fig.G.how, { goal: fig.goal });
  root.hidden = false;  // its place is kept from the first paint (the lanes' heights are fixed), the text comes after
  requestAnimationFrame(() => { setTimeout(() => { readyGenerator(fig); }, 0); });
  return fig;
}

// Counts the models (tens of milliseconds), writes the page's seeded run, then lets the controls work.
function readyGenerator(fig) {
  const g = fig.trace.generator, corpus = corpusIds(document), ids = corpus.ids, V = corpus.vocab.length;
  if (V !== g.types) { fig.root.hidden = true; return; }  // a page template without the sections' tokens: no model
  fig.vocab = corpus.vocab;
  fig.target = ngramModel(ids, V, g.order, g.discount);
  fig.drafts = g.orders.map(m => m === g.order ? fig.target : ngramModel(ids, V, m, g.discount));
  fig.prompt = ids.slice(0, g.order - 1);
  wireGenerator(fig);
  restart(fig, window.__generateUniforms ? null : g.seed);
  // the page's seeded race, run to its finish as the page shows it without scripting; a test's own race starts empty
  while (fig.goal === g.goal && !window.__generateUniforms && !raceOver(fig)) advance(fig);
  fig.root.querySelectorAll('button, input, select').forEach(el => { el.disabled = false; });
  fig.update({});
}

function wireGenerator(fig) {
  const ui = fig.ui;
  ui.play.addEventListener('click', () => { if (raceOver(fig)) restart(fig, null); setPlaying(fig, !fig.state.playing); });
  ui.step.addEventListener('click', () => { if (raceOver(fig)) restart(fig, null); advance(fig); fig.update({}); });
  ui.reset.addEventListener('click', () => { restart(fig, null); fig.update({}); });
  ui.draft.addEventListener('change', () => { fig.update({ draft: ui.draft.value }); restart(fig, null); fig.update({}); });
  ui.temp.addEventListener('change', () => { fig.update({ temp: ui.temp.value }); restart(fig, null); fig.update({}); });
  ui.sampler.addEventListener('change', () => { fig.update({ sampler: ui.sampler.value }); restart(fig, null); fig.update({}); });
  ui.k.addEventListener('input', () => { fig.update({ k: ui.k.value }); restart(fig, null); fig.update({}); });
  function choose(e) {
    const b = e.target.closest('[role=button]'), i = b ? fig.tokenEls.indexOf(b) : -1;
    if (i < 0) return;
    e.preventDefault();
    fig.update({ chosen: i });
  }
  ui.spec.addEventListener('click', choose);
  ui.spec.addEventListener('keydown', e => {
    if (e.key === KEYS[0] || e.key === KEYS[1]) choose(e); else if (e.key in GENERATOR_MOVES) moveFocus(fig, e);
  });
}

// Arrows, Home and End move the focus from token to token in the speculative lane.
function moveFocus(fig, e) {
  const list = fig.tokenEls, i = list.indexOf(e.target);
  if (i < 0 || e.altKey || e.ctrlKey || e.metaKey) return;
  e.preventDefault();
  const to = list[clamp(i + GENERATOR_MOVES[e.key], 0, list.length - 1)];
  rove(fig, to);
  to.focus();
}

// The one token of the lane in the tab order: the chosen one, or else the first.
function rove(fig, el) {
  if (fig.rover === el) return;
  if (fig.rover) fig.rover.tabIndex = -1;
  fig.rover = el;
  if (el) el.tabIndex = 0;
}

function limitGenerator(fig) {
  const s = fig.state, g = fig.trace.generator;
  s.draft = clamp(whole(s.draft, 0), 0, g.orders.length - 1);
  s.k = clamp(whole(s.k, 1), 1, g.max_k);
  s.temp = clamp(whole(s.temp, 0), 0, g.temps.length - 1);
  s.sampler = clamp(whole(s.sampler, 0), 0, fig.trace.samplers.length - 1);
}

// A fresh run from the prompt: seeded (the page's run, or a test's opt-in), or from crypto.
function restart(fig, seed) {
  const g = fig.trace.generator, s = fig.state, given = window.__generateUniforms, T = g.temps[s.temp];
  const opt = window.__generateSeed;
  if (Number.isInteger(opt)) seed = opt;
  fig.drawSpec = given ? listUniform(given.spec) : oneAtATime(uniformSource(seed));  // seed null: crypto
  fig.drawPlain = given ? listUniform(given.plain) : oneAtATime(uniformSource(seed === null ? null : seed + 1));
  fig.P = temperedRows(fig.target, T);
  fig.Q = temperedRows(fig.drafts[s.draft], T);
  fig.run = { text: fig.prompt.slice(), plain: fig.prompt.slice(), rounds: [], tokens: [], time: 0, steps: 0, specAt: null };
  fig.shownSpec = 0;
  fig.shownPlain = 0;
  s.chosen = null;
  clearLanes(fig);
}

// One round of the speculative lane, whose tokens stop at the goal; the plain lane writes a token for each whole
// target pass of the clock, up to the goal. (A test's bare figure without a goal runs on without a finish.)
function stepOnce(fig) {
  const run = fig.run, g = fig.trace.generator, k = fig.state.k, width = g.order - 1, goal = fig.goal || Infinity;
  const spec = fig.trace.samplers[fig.state.sampler];
  const round = generatorRound(fig.P, fig.Q, run.text.slice(run.text.length - width), k, fig.drawSpec, spec);
  round.k = k;
  round.sampler = spec;
  round.index = run.rounds.length;
  round.ghosts = round.proposals.slice(round.checks.length);
  run.rounds.push(round);
  round.committed.forEach((y, j) => { if (run.tokens.length < goal) run.tokens.push({ y, kind: round.kinds[j], round: round.index, j }); });
  run.text = run.text.concat(round.committed);
  run.time += k * g.cost.c + g.cost.v;
  run.steps += k;
  if (run.tokens.length >= goal) {
    run.specAt = run.time;  // the speculative lane's finish, on the clock
    if (run.text.length - fig.prompt.length > goal) round.ghosts = [];  // the round ran past the finish: none shown
  }
  writePlain(fig, goal);
  return round;
}

function writePlain(fig, goal) {
  const run = fig.run, width = fig.trace.generator.order - 1;
  while (run.plain.length - fig.prompt.length < goal && run.plain.length - fig.prompt.length + 1 <= run.time + 1e-9) {
    run.plain.push(inverseCdf(fig.P(run.plain.slice(run.plain.length - width)), fig.drawPlain()));
  }
}

// One step of the race's clock: a speculative round, or, once that lane has finished, as long as one would take.
function advance(fig) {
  const g = fig.trace.generator;
  if (fig.run.specAt === null) return stepOnce(fig);
  fig.run.time += fig.state.k * g.cost.c + g.cost.v;
  writePlain(fig, fig.goal);
  return null;
}

function plainDone(fig) { return fig.run.plain.length - fig.prompt.length >= fig.goal; }

function raceOver(fig) { return fig.run.specAt !== null && plainDone(fig); }

function setPlaying(fig, on) {
  clearTimeout(fig.timer);
  fig.state.playing = on && !fig.reduced;
  fig.ui.play.textContent = fig.state.playing ? fig.G.pause : fig.G.play;
  if (fig.state.playing) tick(fig);
}

function tick(fig) {
  const g = fig.trace.generator, cost = fig.state.k * g.cost.c + g.cost.v;
  fig.timer = setTimeout(() => {
    if (!fig.state.playing) return;
    advance(fig);
    if (raceOver(fig)) setPlaying(fig, false);  // Play stops at the finish
    fig.update({});
    if (fig.state.playing) tick(fig);
  }, GENERATOR_MS * cost);
}

/* ---------- render: the lanes grow by what is new; the rest is rewritten ---------- */

function clearLanes(fig) {
  const ui = fig.ui, prompt = spacedText(fig, fig.prompt, null);
  ui.spec.textContent = '';
  ui.plain.textContent = '';
  ui.spec.append(node('span', 'generator-prompt', prompt));
  ui.plain.append(node('span', 'generator-prompt', prompt), document.createTextNode(''));
  fig.ghosts = [];
  fig.tokenEls = [];  // the lane's token elements, one for each token of the run, in order
  fig.rover = fig.pressed = null;
}

// Tokens joined as the build joins them (figures/generator.joined): a space unless punctuation holds them together.
function spaceBefore(fig, token, previous) {
  const j = fig.trace.generator.join;
  return previous === null || j.before.indexOf(token.charAt(0)) >= 0 || j.after.indexOf(previous.charAt(previous.length - 1)) >= 0 ? '' : ' ';
}

function spacedText(fig, ids, previous) {
  let out = '';
  ids.forEach(y => { const t = fig.vocab[y]; out += spaceBefore(fig, t, previous) + t; previous = t; });
  return out;
}

function renderGenerator(fig) {
  const s = fig.state, ui = fig.ui;
  ui.kOut.textContent = String(s.k);
  ui.k.value = String(s.k);
  ui.draft.value = String(s.draft);
  ui.temp.value = String(s.temp);
  ui.sampler.value = String(s.sampler);
  growSpec(fig);
  growPlain(fig);
  renderFigures(fig);
  renderCheck(fig);
  renderChecks(fig);
  renderBroken(fig);
}

// The last round's checks, one small accept strip each (core.js's acceptStrip), then the proposals it dropped: where
// each u fell against the region that keeps its proposal, without a click. Written again only for a new round.
function renderChecks(fig) {
  const round = fig.run.rounds[fig.run.rounds.length - 1], ui = fig.ui, G = fig.G;
  if (fig.checksOf === round) return;
  fig.checksOf = round;
  if (!round) return;  // a fresh race keeps the last round's row until its own first round
  ui.checksTitle.textContent = fill(G.checks_title, { round: round.index + 1 });
  const cells = round.checks.map((c, j) => {
    const cell = cloned(ui.cellAt, { strip: '[data-accept]' }), kept = round.kinds[j] === KINDS[0];
    // a broken sampler that keeps u at or above its bound keeps the region [a, 1)
    const region = c.below ? { at: 0, a: c.a } : { at: clamp(c.a, 0, 1), a: 1 - clamp(c.a, 0, 1) };
    acceptStrip(cell.strip, Object.assign(region, { u: probText(c.u), bound: probText(c.a), below: c.u < c.a, kept,
      tok: fig.vocab[round.proposals[j]] }), fig.A);
    return cell.root;
  });
  const dropped = round.proposals.slice(round.checks.length).map(y => node('li', 'generator-cell is-dropped', fill(G.cell_dropped, { tok: fig.vocab[y] })));
  ui.cells.replaceChildren(...cells, ...dropped);
}

// Under a broken sampler: the first token a round commits after the prose's most frequent context, against the
// target's p there (variants.js's committed distribution, in floats), with its distance from p.
function renderBroken(fig) {
  const s = fig.state, spec = fig.trace.samplers[s.sampler], key = [s.sampler, s.draft, s.temp].join('/');
  if (!s.sampler) { if (fig.broken) fig.broken.root.remove(); fig.broken = fig.brokenKey = null; return; }
  if (fig.brokenKey === key) return;
  fig.brokenKey = key;
  // made from its template only while a broken sampler runs: the page at rest keeps none of its elements
  const ui = fig.broken || (fig.broken = cloned(fig.ui.brokenAt, { text: '[data-generator-broken-text]', bars: '[data-generator-broken-bars]' }));
  if (!ui.root.isConnected) fig.ui.brokenAt.after(ui.root);
  const ctx = fig.trace.generator.context, p = fig.P(ctx), c = committedIn(variantPieces(spec, p, fig.Q(ctx), FLOATS), FLOATS);
  const tv = 0.5 * c.reduce((sum, x, y) => sum + Math.abs(x - p[y]), 0);
  const same = fixed(tv, 4) === fixed(0, 4);  // it commits p here, to the places shown
  ui.text.textContent = fill(same ? fig.G.broken_ctx_same : fig.G.broken_ctx, {
    context: spacedText(fig, ctx, null), size: fig.trace.generator.context_size, name: spec.name, tv: fixed(tv, 4) });
  ui.bars.replaceChildren(...topBars(fig, p, c, -1, fig.G.broken_numbers));
}

// The last token a lane shows: of `text`, after the prompt and `shown` tokens.
function lastToken(fig, text, shown) {
  return fig.vocab[text[fig.prompt.length + shown - 1]];
}

function growSpec(fig) {
  const run = fig.run, ui = fig.ui, start = fig.shownSpec;
  if (start === run.tokens.length) return;
  const follow = atBottom(ui.spec);
  fig.ghosts.forEach(el => { el.remove(); });
  fig.ghosts = [];
  const frag = document.createDocumentFragment();
  let previous = lastToken(fig, run.text, start);
  run.tokens.slice(start).forEach(t => {
    const b = tokenEl(fig, t);
    frag.append(spaceBefore(fig, b.textContent, previous), b);
    fig.tokenEls.push(b);
    previous = b.textContent;
  });
  const last = run.rounds[run.rounds.length - 1];
  if (last.ghosts.length) frag.append(ghostOf(fig, last.ghosts, previous));
  ui.spec.append(frag);
  fig.shownSpec = run.tokens.length;
  if (!fig.rover) rove(fig, fig.tokenEls[0]);
  if (follow) ui.spec.scrollTop = ui.spec.scrollHeight;
}

// Every token of the run keeps its own element, marked with its kind (kept, replaced, bonus) for as long as the run
// lasts: a span, not a button element, so that it flows and wraps as the words around it.
function tokenEl(fig, t) {
  const tok = fig.vocab[t.y], b = node('span', `generator-tok is-${t.kind}`, tok);
  b.setAttribute('role', 'button');
  b.setAttribute('aria-pressed', String(false));
  b.setAttribute('aria-label', `${tok}: ${fig.G[t.kind]}`);
  b.tabIndex = -1;
  return b;
}

// The proposals a rejection dropped, struck through after the round's text; it goes, with its space, next round.
function ghostOf(fig, ghosts, previous) {
  const ghost = node('span', 'generator-drop'), struck = node('s', `generator-tok is-ghost${fig.reduced ? '' : ' is-fading'}`);
  const text = spacedText(fig, ghosts, previous);
  struck.textContent = text.trim();
  ghost.append(text.charAt(0) === ' ' ? ' ' : '', struck);
  fig.ghosts.push(ghost);
  return ghost;
}

// Whether a lane shows its end: it follows new text only then, so a reader who scrolled back stays where they are.
function atBottom(lane) { return lane.scrollHeight - lane.scrollTop - lane.clientHeight < 4; }

function growPlain(fig) {
  const run = fig.run, text = fig.ui.plain.lastChild, have = fig.shownPlain;
  const fresh = run.plain.slice(fig.prompt.length + have), follow = atBottom(fig.ui.plain);
  if (!fresh.length) return;
  text.textContent += spacedText(fig, fresh, lastToken(fig, run.plain, have));
  fig.shownPlain = run.plain.length - fig.prompt.length;
  if (follow) fig.ui.plain.scrollTop = fig.ui.plain.scrollHeight;
}

// A probability as the check shows it (figures/generator.probability): 0 and 1 only when exactly so; 4 decimals from
// 0.01 up, with as many more as it takes for a number below 1 not to print as 1 (past 15, "> 0.999…"); and 3
// significant digits below 0.01, so a rare token's ratio can be worked from the numbers shown. toFixed rounds the
// float's exact value half up, as Python's decimal_str does.
function probText(x) {
  if (x === 0 || x === 1) return String(x);
  if (x < 0.01) return x.toFixed(2 - Math.floor(Math.log10(x)));
  let places = 4;
  while (x < 1 && x.toFixed(places) === (1).toFixed(places) && places < GENERATOR_PLACES) places++;
  return x < 1 && x.toFixed(places) === (1).toFixed(places) ? `> 0.${'9'.repeat(places)}` : x.toFixed(places);
}

function fixed(x, places) { return (Math.round(x * 10**places) / 10**places).toFixed(places); }

function countText(n, one, many) { return n === 1 ? one : fill(many, { n: String(n).replace(/\B(?=(\d{3})+$)/g, ',') }); }

function renderFigures(fig) {
  const run = fig.run, G = fig.G, s = fig.state, ui = fig.ui, goal = fig.goal;
  const tokens = run.tokens.length, rounds = run.rounds.length, plain = run.plain.length - fig.prompt.length;
  const per = rounds ? tokens / rounds : 0, specTime = run.specAt === null ? run.time : run.specAt;
  ui.specStats.textContent = fill(G.spec_stats, {
    tokens: countText(tokens, G.token_one, G.tokens), goal, time: fixed(specTime, 1),
    passes: countText(rounds, G.passes_one, G.passes), steps: countText(run.steps, G.steps_one, G.steps), per: fixed(per, 2) });
  ui.plainStats.textContent = fill(G.plain_stats, { tokens: countText(plain, G.token_one, G.tokens), goal,
                                                    passes: countText(plain, G.passes_one, G.passes), time: fixed(Math.min(run.time, goal), 1) });
  renderClock(fig);
  ui.measured.textContent = rounds && !raceOver(fig) ? fill(G.measured, { per: fixed(per, 2), speedup: fixed(tokens / specTime, 2) }) : '';
  ui.verdict.textContent = raceOver(fig) ? verdictText(fig) : '';
  ui.expected.textContent = expectedText(fig) + (s.sampler ? ` ${G.expected_broken}` : '');
  const g = fig.trace.generator;
  ui.note.textContent = fill(G.expected_note, { rounds: g.profile_rounds, kmax: g.profile_k, k: s.k, c: g.cost.c_text, v: g.cost.v_text,
                                                 cost: g.cost_words[s.k - 1] });
}

// Who reached the goal first, and by how much (figures/generator.verdict): plain decoding needs one target pass a token.
function verdictText(fig) {
  const run = fig.run, G = fig.G, goal = fig.goal, rounds = run.rounds.length, t = run.specAt;
  const pattern = Math.abs(t - goal) < GENERATOR_TIE ? G.verdict_tie : t < goal ? G.verdict_spec : G.verdict_plain;
  return fill(pattern, { goal, passes: countText(rounds, G.passes_one, G.passes), steps: countText(run.steps, G.steps_one, G.steps),
                        time: fixed(t, 1), goal_passes: countText(goal, G.passes_one, G.passes), fewer: fixed(goal / rounds, 2),
                        ratio: fixed(Math.max(goal / t, t / goal), 2) });
}

// The expected tokens per round and speedup at these settings, with the 95% half-width of the build's estimate
// (language.half_width), or exact for the target as its own draft (figures/generator.expected).
function expectedText(fig) {
  const g = fig.trace.generator, s = fig.state, G = fig.G, passes = g.passes[s.draft][s.temp], spread = g.spreads[s.draft][s.temp];
  const cost = s.k * g.cost.c + g.cost.v;
  let e = 1;
  for (let i = 0; i < s.k; i++) e += passes[i];  // language.tokens_per_round
  if (spread === null) return fill(G.expected_exact, { per: fixed(e, 2), speedup: fixed(e / cost, 2) });
  const pm = spread[s.k - 1];
  return fill(G.expected, { rounds: g.profile_rounds, per: fixed(e, 2), pm: fixed(pm, 2), speedup: fixed(e / cost, 2),
                            speedup_pm: fixed(pm / cost, 2) });
}

// The clock strips: the last g.clock target steps, now at the right end, the part before the run began masked.
// The plain lane's blocks are its passes, one a step; the speculative lane's repeat a round from the right: the
// target pass (v), then the k draft steps.
function renderClock(fig) {
  const g = fig.trace.generator, round = fig.state.k * g.cost.c + g.cost.v, empty = 1 - Math.min(1, fig.run.time / g.clock);
  const spec = fig.ui.specBar.style, plain = fig.ui.plainBar.style;
  spec.setProperty('--round', `${100 * round / g.clock}%`);
  spec.setProperty('--pass', `${100 * g.cost.v / g.clock}%`);
  plain.setProperty('--step', `${100 / g.clock}%`);
  spec.setProperty('--empty', `${100 * empty}%`);
  plain.setProperty('--empty', `${100 * empty}%`);
}

// The chosen token's check: the top tokens of p and q at its context in the lab's encoding, then the sentence.
function renderCheck(fig) {
  const s = fig.state, ui = fig.ui, G = fig.G, t = s.chosen === null ? null : fig.run.tokens[s.chosen];
  ui.bars.textContent = '';
  press(fig, t ? fig.tokenEls[s.chosen] : null);
  if (!t) { ui.check.textContent = G.pick; return; }
  const round = fig.run.rounds[t.round], c = t.kind === KINDS[2] ? null : round.checks[t.j];
  const ctx = c ? c.ctx : round.bonusCtx, p = fig.P(ctx), q = fig.Q(ctx);
  const head = fill(G.ctx, { round: t.round + 1, pos: t.j + 1, context: spacedText(fig, ctx, null) });
  ui.check.textContent = `${head} ${checkSentence(fig, round, t, c, p)}`;
  ui.bars.append(...topBars(fig, p, q, c ? round.proposals[t.j] : t.y, fig.G.bar_numbers));
}

// Only the token chosen before and the one chosen now change: the lane may hold thousands.
function press(fig, el) {
  if (fig.pressed === el) return;
  if (fig.pressed) fig.pressed.setAttribute('aria-pressed', String(false));
  fig.pressed = el;
  if (el) { el.setAttribute('aria-pressed', String(true)); rove(fig, el); }
}

function checkSentence(fig, round, t, c, p) {
  const G = fig.G, V = fig.vocab, x = round.proposals[t.j];
  if (t.kind === KINDS[2]) return fill(G.check_bonus, { y: V[t.y], p: probText(p[t.y]), r: probText(round.r) });
  const fields = { x: V[x], q: probText(c.q), p: probText(c.p), a: probText(c.a), u: probText(c.u), y: V[t.y],
                   r: probText(round.r || 0), name: round.sampler.name };
  const broken = round.sampler.id !== fig.trace.samplers[0].id, kept = t.kind === KINDS[0];
  if (kept) return fill(broken ? G.check_broken_keep : c.a >= 1 ? G.check_capped : G.check_accept, fields);  // a = 1: no chance
  const n = round.ghosts.length, dropped = { dropped: countText(n, G.proposals_one, G.proposals), were: n === 1 ? G.were_one : G.were };
  return fill(broken ? G.check_broken_reject : G.check_reject, fields) + (n ? fill(G.check_dropped, dropped) : '');
}

// The six tokens with the largest max(p, q), as core.js's overlapRows draws a position.
function topBars(fig, p, q, mark, numbers) {
  const order = [];
  let y;
  for (y = 0; y < p.length; y++) order.push(y);
  order.sort((a, b) => Math.max(p[b], q[b]) - Math.max(p[a], q[a]) || a - b);
  const pick = order.slice(0, 6), top = Math.max(p[pick[0]], q[pick[0]]);
  if (mark >= 0 && pick.indexOf(mark) < 0) pick[5] = mark;
  const pos = { bars: [], target: [], draft: [] };
  pick.forEach(y => {
    pos.bars.push([Math.min(p[y], q[y]) / top, Math.abs(p[y] - q[y]) / top, p[y] > q[y] ? 1 : 0]);
    pos.target.push(probText(p[y]));
    pos.draft.push(probText(q[y]));
  });
  return overlapRows(pos, pick.map(y => fig.vocab[y]), pick.indexOf(mark), numbers);
}

starts('generator', '[data-generator]', startGenerator);

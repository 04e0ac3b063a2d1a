// Watch it generate: the race and the figure. The models (generator_model.js) are counted from the prose's words,
// then rounds run live, by the sampler chosen (variants.js), as speculative/generate.py runs them. The draws come
// from crypto (core.js's uniformSource), or, where a test opts in before the page loads, from window.__generateSeed
// (the mulberry32 of speculative/generate.py's page run) or window.__generateUniforms ({spec: [...], plain: [...]}).
// A run is a race to trace.generator.goal tokens (a test may opt in to another length with window.__generateRace,
// and then starts from an empty race): each lane stops there, and once both have, the figure says who was first.
// One state, changed only by fig.update: limit keeps the race in step with it, generator_view.js's render writes the
// page, and every handler only asks for a change.

const {
  clamp, corpusIds, figure, firstLargest, FLOATS, inverseCdf, levelCounts, nextTask, ngramModel, oneAtATime, partsOf, probText,
  renderGenerator, roundCost, starts, tempered, temperedRows, tickPasses, treeRound, uniformSource, variantPieces, whole, withBonus
} = shared;

const ACCEPTED = 0, REPLACED = 1;  // a committed token's kind: its index in trace.generator.kinds (the bonus, 2: withBonus)
// The keys that move between a lane's tokens, which take one stop in the tab order between them (a roving tabindex).
const GENERATOR_MOVES = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1, Home: -Infinity, End: Infinity };

/* ---------- the race: one round, as generate.one_round runs it with the chosen sampler (variants.js) ---------- */

function listUniform(list) {
  let i = 0;
  return () => list[i++];
}

// Two readers of one stream of draws, each from its start: a tree race and the chain run alongside it. A tree round
// reads k * m draft draws and a chain round k, so past the first the two read the stream at different places.
function twoReaders(draw) {
  const seen = [];
  const reader = () => { let i = 0; return () => { while (seen.length <= i) seen.push(draw()); return seen[i++]; }; };
  return [reader(), reader()];
}

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
      round.fix = pieces.fix;  // the residual r drew from, which the row of checks draws after the rejection
      round.committed.push(inverseCdf(pieces.fix, round.r));
      round.kinds.push(REPLACED);
      return round;
    }
    round.committed.push(x);
    round.kinds.push(ACCEPTED);
    ctx = ctx.slice(1).concat([x]);
  }
  return withBonus(round, ctx, P, draw);
}

// A fresh race from the prompt at the state's settings: seeded (the page's run, or a test's opt-in), or from crypto.
function restart(fig, seed) {
  const g = fig.trace.generator, s = fig.state, given = window.__generateUniforms, T = g.temps[s.temp];
  const opt = window.__generateSeed;
  if (Number.isInteger(opt)) seed = opt;
  fig.drawSpec = given ? listUniform(given.spec) : oneAtATime(uniformSource(seed));  // seed null: crypto
  if (s.m > 1) [fig.drawSpec, fig.drawChain] = twoReaders(fig.drawSpec);  // the chain alongside: the same seed
  fig.drawPlain = given ? listUniform(given.plain) : oneAtATime(uniformSource(seed === null ? null : seed + 1));
  fig.P = temperedRows(fig.target, T);
  fig.Q = temperedRows(fig.drafts[s.draft], T);
  fig.run = { race: s.race, text: fig.prompt.slice(), plain: fig.prompt.slice(), rounds: [], tokens: [], time: 0, steps: 0,
    specAt: null, ticks: 0, over: false,
    chain: s.m > 1 ? { text: fig.prompt.slice(), rounds: 0, tokens: 0, time: 0 } : null };  // the chain alongside a tree
}

// One round of the speculative lane, whose tokens stop at the goal; the plain lane writes a token for each whole
// target pass of the clock, up to the goal. (A test's bare figure without a goal runs on without a finish.)
function stepOnce(fig) {
  const run = fig.run, g = fig.trace.generator, k = fig.state.k, width = g.order - 1, goal = fig.goal || Infinity;
  const spec = fig.trace.samplers[fig.state.sampler], s = fig.state, ctx = run.text.slice(run.text.length - width);
  const round = s.m > 1 ? treeRound(fig.P, fig.Q, ctx, k, s.m, s.replace, fig.drawSpec) : generatorRound(fig.P, fig.Q, ctx, k, fig.drawSpec, spec);
  round.k = k;
  round.sampler = spec;
  round.index = run.rounds.length;
  round.dropped = round.tree ? [] : round.proposals.slice(round.checks.length);  // struck through after the round's text
  run.rounds.push(round);
  round.committed.forEach((y, j) => { if (run.tokens.length < goal) run.tokens.push({ y, kind: round.kinds[j], round: round.index, j }); });
  run.text = run.text.concat(round.committed);
  run.time += roundCost(g, s);
  run.steps += k;
  if (run.tokens.length >= goal) {
    run.specAt = run.time;  // the speculative lane's finish, on the clock
    if (run.text.length - fig.prompt.length > goal) round.dropped = [];  // the round ran past the finish: none shown
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

// The chain (one candidate per position) run alongside a tree race, a round a tick, from the same seed, to the goal.
function stepChain(fig) {
  const c = fig.run.chain, g = fig.trace.generator, s = fig.state, width = g.order - 1;
  if (!c || c.tokens >= (fig.goal || Infinity)) return;
  const round = generatorRound(fig.P, fig.Q, c.text.slice(c.text.length - width), s.k, fig.drawChain, fig.trace.samplers[0]);
  c.text = c.text.concat(round.committed);
  c.tokens = Math.min(fig.goal || Infinity, c.tokens + round.committed.length);
  c.rounds += 1;
  c.time += roundCost(g, { k: s.k, m: 1 });
}

// One tick of the race's clock: a speculative round, or, once that lane has finished, as long as one would take
// (at least a pass: tickPasses).
function advance(fig) {
  const g = fig.trace.generator, run = fig.run;
  run.ticks += 1;
  stepChain(fig);
  if (run.specAt === null) stepOnce(fig);
  else {
    run.time += tickPasses(g, fig.state, run);
    writePlain(fig, fig.goal);
  }
  run.over = run.specAt !== null && run.plain.length - fig.prompt.length >= fig.goal;
}

/* ---------- the figure: its state, kept in range and in step with the race ---------- */

const GENERATOR_PARTS = {
  play: '[data-generator-play]', step: '[data-generator-step]', reset: '[data-generator-reset]', draft: '[data-generator-draft]',
  k: '[data-generator-k]', kOut: '[data-generator-k-out]', temp: '[data-generator-temp]', spec: '[data-generator-spec]',
  plain: '[data-generator-plain]', specStats: '[data-generator-spec-stats]', plainStats: '[data-generator-plain-stats]',
  specBar: '[data-generator-spec-bar]', plainBar: '[data-generator-plain-bar]', measured: '[data-generator-measured]',
  expected: '[data-generator-expected]', note: '[data-generator-note]', check: '[data-generator-check-text]', bars: '[data-generator-bars]',
  how: '[data-generator-how]', sampler: '[data-generator-sampler]', brokenAt: '[data-generator-broken-at]',
  verdict: '[data-generator-verdict]', checksTitle: '[data-generator-checks-title]', cells: '[data-generator-cells]',
  cellAt: '[data-generator-cell-at]', m: '[data-generator-m]', way: '[data-generator-way]', mNote: '[data-generator-m-note]',
  tree: '[data-generator-tree]', treeAlt: '[data-generator-tree-alt]', tally: '[data-generator-tally]',
  checks: '[data-generator-checks]', treeKey: '[data-generator-tree-key]'
};

function startGenerator(root, trace) {
  const g = trace.generator;
  const fig = figure(root, trace, {
    draft: g.draft, k: g.k, temp: g.temp, sampler: 0,  // the controls
    m: 1, replace: true,  // candidates per position (1: the chain), drawn with or without replacement
    race: 0,         // which race: 0 the page's seeded one; a new race (New race, a control changed, a step past the finish) counts on
    ticks: 0,        // the race's clock ticks so far (Infinity: to its finish); limit steps the race on to them
    playing: false,
    chosen: null,    // the index of the token whose check is shown, or null
    rover: 0,        // the index of the token in the tab order
    ready: null      // null while the models are counted, then true, or false on a page without the prose's tokens
  }, limitGenerator, renderGenerator);
  fig.ui = partsOf(root, GENERATOR_PARTS);
  fig.controls = root.querySelectorAll('button, input, select');
  fig.G = trace.text.generator;
  fig.A = trace.text.accept;
  fig.T = trace.text.generator_trees;
  fig.pure = { tempered, inverseCdf, probText };  // what a test opting in with __playerDebug may call
  fig.reduced = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  fig.goal = Number.isInteger(window.__generateRace) ? window.__generateRace : g.goal;
  wireGenerator(fig);
  fig.update({});  // its place is kept from the first paint (the lanes' heights are fixed), the text comes after
  requestAnimationFrame(() => { setTimeout(() => { readyGenerator(fig); }, 0); });
  return fig;
}

// Counts the models, one level of counts per task so no task keeps the page from answering for long, then asks for
// the page's seeded race and lets the controls work.
function readyGenerator(fig) {
  const g = fig.trace.generator, orders = [g.order, ...g.orders.filter(m => m !== g.order)], levels = new Map();
  let corpus = null;
  const counted = (m, top) => levels.get(`${m} ${top}`);
  const steps = [() => { corpus = corpusIds(document); return corpus.vocab.length === g.types; }];
  new Set(orders.flatMap(o => Array.from({ length: o }, (_, i) => `${i + 1} ${i + 1 === o}`))).forEach(key => {
    const [m, top] = key.split(' ');
    steps.push(() => { levels.set(key, levelCounts(corpus.ids, Number(m), top === 'true')); });
  });
  steps.push(() => {
    const V = corpus.vocab.length;
    fig.vocab = corpus.vocab;
    fig.target = ngramModel(corpus.ids, V, g.order, g.discount, counted);
    fig.drafts = g.orders.map(m => m === g.order ? fig.target : ngramModel(corpus.ids, V, m, g.discount, counted));
    fig.prompt = corpus.ids.slice(0, g.order - 1);
  });
  // the page's seeded race, run to its finish as the page shows it without scripting; a test's own race starts empty
  inTurn(steps, ok => {
    if (!ok) return fig.update({ ready: false });
    if (fig.goal !== g.goal || window.__generateUniforms) return fig.update({ ready: true, ticks: 0 });
    raceAhead(fig, () => { fig.update({ ready: true, ticks: Infinity }); });
  });
}

// Runs the page's seeded race to its finish a few milliseconds per task, so that the rounds behind the lanes never
// hold the page for long on a slow phone; the race is drawn once, when done() asks for its last tick.
function raceAhead(fig, done) {
  restart(fig, fig.trace.generator.seed);
  (function slice() {
    const until = performance.now() + 8;
    while (!fig.run.over && performance.now() < until) advance(fig);
    if (fig.run.over) done(); else nextTask(slice);
  })();
}

// Runs each step in a task of its own, in order; done(false) once a step returns false (a page template without
// the sections' tokens: no model), else done(true) after the last.
function inTurn(steps, done) {
  let i = 0;
  const next = () => {
    if (i === steps.length) return done(true);
    if (steps[i++]() === false) return done(false);
    nextTask(next);
  };
  next();
}

function limitGenerator(fig) {
  const s = fig.state, g = fig.trace.generator;
  s.draft = clamp(whole(s.draft, 0), 0, g.orders.length - 1);
  s.k = clamp(whole(s.k, 1), 1, g.max_k);
  s.temp = clamp(whole(s.temp, 0), 0, g.temps.length - 1);
  s.sampler = clamp(whole(s.sampler, 0), 0, fig.trace.samplers.length - 1);
  s.m = s.sampler ? 1 : clamp(whole(s.m, 1), 1, g.max_m);  // only the accept test takes several candidates
  s.replace = s.replace !== false && String(s.replace) !== String(false);
  if (s.ready) keepRace(fig);
  if (!s.ready || fig.reduced || fig.run.over) s.playing = false;  // nothing plays with reduced motion; Play stops at the finish
}

// The race the state asks for: a fresh one when its number changes (race 0 is the page's seeded race; a later one
// draws from crypto unless a test opts in), stepped on to the state's tick or to its finish, whichever comes first.
function keepRace(fig) {
  const s = fig.state;
  if (!fig.run || fig.run.race !== s.race) {
    restart(fig, s.race ? null : fig.trace.generator.seed);
    s.chosen = null;
    s.rover = 0;
  }
  while (fig.run.ticks < s.ticks && !fig.run.over) advance(fig);
  s.ticks = fig.run.ticks;
  s.rover = clamp(whole(s.rover, 0), 0, Math.max(0, fig.run.tokens.length - 1));  // chosen: a token's index, or null
}

/* ---------- events: each handler calls update() ---------- */

function wireGenerator(fig) {
  const ui = fig.ui, s = fig.state;
  const fresh = patch => Object.assign({ race: s.race + 1, ticks: 0 }, patch);  // a new race from the prompt
  ui.play.addEventListener('click', () => { fig.update(fig.run.over ? fresh({ playing: true }) : { playing: !s.playing }); });
  ui.step.addEventListener('click', () => { fig.update(fig.run.over ? fresh({ ticks: 1 }) : { ticks: s.ticks + 1 }); });
  ui.reset.addEventListener('click', () => { fig.update(fresh({})); });
  ui.draft.addEventListener('change', () => { fig.update(fresh({ draft: ui.draft.value })); });
  ui.temp.addEventListener('change', () => { fig.update(fresh({ temp: ui.temp.value })); });
  ui.sampler.addEventListener('change', () => { fig.update(fresh({ sampler: ui.sampler.value })); });
  ui.k.addEventListener('input', () => { fig.update(fresh({ k: ui.k.value })); });
  ui.m.addEventListener('change', () => { fig.update(fresh({ m: ui.m.value })); });
  ui.way.addEventListener('change', () => { fig.update(fresh({ replace: ui.way.value })); });
  ui.spec.addEventListener('click', e => { choose(fig, e); });
  ui.spec.addEventListener('keydown', e => {
    const keys = fig.trace.generator.keys;  // Enter and space, as a button's
    if (e.key === keys[0] || e.key === keys[1]) choose(fig, e); else if (e.key in GENERATOR_MOVES) moveFocus(fig, e);
  });
}

// A token of the speculative lane chosen: its check is shown, and it takes the lane's stop in the tab order.
function choose(fig, e) {
  const b = e.target.closest('[role=button]'), i = b ? fig.tokenEls.indexOf(b) : -1;
  if (i < 0) return;
  e.preventDefault();
  fig.update({ chosen: i, rover: i });
}

// Arrows, Home and End move the lane's stop in the tab order, and the focus with it, from token to token.
function moveFocus(fig, e) {
  const list = fig.tokenEls || [], i = list.indexOf(e.target);
  if (i < 0 || e.altKey || e.ctrlKey || e.metaKey) return;
  e.preventDefault();
  fig.update({ rover: clamp(i + GENERATOR_MOVES[e.key], 0, list.length - 1) });
}

starts('generator', '[data-generator]', startGenerator);

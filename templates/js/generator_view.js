// Watch it generate's render: the one function that writes the figure's part of the page, from its state and its
// race (generator.js keeps both). The lanes grow by what is new and the tokens whose marks change are written alone,
// since a lane may hold thousands; every other part is written again, or when what it shows changes.

const {
  acceptStrip, clamp, cloned, committedIn, countText, expectedText, fill, fixed, FLOATS, node, overlapRows, probText,
  renderTree, roundCost, spaceBefore, spacedText, tallyText, tickPasses, treeSentence, variantPieces, verdictText
} = shared;

const KEPT = 0, BONUS = 2;  // a committed token's kind: its index in trace.generator.kinds, as generator.js writes it
const GENERATOR_MS = 300;  // play: milliseconds per target pass of the clock
const GENERATOR_TICK_MAX_MS = 3000;  // ... but a tick waits no longer: a round of 1,000 passes would take 5 minutes

function renderGenerator(fig) {
  renderControls(fig);
  if (!fig.run) return;  // the models are not counted yet, or the page has none
  if (fig.lanesOf !== fig.run) clearLanes(fig);  // a new race
  growSpec(fig);
  growPlain(fig);
  renderTokens(fig);
  renderFigures(fig);
  renderCheck(fig);
  renderChecks(fig);
  renderBroken(fig);
  renderPlayback(fig);
}

function renderControls(fig) {
  const s = fig.state, ui = fig.ui, G = fig.G;
  fig.root.hidden = s.ready === false;  // a page template without the sections' tokens: no model, no figure
  ui.how.textContent = fill(fig.reduced ? G.how_still : G.how, { goal: fig.goal });
  ui.play.hidden = fig.reduced;
  ui.play.textContent = s.playing ? G.pause : G.play;
  fig.controls.forEach(el => { el.disabled = !s.ready; });
  ui.kOut.textContent = String(s.k);
  ui.k.value = String(s.k);
  ui.draft.value = String(s.draft);
  ui.temp.value = String(s.temp);
  ui.sampler.value = String(s.sampler);
  ui.m.value = String(s.m);
  ui.way.value = String(s.replace);
  ui.m.disabled = !s.ready || s.sampler !== 0;  // only the accept test takes several candidates
  ui.way.disabled = !s.ready || s.m === 1;
  ui.mNote.textContent = s.sampler ? fig.T.only_one : '';
}

// While playing, the clock's next tick waits as long as a round takes (at most GENERATOR_TICK_MAX_MS: the clock's
// figures still count every pass); a render between ticks (a token chosen, a new race) leaves that wait as it is.
function renderPlayback(fig) {
  const s = fig.state, g = fig.trace.generator;
  if (!s.playing) {
    clearTimeout(fig.timer);
    fig.timer = null;
  } else if (!fig.timer) {
    const wait = Math.min(GENERATOR_MS * tickPasses(g, s, fig.run), GENERATOR_TICK_MAX_MS);
    fig.timer = setTimeout(() => { fig.timer = null; fig.update({ ticks: fig.state.ticks + 1 }); }, wait);
  }
}

/* ---------- the lanes ---------- */

// Token ids as the lanes write them.
function words(fig, ids, previous) { return spacedText(fig.vocab, fig.trace.generator.join, ids, previous); }

function clearLanes(fig) {
  const ui = fig.ui, prompt = words(fig, fig.prompt, null);
  ui.spec.replaceChildren(node('span', 'generator-prompt', prompt));
  ui.plain.replaceChildren(node('span', 'generator-prompt', prompt), document.createTextNode(''));
  fig.lanesOf = fig.run;
  fig.shownSpec = fig.shownPlain = 0;
  fig.struck = [];  // the last round's dropped proposals, struck through: they go when the next round's tokens come
  fig.tokenEls = [];  // the lane's token elements, one for each token of the run, in order
  fig.rover = fig.pressed = null;
}

// The last token a lane shows: of `text`, after the prompt and `shown` tokens.
function lastToken(fig, text, shown) {
  return fig.vocab[text[fig.prompt.length + shown - 1]];
}

function growSpec(fig) {
  const run = fig.run, ui = fig.ui, start = fig.shownSpec;
  if (start === run.tokens.length) return;
  const follow = atBottom(ui.spec);
  fig.struck.forEach(el => { el.remove(); });
  fig.struck = [];
  const frag = document.createDocumentFragment();
  let previous = lastToken(fig, run.text, start);
  run.tokens.slice(start).forEach(t => {
    const b = tokenEl(fig, t);
    frag.append(spaceBefore(fig.trace.generator.join, b.textContent, previous), b);
    fig.tokenEls.push(b);
    previous = b.textContent;
  });
  const last = run.rounds[run.rounds.length - 1];
  if (last.dropped.length) frag.append(struckOf(fig, last.dropped, previous));
  ui.spec.append(frag);
  fig.shownSpec = run.tokens.length;
  if (follow) ui.spec.scrollTop = ui.spec.scrollHeight;
}

// Every token of the run keeps its own element, marked with its kind (kept, replaced, bonus) for as long as the run
// lasts: a span, not a button element, so that it flows and wraps as the words around it.
function tokenEl(fig, t) {
  const tok = fig.vocab[t.y], kind = fig.trace.generator.kinds[t.kind], b = node('span', `generator-tok is-${kind}`, tok);
  b.setAttribute('role', 'button');
  b.setAttribute('aria-pressed', String(false));
  b.setAttribute('aria-label', `${tok}: ${fig.G[kind]}`);
  b.tabIndex = -1;
  return b;
}

// The proposals a rejection dropped, struck through after the round's text; it goes, with its space, next round.
function struckOf(fig, dropped, previous) {
  const holder = node('span', 'generator-drop'), struck = node('s', `generator-tok is-ghost${fig.reduced ? '' : ' is-fading'}`);
  const text = words(fig, dropped, previous);
  struck.textContent = text.trim();
  holder.append(text.charAt(0) === ' ' ? ' ' : '', struck);
  fig.struck.push(holder);
  return holder;
}

// Whether a lane shows its end: it follows new text only then, so a reader who scrolled back stays where they are.
function atBottom(lane) { return lane.scrollHeight - lane.scrollTop - lane.clientHeight < 4; }

function growPlain(fig) {
  const run = fig.run, text = fig.ui.plain.lastChild, have = fig.shownPlain;
  const fresh = run.plain.slice(fig.prompt.length + have), follow = atBottom(fig.ui.plain);
  if (!fresh.length) return;
  text.textContent += words(fig, fresh, lastToken(fig, run.plain, have));
  fig.shownPlain = run.plain.length - fig.prompt.length;
  if (follow) fig.ui.plain.scrollTop = fig.ui.plain.scrollHeight;
}

// The chosen token is pressed, and the rover is the lane's one stop in the tab order; only the tokens whose marks
// change are written. Focus in the lane stays on the rover, so the arrows move it.
function renderTokens(fig) {
  const s = fig.state, els = fig.tokenEls, pressed = s.chosen === null ? null : els[s.chosen], rover = els[s.rover] || null;
  if (fig.pressed !== pressed) {
    if (fig.pressed) fig.pressed.setAttribute('aria-pressed', String(false));
    if (pressed) pressed.setAttribute('aria-pressed', String(true));
    fig.pressed = pressed;
  }
  if (fig.rover !== rover) {
    if (fig.rover) fig.rover.tabIndex = -1;
    if (rover) rover.tabIndex = 0;
    fig.rover = rover;
  }
  if (rover && fig.ui.spec.contains(document.activeElement)) rover.focus();
}

/* ---------- the numbers, the clock and the verdict ---------- */

function renderFigures(fig) {
  const run = fig.run, G = fig.G, s = fig.state, ui = fig.ui, goal = fig.goal, g = fig.trace.generator;
  const tokens = run.tokens.length, rounds = run.rounds.length, plain = run.plain.length - fig.prompt.length;
  const per = rounds ? tokens / rounds : 0, specTime = run.specAt === null ? run.time : run.specAt;
  ui.specStats.textContent = fill(G.spec_stats, {
    tokens: countText(tokens, G.token_one, G.tokens), goal, time: fixed(specTime, 1),
    passes: countText(rounds, G.passes_one, G.passes), steps: countText(run.steps, G.steps_one, G.steps), per: fixed(per, 2) });
  ui.plainStats.textContent = fill(G.plain_stats, { tokens: countText(plain, G.token_one, G.tokens), goal,
                                                    passes: countText(plain, G.passes_one, G.passes), time: fixed(Math.min(run.time, goal), 1) });
  renderClock(fig);
  ui.measured.textContent = rounds && !run.over ? fill(G.measured, { per: fixed(per, 2), speedup: fixed(tokens / specTime, 2) }) : '';
  ui.verdict.textContent = run.over ? verdictText(G, goal, run) : '';
  ui.tally.textContent = tallyText(fig.T, fig.T.ways[String(s.replace)], s, run);
  ui.expected.textContent = expectedText(G, g, s) + (s.sampler ? ` ${G.expected_broken}` : '') + (s.m > 1 ? ` ${fig.T.expected_chain}` : '');
  ui.note.textContent = fill(G.expected_note, { rounds: g.profile_rounds, kmax: g.profile_k, k: s.k, c: g.cost.c_text, v: g.cost.v_text,
                                                 cost: g.cost_words[s.k - 1] });
}

// The clock strips: the last g.clock target steps, now at the right end, the part before the run began masked.
// The plain lane's blocks are its passes, one a step; the speculative lane's repeat a round from the right: the
// target pass (v), then the k draft steps.
function renderClock(fig) {
  const g = fig.trace.generator, round = roundCost(g, fig.state), empty = 1 - Math.min(1, fig.run.time / g.clock);
  const spec = fig.ui.specBar.style, plain = fig.ui.plainBar.style;
  spec.setProperty('--round', `${100 * round / g.clock}%`);
  spec.setProperty('--pass', `${100 * g.cost.v / g.clock}%`);
  plain.setProperty('--step', `${100 / g.clock}%`);
  spec.setProperty('--empty', `${100 * empty}%`);
  plain.setProperty('--empty', `${100 * empty}%`);
}

/* ---------- the checks: the last round's, the chosen token's, and a broken sampler's ---------- */

// The last round's checks, one small accept strip each (core.js's acceptStrip), then the proposals it dropped: where
// each u fell against the region that keeps its proposal, without a click. Written again only for a new round.
function renderChecks(fig) {
  const round = fig.run.rounds[fig.run.rounds.length - 1] || null, ui = fig.ui, G = fig.G;
  if (fig.checksOf === round) return;
  fig.checksOf = round;
  ui.checks.hidden = !round;  // a fresh race (New race, or any control changed) shows no checks until its first round
  renderTree(fig, round);
  if (!round) return;
  if (round.tree) {  // a tree round: its drawing, not a row of strips
    ui.checksTitle.textContent = fill(fig.T.tree_title, { round: round.index + 1, m: round.m, way: fig.T.ways[String(round.replace)] });
    ui.cells.replaceChildren();
    return;
  }
  ui.checksTitle.textContent = fill(G.checks_title, { round: round.index + 1 });
  const cells = round.checks.map((c, j) => {
    const cell = cloned(ui.cellAt, { strip: '[data-accept]' }), kept = round.kinds[j] === KEPT;
    // a broken sampler that keeps u at or above its bound keeps the region [a, 1)
    const region = c.below ? { at: 0, a: c.a } : { at: clamp(c.a, 0, 1), a: 1 - clamp(c.a, 0, 1) };
    acceptStrip(cell.strip, Object.assign(region, { u: probText(c.u), bound: probText(c.a), below: c.u < c.a, kept,
      tok: fig.vocab[round.proposals[j]] }), fig.A);
    return cell.root;
  });
  const dropped = round.proposals.slice(round.checks.length).map(y => node('li', 'generator-cell is-dropped', fill(G.cell_dropped, { tok: fig.vocab[y] })));
  ui.cells.replaceChildren(...cells, ...(round.fix ? [residualCell(fig, round)] : []), ...dropped);
}

// After a rejection, the residual strip: the replacement's segment [lo, hi) among the residual's shares (the other
// tokens' segments merged on either side: hundreds of them would be slivers) and the draw r that fell in it.
function residualCell(fig, round) {
  const cell = cloned(fig.ui.cellAt, { strip: '[data-accept]' }), y = round.committed[round.committed.length - 1];
  let total = 0, lo = 0;
  round.fix.forEach((v, z) => { total += v; if (z < y) lo += v; });
  lo /= total;
  const hi = lo + round.fix[y] / total;
  cell.root.classList.add('is-residual');
  acceptStrip(cell.strip, { cuts: [lo, hi, 1], names: ['', fig.vocab[y], ''], shares: ['', probText(hi - lo), ''],
    chosen: 1, u: probText(round.r), lo: probText(lo), hi: probText(hi), tok: fig.vocab[y] }, fig.A);
  return cell.root;
}

// The chosen token's check: the top tokens of p and q at its context in the lab's encoding, then the sentence.
function renderCheck(fig) {
  const s = fig.state, ui = fig.ui, G = fig.G, t = s.chosen === null ? null : fig.run.tokens[s.chosen];
  ui.bars.textContent = '';
  if (!t) { ui.check.textContent = G.pick; return; }
  const round = fig.run.rounds[t.round], tree = round.tree && t.kind !== BONUS, c = t.kind === BONUS || round.tree ? null : round.checks[t.j];
  const ctx = tree ? round.depths[t.j].ctx : c ? c.ctx : round.bonusCtx, p = fig.P(ctx), q = fig.Q(ctx);
  const head = fill(G.ctx, { round: t.round + 1, pos: t.j + 1, context: words(fig, ctx, null) });
  ui.check.textContent = `${head} ${tree ? treeSentence(fig, round, t) : checkSentence(fig, round, t, c, p)}`;
  ui.bars.append(...topBars(fig, p, q, c ? round.proposals[t.j] : t.y, fig.G.bar_numbers));
}

function checkSentence(fig, round, t, c, p) {
  const G = fig.G, V = fig.vocab, x = round.proposals[t.j];
  if (t.kind === BONUS) return fill(G.check_bonus, { y: V[t.y], p: probText(p[t.y]), r: probText(round.r) });
  const fields = { x: V[x], q: probText(c.q), p: probText(c.p), a: probText(c.a), u: probText(c.u), y: V[t.y],
                   r: probText(round.r || 0), name: round.sampler.name };
  const broken = round.sampler.id !== fig.trace.samplers[0].id, kept = t.kind === KEPT;
  if (kept) return fill(broken ? G.check_broken_keep : c.a >= 1 ? G.check_capped : G.check_accept, fields);  // a = 1: no chance
  const n = round.dropped.length, dropped = { dropped: countText(n, G.proposals_one, G.proposals), were: n === 1 ? G.were_one : G.were };
  return fill(broken ? G.check_broken_reject : G.check_reject, fields) + (n ? fill(G.check_dropped, dropped) : '');
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
    context: words(fig, ctx, null), size: fig.trace.generator.context_size, name: spec.name, tv: fixed(tv, 4) });
  ui.bars.replaceChildren(...topBars(fig, p, c, -1, fig.G.broken_numbers));
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

Object.assign(shared, { renderGenerator });

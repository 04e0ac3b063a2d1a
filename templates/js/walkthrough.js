// The round player: steps through the frames of the trace's rounds, with a deep link per frame.

const {
  acceptStrip, bar, clamp, decoded, figure, fill, fracValue, headRow, NEAR_EVENT, node, offerBack, overlapRows, partsOf, row,
  starts, tokenCell, whole
} = shared;

/* ---------- pure helpers ---------- */

// "#walkthrough/divergent/4" -> {profile: 1, round: 0, frame: 4}; "#walkthrough/divergent/r7/3" -> drawn round 7,
// frame 3; an older link without the prefix ("#divergent/4") as well; null when the hash is not a frame of a known
// profile.
function parseHash(hash, profiles) {
  const m = /^#(?:walkthrough\/)?([^/]+)\/(?:r(\d+)\/)?(\d+)$/.exec(decoded(hash));
  if (!m) return null;
  const index = profiles.findIndex(p => p.id === m[1]);
  return index < 0 ? null : { profile: index, round: m[2] ? Number(m[2]) : 0, frame: Number(m[3]) };
}

const FRAMES = 'walkthrough';  // the prefix of a frame's address (figures/walkthrough.py's FRAMES)

// A fraction in brackets, a whole number as it is (text.ratio_text's rule): "(3/8)", "0".
function bracketed(x) { return x.indexOf('/') < 0 ? x : `(${x})`; }

function hashOf(prof, round, frame) { return `#${FRAMES}/${prof.id}/${round ? 'r' + round + '/' : ''}${frame}`; }

function isFormField(el) {
  return !!(el && el.closest && el.closest('input, select, textarea, [contenteditable]'));
}

// The token a frame is about: the proposal it checks, or the bonus token (tests/tracekit.py's frame_token).
function frameToken(rnd, f) {
  return f.kind === 'verify' ? rnd.proposals[f.pos - 1] : f.kind === 'bonus' ? rnd.bonus : null;
}

// The fields a frame's caption is filled from: its position's facts, the round's fields, its draw
// (figures/walkthrough.caption does the same in Python).
function captionFields(trace, prof, rnd, f) {
  const x = frameToken(rnd, f);
  let c = {};
  if (f.kind === 'verify') {
    const pos = prof.positions[f.pos - 1];
    c = { p: pos.target[x], q: pos.draft[x], accept: pos.accept[x], worked: pos.worked[x],
      res_raw: pos.res_raw, res_total: pos.res_total, res_norm: pos.res_norm };
  }
  if (f.pos) c.pos = f.pos;
  if (x !== null) c.tok = trace.labels[x];
  Object.assign(c, trace.fields, roundTokens(trace, rnd), rnd.fields);
  if (f.u) c.u = f.u;
  return c;
}

// Slot i of a frame, as {state, token, replacement}: tokens live once in the round, a frame holds each slot's
// state (figures/walkthrough.slot_views makes the same slots for the no-script list).
function slotsOf(trace, rnd, f) {
  return f.slots.map((state, i) => {
    const token = i < trace.k ? rnd.proposals[i] : state === 'bonus' ? rnd.bonus : null;
    return { state, token, replacement: state === 'rejected' ? rnd.replacement : null };
  });
}

// What the round has committed once this frame is done: accepted proposals, the replacement, the bonus.
function committedOf(slots) {
  return slots.filter(s => s.state === 'accepted' || s.state === 'rejected' || s.state === 'bonus')
    .map(s => ({ token: s.state === 'rejected' ? s.replacement : s.token, state: s.state }));
}

// The round's token lists as its captions quote them (text.quoted): its proposals, and from its closing frame's
// strip the tokens it committed (and how many) and the proposals it dropped; and its replacement's label.
function roundTokens(trace, rnd) {
  const P = trace.text.walkthrough, last = slotsOf(trace, rnd, rnd.frames[rnd.frames.length - 1]);
  const committed = committedOf(last).map(c => c.token);
  function quoted(tokens) {
    return tokens.map(t => fill(P.quoted, { tok: trace.labels[t] })).join(' ');
  }
  const c = { proposals: quoted(rnd.proposals), committed: quoted(committed),
    committed_count: fill(committed.length === 1 ? P.token_one : P.tokens, { n: committed.length }),
    lost: quoted(last.filter(s => s.state === 'dropped').map(s => s.token)) };
  if (rnd.replacement !== null) c.rep = trace.labels[rnd.replacement];
  return c;
}

function roundOf(prof, i) { return i ? prof.drawn[i - 1] : prof.walk; }

/* ---------- the figure: state, limit, actions ---------- */

const WALKTHROUGH_PARTS = {
  roundCounter: '[data-walkthrough-round-counter]', playLabel: '[data-walkthrough-play-label]', scrubber: '[data-walkthrough-scrubber]',
  counter: '[data-walkthrough-counter]', speed: '[data-walkthrough-speed]', head: '[data-walkthrough-head]', caption: '[data-walkthrough-caption]', strip: '[data-walkthrough-strip]',
  test: '[data-walkthrough-test]', testTitle: '[data-walkthrough-test-title]', p: '[data-walkthrough-p]', q: '[data-walkthrough-q]', ratio: '[data-walkthrough-ratio]',
  accept: '[data-walkthrough-accept]', u: '[data-walkthrough-u]', bar: '[data-walkthrough-bar]', verdict: '[data-walkthrough-verdict]',
  chance: '[data-walkthrough-chance]', bars: '[data-walkthrough-bars]', dist: '[data-walkthrough-dist]', distTitle: '[data-walkthrough-dist-title]',
  distHead: '[data-walkthrough-dist-head]', distBody: '[data-walkthrough-dist-body]', dropped: '[data-walkthrough-dropped]',
  droppedList: '[data-walkthrough-dropped-list]', committed: '[data-walkthrough-committed]', distDraw: '[data-walkthrough-dist-draw]',
  idle: '[data-walkthrough-idle]', chanceNote: '[data-walkthrough-chance-note]',
  drawHint: '[data-walkthrough-draw-hint]', roundChance: '[data-walkthrough-round-chance]', chanceButton: '[data-walkthrough-action="chance"]'
};

function startWalkthrough(root, trace) {
  const ui = partsOf(root, WALKTHROUGH_PARTS);
  ui.radios = root.querySelectorAll('[data-walkthrough-profile]');
  ui.roundRadios = root.querySelectorAll('[data-walkthrough-round]');
  ui.buttons = root.querySelectorAll('[data-walkthrough-action]');
  const fig = figure(root, trace, {
    profile: trace.walkthrough.profile,  // index into trace.profiles: the analysis's opening profile until a link or the reader moves
    round: 0,        // 0: the authored walkthrough; 1..R: drawn round i
    lastDrawn: 0,    // the drawn round "Draw another round" moves on from
    frame: 1,        // 1-based, as in the URL
    playing: false,
    delay: Number(ui.speed.value),
    linked: false    // true once the reader has used the player or a frame link: the hash then follows the state
  }, limitWalkthrough, renderWalkthrough);
  fig.ui = ui;
  fig.T = trace.text.walkthrough;
  fig.D = trace.text.draws;
  fig.A = trace.text.accept;
  fig.timer = null;
  bindWalkthroughControls(fig);
  bindWalkthroughLinks(fig);
  document.addEventListener(NEAR_EVENT, () => { if (fig.shownFrame) renderLinked(fig, fig.shownFrame); });  // a chart joined
  const initial = parseHash(location.hash, trace.profiles);
  if (initial) openAt(fig, initial); else fig.update({});
  return fig;
}

function currentProfile(fig) { return fig.trace.profiles[fig.state.profile]; }
function currentRound(fig) { return roundOf(currentProfile(fig), fig.state.round); }

function limitWalkthrough(fig) {
  const s = fig.state;
  s.profile = clamp(whole(s.profile, 0), 0, fig.trace.profiles.length - 1);
  s.round = clamp(whole(s.round, 0), 0, currentProfile(fig).drawn.length);
  if (s.round) s.lastDrawn = s.round;
  const n = currentRound(fig).frames.length;
  s.frame = clamp(whole(s.frame, 1), 1, n);
  if (s.frame >= n) s.playing = false;  // playback stops by itself on the last frame
}

// Every manual move pauses playback, so a reader is never fought by the timer.
function act(fig, action) {
  const s = fig.state, n = currentRound(fig).frames.length;
  if (action === 'play') {
    const restart = !s.playing && s.frame >= n;
    return fig.update({ playing: !s.playing && n > 1, linked: true, frame: restart ? 1 : s.frame });
  }
  if (action === 'draw') return fig.update({ round: nextDrawn(fig), frame: 1, playing: false, linked: true });
  if (action === 'chance') return nextChance(fig);
  const to = { first: 1, prev: s.frame - 1, next: s.frame + 1, last: n }[action];
  if (to === undefined || to < 1 || to > n) return;
  fig.update({ frame: to, playing: false, linked: true });
}

// The drawn round Draw another round moves to.
function nextDrawn(fig) { return fig.state.lastDrawn % currentProfile(fig).drawn.length + 1; }

// The next drawn round, after the current one and wrapping around, with a check chance decides, as [round,
// frame of that check]; undefined where chance decides none.
function chanceAfter(fig) {
  const list = currentProfile(fig).chance;
  return list.find(c => c[0] > fig.state.round) || list[0];
}

function nextChance(fig) {
  const next = chanceAfter(fig);
  if (next) fig.update({ round: next[0], frame: next[1], playing: false, linked: true });
}

// A frame link brings the player into view once it has rendered.
function openAt(fig, where) {
  fig.update({ profile: where.profile, round: where.round, frame: where.frame, playing: false, linked: true });
  requestAnimationFrame(() => { reveal(fig); });
}

// Scrolling lays out the whole page, so it waits for the next frame instead of holding up this one.
function reveal(fig) {
  const still = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  fig.root.scrollIntoView({ block: 'start', behavior: still ? 'auto' : 'smooth' });
  fig.root.focus({ preventScroll: true });
}

/* ---------- render: the panels, each writing only its own part ---------- */

function renderWalkthrough(fig) {
  const rnd = currentRound(fig);
  fig.root.hidden = false;
  renderControls(fig, rnd.frames.length);
  renderRoundChoice(fig);
  fig.shownFrame = renderStage(fig, rnd, fig.state.frame);  // kept for a chart that joins the page (NEAR_EVENT)
  renderLinked(fig, fig.shownFrame);
  renderLocation(fig);
  renderPlayback(fig);
}

// Frame i of the round, in every part of the stage; returns the frame.
function renderStage(fig, rnd, i) {
  const T = fig.T, trace = fig.trace, ui = fig.ui, n = rnd.frames.length;
  const f = rnd.frames[i - 1];
  const ctx = captionFields(trace, currentProfile(fig), rnd, f), slots = slotsOf(trace, rnd, f);
  ui.head.textContent = fill(f.kind === 'verify' ? T.head_verify : T.head,
    { i, n, kind: trace.text.kind_names[f.kind], pos: f.pos });
  ui.caption.textContent = f.caption.map(key => fill(trace.text.captions[key], ctx)).join(' ');
  renderStrip(fig, f, slots);
  ui.idle.hidden = f.kind === 'verify';  // a frame that checks nothing says so where the check would stand
  ui.idle.textContent = ui.idle.hidden ? '' : fill(f.kind === 'propose' ? T.idle_propose : f.kind === 'bonus' ? T.idle_bonus : T.idle_done, ctx);
  renderTest(fig, f, ctx, rnd);
  renderDist(fig, f, ctx, rnd);
  renderDropped(fig, slots);
  renderCommitted(fig, slots);
  return f;
}

function renderControls(fig, n) {
  const s = fig.state, ui = fig.ui, T = fig.T, p = currentProfile(fig);
  fig.root.classList.toggle('is-playing', s.playing);
  ui.radios.forEach(r => { r.checked = r.value === p.id; });
  ui.roundRadios.forEach(r => { r.checked = (r.value === 'drawn') === (s.round > 0); });
  ui.buttons.forEach(b => {
    const a = b.dataset.walkthroughAction;
    const off = (a === 'first' || a === 'prev') ? s.frame === 1 : (a === 'next' || a === 'last') ? s.frame === n : false;
    if (off) b.setAttribute('aria-disabled', 'true'); else b.removeAttribute('aria-disabled');
  });
  ui.playLabel.textContent = s.playing ? T.pause : T.play;
  const counter = fill(T.counter, { i: s.frame, n });
  ui.scrubber.max = String(n);
  ui.scrubber.value = String(s.frame);
  ui.scrubber.setAttribute('aria-valuetext', counter);
  ui.counter.textContent = counter;
}

// The round choice: which drawn round this is and whether chance decides a check in it, where "Draw another
// round" goes, and the rounds "Next round where chance decides" visits, or why there are none.
function renderRoundChoice(fig) {
  const s = fig.state, ui = fig.ui, D = fig.D, p = currentProfile(fig), n = p.drawn.length;
  const chance = p.chance.some(c => c[0] === s.round);
  ui.roundCounter.textContent = s.round ? fill(fig.T.drawn_counter, { i: s.round, n }) : '';
  ui.roundChance.textContent = chance ? D.chance_mark : '';
  ui.drawHint.textContent = fill(D.draw_hint, { i: nextDrawn(fig), n });
  ui.chanceNote.textContent = p.chance_note;
  if (p.chance.length) ui.chanceButton.removeAttribute('aria-disabled');
  else ui.chanceButton.setAttribute('aria-disabled', 'true');
}

function renderStrip(fig, f, slots) {
  const T = fig.T, trace = fig.trace;
  fig.ui.strip.replaceChildren(...slots.map((s, i) => {
    const position = i + 1;
    const li = node('li', `slot is-${s.state}${f.pos === position ? ' is-current' : ''}`);
    const words = trace.text.state_names[s.state] + (s.state === 'rejected' ? fill(T.slot_instead, { rep: trace.labels[s.replacement] }) : '');
    li.append(node('small', '', position > trace.k ? fill(T.slot_bonus, { pos: position }) : String(position)), ' ',
      node('bdi', '', s.token === null ? T.no_token : trace.vocabulary[s.token]), ' ', node('span', '', words));
    return li;
  }));
}

function renderTest(fig, f, ctx, rnd) {
  const ui = fig.ui, T = fig.T;
  ui.test.hidden = f.kind !== 'verify';
  if (ui.test.hidden) return ui.bars.replaceChildren();  // a hidden panel keeps no rows
  const pos = currentProfile(fig).positions[f.pos - 1], x = frameToken(rnd, f), passed = f.slots[f.pos - 1] === 'accepted';
  ui.testTitle.textContent = fill(T.test_title, ctx);
  ui.p.textContent = ctx.p;
  ui.q.textContent = ctx.q;
  ui.ratio.textContent = fill(T.ratio, { p: bracketed(ctx.p), q: bracketed(ctx.q), ratio: pos.ratio[x] });
  ui.accept.textContent = fill(T.accept, { ratio: pos.ratio[x], accept: ctx.accept });
  ui.u.textContent = f.u;
  acceptStrip(ui.bar, { a: pos.accept_f[x], u: f.u, bound: ctx.accept, below: passed, kept: passed }, fig.A);
  ui.verdict.className = `walkthrough-verdict ${passed ? 'is-accepted' : 'is-rejected'}`;
  ui.verdict.replaceChildren(node('strong', '', passed ? T.accepted : T.rejected),
    fill(passed ? T.below : T.not_below, { u: f.u, accept: ctx.accept }));
  ui.chance.hidden = !f.chance;
  ui.chance.textContent = f.chance ? fill(T.chance, ctx) : '';
  ui.bars.replaceChildren(...overlapRows(pos, fig.trace.vocabulary, x, T.bar_numbers));
}

function renderDist(fig, f, ctx, rnd) {
  const rejected = f.kind === 'verify' && f.slots[f.pos - 1] === 'rejected', bonus = f.kind === 'bonus';
  fig.ui.dist.hidden = !(rejected || bonus);
  fig.ui.dist.dataset.walkthroughKind = bonus ? 'bonus' : 'residual';
  if (rejected) renderResidual(fig, f, ctx, rnd);
  else if (bonus) renderBonus(fig, ctx, rnd);
  else [fig.ui.distHead, fig.ui.distBody].forEach(e => { e.replaceChildren(); });
}

function renderResidual(fig, f, ctx, rnd) {
  const ui = fig.ui, T = fig.T, pos = currentProfile(fig).positions[f.pos - 1], x = frameToken(rnd, f);
  ui.distTitle.textContent = fill(T.residual_title, ctx);
  ui.distHead.replaceChildren(headRow([T.col_token, T.col_p, T.col_q, T.col_raw, fill(T.col_norm, ctx)]));
  ui.distBody.replaceChildren(...fig.trace.vocabulary.map((tok, y) => {
    const note = y === rnd.replacement ? T.note_drawn : y === x ? T.note_rejected : '';
    const cls = y === rnd.replacement ? 'is-drawn' : y === x ? 'is-rejected-token' : '';
    const share = pos.residual[y];
    return row([tokenCell(tok, note), pos.target[y], pos.draft[y], pos.residual_raw[y],
      bar(share === null ? 0 : fracValue(share), share === null ? T.no_token : share)], cls);
  }));
  const F = rnd.fields;
  renderDraw(fig, { cuts: pos.cuts, shares: pos.residual, chosen: rnd.replacement, u: F.rep_u, lo: F.rep_lo, hi: F.rep_hi });
}

function renderBonus(fig, ctx, rnd) {
  const ui = fig.ui, T = fig.T, targets = currentProfile(fig).bonus_target;
  ui.distTitle.textContent = fill(T.bonus_title, ctx);
  ui.distHead.replaceChildren(headRow([T.col_token, T.col_p]));
  ui.distBody.replaceChildren(...fig.trace.vocabulary.map((tok, y) => row([tokenCell(tok, y === rnd.bonus ? T.note_drawn : ''), bar(fracValue(targets[y]), targets[y])],
      y === rnd.bonus ? 'is-drawn' : '')));
  const F = rnd.fields;
  renderDraw(fig, { cuts: currentProfile(fig).bonus_cuts, shares: targets, chosen: rnd.bonus, u: F.bonus_u, lo: F.bonus_lo, hi: F.bonus_hi });
}

// The draw r on the accept strip, as the segments of the cut points it was drawn by: token y owns [cuts[y-1],
// cuts[y]), and r (d.u, in [d.lo, d.hi)) lands in the chosen token's segment (the caption says which, in numbers).
function renderDraw(fig, d) {
  acceptStrip(fig.ui.distDraw, Object.assign(d, { names: fig.trace.vocabulary, tok: fig.trace.labels[d.chosen] }), fig.A);
}

function renderDropped(fig, slots) {
  const ui = fig.ui, vocab = fig.trace.vocabulary, positions = currentProfile(fig).positions;
  const dropped = slots.map((s, i) => s.state === 'dropped' ? i + 1 : 0).filter(Boolean);
  ui.dropped.hidden = dropped.length === 0;
  ui.droppedList.replaceChildren(...dropped.map(position => {
    const x = slots[position - 1].token, li = node('li', 'is-dropped');
    li.append(node('span', 'chip-pos', String(position)), ' ', node('bdi', 'chip-tok', vocab[x]),
      node('span', 'chip-note', fill(fig.T.chip_dropped, { accept: positions[position - 1].accept[x] })));
    return li;
  }));
}

function renderCommitted(fig, slots) {
  const T = fig.T, vocab = fig.trace.vocabulary, committed = committedOf(slots);
  fig.ui.committed.replaceChildren(...committed.length ? committed.map(c => {
    const rep = c.state === 'rejected', bonus = c.state === 'bonus';
    const li = node('li', rep ? 'is-replacement' : bonus ? 'is-bonus' : '');
    li.append(node('bdi', 'chip-tok', vocab[c.token]), node('span', 'chip-note', rep ? T.chip_replacement : bonus ? T.chip_bonus : ''));
    return li;
  }) : [node('li', 'is-empty', T.nothing_yet)]);
}

// The Positions section answers back: the block and chart of the position being checked are marked.
function renderLinked(fig, f) {
  const key = f.kind === 'verify' ? `${currentProfile(fig).id}-${f.pos}` : '';
  document.querySelectorAll('[data-position-block]').forEach(e => {
    e.classList.toggle('is-current', e.dataset.positionBlock === key);
  });
}

function renderLocation(fig) {
  const s = fig.state;
  if (!s.linked) return;
  const hash = hashOf(currentProfile(fig), s.round, s.frame);
  if (decoded(location.hash) !== hash) history.replaceState(history.state, '', hash);
}

// The next step waits for the reader's chosen delay while playing.
function renderPlayback(fig) {
  clearTimeout(fig.timer);
  fig.timer = fig.state.playing ? setTimeout(() => { fig.update({ frame: fig.state.frame + 1 }); }, fig.state.delay) : null;
}

/* ---------- events: each handler calls update() ---------- */

const WALKTHROUGH_KEYS = { ArrowLeft: 'prev', ArrowRight: 'next', ' ': 'play', Home: 'first', End: 'last' };

function bindWalkthroughControls(fig) {
  const root = fig.root, s = fig.state;
  root.addEventListener('click', e => {
    const b = e.target.closest('[data-walkthrough-action]');
    if (b && b.getAttribute('aria-disabled') !== 'true') act(fig, b.dataset.walkthroughAction);
  });
  // Form fields keep their own keys: arrows move the scrubber or switch the profile natively.
  root.addEventListener('keydown', e => {
    const action = WALKTHROUGH_KEYS[e.key];
    if (!action || e.altKey || e.ctrlKey || e.metaKey || isFormField(e.target)) return;
    e.preventDefault();
    act(fig, action);
  });
  root.addEventListener('change', e => {
    if (e.target.matches('[data-walkthrough-profile]')) {
      const index = fig.trace.profiles.findIndex(p => p.id === e.target.value);
      fig.update({ profile: index, frame: 1, lastDrawn: 0, round: s.round ? 1 : 0, playing: false, linked: true });
    } else if (e.target.matches('[data-walkthrough-round]')) {
      fig.update({ round: e.target.value === 'drawn' ? Math.max(1, s.lastDrawn) : 0, frame: 1, playing: false, linked: true });
    } else if (e.target.matches('[data-walkthrough-speed]')) {
      fig.update({ delay: Number(e.target.value) });
    }
  });
  fig.ui.scrubber.addEventListener('input', () => {
    fig.update({ frame: fig.ui.scrubber.value, playing: false, linked: true });
  });
}

function bindWalkthroughLinks(fig) {
  const profiles = fig.trace.profiles;
  window.addEventListener('hashchange', () => {
    const where = parseHash(location.hash, profiles);
    if (where) openAt(fig, where);
  });
  // A link to the frame already in the hash fires no hashchange: open it here instead. A link from elsewhere on
  // the page leaves a way back to it.
  const back = fig.root.querySelector('[data-walkthrough-back]');
  document.addEventListener('click', e => {
    const a = e.target.closest && e.target.closest('a[href^="#"]');
    if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const where = parseHash(a.hash, profiles);
    if (where && !fig.root.contains(a)) offerBack(back, a);
    if (where && decoded(a.hash) === decoded(location.hash)) {
      e.preventDefault();
      openAt(fig, where);
    }
  });
}

starts('walkthrough', '[data-walkthrough]', startWalkthrough);

// The round player: steps through the frames of the trace's rounds, with a deep link per frame. One state, changed
// only by fig.update: limit keeps it in range, render writes the page (the stage through walkthrough_stage.js), and
// every handler only asks for a change.

const { clamp, decoded, figure, fill, frameView, hashOf, NEAR_EVENT, parseHash, partsOf, renderStage, roundOf, starts, whole } = shared;

const WALKTHROUGH_PARTS = {
  roundCounter: '[data-walkthrough-round-counter]', playLabel: '[data-walkthrough-play-label]', scrubber: '[data-walkthrough-scrubber]',
  counter: '[data-walkthrough-counter]', speed: '[data-walkthrough-speed]', head: '[data-walkthrough-head]', caption: '[data-walkthrough-caption]', strip: '[data-walkthrough-strip]',
  test: '[data-walkthrough-test]', testTitle: '[data-walkthrough-test-title]', p: '[data-walkthrough-p]', q: '[data-walkthrough-q]', ratio: '[data-walkthrough-ratio]',
  accept: '[data-walkthrough-accept]', u: '[data-walkthrough-u]', bar: '[data-walkthrough-bar]', verdict: '[data-walkthrough-verdict]',
  chance: '[data-walkthrough-chance]', bars: '[data-walkthrough-bars]', dist: '[data-walkthrough-dist]', distTitle: '[data-walkthrough-dist-title]',
  distHead: '[data-walkthrough-dist-head]', distBody: '[data-walkthrough-dist-body]', dropped: '[data-walkthrough-dropped]',
  droppedList: '[data-walkthrough-dropped-list]', committed: '[data-walkthrough-committed]', distDraw: '[data-walkthrough-dist-draw]',
  idle: '[data-walkthrough-idle]', chanceNote: '[data-walkthrough-chance-note]', back: '[data-walkthrough-back]',
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
    linked: false,   // true once the reader has used the player or a frame link: the hash then follows the state
    origin: null,    // the link elsewhere on the page that opened the player: "Back to where you were" returns to it
    move: null       // a move render makes once, a new object each time: {to: null} brings the player into view, {to: a link} returns there
  }, limitWalkthrough, renderWalkthrough);
  fig.ui = ui;
  fig.T = trace.text.walkthrough;
  fig.D = trace.text.draws;
  fig.A = trace.text.accept;
  bindWalkthroughControls(fig);
  bindWalkthroughLinks(fig);
  document.addEventListener(NEAR_EVENT, () => { fig.update({}); });  // a chart joined: its position is marked too
  const initial = parseHash(location.hash, trace.profiles);
  fig.update(initial ? opened(initial) : {});
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

/* ---------- the changes a reader asks for, as patches of the state ---------- */

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

// A frame link's patch: its frame (parseHash's {profile, round, frame}), and the player brought into view once it has
// rendered.
function opened(where) { return Object.assign({ playing: false, linked: true, move: { to: null } }, where); }

/* ---------- render: the controls, the stage when its frame changes, and what the state asks of the page ---------- */

function renderWalkthrough(fig) {
  const s = fig.state, prof = currentProfile(fig), rnd = roundOf(prof, s.round), key = `${s.profile}/${s.round}/${s.frame}`;
  fig.root.hidden = false;
  renderControls(fig, rnd.frames.length);
  renderRoundChoice(fig);
  if (fig.staged !== key) renderStage(fig, prof, rnd, frameView(fig.trace, prof, rnd, s.frame));  // only another frame's
  fig.staged = key;
  renderLinked(fig, rnd.frames[s.frame - 1]);
  fig.ui.back.hidden = !s.origin;
  renderLocation(fig);
  renderPlayback(fig);
  renderMove(fig);
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

// The Positions section answers back: the block and chart of the position being checked are marked.
function renderLinked(fig, f) {
  const key = f.kind === 'verify' ? `${currentProfile(fig).id}-${f.pos}` : '';
  document.querySelectorAll('[data-position-block]').forEach(e => {
    e.classList.toggle('is-current', e.dataset.positionBlock === key);
  });
}

// The address follows the frame once the reader has used the player or a frame link: it is written when the frame
// changes or a link opens one (an older address is written in full), never by a render that moves nothing (a chart
// joining the page while the reader is elsewhere).
function renderLocation(fig) {
  const s = fig.state, hash = s.linked ? hashOf(currentProfile(fig), s.round, s.frame) : '';
  if (hash === fig.located && s.move === fig.locatedBy) return;
  fig.located = hash;
  fig.locatedBy = s.move;
  if (hash && decoded(location.hash) !== hash) history.replaceState(history.state, '', hash);
}

// While playing, the next step waits for the reader's chosen delay; a render that changes neither the frame nor the
// delay (a chart joining the page) leaves the wait as it is.
function renderPlayback(fig) {
  const s = fig.state, key = s.playing ? `${s.profile}/${s.round}/${s.frame}/${s.delay}` : '';
  if (key === fig.waiting) return;
  fig.waiting = key;
  clearTimeout(fig.timer);
  fig.timer = key ? setTimeout(() => { fig.update({ frame: fig.state.frame + 1 }); }, s.delay) : null;
}

// The move the state asks for, made once: the player into view (scrolling lays out the whole page, so it waits for
// the next frame instead of holding up this one), or back to the link that opened it.
function renderMove(fig) {
  const move = fig.state.move;
  if (move === fig.moved) return;
  fig.moved = move;
  if (move && move.to) {
    move.to.scrollIntoView({ block: 'center' });
    move.to.focus();
  } else if (move) {
    requestAnimationFrame(() => { reveal(fig); });
  }
}

function reveal(fig) {
  const still = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  fig.root.scrollIntoView({ block: 'start', behavior: still ? 'auto' : 'smooth' });
  fig.root.focus({ preventScroll: true });
}

/* ---------- events: each handler calls update() ---------- */

const WALKTHROUGH_KEYS = { ArrowLeft: 'prev', ArrowRight: 'next', ' ': 'play', Home: 'first', End: 'last' };

function isFormField(el) {
  return !!(el && el.closest && el.closest('input, select, textarea, [contenteditable]'));
}

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

// A frame link opens its frame; one from elsewhere on the page leaves a way back to it, which its Back link takes.
function bindWalkthroughLinks(fig) {
  const profiles = fig.trace.profiles;
  window.addEventListener('hashchange', () => {
    const where = parseHash(location.hash, profiles);
    if (where) fig.update(opened(where));
  });
  // A link to the frame already in the hash fires no hashchange: it opens here instead.
  document.addEventListener('click', e => {
    const a = e.target.closest && e.target.closest('a[href^="#"]');
    if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const where = parseHash(a.hash, profiles), again = where && decoded(a.hash) === decoded(location.hash);
    if (!where) return;
    if (again) e.preventDefault();
    fig.update(Object.assign(fig.root.contains(a) ? {} : { origin: a }, again ? opened(where) : {}));
  });
  fig.ui.back.firstChild.addEventListener('click', e => {  // the paragraph's one link
    e.preventDefault();
    fig.update({ origin: null, move: { to: fig.state.origin } });
  });
}

starts('walkthrough', '[data-walkthrough]', startWalkthrough);

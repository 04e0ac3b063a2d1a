'use strict';
// The round player: reads the trace from #trace and steps through its frames.
// Pure helpers first; one `state`; update(patch) merges, clamps, schedules and renders;
// render() and its panel functions alone write to the page. Every sentence comes from trace.text.
(function () {
  var started = performance.now();

  /* ---------- pure helpers ---------- */

  function clamp(x, lo, hi) { return Math.min(hi, Math.max(lo, x)); }

  // "3/8" -> 0.375, "1" -> 1: only for drawing; every number shown is the trace's exact string.
  function fracValue(text) {
    var parts = String(text).split('/');
    return parts.length === 2 ? Number(parts[0]) / Number(parts[1]) : Number(parts[0]);
  }

  // The same fill as text.fill in Python: {name} -> fields[name].
  function fill(pattern, fields) {
    return pattern.replace(/\{(\w+)\}/g, function (m, name) { return String(fields[name]); });
  }

  // "#divergent/4" -> {profile: 1, frame: 4}; null when the hash is not a frame of a known profile.
  function parseHash(hash, profiles) {
    var m = /^#([^/]+)\/(\d+)$/.exec(decoded(hash));
    if (!m) return null;
    var index = profiles.findIndex(function (p) { return p.id === m[1]; });
    return index < 0 ? null : { profile: index, frame: Number(m[2]) };
  }

  function decoded(hash) {
    try { return decodeURIComponent(hash || ''); } catch (err) { return String(hash); }
  }

  function quote(token) { return '\u201c' + token + '\u201d'; }

  function isFormField(node) {
    return !!(node && node.closest && node.closest('input, select, textarea, [contenteditable]'));
  }

  // The fields a frame's caption is filled from: its position's facts, then its own (view.caption_context).
  function context(prof, f, vocab) {
    var pos = f.position ? prof.positions[f.position - 1] : null, x = f.token, c = {};
    if (pos && x !== undefined && x !== null) {
      c = { p: pos.target[x], q: pos.draft[x], accept: pos.accept[x], worked: pos.worked[x],
        res_raw: pos.res_raw, res_total: pos.res_total, res_norm: pos.res_norm };
    }
    if (f.position) c.pos = f.position;
    if (x !== undefined && x !== null) c.tok = vocab[x];
    return Object.assign(c, f.fields);
  }

  // Detached nodes only; the panels put them on the page.
  function node(tag, className, text) {
    var e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function row(cells, className) {
    var tr = node('tr', className || '');
    cells.forEach(function (c, i) {
      var cell = i === 0 ? node('th') : node('td', 'num');
      if (i === 0) cell.scope = 'row';
      cell.append.apply(cell, [].concat(c));
      tr.append(cell);
    });
    return tr;
  }

  function headRow(names) {
    var tr = node('tr');
    names.forEach(function (n) { var th = node('th', '', n); th.scope = 'col'; tr.append(th); });
    return tr;
  }

  function bar(value, text) {
    var span = node('span', 'dist-bar');
    span.style.setProperty('--w', String(value));
    return [text, span];
  }

  function tokenCell(token, note) {
    return note ? [token + ' ', node('span', 'row-note', note)] : [token];
  }

  /* ---------- data and state ---------- */

  var source = document.getElementById('trace');
  var root = document.querySelector('[data-player]');
  if (!source || !root) return;
  var trace = JSON.parse(source.textContent);
  var vocab = trace.vocabulary, T = trace.text.player, STATES = trace.text.states, KINDS = trace.text.kinds;
  var find = function (sel) { return root.querySelector(sel); };
  var ui = {
    statics: document.querySelectorAll('[data-static]'),
    radios: root.querySelectorAll('[data-profile]'),
    buttons: root.querySelectorAll('[data-action]'),
    playLabel: find('[data-play-label]'),
    scrubber: find('[data-scrubber]'),
    counter: find('[data-counter]'),
    speed: find('[data-speed]'),
    head: find('[data-head]'),
    caption: find('[data-caption]'),
    strip: find('[data-strip]'),
    test: find('[data-test]'),
    testTitle: find('[data-test-title]'),
    p: find('[data-p]'), q: find('[data-q]'), ratio: find('[data-ratio]'), accept: find('[data-accept]'), u: find('[data-u]'),
    bar: find('[data-bar]'),
    uLabel: find('[data-u-label]'),
    verdict: find('[data-verdict]'),
    dist: find('[data-dist]'),
    distTitle: find('[data-dist-title]'),
    distHead: find('[data-dist-head]'),
    distBody: find('[data-dist-body]'),
    dropped: find('[data-dropped]'),
    droppedList: find('[data-dropped-list]'),
    committed: find('[data-committed]'),
  };
  var reducedMotion = window.matchMedia('(prefers-reduced-motion: reduce)');

  var state = {
    profile: 0,      // index into trace.profiles
    frame: 1,        // 1-based, as in the trace and the URL
    playing: false,
    delay: Number(ui.speed.value),
    linked: false,   // true once the reader has used the player or a frame link: the hash then follows the state
    reveal: false,   // bring the player into view on the next render
  };
  var timer = null;

  function frames() { return trace.profiles[state.profile].frames; }

  // The one way to change state: merge, clamp, (re)schedule playback, render.
  function update(patch) {
    Object.assign(state, patch);
    state.profile = clamp(Math.round(Number(state.profile)) || 0, 0, trace.profiles.length - 1);
    state.frame = clamp(Math.round(Number(state.frame)) || 1, 1, frames().length);
    if (state.frame >= frames().length) state.playing = false;
    clearTimeout(timer);
    timer = state.playing ? setTimeout(tick, state.delay) : null;
    render();
  }

  // Playback stops by itself on the last frame.
  function tick() { update({ frame: state.frame + 1 }); }

  // Every manual move pauses playback, so a reader is never fought by the timer.
  function act(action) {
    var n = frames().length;
    if (action === 'play') {
      var restart = !state.playing && state.frame >= n;
      return update({ playing: !state.playing && n > 1, linked: true, frame: restart ? 1 : state.frame });
    }
    var to = { first: 1, prev: state.frame - 1, next: state.frame + 1, last: n }[action];
    if (to === undefined || to < 1 || to > n) return;
    update({ frame: to, playing: false, linked: true });
  }

  /* ---------- render: the panels, each writing only its own part ---------- */

  function renderControls(n) {
    root.classList.toggle('is-playing', state.playing);
    ui.radios.forEach(function (r) { r.checked = r.value === trace.profiles[state.profile].id; });
    ui.buttons.forEach(function (b) {
      var a = b.dataset.action;
      var off = (a === 'first' || a === 'prev') ? state.frame === 1 : (a === 'next' || a === 'last') ? state.frame === n : false;
      if (off) b.setAttribute('aria-disabled', 'true'); else b.removeAttribute('aria-disabled');
    });
    ui.playLabel.textContent = state.playing ? T.pause : T.play;
    var counter = fill(T.counter, { i: state.frame, n: n });
    ui.scrubber.max = String(n);
    ui.scrubber.value = String(state.frame);
    ui.scrubber.setAttribute('aria-valuetext', counter);
    ui.counter.textContent = counter;
  }

  function renderStrip(f) {
    ui.strip.replaceChildren.apply(ui.strip, f.slots.map(function (s, i) {
      var position = i + 1;
      var li = node('li', 'slot is-' + s.state + (f.position === position ? ' is-current' : ''));
      var text = STATES[s.state] + (s.state === 'rejected' ? fill(T.slot_instead, { rep: vocab[s.replacement] }) : '');
      li.append(node('small', '', position > trace.k ? fill(T.slot_bonus, { pos: position }) : String(position)), ' ',
        node('b', '', s.token === null ? T.no_token : vocab[s.token]), ' ', node('span', '', text));
      return li;
    }));
  }

  function renderTest(f, ctx) {
    ui.test.hidden = f.kind !== 'verify';
    if (ui.test.hidden) return;
    var passed = f.verdict === 'accepted', pos = trace.profiles[state.profile].positions[f.position - 1];
    var ratio = pos.ratio[f.token];
    ui.testTitle.textContent = fill(T.test_title, ctx);
    ui.p.textContent = ctx.p;
    ui.q.textContent = ctx.q;
    ui.ratio.textContent = fill(T.ratio, { p: ctx.p, q: ctx.q, ratio: ratio });
    ui.accept.textContent = fill(T.accept, { ratio: ratio, accept: ctx.accept });
    ui.u.textContent = f.u;
    ui.bar.style.setProperty('--accept', String(fracValue(ctx.accept)));
    ui.bar.style.setProperty('--u', String(fracValue(f.u)));
    ui.uLabel.textContent = fill(T.u, { u: f.u });
    ui.verdict.className = 'player-verdict ' + (passed ? 'is-accepted' : 'is-rejected');
    ui.verdict.replaceChildren(node('strong', '', passed ? T.accepted : T.rejected),
      fill(passed ? T.below : T.not_below, { u: f.u, accept: ctx.accept }));
  }

  function renderDist(f, prof, ctx) {
    var rejected = f.verdict === 'rejected', bonus = f.kind === 'bonus';
    ui.dist.hidden = !(rejected || bonus);
    ui.dist.dataset.kind = bonus ? 'bonus' : 'residual';
    if (rejected) {
      var pos = prof.positions[f.position - 1];
      ui.distTitle.textContent = fill(T.residual_title, ctx);
      ui.distHead.replaceChildren(headRow([T.col_token, T.col_p, T.col_q, T.col_raw, fill(T.col_norm, ctx)]));
      ui.distBody.replaceChildren.apply(ui.distBody, vocab.map(function (tok, y) {
        var note = y === f.replacement ? T.note_drawn : y === f.token ? T.note_rejected : '';
        var cls = y === f.replacement ? 'is-drawn' : y === f.token ? 'is-rejected-token' : '';
        return row([tokenCell(tok, note), pos.target[y], pos.draft[y], pos.residual_raw[y],
          bar(fracValue(pos.residual[y]), pos.residual[y])], cls);
      }));
    } else if (bonus) {
      ui.distTitle.textContent = fill(T.bonus_title, ctx);
      ui.distHead.replaceChildren(headRow([T.col_token, T.col_p]));
      ui.distBody.replaceChildren.apply(ui.distBody, vocab.map(function (tok, y) {
        return row([tokenCell(tok, y === f.token ? T.note_drawn : ''), bar(fracValue(prof.bonus_target[y]), prof.bonus_target[y])],
          y === f.token ? 'is-drawn' : '');
      }));
    }
  }

  function renderChips(f, prof) {
    var dropped = f.dropped || [];
    ui.dropped.hidden = dropped.length === 0;
    ui.droppedList.replaceChildren.apply(ui.droppedList, dropped.map(function (position) {
      var x = f.slots[position - 1].token, li = node('li', 'is-dropped');
      li.append(node('span', 'chip-pos', String(position)), ' ', node('span', 'chip-tok', vocab[x]),
        node('span', 'chip-note', fill(T.chip_dropped, { accept: prof.positions[position - 1].accept[x] })));
      return li;
    }));
    ui.committed.replaceChildren.apply(ui.committed, f.committed.length ? f.committed.map(function (t, j) {
      var s = f.slots[j] || {}, rep = s.state === 'rejected', bonus = s.state === 'bonus';
      var li = node('li', rep ? 'is-replacement' : bonus ? 'is-bonus' : '');
      li.append(node('span', 'chip-tok', vocab[t]), node('span', 'chip-note', rep ? T.chip_replacement : bonus ? T.chip_bonus : ''));
      return li;
    }) : [node('li', 'is-empty', T.nothing_yet)]);
  }

  function render() {
    var prof = trace.profiles[state.profile], n = prof.frames.length, f = prof.frames[state.frame - 1];
    var ctx = context(prof, f, vocab);
    root.hidden = false;
    ui.statics.forEach(function (s) { s.hidden = true; });
    renderControls(n);
    ui.head.textContent = fill(f.kind === 'verify' ? T.head_verify : T.head, { i: f.index, n: n, kind: KINDS[f.kind], pos: f.position });
    ui.caption.textContent = f.caption.map(function (key) { return fill(trace.text.captions[key], ctx); }).join(' ');
    renderStrip(f);
    renderTest(f, ctx);
    renderDist(f, prof, ctx);
    renderChips(f, prof);
    renderLocation(prof);
  }

  function renderLocation(prof) {
    if (state.linked) {
      var hash = '#' + prof.id + '/' + state.frame;
      if (decoded(location.hash) !== hash) history.replaceState(history.state, '', hash);
    }
    if (state.reveal) {
      state.reveal = false;
      requestAnimationFrame(reveal);
    }
  }

  // Scrolling lays out the whole page, so it waits for the next frame instead of holding up this one.
  function reveal() {
    root.scrollIntoView({ block: 'start', behavior: reducedMotion.matches ? 'auto' : 'smooth' });
    root.focus({ preventScroll: true });
  }

  function openAt(where) {
    update({ profile: where.profile, frame: where.frame, playing: false, linked: true, reveal: true });
  }

  /* ---------- events: each handler calls update() ---------- */

  var KEYS = { ArrowLeft: 'prev', ArrowRight: 'next', ' ': 'play', Home: 'first', End: 'last' };

  root.addEventListener('click', function (e) {
    var b = e.target.closest('[data-action]');
    if (b && b.getAttribute('aria-disabled') !== 'true') act(b.dataset.action);
  });
  // Form fields keep their own keys: arrows move the scrubber or switch the profile natively.
  root.addEventListener('keydown', function (e) {
    var action = KEYS[e.key];
    if (!action || e.altKey || e.ctrlKey || e.metaKey || isFormField(e.target)) return;
    e.preventDefault();
    act(action);
  });
  root.addEventListener('change', function (e) {
    if (e.target.matches('[data-profile]')) {
      var index = trace.profiles.findIndex(function (p) { return p.id === e.target.value; });
      update({ profile: index, frame: 1, playing: false, linked: true });
    } else if (e.target.matches('[data-speed]')) {
      update({ delay: Number(e.target.value) });
    }
  });
  ui.scrubber.addEventListener('input', function () {
    update({ frame: ui.scrubber.value, playing: false, linked: true });
  });
  window.addEventListener('hashchange', function () {
    var where = parseHash(location.hash, trace.profiles);
    if (where) openAt(where);
  });
  // A link to the frame already in the hash fires no hashchange: open it here instead.
  document.addEventListener('click', function (e) {
    var a = e.target.closest && e.target.closest('a[href^="#"]');
    if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    var where = parseHash(a.hash, trace.profiles);
    if (where && decoded(a.hash) === decoded(location.hash)) {
      e.preventDefault();
      openAt(where);
    }
  });

  var initial = parseHash(location.hash, trace.profiles);
  if (initial) openAt(initial); else render();
  // Benchmarks only: they opt in by setting window.__playerDebug before the page loads.
  if (window.__playerDebug) window.__player = { update: update, state: state, initMs: performance.now() - started };
})();

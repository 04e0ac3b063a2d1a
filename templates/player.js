'use strict';
// The round player: reads the trace from #trace and steps through its frames.
// Pure helpers first; one `state`; setFrame() clamps, then render(); render() alone writes to the page.
(function () {
  var started = performance.now();

  /* ---------- pure helpers ---------- */

  function clamp(x, lo, hi) { return Math.min(hi, Math.max(lo, x)); }

  // "3/8" -> 0.375, "1" -> 1: only for drawing; every number shown is the trace's exact string.
  function fracValue(text) {
    var parts = String(text).split('/');
    return parts.length === 2 ? Number(parts[0]) / Number(parts[1]) : Number(parts[0]);
  }

  function gcd(a, b) { return b ? gcd(b, a % b) : Math.abs(a); }

  // ["0", "2/8", "1/8"] -> "3/8": written over the denominator the terms share, as the trace writes them.
  function fracSum(list) {
    var den = 1, num = 0;
    list.forEach(function (t) { var p = String(t).split('/'); var d = Number(p[1] || 1); den = den * d / gcd(den, d); });
    list.forEach(function (t) { var p = String(t).split('/'); num += Number(p[0]) * den / Number(p[1] || 1); });
    return num === 0 ? '0' : den === 1 ? String(num) : num + '/' + den;
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

  function frameHead(f, n, kinds) {
    return 'Frame ' + f.index + ' of ' + n + ': ' + kinds[f.kind] + (f.kind === 'verify' ? ' position ' + f.position : '');
  }

  // Detached nodes only; render() puts them on the page.
  function node(tag, className, text) {
    var e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // slot i of a frame is position i + 1; the last slot is the bonus position
  function slotNode(s, position, current, k, vocab, labels) {
    var li = node('li', 'slot is-' + s.state + (current ? ' is-current' : ''));
    var state = labels[s.state] + (s.state === 'rejected' ? ': ' + quote(vocab[s.replacement]) + ' instead' : '');
    li.append(node('small', '', position + (position > k ? ' bonus' : '')), ' ',
      node('b', '', s.token === null ? '\u2013' : vocab[s.token]), ' ',
      node('span', '', state));
    return li;
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

  // The residual table: every token, the rejected one at 0, the drawn replacement marked.
  function residualRows(f, pos, vocab) {
    return vocab.map(function (tok, y) {
      var note = y === f.replacement ? 'drawn' : y === f.token ? 'rejected' : '';
      var cls = y === f.replacement ? 'is-drawn' : y === f.token ? 'is-rejected-token' : '';
      return row([tokenCell(tok, note), pos.target[y], pos.draft[y], f.residual_raw[y],
        bar(fracValue(f.residual[y]), f.residual[y])], cls);
    });
  }

  function bonusRows(f, target, vocab) {
    return vocab.map(function (tok, y) {
      return row([tokenCell(tok, y === f.token ? 'drawn' : ''), bar(fracValue(target[y]), target[y])],
        y === f.token ? 'is-drawn' : '');
    });
  }

  function committedNode(f, token, j, vocab) {
    var slot = f.slots[j] || {};
    var note = slot.state === 'rejected' ? ' (replacement)' : slot.state === 'bonus' ? ' (bonus)' : '';
    var li = node('li', slot.state === 'rejected' ? 'is-replacement' : slot.state === 'bonus' ? 'is-bonus' : '');
    li.append(node('span', 'chip-tok', vocab[token]), node('span', 'chip-note', note));
    return li;
  }

  function droppedNode(d, vocab) {
    var li = node('li', 'is-dropped');
    li.append(node('span', 'chip-pos', String(d.position)), ' ', node('span', 'chip-tok', vocab[d.token]),
      node('span', 'chip-note', ' \u00b7 would have been accepted with ' + d.accept));
    return li;
  }

  /* ---------- data and state ---------- */

  var source = document.getElementById('trace');
  var root = document.querySelector('[data-player]');
  if (!source || !root) return;
  var trace = JSON.parse(source.textContent);
  var vocab = trace.vocabulary;
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
  var labels = JSON.parse(ui.strip.dataset.labels);
  var kinds = JSON.parse(ui.strip.dataset.kinds);
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

  function setFrame(i) {
    state.frame = clamp(Math.round(Number(i)) || 1, 1, frames().length);
    render();
  }

  function setProfile(index) {
    state.profile = clamp(index, 0, trace.profiles.length - 1);
    setFrame(1);
  }

  function next() { setFrame(state.frame + 1); }

  function schedule() {
    clearTimeout(timer);
    timer = state.playing ? setTimeout(tick, state.delay) : null;
  }

  // Playback stops by itself on the last frame.
  function tick() {
    state.playing = state.frame + 1 < frames().length;
    schedule();
    setFrame(state.frame + 1);
  }

  function setPlaying(on) {
    var restart = on && state.frame >= frames().length;
    state.playing = on;
    state.linked = true;
    schedule();
    setFrame(restart ? 1 : state.frame);
  }

  // Every manual move pauses playback, so a reader is never fought by the timer.
  function act(action) {
    var n = frames().length;
    var to = { first: 1, prev: state.frame - 1, next: state.frame + 1, last: n }[action];
    if (action === 'play') return setPlaying(!state.playing);
    if (to === undefined || to < 1 || to > n) return;
    state.playing = false;
    state.linked = true;
    schedule();
    setFrame(to);
  }

  function openAt(where) {
    state.profile = where.profile;
    state.playing = false;
    state.linked = true;
    state.reveal = true;
    schedule();
    setFrame(where.frame);
  }

  /* ---------- the one function that writes to the page ---------- */

  function render() {
    var prof = trace.profiles[state.profile], list = prof.frames, n = list.length, f = list[state.frame - 1];
    var verify = f.kind === 'verify', rejected = f.verdict === 'rejected';

    root.hidden = false;
    ui.statics.forEach(function (s) { s.hidden = true; });
    root.classList.toggle('is-playing', state.playing);
    ui.radios.forEach(function (r) { r.checked = r.value === prof.id; });
    ui.buttons.forEach(function (b) {
      var a = b.dataset.action;
      var off = (a === 'first' || a === 'prev') ? state.frame === 1 : (a === 'next' || a === 'last') ? state.frame === n : false;
      if (off) b.setAttribute('aria-disabled', 'true'); else b.removeAttribute('aria-disabled');
    });
    ui.playLabel.textContent = state.playing ? 'Pause' : 'Play';
    ui.scrubber.max = String(n);
    ui.scrubber.value = String(state.frame);
    ui.scrubber.setAttribute('aria-valuetext', 'Frame ' + state.frame + ' of ' + n);
    ui.counter.textContent = 'Frame ' + state.frame + ' of ' + n;
    ui.head.textContent = frameHead(f, n, kinds);
    ui.caption.textContent = f.caption;
    ui.strip.replaceChildren.apply(ui.strip, f.slots.map(function (s, i) { return slotNode(s, i + 1, f.position === i + 1, trace.k, vocab, labels); }));

    ui.test.hidden = !verify;
    if (verify) {
      var tok = quote(vocab[f.token]);
      var passed = !rejected;
      ui.testTitle.textContent = 'Position ' + f.position + ': is ' + tok + ' accepted?';
      ui.p.textContent = f.p;
      ui.q.textContent = f.q;
      ui.ratio.textContent = '(' + f.p + ')/(' + f.q + ') = ' + f.ratio;
      ui.accept.textContent = 'min(1, ' + f.ratio + ') = ' + f.accept;
      ui.u.textContent = f.u;
      ui.bar.style.setProperty('--accept', String(fracValue(f.accept)));
      ui.bar.style.setProperty('--u', String(fracValue(f.u)));
      ui.uLabel.textContent = 'u = ' + f.u;
      ui.verdict.className = 'player-verdict ' + (passed ? 'is-accepted' : 'is-rejected');
      ui.verdict.replaceChildren(node('strong', '', passed ? 'Accepted' : 'Rejected'),
        passed ? ': u = ' + f.u + ' is below ' + f.accept + '.' : ': u = ' + f.u + ' is not below ' + f.accept + '.');
    }

    var bonus = f.kind === 'bonus';
    ui.dist.hidden = !(rejected || bonus);
    ui.dist.dataset.kind = bonus ? 'bonus' : 'residual';
    if (rejected) {
      var pos = prof.positions[f.position - 1];
      ui.distTitle.textContent = 'The replacement, drawn from the residual at position ' + f.position;
      ui.distHead.replaceChildren(headRow(['token', 'p', 'q', 'max(0, p \u2212 q)', '\u00f7 ' + fracSum(f.residual_raw)]));
      ui.distBody.replaceChildren.apply(ui.distBody, residualRows(f, pos, vocab));
    } else if (bonus) {
      ui.distTitle.textContent = 'The bonus token, drawn from the target at position ' + f.position;
      ui.distHead.replaceChildren(headRow(['token', 'p']));
      ui.distBody.replaceChildren.apply(ui.distBody, bonusRows(f, prof.bonus_target, vocab));
    }

    var dropped = f.dropped || [];
    ui.dropped.hidden = dropped.length === 0;
    ui.droppedList.replaceChildren.apply(ui.droppedList, dropped.map(function (d) { return droppedNode(d, vocab); }));

    ui.committed.replaceChildren.apply(ui.committed, f.committed.length
      ? f.committed.map(function (t, j) { return committedNode(f, t, j, vocab); })
      : [node('li', 'is-empty', 'nothing yet: no position has been checked')]);

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

  /* ---------- events ---------- */

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
      state.playing = false;
      state.linked = true;
      schedule();
      setProfile(trace.profiles.findIndex(function (p) { return p.id === e.target.value; }));
    } else if (e.target.matches('[data-speed]')) {
      state.delay = Number(e.target.value);
      schedule();
    }
  });
  ui.scrubber.addEventListener('input', function () {
    state.playing = false;
    state.linked = true;
    schedule();
    setFrame(ui.scrubber.value);
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

  window.__player = { next: next, setFrame: setFrame, setProfile: setProfile, state: state };

  var initial = parseHash(location.hash, trace.profiles);
  if (initial) openAt(initial); else render();
  window.__playerInitMs = performance.now() - started;
})();

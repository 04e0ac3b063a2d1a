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

  // "#divergent/4" -> {profile: 1, round: 0, frame: 4}; "#divergent/r7/3" -> drawn round 7, frame 3;
  // null when the hash is not a frame of a known profile.
  function parseHash(hash, profiles) {
    var m = /^#([^/]+)\/(?:r(\d+)\/)?(\d+)$/.exec(decoded(hash));
    if (!m) return null;
    var index = profiles.findIndex(function (p) { return p.id === m[1]; });
    return index < 0 ? null : { profile: index, round: m[2] ? Number(m[2]) : 0, frame: Number(m[3]) };
  }

  function hashOf(prof, round, frame) { return '#' + prof.id + '/' + (round ? 'r' + round + '/' : '') + frame; }

  function decoded(hash) {
    try { return decodeURIComponent(hash || ''); } catch (err) { return String(hash); }
  }

  function quote(token) { return '\u201c' + token + '\u201d'; }

  function isFormField(node) {
    return !!(node && node.closest && node.closest('input, select, textarea, [contenteditable]'));
  }

  // The token a frame is about: the proposal it checks, or the bonus token (view.frame_token).
  function frameToken(rnd, f) {
    return f.kind === 'verify' ? rnd.proposals[f.pos - 1] : f.kind === 'bonus' ? rnd.bonus : null;
  }

  // The fields a frame's caption is filled from: its position's facts, the round's fields, its draw
  // (view.caption_context does the same in Python).
  function context(prof, rnd, f, vocab) {
    var x = frameToken(rnd, f), c = {};
    if (f.kind === 'verify') {
      var pos = prof.positions[f.pos - 1];
      c = { p: pos.target[x], q: pos.draft[x], accept: pos.accept[x], worked: pos.worked[x],
        res_raw: pos.res_raw, res_total: pos.res_total, res_norm: pos.res_norm };
    }
    if (f.pos) c.pos = f.pos;
    if (x !== null) c.tok = trace.labels[x];
    Object.assign(c, trace.fields, rnd.fields);
    if (f.u) c.u = f.u;
    return c;
  }

  // A frame row of the trace as an object: the fields are named once, in trace.frame_fields (view.frame_dict).
  function frameOf(row) {
    var f = {};
    trace.frame_fields.forEach(function (name, i) { f[name] = row[i]; });
    f.caption = f.caption.split(' ').map(function (i) { return trace.caption_keys[Number(i)]; });
    return f;
  }

  var STATE_OF = { a: 'accepted', r: 'rejected', d: 'dropped', p: 'proposed', w: 'pending', n: 'none', b: 'bonus' };

  // Slot i of a frame, as {state, token, replacement}: tokens live once in the round (view.slot_views).
  function slotsOf(rnd, f, k) {
    return f.slots.split('').map(function (code, i) {
      var state = STATE_OF[code];
      var token = i < k ? rnd.proposals[i] : state === 'bonus' ? rnd.bonus : null;
      return { state: state, token: token, replacement: state === 'rejected' ? rnd.replacement : null };
    });
  }

  // What the round has committed once this frame is done: accepted proposals, the replacement, the bonus.
  function committedOf(slots) {
    return slots.filter(function (s) { return s.state === 'accepted' || s.state === 'rejected' || s.state === 'bonus'; })
      .map(function (s) { return { token: s.state === 'rejected' ? s.replacement : s.token, state: s.state }; });
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

  // One row per token: min(p, q), the p − q residual part and the q − p excess, widths precomputed in the trace.
  function overlapRows(pos, vocab, mark) {
    return vocab.map(function (tok, y) {
      // one track, drawn by its background: min(p, q) solid, then p − q hatched or q − p in the draft's colour
      var w = pos.bars[y], li = node('div', 'bar-row' + (y === mark ? ' is-mark' : ''));
      var track = node('span', 'bar-track' + (w[2] ? ' is-res' : ' is-exc'));
      track.style.setProperty('--a', String(w[0]));
      track.style.setProperty('--b', String(w[1]));
      li.append(node('bdi', 'bar-tok', tok), track, node('span', 'bar-num', 'p ' + pos.target[y] + ' · q ' + pos.draft[y]));
      return li;
    });
  }

  function tokenCell(token, note) {
    return note ? [token + ' ', node('span', 'row-note', note)] : [token];
  }

  /* ---------- the round player ---------- */

  var source = document.getElementById('trace');
  if (!source) return;
  document.documentElement.classList.add('js');  // sentences about controls show only where the controls run
  var trace = JSON.parse(source.textContent);
  var vocab = trace.vocabulary, T = trace.text.player, STATES = trace.text.states, KINDS = trace.text.kinds;
  var reducedMotion = window.matchMedia('(prefers-reduced-motion: reduce)');
  var debug = {};

  function player(root) {
    var find = function (sel) { return root.querySelector(sel); };
    var ui = {
      radios: root.querySelectorAll('[data-profile]'),
      roundRadios: root.querySelectorAll('[data-round]'),
      roundCounter: find('[data-round-counter]'),
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
      chance: find('[data-chance]'),
      bars: find('[data-bars]'),
      dist: find('[data-dist]'),
      distTitle: find('[data-dist-title]'),
      distHead: find('[data-dist-head]'),
      distBody: find('[data-dist-body]'),
      dropped: find('[data-dropped]'),
      droppedList: find('[data-dropped-list]'),
      committed: find('[data-committed]'),
    };

    var state = {
      profile: 0,      // index into trace.profiles
      round: 0,        // 0: the authored walkthrough; 1..R: drawn round i
      lastDrawn: 0,    // the drawn round "Draw another round" moves on from
      frame: 1,        // 1-based, as in the URL
      playing: false,
      delay: Number(ui.speed.value),
      linked: false,   // true once the reader has used the player or a frame link: the hash then follows the state
      reveal: false,   // bring the player into view on the next render
    };
    var timer = null;

    function prof() { return trace.profiles[state.profile]; }
    function roundOf(p, i) { return i ? p.drawn[i - 1] : p.walk; }
    function frames() { return roundOf(prof(), state.round).frames; }
    function frameAt(rnd, i) { return frameOf(rnd.frames[i - 1]); }

    // The one way to change state: merge, clamp, (re)schedule playback, render.
    function update(patch) {
      Object.assign(state, patch);
      state.profile = clamp(Math.round(Number(state.profile)) || 0, 0, trace.profiles.length - 1);
      state.round = clamp(Math.round(Number(state.round)) || 0, 0, prof().drawn.length);
      if (state.round) state.lastDrawn = state.round;
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
      if (action === 'draw') {
        return update({ round: state.lastDrawn % prof().drawn.length + 1, frame: 1, playing: false, linked: true });
      }
      var to = { first: 1, prev: state.frame - 1, next: state.frame + 1, last: n }[action];
      if (to === undefined || to < 1 || to > n) return;
      update({ frame: to, playing: false, linked: true });
    }

    /* ---------- render: the panels, each writing only its own part ---------- */

    function renderControls(n) {
      root.classList.toggle('is-playing', state.playing);
      ui.radios.forEach(function (r) { r.checked = r.value === prof().id; });
      ui.roundRadios.forEach(function (r) { r.checked = (r.value === 'drawn') === (state.round > 0); });
      ui.roundCounter.textContent = state.round ? fill(T.drawn_counter, { i: state.round, n: prof().drawn.length }) : '';
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

    function renderStrip(f, slots) {
      ui.strip.replaceChildren.apply(ui.strip, slots.map(function (s, i) {
        var position = i + 1;
        var li = node('li', 'slot is-' + s.state + (f.pos === position ? ' is-current' : ''));
        var text = STATES[s.state] + (s.state === 'rejected' ? fill(T.slot_instead, { rep: trace.labels[s.replacement] }) : '');
        li.append(node('small', '', position > trace.k ? fill(T.slot_bonus, { pos: position }) : String(position)), ' ',
          node('bdi', '', s.token === null ? T.no_token : vocab[s.token]), ' ', node('span', '', text));
        return li;
      }));
    }

    function renderTest(f, ctx, rnd) {
      ui.test.hidden = f.kind !== 'verify';
      if (ui.test.hidden) return;
      var pos = prof().positions[f.pos - 1], x = frameToken(rnd, f), passed = f.slots[f.pos - 1] === 'a';
      ui.testTitle.textContent = fill(T.test_title, ctx);
      ui.p.textContent = ctx.p;
      ui.q.textContent = ctx.q;
      ui.ratio.textContent = fill(T.ratio, { p: ctx.p, q: ctx.q, ratio: pos.ratio[x] });
      ui.accept.textContent = fill(T.accept, { ratio: pos.ratio[x], accept: ctx.accept });
      ui.u.textContent = f.u;
      ui.bar.style.setProperty('--accept', String(pos.accept_f[x]));
      ui.bar.classList.toggle('is-never', pos.accept_f[x] === 0);
      ui.bar.style.setProperty('--u', f.u);
      ui.uLabel.textContent = fill(T.u, { u: f.u });
      ui.verdict.className = 'player-verdict ' + (passed ? 'is-accepted' : 'is-rejected');
      ui.verdict.replaceChildren(node('strong', '', passed ? T.accepted : T.rejected),
        fill(passed ? T.below : T.not_below, { u: f.u, accept: ctx.accept }));
      ui.chance.hidden = !f.chance;
      ui.chance.textContent = f.chance ? fill(T.chance, ctx) : '';
      ui.bars.replaceChildren.apply(ui.bars, overlapRows(pos, vocab, x));
    }

    function renderDist(f, ctx, rnd) {
      var rejected = f.kind === 'verify' && f.slots[f.pos - 1] === 'r', bonus = f.kind === 'bonus';
      ui.dist.hidden = !(rejected || bonus);
      ui.dist.dataset.kind = bonus ? 'bonus' : 'residual';
      if (rejected) {
        var pos = prof().positions[f.pos - 1], x = frameToken(rnd, f);
        ui.distTitle.textContent = fill(T.residual_title, ctx);
        ui.distHead.replaceChildren(headRow([T.col_token, T.col_p, T.col_q, T.col_raw, fill(T.col_norm, ctx)]));
        ui.distBody.replaceChildren.apply(ui.distBody, vocab.map(function (tok, y) {
          var note = y === rnd.replacement ? T.note_drawn : y === x ? T.note_rejected : '';
          var cls = y === rnd.replacement ? 'is-drawn' : y === x ? 'is-rejected-token' : '';
          return row([tokenCell(tok, note), pos.target[y], pos.draft[y], pos.residual_raw[y],
            bar(pos.residual[y] === null ? 0 : fracValue(pos.residual[y]), pos.residual[y] === null ? '–' : pos.residual[y])], cls);
        }));
      } else if (bonus) {
        ui.distTitle.textContent = fill(T.bonus_title, ctx);
        ui.distHead.replaceChildren(headRow([T.col_token, T.col_p]));
        ui.distBody.replaceChildren.apply(ui.distBody, vocab.map(function (tok, y) {
          var target = prof().bonus_target[y];
          return row([tokenCell(tok, y === rnd.bonus ? T.note_drawn : ''), bar(fracValue(target), target)],
            y === rnd.bonus ? 'is-drawn' : '');
        }));
      }
    }

    function renderChips(slots) {
      var dropped = slots.map(function (s, i) { return s.state === 'dropped' ? i + 1 : 0; }).filter(Boolean);
      ui.dropped.hidden = dropped.length === 0;
      ui.droppedList.replaceChildren.apply(ui.droppedList, dropped.map(function (position) {
        var x = slots[position - 1].token, li = node('li', 'is-dropped');
        li.append(node('span', 'chip-pos', String(position)), ' ', node('bdi', 'chip-tok', vocab[x]),
          node('span', 'chip-note', fill(T.chip_dropped, { accept: prof().positions[position - 1].accept[x] })));
        return li;
      }));
      var committed = committedOf(slots);
      ui.committed.replaceChildren.apply(ui.committed, committed.length ? committed.map(function (c) {
        var rep = c.state === 'rejected', bonus = c.state === 'bonus';
        var li = node('li', rep ? 'is-replacement' : bonus ? 'is-bonus' : '');
        li.append(node('bdi', 'chip-tok', vocab[c.token]), node('span', 'chip-note', rep ? T.chip_replacement : bonus ? T.chip_bonus : ''));
        return li;
      }) : [node('li', 'is-empty', T.nothing_yet)]);
    }

    // The Positions section answers back: the block and chart of the position being checked are marked.
    function renderLinked(f) {
      var key = f.kind === 'verify' ? prof().id + '-' + f.pos : '';
      document.querySelectorAll('[data-position-block]').forEach(function (e) {
        e.classList.toggle('is-current', e.dataset.positionBlock === key);
      });
    }

    function render() {
      var p = prof(), rnd = roundOf(p, state.round), n = rnd.frames.length, f = frameAt(rnd, state.frame);
      var ctx = context(p, rnd, f, vocab), slots = slotsOf(rnd, f, trace.k);
      root.hidden = false;
      renderControls(n);
      ui.head.textContent = fill(f.kind === 'verify' ? T.head_verify : T.head, { i: state.frame, n: n, kind: KINDS[f.kind], pos: f.pos });
      ui.caption.textContent = f.caption.map(function (key) { return fill(trace.text.captions[key], ctx); }).join(' ');
      renderStrip(f, slots);
      renderTest(f, ctx, rnd);
      renderDist(f, ctx, rnd);
      renderChips(slots);
      renderLinked(f);
      renderLocation(p);
    }

    function renderLocation(p) {
      if (state.linked) {
        var hash = hashOf(p, state.round, state.frame);
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
      update({ profile: where.profile, round: where.round, frame: where.frame, playing: false, linked: true, reveal: true });
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
        update({ profile: index, frame: 1, lastDrawn: 0, round: state.round ? 1 : 0, playing: false, linked: true });
      } else if (e.target.matches('[data-round]')) {
        update({ round: e.target.value === 'drawn' ? Math.max(1, state.lastDrawn) : 0, frame: 1, playing: false, linked: true });
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
    debug.player = { update: update, state: state };
  }

  /* ---------- the accept-test lab: the reader drives u, the precomputed threshold decides ---------- */

  function lab(root) {
    var L = trace.text.lab, find = function (sel) { return root.querySelector(sel); };
    var ui = { select: find('[data-lab-position]'), tokens: find('[data-lab-tokens]'), bars: find('[data-lab-bars]'),
      u: find('[data-lab-u]'), yes: find('[data-lab-yes]'), mark: find('[data-lab-mark]'), threshold: find('[data-lab-threshold]'),
      verdict: find('[data-lab-verdict]'), residual: find('[data-lab-residual]'), r: find('[data-lab-r]'),
      segments: find('[data-lab-segments]'), rep: find('[data-lab-rep]') };
    var d = trace.lab;
    var state = { where: d.where, token: d.token, u: Number(d.u), r: 0.5 };

    function at(where) {
      var parts = where.split('/'), p = trace.profiles.findIndex(function (x) { return x.id === parts[0]; });
      return { prof: trace.profiles[p], pos: trace.profiles[p].positions[Number(parts[1]) - 1], n: Number(parts[1]) };
    }
    function proposable(pos) { return vocab.map(function (t, y) { return y; }).filter(function (y) { return pos.accept[y] !== null; }); }

    function update(patch) {
      Object.assign(state, patch);
      var pos = at(state.where).pos, ok = proposable(pos);
      if (ok.indexOf(state.token) < 0) state.token = ok[0];
      state.u = clamp(Number(state.u) || 0, 0, 0.999);
      state.r = clamp(Number(state.r) || 0, 0, 0.999);
      render();
    }

    // The replacement: the first token whose cumulative residual cut lies above r.
    function replacementAt(pos, r) {
      for (var y = 0; y < vocab.length; y++) if (r < pos.cuts[y]) return y;
      return vocab.length - 1;
    }

    function renderTokens(pos) {
      var radios = proposable(pos).map(function (y) {
        var label = node('label', 'fig-radio'), input = node('input');
        input.type = 'radio'; input.name = 'lab-token'; input.value = String(y); input.checked = y === state.token;
        label.append(input, ' ', node('bdi', '', vocab[y]));
        return label;
      });
      ui.tokens.replaceChildren.apply(ui.tokens, [node('legend', '', 'Proposed token')].concat(radios));
    }

    function renderTest(here) {
      var pos = here.pos, x = state.token, a = pos.accept_f[x], passed = state.u < a;
      var u = state.u.toFixed(3), f = { u: u, worked: pos.worked[x], accept: pos.accept[x], tok: trace.labels[x] };
      ui.u.value = u;
      ui.u.setAttribute('aria-valuetext', 'u = ' + u);
      ui.yes.style.setProperty('--w', String(a));
      ui.yes.parentNode.classList.toggle('is-never', a === 0);
      ui.mark.style.setProperty('--u', u);
      ui.threshold.textContent = fill(L.threshold, f);
      ui.verdict.className = 'lab-verdict ' + (passed ? 'is-accepted' : 'is-rejected');
      ui.verdict.replaceChildren(node('strong', '', passed ? L.accepted : L.rejected), fill(passed ? L.pass : L.fail, f));
      return passed;
    }

    function renderResidual(pos) {
      var y = replacementAt(pos, state.r), lo = 0, r = state.r.toFixed(3);
      ui.r.value = r;
      ui.r.setAttribute('aria-valuetext', 'replacement draw ' + r);
      ui.segments.replaceChildren.apply(ui.segments, vocab.map(function (tok, j) {
        var width = pos.cuts[j] - (j ? pos.cuts[j - 1] : 0), seg = node('span', 'r-seg' + (j === y ? ' is-drawn' : '') + (width ? '' : ' is-empty'));
        seg.style.setProperty('--w', String(width));
        seg.append(node('bdi', '', tok), ' ', pos.residual[j] === null ? '0' : pos.residual[j]);
        return seg;
      }));
      lo = y ? pos.cuts[y - 1] : 0;
      ui.rep.textContent = fill(L.replacement, { r: r, rep: trace.labels[y], lo: lo.toFixed(3), hi: pos.cuts[y].toFixed(3) });
    }

    function render() {
      var here = at(state.where);
      ui.select.value = state.where;
      renderTokens(here.pos);
      ui.bars.replaceChildren.apply(ui.bars, overlapRows(here.pos, vocab, state.token));
      var passed = renderTest(here);
      ui.residual.hidden = passed;
      if (!passed) renderResidual(here.pos);
      root.hidden = false;
    }

    ui.select.addEventListener('change', function () { update({ where: ui.select.value }); });
    ui.tokens.addEventListener('change', function (e) { update({ token: Number(e.target.value) }); });
    ui.u.addEventListener('input', function () { update({ u: ui.u.value }); });
    ui.r.addEventListener('input', function () { update({ r: ui.r.value }); });
    // "Try it here" links in the Positions section open the lab at their position.
    document.addEventListener('click', function (e) {
      var a = e.target.closest && e.target.closest('[data-lab-open]');
      if (a) {
        var parts = a.dataset.labOpen.split('/');
        update({ where: parts[0] + '/' + parts[1], token: Number(parts[2]) });
      }
    });
    update({});
    debug.lab = { update: update, state: state };
  }

  /* ---------- convergence you can watch: checkpoints of one Monte Carlo run ---------- */

  function convergence(root) {
    var C = trace.text.conv, prof = trace.profiles[Number(root.dataset.conv)], conv = prof.convergence;
    var find = function (sel) { return root.querySelector(sel); };
    var figure = root.closest('figure');
    var ui = { rounds: find('[data-conv-rounds]'), position: find('[data-conv-position]'), readout: find('[data-conv-readout]'),
      hist: find('[data-conv-hist]'), lengths: find('[data-conv-lengths]'), now: figure.querySelector('[data-conv-now]'),
      out: find('[data-conv-out]') };
    var xs = ui.now ? ui.now.dataset.xs.split(' ') : [];
    var state = { cp: conv.checkpoints.length - 1, pos: 1 };

    function update(patch) {
      Object.assign(state, patch);
      state.cp = clamp(Math.round(Number(state.cp)), 0, conv.checkpoints.length - 1);
      state.pos = clamp(Math.round(Number(state.pos)), 1, trace.k + 1);
      render();
    }

    // One row, two bars drawn by its background: the target above, the observed frequency below.
    function pair(label, target, observed, tw, ow) {
      var r = node('div', 'hist-row'), bars = node('span', 'hist-bars');
      bars.style.setProperty('--t', String(tw));
      bars.style.setProperty('--o', String(ow));
      r.append(node('bdi', 'bar-tok', label), bars, node('span', 'bar-num', target + ' · ' + observed));
      return r;
    }

    function render() {
      var c = state.cp, i = state.pos - 1;
      var target = i < trace.k ? prof.positions[i].target : prof.bonus_target;
      var freq = conv.freq[c][i], where = fill(state.pos > trace.k ? C.bonus : C.position, { pos: state.pos });
      var rounds = fill(C.rounds, { n: conv.rounds_text[c] });
      ui.rounds.value = String(c);
      ui.rounds.setAttribute('aria-valuetext', rounds);
      ui.position.value = String(state.pos);
      ui.readout.textContent = fill(conv.vacuous[c][i] ? C.vacuous : C.readout, { rounds: rounds,
        reached: fill(C.reached, { n: conv.reached[c][i] }), where: where,
        tv: conv.tv_text[c][i], bound: conv.bound_text[c][i], rel: conv.within[c][i] ? C.within : C.above });
      ui.out.textContent = conv.rounds_text[c];
      figure.querySelectorAll('[data-line]').forEach(function (e) { e.classList.toggle('is-picked', e.dataset.line === String(state.pos)); });
      ui.hist.replaceChildren.apply(ui.hist, vocab.map(function (tok, y) {
        return pair(tok, target[y], freq[y].toFixed(3), fracValue(target[y]), freq[y]);
      }));
      ui.lengths.replaceChildren.apply(ui.lengths, conv.lengths_exact.map(function (p, j) {
        return pair(fill(C.n, { n: j + 1 }), p, conv.lengths_freq[c][j].toFixed(3), fracValue(p), conv.lengths_freq[c][j]);
      }));
      if (ui.now) ui.now.setAttribute('transform', 'translate(' + xs[c] + ' 0)');
      root.hidden = false;
    }

    ui.rounds.addEventListener('input', function () { update({ cp: ui.rounds.value }); });
    ui.position.addEventListener('change', function () { update({ pos: ui.position.value }); });
    update({});
    (debug.conv = debug.conv || []).push({ update: update, state: state });
  }

  /* ---------- the speedup explorer ---------- */

  function explorer(root) {
    var E = trace.text.explore, find = function (sel) { return root.querySelector(sel); };
    var ui = { k: find('[data-explore-k]'), cost: find('[data-explore-cost]'), readout: find('[data-explore-readout]'),
      bars: find('[data-explore-bars]'), kOut: find('[data-explore-k-out]') };
    var state = { k: trace.k, cost: Number(ui.cost.value) };

    function update(patch) {
      Object.assign(state, patch);
      state.k = clamp(Math.round(Number(state.k)), 1, trace.k);
      state.cost = clamp(Math.round(Number(state.cost)), 0, trace.explore.costs.length - 1);
      render();
    }

    function profileRow(p) {
      var s = p.speedup, c = state.cost, wrap = node('div', 'ex-row');
      var cols = s.values[c].map(function (v, j) {
        var col = node('span', 'ex-col' + (s.slow[c][j] ? ' is-slow' : '') + (j + 1 === state.k ? ' is-k' : '') + (j + 1 === s.best[c] ? ' is-best' : ''));
        col.style.setProperty('--h', String(s.heights[c][j]));
        col.append(node('span', 'ex-bar'), node('span', 'ex-val', v + '×'), node('span', 'ex-k', String(j + 1)));
        return col;
      });
      var chart = node('div', 'ex-chart');
      chart.style.setProperty('--one', String(s.one));
      chart.append.apply(chart, cols);
      wrap.append(node('p', 'fig-sub', p.name), chart);
      return wrap;
    }

    function render() {
      var c = state.cost, k = state.k;
      ui.k.value = String(k);
      ui.k.setAttribute('aria-valuetext', 'k = ' + k);
      ui.cost.value = String(c);
      var lines = [fill(E.readout, { k_text: fill(k === 1 ? E.k_one : E.k_many, { k: k }), cost: trace.explore.cost_text[c],
        round_cost: trace.explore.round_costs[c][k - 1] })];
      trace.profiles.forEach(function (p) {
        var s = p.speedup, best = s.best[c];
        lines.push(fill(best ? E.profile : E.profile_none, { name: p.name, value: s.values[c][k - 1], k: k, best: best,
          best_value: best ? s.values[c][best - 1] : '', slower: s.slow[c][k - 1] ? E.slower : '' }));
      });
      ui.kOut.textContent = String(k);
      ui.readout.textContent = lines.join(' ');
      ui.bars.replaceChildren.apply(ui.bars, trace.profiles.map(profileRow));
      root.hidden = false;
    }

    ui.k.addEventListener('input', function () { update({ k: ui.k.value }); });
    ui.cost.addEventListener('change', function () { update({ cost: ui.cost.value }); });
    update({});
    debug.explore = { update: update, state: state };
  }

  // Print shows every frame of the authored walkthrough: the no-script list, parsed from its <noscript> on demand,
  // so a reader on screen does not carry hundreds of hidden elements.
  function printable() {
    document.querySelectorAll('noscript[data-static]').forEach(function (n) {
      if (n.nextElementSibling && n.nextElementSibling.hasAttribute('data-printed')) return;
      var t = document.createElement('template'), d = document.createElement('div');
      t.innerHTML = n.textContent;
      d.setAttribute('data-printed', '');
      d.append(t.content);
      n.after(d);
    });
  }
  window.addEventListener('beforeprint', printable);
  window.matchMedia('print').addEventListener('change', function (e) { if (e.matches) printable(); });

  var playerRoot = document.querySelector('[data-player]');
  if (playerRoot) player(playerRoot);
  var labRoot = document.querySelector('[data-lab]');
  if (labRoot) lab(labRoot);
  document.querySelectorAll('[data-conv]').forEach(convergence);
  var exploreRoot = document.querySelector('[data-explore]');
  if (exploreRoot) explorer(exploreRoot);
  // Benchmarks only: they opt in by setting window.__playerDebug before the page loads.
  if (window.__playerDebug) window.__player = Object.assign(debug.player || {}, { figures: debug, initMs: performance.now() - started });
})();

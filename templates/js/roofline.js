// When checking several guesses stops being free: one pass's time against the tokens it scores, and the speedup
// against the batch size, for the chosen hardware, model pair, draft, k, m and batch (roofline_model.js works the
// numbers, roofline_charts.js draws them as the build draws its charts at the defaults).

const { chartKit, clamp, curveBatches, expectedOf, figure, fill, grouped, halfUp, kneeText, kneeTokens, partsOf, passMarks,
  passTime, plainTime, redraw, ROOFLINE_MAX_BATCH, roundTime, scoredPositions, speedupAt, speedupMarks, speedupText, starts,
  stopsPaying, timeText, tokensText, whole } = shared;

const ROOFLINE_PARTS = {
  hardware: '[data-roofline-hardware]', pair: '[data-roofline-pair]', profile: '[data-roofline-profile]',
  k: '[data-roofline-k]', m: '[data-roofline-m]', batch: '[data-roofline-batch]',
  hardwareOut: '[data-roofline-hardware-out]', pairOut: '[data-roofline-pair-out]',
  profileOut: '[data-roofline-profile-out]', kOut: '[data-roofline-k-out]', mOut: '[data-roofline-m-out]',
  batchOut: '[data-roofline-batch-out]', pass: '[data-roofline-pass]', speedup: '[data-roofline-speedup]',
  words: '[data-roofline-words]', stop: '[data-roofline-stop]', shown: '[data-roofline-shown]', past: '[data-roofline-past]',
  crossKey: '[data-roofline-cross-key]'
};

function startRoofline(root, trace) {
  const ui = partsOf(root, ROOFLINE_PARTS), rf = trace.roofline;
  const fig = figure(root, trace, Object.assign({}, rf.defaults), limitRoofline, renderRoofline);
  fig.ui = ui;
  fig.R = trace.text.roofline;
  const circle = ui.speedup.getElementsByClassName('roofline-at')[0];  // the build's point: its tag draws each point
  fig.kits = { pass: chartKit(ui.pass, circle), speedup: chartKit(ui.speedup, circle) };
  ui.hardware.addEventListener('change', () => { fig.update({ hardware: ui.hardware.value }); });
  ui.pair.addEventListener('change', () => { fig.update({ pair: ui.pair.value }); });
  ui.profile.addEventListener('change', () => { fig.update({ profile: ui.profile.value }); });
  ui.k.addEventListener('input', () => { fig.update({ k: ui.k.value }); });
  ui.m.addEventListener('input', () => { fig.update({ m: ui.m.value }); });
  ui.batch.addEventListener('input', () => { fig.update({ batch_log2: ui.batch.value }); });
  fig.update({});
  return fig;
}

function limitRoofline(fig) {
  const s = fig.state, rf = fig.trace.roofline;
  s.hardware = clamp(whole(s.hardware, 0), 0, rf.hardware.length - 1);
  s.pair = clamp(whole(s.pair, 0), 0, rf.pairs.length - 1);
  s.profile = clamp(whole(s.profile, 0), 0, rf.profiles.length - 1);
  s.k = clamp(whole(s.k, 1), 1, rf.k);
  s.m = clamp(whole(s.m, 1), rf.widths[0], rf.widths[rf.widths.length - 1]);
  s.batch_log2 = clamp(whole(s.batch_log2, 0), 0, rf.batch_log2_max);
}

// What the state chooses, and what follows from it: the model's setting, the batch n, the check's tokens, the knee.
function chosen(fig) {
  const s = fig.state, rf = fig.trace.roofline, hw = rf.hardware[s.hardware], pair = rf.pairs[s.pair];
  const prof = rf.profiles[s.profile], n = 2 ** s.batch_log2;
  const setting = { expected: expectedOf(prof.a[s.m - 1], s.k), pair, hw, bytes: rf.bytes, k: s.k, m: s.m };
  return { setting, hw, pair, prof, n, check: n * scoredPositions(s.k, s.m), knee: kneeTokens(hw, rf.bytes) };
}

// The numbers the figure shows, as floats: the speedup at n, where it stops paying, a plain step's and a round's time.
function worked(c) {
  const { setting, pair, hw, n } = c;
  return { expected: setting.expected, speedup: speedupAt(setting, n), stop: stopsPaying(setting),
    plain: plainTime(pair, hw, setting.bytes, n), round: roundTime(pair, hw, setting.bytes, n, setting.k, setting.m) };
}

// What one step and one round cost at the chosen batch, and where speculation stops paying.
function rooflineWords(fig, c, v) {
  const R = fig.R, k = fig.state.k;
  const step = fill(R.step, { n: grouped(c.n, R.group), plain_tokens: tokensText(c.n, R), plain: timeText(v.plain, R),
    drafts: fill(k === 1 ? R.passes_one : R.passes_many, { k }), check_tokens: tokensText(c.check, R),
    round: timeText(v.round, R), e: halfUp(v.expected, 2), value: speedupText(v.speedup, R) });
  const knee = fill(c.check <= c.knee ? R.flat : R.steep, { knee: kneeText(c.knee, R) });
  const stop = v.stop === null ? fill(R.stop_beyond, { n: grouped(ROOFLINE_MAX_BATCH, R.group) })
    : v.stop === 1 ? R.stop_never : fill(R.stop_at, { n: grouped(v.stop, R.group) });
  return { words: step + knee, stop };
}

// Both charts at the chosen setting, and their descriptions.
function drawCharts(fig, c, v) {
  const R = fig.R, rf = fig.trace.roofline, s = fig.state, target = t => passTime(c.pair.target, t, c.hw, rf.bytes);
  redraw(fig.kits.pass, passMarks(fig.kits.pass, rf.axes, Object.assign({ bytes: rf.bytes }, c), R),
    fill(R.pass_desc, { hardware: c.hw.name, knee: kneeText(c.knee, R), n: grouped(c.n, R.group),
      plain_tokens: tokensText(c.n, R), plain: timeText(target(c.n), R), check_tokens: tokensText(c.check, R),
      check: timeText(target(c.check), R) }));
  const curve = curveBatches(rf.axes.samples_per_doubling, rf.batch_log2_max).map(b => [b, speedupAt(c.setting, b)]);
  redraw(fig.kits.speedup, speedupMarks(fig.kits.speedup, rf, curve, [c.n, v.speedup], v.stop, R),
    fill(R.speedup_desc, { profile: c.prof.name, k: s.k, m: s.m, first: speedupText(curve[0][1], R),
      last: speedupText(curve[curve.length - 1][1], R), max: grouped(curve[curve.length - 1][0], R.group) }));
}

// The controls as the state has them, with their outputs and spoken values.
function renderControls(fig, c, v) {
  const ui = fig.ui, s = fig.state, R = fig.R;
  ui.hardware.value = String(s.hardware);
  ui.pair.value = String(s.pair);
  ui.profile.value = String(s.profile);
  ui.k.value = String(s.k);
  ui.m.value = String(s.m);
  ui.batch.value = String(s.batch_log2);
  const outs = { hardwareOut: c.hw.out, pairOut: c.pair.out, profileOut: fill(R.profile_out, { e: halfUp(v.expected, 2) }),
    kOut: fill(R.k_out, { k: s.k }), mOut: fill(R.m_out, { m: s.m }), batchOut: fill(R.batch_out, { n: grouped(c.n, R.group) }) };
  Object.keys(outs).forEach(part => { if (ui[part]) ui[part].textContent = outs[part]; });
  ui.k.setAttribute('aria-valuetext', outs.kOut);
  ui.m.setAttribute('aria-valuetext', outs.mOut);
  ui.batch.setAttribute('aria-valuetext', outs.batchOut);
}

// The line naming the setting the charts are drawn for: hidden on screen, where the controls show it, and printed
// in their place. The key's entry for the check off the chart shows when it is.
function renderShown(fig, c) {
  const R = fig.R, s = fig.state, ui = fig.ui;
  ui.shown.textContent = fill(R.shown, { hardware: c.hw.name, pair: c.pair.name, profile: c.prof.name,
    positions: s.k === 1 ? R.positions_one : fill(R.positions_many, { k: s.k }),
    candidates: s.m === 1 ? R.candidates_one : fill(R.candidates_many, { m: s.m }),
    batch: c.n === 1 ? R.batch_one : fill(R.batch_many, { n: grouped(c.n, R.group) }) });
  ui.past.hidden = c.check <= 2 ** fig.trace.roofline.axes.tokens_log2_max;
}

// Writes the page from the state; a state drawn already leaves the page as it was.
function renderRoofline(fig) {
  const key = JSON.stringify(fig.state);
  if (key === fig.drawnKey) return;
  const c = chosen(fig), v = worked(c), said = rooflineWords(fig, c, v);
  renderControls(fig, c, v);
  fig.ui.words.textContent = said.words;
  fig.ui.stop.textContent = said.stop;
  renderShown(fig, c);
  fig.ui.crossKey.hidden = !(v.stop !== null && v.stop > 1 && v.stop <= 2 ** fig.trace.roofline.batch_log2_max);
  drawCharts(fig, c, v);
  fig.drawnKey = key;
  fig.shown = v;  // what a test or a benchmark reads back (window.__player.figures.roofline)
}

starts('roofline', '[data-roofline]', startRoofline);

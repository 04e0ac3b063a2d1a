// Convergence you can watch: the checkpoints of one Monte Carlo run, per position and per round length.

const { clamp, figure, fill, fracValue, grouped, node, partsOf, starts, whole } = shared;

const CONVERGENCE_PARTS = {
  rounds: '[data-convergence-rounds]', position: '[data-convergence-position]', readout: '[data-convergence-readout]',
  hist: '[data-convergence-hist]', lengths: '[data-convergence-lengths]', out: '[data-convergence-out]'
};

function startConvergence(root, trace) {
  const prof = trace.profiles[Number(root.dataset.convergence)];
  const fig = figure(root, trace, { cp: prof.convergence.checkpoints.length - 1, pos: 1 }, limitConvergence, renderConvergence);
  fig.prof = prof;
  fig.C = trace.text.convergence;
  fig.ui = partsOf(root, CONVERGENCE_PARTS);
  fig.chart = root.closest('figure');  // the TV chart beside the live part marks the checkpoint and position
  fig.now = fig.chart.querySelector('[data-convergence-now]');
  fig.xs = fig.now ? fig.now.dataset.xs.split(' ') : [];
  fig.ticks = fig.now ? fig.now.dataset.ticks.split(' ') : [];
  fig.ui.rounds.addEventListener('input', () => { fig.update({ cp: fig.ui.rounds.value }); });
  fig.ui.position.addEventListener('change', () => { fig.update({ pos: fig.ui.position.value }); });
  fig.update({});  // the histograms too (48 elements each): at start, so print and a full-page capture show them
  return fig;
}

function limitConvergence(fig) {
  const s = fig.state;
  s.cp = clamp(whole(s.cp, 0), 0, fig.prof.convergence.checkpoints.length - 1);
  s.pos = clamp(whole(s.pos, 1), 1, fig.trace.k + 1);
}

// One row, two bars drawn by its background: the target above, the observed frequency below.
function histRow(fig, label, target, observed) {
  const r = node('div', 'hist-row'), bars = node('span', 'hist-bars');
  bars.style.setProperty('--t', String(fracValue(target)));
  bars.style.setProperty('--o', String(observed));
  r.append(node('bdi', 'bar-tok', label), bars,
    node('span', 'bar-num', fill(fig.C.pair, { target, observed: observed.toFixed(3) })));
  return r;
}

function renderConvergence(fig) {
  const s = fig.state, C = fig.C, conv = fig.prof.convergence, c = s.cp, i = s.pos - 1;
  const where = fill(s.pos > fig.trace.k ? C.bonus : C.position, { pos: s.pos });
  const group = fig.trace.text.lab.group, shown = grouped(conv.checkpoints[c], group), count = conv.reached[c][i];
  const rounds = fill(C.rounds, { n: shown });
  fig.ui.rounds.value = String(c);
  fig.ui.rounds.setAttribute('aria-valuetext', rounds);
  fig.ui.position.value = String(s.pos);
  fig.ui.readout.textContent = fill(conv.vacuous[c][i] ? C.vacuous : C.readout, { rounds,
    reached: fill(count === 1 ? C.round_one : C.rounds, { n: grouped(count, group) }), where, tv: conv.tv_text[c][i],
    bound: conv.bound_text[c][i], rel: conv.within[c][i] ? C.within : C.above });
  fig.ui.out.textContent = shown;
  fig.chart.querySelectorAll('[data-line]').forEach(e => { e.classList.toggle('is-picked', e.dataset.line === String(s.pos)); });
  if (fig.now) {
    fig.now.setAttribute('transform', `translate(${fig.xs[c]} 0)`);
    fig.now.lastChild.textContent = fig.ticks[c];  // the line's round count, after the line itself
  }
  renderHistograms(fig);
  fig.root.hidden = false;
}

function renderHistograms(fig) {
  const conv = fig.prof.convergence, c = fig.state.cp, i = fig.state.pos - 1;
  const target = i < fig.trace.k ? fig.prof.positions[i].target : fig.prof.bonus_target, freq = conv.freq[c][i];
  const lengths = conv.lengths_freq[c];
  fig.ui.hist.replaceChildren(...fig.trace.vocabulary.map((tok, y) => histRow(fig, tok, target[y], freq[y])));
  fig.ui.lengths.replaceChildren(...fig.prof.stats.tokens_per_round_distribution.map((p, j) => histRow(fig, fill(fig.C.n, { n: j + 1 }), p, lengths[j])));
}

starts('convergence', '[data-convergence]', startConvergence, true);

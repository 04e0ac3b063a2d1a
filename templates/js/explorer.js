// The speedup explorer: how far to draft, for what a draft step costs.

var EXPLORE_PARTS = {
  k: '[data-explore-k]', cost: '[data-explore-cost]', readout: '[data-explore-readout]',
  bars: '[data-explore-bars]', kOut: '[data-explore-k-out]'
};

function startExplorer(root, trace) {
  var ui = partsOf(root, EXPLORE_PARTS);
  var fig = figure(root, trace, { k: trace.k, cost: Number(ui.cost.value) }, limitExplorer, renderExplorer);
  fig.ui = ui;
  fig.E = trace.text.explore;
  ui.k.addEventListener('input', function () { fig.update({ k: ui.k.value }); });
  ui.cost.addEventListener('change', function () { fig.update({ cost: ui.cost.value }); });
  fig.update({});
  return fig;
}

function limitExplorer(fig) {
  var s = fig.state;
  s.k = clamp(whole(s.k, 1), 1, fig.trace.k);
  s.cost = clamp(whole(s.cost, 0), 0, fig.trace.explore.costs.length - 1);
}

function explorerRow(fig, p) {
  var sp = p.speedup, c = fig.state.cost, wrap = node('div', 'ex-row');
  var cols = sp.values[c].map(function (v, j) {
    var k = j + 1;
    var col = node('span', 'ex-col' + (sp.slow[c][j] ? ' is-slow' : '') + (k === fig.state.k ? ' is-k' : '') + (k === sp.best[c] ? ' is-best' : ''));
    col.style.setProperty('--h', String(sp.heights[c][j]));
    col.append(node('span', 'ex-bar'), node('span', 'ex-val', fill(fig.E.times, { value: v })), node('span', 'ex-k', String(k)));
    return col;
  });
  var chart = node('div', 'ex-chart');
  chart.style.setProperty('--one', String(sp.one));
  chart.append.apply(chart, cols);
  wrap.append(node('p', 'fig-sub', p.name), chart);
  return wrap;
}

// The readout: what a round costs, then each profile's speedup at this k and its best k.
function explorerLines(fig) {
  var E = fig.E, c = fig.state.cost, k = fig.state.k, ex = fig.trace.explore;
  var lines = [fill(E.readout, { k_text: fill(k === 1 ? E.k_one : E.k_many, { k: k }), cost: ex.cost_text[c],
    round_cost: ex.round_costs[c][k - 1] })];
  fig.trace.profiles.forEach(function (p) {
    var sp = p.speedup, best = sp.best[c];
    lines.push(fill(best ? E.profile : E.profile_none, { name: p.name, value: sp.values[c][k - 1], k: k, best: best,
      best_value: best ? sp.values[c][best - 1] : '', slower: sp.slow[c][k - 1] ? E.slower : '' }));
  });
  return lines;
}

function renderExplorer(fig) {
  var ui = fig.ui, k = fig.state.k;
  ui.k.value = String(k);
  ui.k.setAttribute('aria-valuetext', fill(fig.E.k_value, { k: k }));
  ui.cost.value = String(fig.state.cost);
  ui.kOut.textContent = String(k);
  ui.readout.textContent = explorerLines(fig).join(' ');
  ui.bars.replaceChildren.apply(ui.bars, fig.trace.profiles.map(function (p) { return explorerRow(fig, p); }));
  fig.root.hidden = false;
}

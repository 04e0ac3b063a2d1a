// The accept-test lab: the reader drives u (and, on a rejection, the replacement draw);
// the thresholds and cut points the build precomputed decide.

var LAB_PARTS = {
  select: '[data-lab-position]', tokens: '[data-lab-tokens]', bars: '[data-lab-bars]', u: '[data-lab-u]',
  yes: '[data-lab-yes]', mark: '[data-lab-mark]', threshold: '[data-lab-threshold]', verdict: '[data-lab-verdict]',
  residual: '[data-lab-residual]', r: '[data-lab-r]', segments: '[data-lab-segments]', rep: '[data-lab-rep]'
};

// "divergent/4" -> that profile's position 4: {prof, pos, n}; `where` must name one (limitLab sees to it).
function labAt(trace, where) {
  var parts = where.split('/'), prof = trace.profiles.find(function (x) { return x.id === parts[0]; });
  return { prof: prof, pos: prof.positions[Number(parts[1]) - 1], n: Number(parts[1]) };
}

// A position of a known profile, its number clamped to the profile's positions; the lab's opening one otherwise.
function limitWhere(trace, where) {
  var parts = String(where).split('/'), prof = trace.profiles.find(function (x) { return x.id === parts[0]; });
  return prof ? prof.id + '/' + clamp(whole(parts[1], 1), 1, prof.positions.length) : trace.lab.where;
}

// The tokens the draft can propose at a position: those with an accept probability.
function proposable(trace, pos) { return ids(trace.vocabulary).filter(function (y) { return pos.accept[y] !== null; }); }

// The token whose segment of the cumulative cut points holds r: the first cut above r.
function segmentAt(cuts, r) {
  for (var y = 0; y < cuts.length; y++) if (r < cuts[y]) return y;
  return cuts.length - 1;
}

function startLab(root, trace) {
  var d = trace.lab;
  var fig = figure(root, trace, { where: d.where, token: d.token, u: Number(d.u), r: 0.5 }, limitLab, renderLab);
  fig.ui = partsOf(root, LAB_PARTS);
  fig.legend = fig.ui.tokens.querySelector('legend');
  fig.L = trace.text.lab;
  bindLab(fig);
  bindTally(fig);
  fig.update({});
  return fig;
}

// The position exists, the token is one the draft can propose there (else the first it can), draws stay in [0, 1),
// and the tally is the position's own.
function limitLab(fig) {
  var s = fig.state;
  s.where = limitWhere(fig.trace, s.where);
  var ok = proposable(fig.trace, labAt(fig.trace, s.where).pos);
  s.token = Number(s.token);
  if (ok.indexOf(s.token) < 0) s.token = ok[0];
  s.u = clamp(Number(s.u) || 0, 0, 0.999);
  s.r = clamp(Number(s.r) || 0, 0, 0.999);
  limitTally(s, fig.trace.vocabulary.length);
}

function renderLab(fig) {
  var here = labAt(fig.trace, fig.state.where);
  fig.ui.select.value = fig.state.where;
  renderLabTokens(fig, here.pos);
  fig.ui.bars.replaceChildren.apply(fig.ui.bars,
    overlapRows(here.pos, fig.trace.vocabulary, fig.state.token, fig.trace.text.player.bar_numbers));
  var passed = renderLabTest(fig, here.pos);
  fig.ui.residual.hidden = passed;
  if (!passed) renderLabResidual(fig, here.pos);
  renderTally(fig, here.pos);
  fig.root.hidden = false;
}

// The template's legend stays; the radios follow the position.
function renderLabTokens(fig, pos) {
  var vocab = fig.trace.vocabulary, radios = proposable(fig.trace, pos).map(function (y) {
    var label = node('label', 'fig-radio'), input = node('input');
    input.type = 'radio'; input.name = 'lab-token'; input.value = String(y); input.checked = y === fig.state.token;
    label.append(input, ' ', node('bdi', '', vocab[y]));
    return label;
  });
  fig.ui.tokens.replaceChildren.apply(fig.ui.tokens, [fig.legend].concat(radios));
}

function renderLabTest(fig, pos) {
  var ui = fig.ui, L = fig.L, x = fig.state.token, a = pos.accept_f[x], passed = fig.state.u < a;
  var u = fig.state.u.toFixed(3), f = { u: u, worked: pos.worked[x], accept: pos.accept[x], tok: fig.trace.labels[x] };
  ui.u.value = u;
  ui.u.setAttribute('aria-valuetext', fill(fig.trace.text.player.u, f));
  ui.yes.style.setProperty('--w', String(a));
  ui.yes.parentNode.classList.toggle('is-never', a === 0);
  ui.mark.style.setProperty('--u', u);
  ui.threshold.textContent = fill(L.threshold, f);
  ui.verdict.className = 'lab-verdict ' + (passed ? 'is-accepted' : 'is-rejected');
  ui.verdict.replaceChildren(node('strong', '', passed ? L.accepted : L.rejected), fill(passed ? L.pass : L.fail, f));
  return passed;
}

function renderLabResidual(fig, pos) {
  var ui = fig.ui, y = segmentAt(pos.cuts, fig.state.r), r = fig.state.r.toFixed(3);
  ui.r.value = r;
  ui.r.setAttribute('aria-valuetext', fill(fig.L.r_text, { r: r }));
  ui.segments.replaceChildren.apply(ui.segments, fig.trace.vocabulary.map(function (tok, j) {
    var width = pos.cuts[j] - (j ? pos.cuts[j - 1] : 0);
    var seg = node('span', 'r-seg' + (j === y ? ' is-drawn' : '') + (width ? '' : ' is-empty'));
    seg.style.setProperty('--w', String(width));
    seg.append(node('bdi', '', tok), ' ', pos.residual[j] === null ? '0' : pos.residual[j]);
    return seg;
  }));
  var lo = y ? pos.cuts[y - 1] : 0;
  ui.rep.textContent = fill(fig.L.replacement, { r: r, rep: fig.trace.labels[y], lo: lo.toFixed(3), hi: pos.cuts[y].toFixed(3) });
}

function bindLab(fig) {
  var ui = fig.ui;
  ui.select.addEventListener('change', function () { fig.update({ where: ui.select.value }); });
  ui.tokens.addEventListener('change', function (e) { fig.update({ token: Number(e.target.value) }); });
  ui.u.addEventListener('input', function () { fig.update({ u: ui.u.value }); });
  ui.r.addEventListener('input', function () { fig.update({ r: ui.r.value }); });
  // "Try it here" links in the Positions section open the lab at their position.
  document.addEventListener('click', function (e) {
    var a = e.target.closest && e.target.closest('[data-lab-open]');
    if (!a) return;
    var parts = a.dataset.labOpen.split('/');
    fig.update({ where: parts[0] + '/' + parts[1], token: Number(parts[2]) });
  });
}

// The identity as stacked bars, each token's p in its two parts, for the position and token picked in the lab, and α
// against that token's own accept probability. The lab announces each pick as a 'lab-pick' event on the document
// (this figure's data-identity-follows): its position, token and facts, and at the reader's own position the eighths
// typed. Every fraction shown is the build's (each profile's `identity` rows, its positions' α and accept
// probabilities) or, at the reader's own position, eighths.js's as the lab announced them; floats only draw.

const { clamp, figure, fill, fracValue, node, partsOf, starts, whole } = shared;

const IDENTITY_PARTS = {
  head: '[data-identity-head]', rows: '[data-identity-rows]', alpha: '[data-identity-alpha]', alphaBar: '[data-identity-alpha-bar]',
  accept: '[data-identity-accept]', pass: '[data-identity-pass]', note: '[data-identity-rates-text]'
};

// The lab's last pick, heard from the moment the script runs (the lab starts, and announces its opening pick, before
// this figure does), and this figure once it has started.
const identityHeard = { pick: null, fig: null };

document.addEventListener('lab-pick', e => {
  identityHeard.pick = e.detail;
  if (identityHeard.fig) identityHeard.fig.update(identityPick(e.detail));
});

// A pick as this figure's state: where and which token, and what the lab knows of the reader's own position.
function identityPick(d) {
  return { where: d.where, token: d.token, own: d.pos && d.p && d.q ? { pos: d.pos, p: d.p, q: d.q } : null };
}

function startIdentity(root, trace) {
  const fig = figure(root, trace, identityPick(identityHeard.pick || trace.identity), limitIdentity, renderIdentity);
  fig.ui = partsOf(root, IDENTITY_PARTS);
  fig.W = trace.text.identity;
  identityHeard.fig = fig;
  fig.update({});
  return fig;
}

// A shipped position, or the reader's own as the lab announced it, else the opening one; the token one of the
// vocabulary. fig.at holds what the picture shows there.
function limitIdentity(fig) {
  const s = fig.state, t = fig.trace;
  fig.at = identityAt(t, s, fig.W);
  if (!fig.at) {
    Object.assign(s, { where: t.identity.where, token: t.identity.token, own: null });
    fig.at = identityAt(t, s, fig.W);
  }
  s.token = clamp(whole(s.token, 0), 0, t.vocabulary.length - 1);
}

// At "profile id/position": the build's rows (each token's min, residual part and p) and the position's facts; at the reader's
// own, the facts the lab announced, min(p, q) from the eighths typed; null anywhere else.
function identityAt(trace, s, W) {
  const parts = String(s.where).split('/'), prof = trace.profiles.find(x => x.id === parts[0]), k = Number(parts[1]) - 1;
  if (prof && prof.positions[k]) return { pos: prof.positions[k], rows: prof.identity[k], where: fill(W.at, { name: prof.name, pos: k + 1 }) };
  if (!s.own) return null;
  const pos = s.own.pos, rows = pos.target.map((p, y) => [eighthsWritten(Math.min(s.own.p[y], s.own.q[y])), pos.residual_raw[y], p]);
  return { pos, rows, where: W.own };
}

// Whole eighths as the build writes a probability over the denominator 8 (prob_str in speculative/text.py): "0", "1", "3/8".
function eighthsWritten(n) { return n === 0 ? '0' : n === 8 ? '1' : `${n}/8`; }

function renderIdentity(fig) {
  const s = fig.state, at = fig.at, y = s.token, accept = at.pos.accept[y];
  const drawn = JSON.stringify([at.where, y, at.rows, at.pos.alpha, accept]);
  if (drawn === fig.drawn) return;  // what the picture shows has not changed
  fig.drawn = drawn;
  const W = fig.W, r = at.rows[y], tok = fig.trace.labels[y], top = 1;  // every bar on one 0–1 scale, as the α bar's
  fig.ui.head.textContent = fill(W.head, { tok, where: at.where, min: r[0], fix: r[1], p: r[2] });
  fig.ui.rows.replaceChildren(...at.rows.map((row, z) => identityRow(fig, row, z, top)), axisRow());
  fig.ui.alpha.replaceChildren(...filledNodes(W.alpha, { alpha: at.pos.alpha }));
  fig.ui.accept.replaceChildren(...filledNodes(W.accept, { tok, accept: accept === null ? W.none : accept }));
  fig.ui.alphaBar.replaceChildren(...at.rows.map((row, z) => widthOf(node('span', `identity-share${z === y ? ' is-mark' : ''}`), row[0], 1)));
  widthOf(fig.ui.pass, accept === null ? '0' : accept, 1);
  fig.ui.note.textContent = fill(W.rates, { tok });
  fig.root.hidden = false;
}

// One token's row: its name; p's outline with the min part solid and the residual part hatched inside it, each as wide as
// its value on the 0–1 scale (`top` = 1) the α bar below uses; and the sum in the build's fractions. The picked row is
// marked.
function identityRow(fig, row, y, top) {
  const li = node('div', `bar-row identity-row${y === fig.state.token ? ' is-mark' : ''}`), track = node('span', 'identity-track');
  track.append(widthOf(node('span', 'identity-min'), row[0], top), widthOf(node('span', 'identity-fix'), row[1], top),
    widthOf(node('span', 'identity-p'), row[2], top));
  li.dataset.identityRow = String(y);
  li.append(node('bdi', 'bar-tok', fig.trace.vocabulary[y]), track,
    node('span', 'identity-sum'));
  li.lastChild.append(...filledNodes(fig.W.sum, { min: row[0], fix: row[1], p: row[2] }));
  return li;
}

// The rows' 0–1 scale under their bars, in the rows' own grid so it lines up with them.
function axisRow() {
  const row = node('div', 'bar-row identity-row identity-axis'), scale = node('span', 'identity-scale');
  scale.append(node('span', '', '0'), node('span', '', '1'));
  row.ariaHidden = 'true';
  row.append(node('span'), scale, node('span'));
  return row;
}

// An element drawn as wide as the fraction `value` of `top` (--w), and marked empty at 0.
function widthOf(el, value, top) {
  const w = fracValue(value) / top;
  el.style.setProperty('--w', String(w));
  el.classList.toggle('is-empty', !(w > 0));
  return el;
}

// A pattern filled as nodes, each field a span that names it (data-identity-num), so each number can be read alone.
function filledNodes(pattern, fields) {
  return pattern.split(/(\{\w+\})/).filter(Boolean).map(piece => {
    const m = /^\{(\w+)\}$/.exec(piece);
    if (!m) return piece;
    const span = node('span', '', String(fields[m[1]]));
    span.dataset.identityNum = m[1];
    return span;
  });
}

starts('identity', '[data-identity]', startIdentity);

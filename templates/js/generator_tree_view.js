// Watch it generate with several candidates per position: the last tree round drawn as a small tree (each depth's
// candidates in the order drafted: the kept one, the rejected ones before it, the ones never tried; then the token
// from what was left of the target, or the bonus), its words for a screen reader, and a tree token's check sentence.

const { fill, node, probText } = shared;

// The state of candidate j at a depth: kept, rejected, or never tried (drafted, but an earlier one was kept).
function nodeState(depth, j) {
  if (j >= depth.checks.length) return 'is-untried';
  return depth.kept && j === depth.checks.length - 1 ? 'is-kept' : 'is-rejected';
}

// One depth's row: its label, its candidates, and after a depth with none kept the token drawn from what was left.
function treeRow(fig, round, depth, d) {
  const T = fig.T, row = node('li', 'generator-tree-depth');
  row.append(node('span', 'generator-tree-label', fill(T.depth, { d: d + 1 })));
  depth.candidates.forEach((x, j) => {
    row.append(node('span', `generator-tree-node ${nodeState(depth, j)}`, fig.vocab[x]));
  });
  if (!depth.kept) row.append(node('span', 'generator-tree-node is-replaced', fill(T.drawn_cell, { tok: fig.vocab[round.committed[d]] })));
  return row;
}

// The words of one depth: each candidate with its state, then what the depth committed.
function depthWords(fig, round, depth, d) {
  const T = fig.T, V = fig.vocab;
  const list = depth.candidates.map((x, j) => fill(T.alt_cand, { tok: V[x], state: T.states[nodeState(depth, j).slice(3)] })).join(T.sep);
  const tok = V[round.committed[d]];
  return fill(depth.kept ? T.alt_kept : T.alt_failed, { d: d + 1, list, tok, j: depth.checks.length, n: depth.candidates.length });
}

// The last round's tree and its key, or neither when the last round is a chain's (its row of checks shows it instead).
function renderTree(fig, round) {
  const ui = fig.ui, T = fig.T;
  ui.treeKey.hidden = !round || !round.tree;  // the drawing's key: a swatch for each mark its nodes wear
  if (!round || !round.tree) { ui.tree.replaceChildren(); ui.treeAlt.textContent = ''; return; }
  const rows = round.depths.map((depth, d) => treeRow(fig, round, depth, d)), words = round.depths.map((depth, d) => depthWords(fig, round, depth, d));
  const last = round.committed[round.committed.length - 1];
  if (round.kinds[round.kinds.length - 1] === fig.trace.generator.kinds.indexOf('bonus')) {
    const row = node('li', 'generator-tree-depth');
    row.append(node('span', 'generator-tree-label', T.bonus_label), node('span', 'generator-tree-node is-bonus', fig.vocab[last]));
    rows.push(row);
    words.push(fill(T.alt_bonus, { tok: fig.vocab[last] }));
  }
  ui.tree.replaceChildren(...rows);
  ui.treeAlt.textContent = words.join(' ');
}

// The chosen token's sentence when its round is a tree's and it came from a depth (a bonus has the chain's sentence).
function treeSentence(fig, round, t) {
  const T = fig.T, V = fig.vocab, depth = round.depths[t.j], c = depth.checks[depth.checks.length - 1];
  const list = depth.candidates.map(x => fill(T.cand, { tok: V[x] })).join(T.sep), n = depth.candidates.length;
  if (!depth.kept) return fill(T.check_failed, { n, list, y: V[t.y], draw: probText(round.r) });
  return fill(T.check_kept, { n, list, x: V[c.x], j: depth.checks.length, r: probText(c.r), q: probText(c.q), a: probText(c.a),
                              u: probText(c.u) });
}

Object.assign(shared, { renderTree, treeSentence });

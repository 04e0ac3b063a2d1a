// The speedup explorer's trees, exactly: a tree of width m's speedups at every depth k from the trace's A (exact
// fractions as strings), worked in BigInt fractions as figures/explorer.py's tree_speedups, column_texts and
// best_tree work them in Python, so the script shows what the build would. Pure: each reads only its arguments.

// A fraction as [numerator, denominator], BigInts in lowest terms with a positive denominator.
function ratio(text) {
  const [n, d = '1'] = String(text).split('/');
  return lowest(BigInt(n), BigInt(d));
}

function lowest(n, d) {
  let a = n < 0n ? -n : n, b = d;
  while (b) [a, b] = [b, a % b];
  return a > 1n ? [n / a, d / a] : [n, d];
}

const plus = (x, y) => lowest(x[0] * y[1] + y[0] * x[1], x[1] * y[1]);
const times = (x, y) => lowest(x[0] * y[0], x[1] * y[1]);
const over = (x, y) => lowest(x[0] * y[1], x[1] * y[0]);
const above = (x, y) => x[0] * y[1] > y[0] * x[1];  // x > y

// As Python's str(Fraction): "3/2", "1".
const ratioText = x => (x[1] === 1n ? String(x[0]) : `${x[0]}/${x[1]}`);

// x (at least 0) rounded half up to `places` decimals, as text.decimal_str does.
function decimalText(x, places) {
  const digits = String((2n * x[0] * 10n ** BigInt(places) + x[1]) / (2n * x[1])).padStart(places + 1, '0');
  return places ? `${digits.slice(0, -places)}.${digits.slice(-places)}` : digits;
}

// A full tree of width m and depth k: its nodes m + m² + … + m^k, each scored by the one target pass.
function treeNodes(m, k) {
  let nodes = 0, level = 1;
  for (let d = 1; d <= k; d++) nodes += (level *= m);
  return nodes;
}

// What a round of depth k and width m costs: k·c + verify_round + v·nodes, exactly.
function treeRoundCost(cost, k, m) {
  return plus(plus(times(ratio(k), ratio(cost.c)), ratio(cost.one)), times(ratio(treeNodes(m, k)), ratio(cost.v)));
}

// The speedups [k] of a tree of width m whose positions keep a candidate with chances A [k] (strings).
function treeSpeedups(A, m, cost) {
  let expected = ratio(1), reach = ratio(1);
  return A.map((a, j) => {
    reach = times(reach, ratio(a));
    expected = plus(expected, reach);
    return over(expected, treeRoundCost(cost, j + 1, m));
  });
}

// The first highest of speedups [k], 0-based.
const firstBest = col => col.reduce((b, x, j) => (above(x, col[b]) ? j : b), 0);

// One column's texts [k]: 2 decimals, or 3 or 4 where the best would read as another k does (column_texts).
function columnTexts(col) {
  const best = firstBest(col);
  for (const places of [2, 3]) {
    const texts = col.map(x => decimalText(x, places));
    if (texts.filter(t => t === texts[best]).length === 1) return texts;
  }
  return col.map(x => decimalText(x, 4));
}

// A tree of width m as the bars show it: values [k], slow [k] (below 1×) and the best k (0: none beats 1×).
function treeColumn(A, m, cost) {
  const col = treeSpeedups(A, m, cost), best = firstBest(col);
  return { col, values: columnTexts(col), slow: col.map(x => above(ratio(1), x)),
    best: above(col[best], ratio(1)) ? best + 1 : 0 };
}

// The best (k, m) over every width, A [m - 1][k]: the highest speedup, the narrowest then the shallowest on a tie
// (best_tree); its text as the bars of its width show it, and whether it beats 1×.
function bestTree(byM, cost) {
  const cols = byM.map((A, j) => treeColumn(A, j + 1, cost));
  let m = 0, k = firstBest(cols[0].col);
  cols.forEach((c, j) => {
    const b = firstBest(c.col);
    if (above(c.col[b], cols[m].col[k])) [m, k] = [j, b];
  });
  return { k: k + 1, m: m + 1, text: cols[m].values[k], pays: above(cols[m].col[k], ratio(1)), cols };
}

// The width (1-based) with the highest speedup at depth k, given bestTree's columns: the narrowest on a tie.
const bestWidthAt = (cols, k) => firstBest(cols.map(c => c.col[k - 1])) + 1;

Object.assign(shared, { bestTree, bestWidthAt, ratioText, treeColumn, treeNodes, treeRoundCost });

// The roofline figure's two charts and its numbers: the twin of speculative/roofline_charts.py, whose docstring gives
// the scales and the formats. Each chart keeps the build's frame (gridlines, axes and ticks, fixed whatever the
// choices) and has its marks drawn again after it, element for element as the build draws them. The SVG namespace
// and tag names are read from the build's own elements (the script's literals name no tags).

const { fill, grouped, passTime } = shared;

// x as Python's f"{x:.{places}f}" writes it: correctly rounded, half to even on an exact tie of the binary value
// (toFixed takes a tie away from zero).
function pyFixed(x, places) {
  const exact = x.toFixed(100), point = exact.indexOf('.'), end = point + 1 + places;
  if (!/^50*$/.test(exact.slice(end))) return x.toFixed(places);
  const kept = places ? exact.slice(0, end) : exact.slice(0, point);
  return Number(kept.slice(-1)) % 2 === 0 ? kept : x.toFixed(places);
}

// A coordinate to 1 decimal without a trailing ".0", as charts._n writes it.
function coord(v) {
  const s = pyFixed(v, 1).replace(/\.0$/, '');
  return s === '-0' ? '0' : s;
}

// x (at least 0) rounded half up to `places` decimals, as text.decimal_str does from the exact value: a float within
// a billionth of a tie is taken for the tie.
function halfUp(x, places) {
  const digits = String(Math.floor(x * 10 ** places + 0.5 + 1e-9)).padStart(places + 1, '0');
  return places ? `${digits.slice(0, -places)}.${digits.slice(-places)}` : digits;
}

// A time in the largest unit in which it is at least 1 (the last unit when none is), thousands grouped.
function timeText(seconds, R) {
  const unit = R.units.find(u => seconds >= 10 ** u.exp) || R.units[R.units.length - 1];
  const value = seconds * 10 ** -unit.exp, places = value < 10 ? 2 : value < 100 ? 1 : 0;
  const [whole, part] = pyFixed(value, places).split('.');
  return fill(R.time, { value: grouped(whole, R.group) + (part ? `.${part}` : ''), unit: unit.unit });
}

// The knee's tokens per pass: a whole number, grouped, or 2 decimals below 1 (R.knee_tiny where they would be 0.00).
const kneeText = (knee, R) => (knee < 0.005 ? R.knee_tiny : knee < 1 ? halfUp(knee, 2) : grouped(halfUp(knee, 0), R.group));

// A speedup to 2 decimals, half up, or below 0.01 "< 0.01" (2 decimals would write 0.00), as roofline_charts.speedup_str.
const speedupText = (v, R) => (v < 0.01 ? fill(R.below, { value: halfUp(0.01, 2) }) : halfUp(v, 2));

const tokensText = (n, R) => fill(n === 1 ? R.tokens_one : R.tokens_many, { n: grouped(n, R.group) });

// What a chart needs to draw its marks: the svg, its frame's last element (the marks follow it), its description,
// and a maker of each element the marks use, of the tag of the build's own (`circle`: the build's point).
function chartKit(svg, circle) {
  const frameEnd = svg.getElementsByClassName('ch-m')[0];
  const desc = document.getElementById(svg.getAttribute('aria-labelledby').split(' ')[1]);
  const maker = like => (attrs, text) => shape(svg.namespaceURI, like.localName, attrs, text);
  return { svg, frameEnd, desc, path: maker(svg.getElementsByClassName('ch-axis')[0]), circle: maker(circle),
    text: maker(frameEnd.firstElementChild) };
}

// One SVG element: its tag, its attributes, its text.
function shape(ns, tag, attrs, text) {
  const e = document.createElementNS(ns, tag);
  Object.keys(attrs).forEach(name => { e.setAttribute(name, String(attrs[name])); });
  if (text !== undefined) e.textContent = text;
  return e;
}

// Path data: "x y", as the build writes a point after M or between L.
const xy = (x, y) => [x, y].join(' ');

// The chart's marks in place of the ones drawn before.
function redraw(kit, marks, desc) {
  while (kit.frameEnd.nextSibling) kit.frameEnd.nextSibling.remove();
  kit.svg.append(...marks);
  kit.desc.textContent = desc;
}

// The plot box and the x of a value on a log2 axis from 1 to 2^top, clamped to the plot.
function xLog2(plot, value, top) {
  return plot.left + Math.min(Math.max(Math.log2(value), 0), top) / top * (plot.right - plot.left);
}

// A vertical mark's label near the plot's top: right of the line, or left of it, anchored at its end, when far right.
function markLabel(kit, plot, x, text, far) {
  return kit.text({ x: coord(far ? x - 4 : x + 4), y: coord(plot.top + 14), class: far ? 'ch-sm ch-e' : 'ch-sm' }, text);
}

// A point off the chart: a triangle with its tip at `tip` ([x, y]), the end of a line whose last segment starts at
// `back`, pointing on along that segment (its base 11 back and 12 wide).
function arrow(kit, cls, tip, back) {
  const dx = tip[0] - back[0], dy = tip[1] - back[1], length = Math.sqrt(dx * dx + dy * dy);
  const ux = dx / length, uy = dy / length, bx = tip[0] - 11 * ux, by = tip[1] - 11 * uy;
  const corners = [tip, [bx - 6 * uy, by + 6 * ux], [bx + 6 * uy, by - 6 * ux]];
  return kit.path({ class: cls, d: 'M' + corners.map(([x, y]) => xy(coord(x), coord(y))).join('L') + 'z' });
}

// A point: a circle of radius 5 or a square 10 wide.
function point(kit, cls, x, y, square) {
  if (square) return kit.path({ class: cls, d: 'M' + xy(coord(x - 5), coord(y - 5)) + 'h10v10h-10z' });
  return kit.circle({ class: cls, cx: coord(x), cy: coord(y), r: 5 });
}

const polyline = (place, points) => 'M' + points.map(p => xy(...place(p).map(coord))).join('L');

// The pass chart at setting s ({pair, hw, bytes, n, check, knee}): each model's line through T = 1, the knee and
// 2^top, the knee's line, the plain step at n tokens and the check at n·scored tokens, at the target's pass time
// (one past 2^top: a triangle where the target's line leaves the chart).
function passMarks(kit, ax, s, R) {
  const p = ax.plot, top = ax.tokens_log2_max, end = 2 ** top, lo = ax.pass.y_min_log10, hi = ax.pass.y_max_log10;
  const y = t => p.bottom - Math.min(Math.max((Math.log10(t) - lo) / (hi - lo), 0), 1) * (p.bottom - p.top);
  const x = t => xLog2(p, t, top), at = [1, ...(s.knee > 1 && s.knee < end ? [s.knee] : []), end];
  const marks = [['roofline-target', s.pair.target], ['roofline-draft', s.pair.draft]].map(([role, params]) =>
    kit.path({ class: `roofline-line ${role}`, d: polyline(t => [x(t), y(passTime(params, t, s.hw, s.bytes))], at) }));
  if (s.knee >= 1 && s.knee <= end) {
    marks.push(kit.path({ class: 'roofline-knee', d: 'M' + xy(coord(x(s.knee)), p.top) + 'V' + p.bottom }),
      markLabel(kit, p, x(s.knee), R.knee_label, s.knee > 2 ** (top - 3)));
  }
  const target = t => y(passTime(s.pair.target, t, s.hw, s.bytes)), back = at[at.length - 2];
  [['roofline-step', s.n, false], ['roofline-check', s.check, true]].forEach(([cls, t, square]) => {
    marks.push(t > end ? arrow(kit, cls, [x(end), target(end)], [x(back), target(back)])
      : point(kit, cls, x(t), target(t), square));
  });
  return marks;
}

// The batches the speedup curve passes through: the distinct round(2^(i/per)), i = 0 … per·top, in order.
function curveBatches(per, top) {
  const seen = new Set();
  for (let i = 0; i <= per * top; i++) seen.add(Math.round(2 ** (i / per)));
  return [...seen].sort((a, b) => a - b);
}

// The speedup chart (rf: the trace's roofline part): the 1× line, the curve through `curve` ([batch, speedup]), the crossing at `stop` when it falls
// within the axis, and the chosen batch `at` ([batch, speedup]) as a ring.
function speedupMarks(kit, rf, curve, at, stop, R) {
  const p = rf.axes.plot, top = rf.batch_log2_max, yMax = rf.axes.speedup.y_max;
  const y = v => p.bottom - Math.min(v, yMax) / yMax * (p.bottom - p.top), x = b => xLog2(p, b, top);
  const marks = [kit.path({ class: 'roofline-one', d: 'M' + xy(p.left, coord(y(1))) + 'H' + p.right }),
    kit.path({ class: 'roofline-curve', d: polyline(([b, v]) => [x(b), y(v)], curve) })];
  if (stop !== null && stop > 1 && stop <= 2 ** top) {
    marks.push(kit.path({ class: 'roofline-cross', d: 'M' + xy(coord(x(stop)), p.top) + 'V' + p.bottom }),
      markLabel(kit, p, x(stop), fill(R.cross_label, { n: grouped(stop, R.group) }), stop > 2 ** (top / 2)));
  }
  marks.push(kit.circle({ class: 'roofline-at', cx: coord(x(at[0])), cy: coord(y(at[1])), r: 6 }));  // a ring
  return marks;
}

Object.assign(shared, { chartKit, curveBatches, halfUp, kneeText, passMarks, redraw, speedupMarks, speedupText, timeText,
  tokensText });

"""Charts as inline SVG strings, made at build time so the page reads with scripting off.

Every function is pure and deterministic. Colour and stroke come from CSS classes
(templates/charts.css), never from style attributes, because the page's CSP forbids them.
Every label that comes from data goes through html.escape.
"""

from __future__ import annotations

import html
import math
import re
from fractions import Fraction
from typing import Callable, Sequence

from .text import decimal_str, percent_str, prob_str

_ID = re.compile(r"[A-Za-z][A-Za-z0-9_-]*\Z")
_EM = 0.56  # rough advance of one character in em, for laying out legends only
_PH = 112  # plot height of the bar charts: 1/8 of it is a whole number, so eighths land on exact coordinates


# --- formatting ---------------------------------------------------------------

def _e(s: object) -> str:
    return html.escape(str(s), quote=True)


def _n(v: float) -> str:
    """Returns v rounded to 1 decimal, without a trailing ".0"."""
    s = f"{float(v):.1f}"
    s = s[:-2] if s.endswith(".0") else s
    return "0" if s == "-0" else s


def _width(s: str, size: float) -> float:
    return len(s) * size * _EM


# --- markup -------------------------------------------------------------------

def _prefix(id_prefix: str) -> str:
    if not _ID.match(id_prefix):
        raise ValueError(f"id_prefix {id_prefix!r} must start with a letter and hold only letters, digits, _ and -")
    return id_prefix


def _svg(p: str, w: float, h: float, title: str, desc: str, body: Sequence[str]) -> str:
    return (f'<svg class="chart" viewBox="0 0 {_n(w)} {_n(h)}" role="img" '
            f'aria-labelledby="{p}-t {p}-d"><title id="{p}-t">{_e(title)}</title>'
            f'<desc id="{p}-d">{_e(desc)}</desc>{"".join(body)}</svg>')


def _text(x: float | None, y: float | None, s: str, cls: str = "") -> str:
    """Returns a text element; x or y is None when an enclosing group's translate supplies it."""
    xx = "" if x is None else f' x="{_n(x)}"'
    yy = "" if y is None else f' y="{_n(y)}"'
    return f'<text{xx}{yy}{_cls(cls)}>{_e(s)}</text>'


def _cls(cls: str) -> str:
    return f' class="{cls}"' if cls else ""


def _row(y: float, cls: str, texts: Sequence[str]) -> str:
    """Returns texts (made with y=None) on one baseline, sharing the group's y instead of repeating it."""
    return f'<g{_cls(cls)} transform="translate(0 {_n(y)})">{"".join(texts)}</g>'


def _col(x: float, cls: str, texts: Sequence[str]) -> str:
    """Returns texts (made with x=None) aligned on one x, sharing the group's x instead of repeating it."""
    return f'<g{_cls(cls)} transform="translate({_n(x)} 0)">{"".join(texts)}</g>'


def _short(s: str, room: float, size: float = 10) -> str:
    """Returns s, cut with an ellipsis when it is wider than `room`; the desc keeps the whole label."""
    most = max(2, int(room / (size * _EM)))
    return s if len(s) <= most else s[:most - 1] + "…"


def _bar(x: float, top: float, w: float, bottom: float, closed: bool = True) -> str:
    """Returns path data for an upright box from y=bottom up to y=top, open at the bottom unless closed.

    Both ends are rounded on their own, so stacked parts that share an end meet exactly.
    """
    b = _n(bottom)
    return f"M{_n(x)} {b}V{_n(top)}h{_n(w)}V{b}" + ("z" if closed else "")


def _path(cls: str, d: Sequence[str], extra: str = "") -> str:
    """Returns one path drawing every shape in d (many bars cost one element), or "" when there is none."""
    return f'<path class="{cls}"{extra} d="{"".join(d)}"/>' if d else ""


def _diamond(x: float, y: float, r: float = 4) -> str:
    return f"M{_n(x)} {_n(y - r)}l{_n(r)} {_n(r)}-{_n(r)} {_n(r)}-{_n(r)}-{_n(r)}z"


def _marker(j: int, x: float, y: float) -> str:
    """Returns path data for series j's marker: circle, square, triangle, diamond."""
    shape = j % 4
    if shape == 0:
        return f"M{_n(x - 3)} {_n(y)}a3 3 0 1 0 6 0a3 3 0 1 0-6 0"
    if shape == 1:
        return f"M{_n(x - 3)} {_n(y - 3)}h6v6h-6z"
    if shape == 2:
        return f"M{_n(x)} {_n(y - 3.5)}l3.5 6.5h-7z"
    return _diamond(x, y)


def _hatch(p: str) -> str:
    return (f'<defs><pattern id="{p}-h" width="5" height="5" patternUnits="userSpaceOnUse" '
            f'patternTransform="rotate(45)"><path class="ch-hatch" d="M2.5 0V5"/></pattern></defs>')


def _swatch(cls: str, fill: str = "") -> Callable[[float, float], str]:
    return lambda x, y: f'<path class="{cls}"{fill} d="M{_n(x)} {_n(y)}h9v9h-9z"/>'


def _diamond_swatch(x: float, y: float) -> str:
    return f'<path class="ch-observed" d="{_diamond(x + 4.5, y + 4.5)}"/>'


def _legend(x: float, y: float, items: Sequence[tuple[Callable[[float, float], str], str]]) -> str:
    """Returns a row of (swatch drawn at its top-left corner, label) entries from x, on text baseline y."""
    out, texts = [], []
    for swatch, label in items:
        out.append(swatch(x, y - 8))
        texts.append(_text(x + 12, None, label))
        x += round(12 + _width(label, 9) + 10)
    return "".join(out) + _row(y, "ch-sm", texts)


def _check_len(name: str, values: Sequence[object], n: int) -> None:
    if len(values) != n:
        raise ValueError(f"{name} has {len(values)} entries; expected {n}, one per token")


# --- bar-chart frame shared by the two per-token charts --------------------------

_L, _R, _SLOT = 34, 6, 46


def _token_frame(vocab: Sequence[str], top: float, denom: int, rows: Sequence[tuple[str, Sequence[str]]],
                 bold: int | None) -> tuple[float, float, list[float], float, list[str]]:
    """Returns (width, slot width, slot centres, baseline, markup) of a 0..1 bar frame with labels and value rows."""
    n = len(vocab)
    if not n:
        raise ValueError("the vocabulary is empty; a chart needs at least one token")
    slot = max(_SLOT, 276 / n)  # at least a 316-wide chart, so a short vocabulary is not blown up
    w = _L + _R + n * slot
    cx = [_L + slot * (i + 0.5) for i in range(n)]
    base = top + _PH
    ticks = [Fraction(i, 4) for i in range(5)]
    out = [
        f'<path class="ch-grid" d="{"".join(f"M{_L} {_n(base - t * _PH)}H{_n(w - _R)}" for t in ticks[1:])}"/>',
        _col(_L - 3, "ch-e ch-sm", [_text(None, base - t * _PH + 3, prob_str(t, denom)) for t in ticks[::2]]),
        f'<path class="ch-axis" d="M{_L} {_n(base)}H{_n(w - _R)}"/>',
        _row(base + 12, "ch-m", [_text(c, None, _short(v, slot - 4), "ch-b" if i == bold else "")
                                 for i, (c, v) in enumerate(zip(cx, vocab))]),
    ]
    for r, (name, values) in enumerate(rows):
        texts = [_text(_L - 3, None, name, "ch-e")] + [_text(c, None, v) for c, v in zip(cx, values)]
        out.append(_row(base + 24 + 11 * r, "ch-m ch-sm", texts))
    return w, slot, cx, base, out


# --- public charts ------------------------------------------------------------

def overlap_chart(vocab: list[str], target: list[Fraction], draft: list[Fraction], proposal: int | None,
                  position: int, id_prefix: str, *, alpha: Fraction, denom: int = 8, legend: bool = True) -> str:
    """Returns an SVG of one position: p split into min(p, q) and max(0, p - q), with q as a dashed bracket.

    `position` is the 1-based number shown to the reader; `proposal` is the index of the drafted token, or None.
    legend=False leaves the legend's row blank (same geometry, so charts in a grid still line up).
    """
    p = _prefix(id_prefix)
    n = len(vocab)
    _check_len("target", target, n)
    _check_len("draft", draft, n)
    top = 38
    if proposal is not None and not 0 <= proposal < n:
        raise ValueError(f"proposal {proposal} is not an index into the {n} tokens")
    w, slot, cx, base, frame = _token_frame(vocab, top, denom, [], proposal)  # the Positions table prints p and q
    bw, dw = 20, 26  # the draft box is wider than the bar so its sides show beside it
    y = lambda v: base - float(v) * _PH  # noqa: E731
    col, over, resid, excess, box = [], [], [], [], []
    for i, (c, a, b) in enumerate(zip(cx, target, draft)):
        lo = min(a, b)
        if i == proposal:
            col.append(_bar(c - slot / 2 + 3, top - 4, slot - 6, base))
        if lo:
            over.append(_bar(c - bw / 2, y(lo), bw, base))
        if a > b:
            resid.append(_bar(c - bw / 2, y(a), bw, y(lo)))
        if b > a:
            excess.append(_bar(c - dw / 2, y(b), dw, y(a)))
        if b:
            box.append(_bar(c - dw / 2, y(b), dw, base, closed=False))  # a bracket standing on the axis
    body = [
        _hatch(p),
        _text(4, 13, f"Position {position} · α = Σ min(p, q) = {prob_str(alpha, denom)}", "ch-cap"),
        _legend(4, 28, [
            (_swatch("ch-overlap"), "min(p, q)"),
            (_swatch("ch-residual", f' fill="url(#{p}-h)"'), "max(0, p − q)"),
            (_swatch("ch-draft"), "draft q"),
            (_swatch("ch-excess"), "q − p"),
        ]) if legend else "",
        _path("ch-col", col),
        *frame,
        _path("ch-overlap", over),
        _path("ch-residual", resid, f' fill="url(#{p}-h)"'),
        _path("ch-excess", excess),
        _path("ch-draft", box),
    ]
    h = base + 20
    if proposal is not None:
        c, yb = cx[proposal], base + 28
        body.append(f'<path class="ch-mark" d="M{_n(c - 24)} {_n(yb)}l4-7 4 7z"/>')
        body.append(_text(c - 14, yb, "proposed", "ch-sm"))
        h = yb + 5
    desc = (f"Each token's target p split into min(p, q) and max(0, p − q), beside draft q (the table above "
            f"prints them). α = {prob_str(alpha, denom)}, the chance a drafted token is accepted.")
    if proposal is not None:
        a, b = target[proposal], draft[proposal]
        if a == 0:
            verdict = "p = 0, so it is always rejected"
        elif a >= b:
            verdict = "p ≥ q, so it is accepted outright"
        else:
            verdict = f"it is accepted with probability p/q = {prob_str(a / b, denom)}"
        desc += f" The draft proposed “{vocab[proposal]}”: {verdict}."
    title = f"Position {position}: target p against draft q, α = {prob_str(alpha, denom)}"
    return _svg(p, w, h, title, desc, body)


def convergence_chart(vocab: list[str], target: list[Fraction], counts: list[int], tv: float, bound: float,
                      position_label: str, id_prefix: str, *, denom: int = 8, legend: bool = True) -> str:
    """Returns an SVG of one position's Monte Carlo check: target p as bars, observed frequency as diamonds.

    legend=False leaves the legend's row blank (same geometry, so charts in a grid still line up).
    """
    p = _prefix(id_prefix)
    n = len(vocab)
    _check_len("target", target, n)
    _check_len("counts", counts, n)
    total = sum(counts)
    top = 50
    freq = [c / total for c in counts] if total else []
    rows = [("seen", [decimal_str(f, 3) for f in freq])] if total else []  # the bars are p; the Positions table prints it
    w, _, cx, base, frame = _token_frame(vocab, top, denom, rows, None)
    bw = 20
    rel = "≤" if tv <= bound else ">"
    if total:
        line1 = f"{position_label}: {total:,} rounds"
        line2 = f"TV {decimal_str(tv, 4)} {rel} bound {decimal_str(bound, 4)}"
        keys = [(_swatch("ch-target"), "target p"), (_diamond_swatch, "observed")]
    else:
        line1 = f"{position_label}: 0 rounds reached it"
        line2 = "only the target is drawn"
        keys = [(_swatch("ch-target"), "target p")]
    body = [
        _text(4, 13, line1, "ch-cap"),
        _text(4, 27, line2),
        _legend(4, 41, keys) if legend else "",
        *frame,
        _path("ch-target", [_bar(c - bw / 2, base - float(a) * _PH, bw, base) for c, a in zip(cx, target) if a]),
    ]
    if total:
        body.append(_path("ch-observed", [_diamond(c, base - f * _PH) for c, f in zip(cx, freq)]))
    h = base + 24 + 11 * len(rows) - 4
    if total:
        pairs = "; ".join(f"{v}: p {prob_str(a, denom)}, observed {decimal_str(f, 3)}" for v, a, f in zip(vocab, target, freq))
        verdict = "within" if tv <= bound else "above"
        desc = (f"{pairs}. Total variation distance {decimal_str(tv, 4)} over {total:,} rounds, "
                f"{verdict} the bound {decimal_str(bound, 4)}.")
        title = f"{position_label}: observed frequencies against the target over {total:,} rounds"
    else:
        pairs = "; ".join(f"{v}: p {prob_str(a, denom)}" for v, a in zip(vocab, target))
        desc = f"No Monte Carlo round reached this position, so only the target is shown. {pairs}."
        title = f"{position_label}: target only, no round reached it"
    return _svg(p, w, h, title, desc, body)


def lengths_chart(dist: list[Fraction], observed: list[int], id_prefix: str, *, mean: Fraction, denom: int = 8) -> str:
    """Returns an SVG of P(N = n) tokens committed per round: exact bars, observed frequency as diamonds."""
    p = _prefix(id_prefix)
    k1 = len(dist)
    if len(observed) != k1:
        raise ValueError(f"observed has {len(observed)} entries; expected {k1}, one per n = 1..{k1}")
    total = sum(observed)
    freq = [c / total for c in observed] if total else []
    w, left, bar_w, text_x, top, row = 320, 40, 150, 200, 50, 26
    xmax = max(Fraction(1, 4), Fraction(math.ceil(max([*dist, *freq, 0]) * 4), 4))
    x = lambda v: left + float(v) / float(xmax) * bar_w  # noqa: E731
    bottom = top + row * k1
    ticks = [Fraction(i, 4) for i in range(int(xmax * 4) + 1)]
    bars, labels, marks = [], [], []
    for i, d in enumerate(dist):
        yc = top + row * (i + 0.5)
        if d:
            bars.append(f"M{left} {_n(yc - 6)}H{_n(x(d))}v12H{left}z")
        labels.append(_text(None, yc - 1, f"{prob_str(d, denom)} ≈ {percent_str(d)}"))
        if total:
            labels.append(_text(None, yc + 10, f"observed {percent_str(freq[i])}", "ch-sm"))
            marks.append(_diamond(x(freq[i]), yc))
    if total:
        obs_mean = sum(i * c for i, c in enumerate(observed, start=1)) / total
        line2 = f"Monte Carlo: {total:,} rounds, observed mean {decimal_str(obs_mean, 2)}"
        legend = [(_swatch("ch-target"), "exact P(N = n)"), (_diamond_swatch, "observed")]
    else:
        line2 = "no Monte Carlo rounds: exact values only"
        legend = [(_swatch("ch-target"), "exact P(N = n)")]
    body = [
        _text(4, 13, f"Tokens per round: mean E = Σ n·P(N = n) = {decimal_str(mean, 2)}", "ch-cap"),
        _text(4, 27, line2),
        _legend(4, 41, legend),
        f'<path class="ch-grid" d="{"".join(f"M{_n(x(t))} {top}V{bottom}" for t in ticks[1:])}"/>',
        _row(bottom + 12, "ch-m ch-sm", [_text(x(t), None, f"{t * 100}%" if t else "0") for t in ticks]),
        f'<path class="ch-axis" d="M{left} {top}V{bottom}"/>',
        _col(left - 4, "ch-e", [_text(None, top + row * (i + 0.5) + 3, f"n = {i + 1}") for i in range(k1)]),
        _path("ch-target", bars),
        _col(text_x, "", labels),
    ]
    body.append(_path("ch-observed", marks))
    h = bottom + 18
    parts = "; ".join(f"{i}: {prob_str(d, denom)} ({percent_str(d)})" + (f", observed {percent_str(freq[i - 1])}" if total else "")
                      for i, d in enumerate(dist, start=1))
    desc = (f"P(N = n) for n tokens committed in one round, n = 1 to {k1}. {parts}. "
            f"The expected value is the mean, {mean} = {decimal_str(mean, 2)}.")
    if total:
        desc += f" Monte Carlo over {total:,} rounds: observed mean {decimal_str(obs_mean, 2)}."
    title = f"Tokens committed per round: P(N = n); the expected value E = {decimal_str(mean, 2)} is its mean"
    return _svg(p, w, h, title, desc, body)


def speedup_chart(rows: list[list[Fraction]], cost_labels: list[str], highlight: int | None, id_prefix: str) -> str:
    """Returns an SVG line chart of speedup against k, one dashed-and-marked line per draft-step cost.

    `highlight` is the column of the page's own assumption, drawn heavier; None (or a negative number) highlights none.
    """
    p = _prefix(id_prefix)
    k = len(rows)
    m = len(cost_labels)
    if k == 0 or any(len(r) != m for r in rows):
        raise ValueError(f"rows must be a non-empty [k][{m}] table, one column per cost label")
    if highlight is None or highlight < 0:
        highlight = -1
    elif highlight >= m:
        raise ValueError(f"highlight {highlight} is not a column of the {m} cost labels")
    w, left, top, bottom = 320, 30, 40, 168
    right = w - 112  # the rest holds the direct labels
    top_v = max(v for r in rows for v in r)
    ymax = max(2, math.floor(top_v) + 1)
    step = 1 if ymax <= 6 else math.ceil(ymax / 6)
    x = lambda i: (left + right) / 2 if k == 1 else left + 10 + i * (right - left - 20) / (k - 1)  # noqa: E731
    y = lambda v: bottom - float(v) / ymax * (bottom - top)  # noqa: E731
    ticks = range(0, ymax + 1, step)
    body = [
        _text(4, 13, "Speedup under the assumed costs", "ch-cap"),
        _text(4, 31, "speedup ×", "ch-sm"),
        f'<path class="ch-grid" d="{"".join(f"M{left} {_n(y(t))}H{right}" for t in ticks if t)}"/>',
        _col(left - 3, "ch-e ch-sm", [_text(None, y(t) + 3, f"{t}×") for t in ticks]),
        _row(bottom + 12, "ch-m ch-sm", [_text(x(i), None, str(i + 1)) for i in range(k)]),
        _text((left + right) / 2, bottom + 26, "k (positions drafted per round)", "ch-m ch-sm"),
        f'<path class="ch-axis" d="M{left} {top}V{bottom}H{right}"/>',
        f'<path class="ch-ref" d="M{left} {_n(y(1))}H{right}"/>',
        _text(left + 3, y(1) + 10, "1× = no gain", "ch-sm"),
    ]
    order = list(range(m))
    order.sort(key=lambda j: (j == highlight, j))  # the highlighted line is drawn last, on top
    for j in order:
        cls = f"ch-s{j % 4}" + (" ch-hi" if j == highlight else "")
        pts = "".join(f"{'L' if i else 'M'}{_n(x(i))} {_n(y(r[j]))}" for i, r in enumerate(rows))
        body.append(f'<path class="ch-line {cls}" d="{pts}"/>')
        body.append(f'<path class="ch-mk {cls}" d="{"".join(_marker(j, x(i), y(r[j])) for i, r in enumerate(rows))}"/>')
    # direct labels at the line ends, pushed apart so two lines that end close together stay readable
    gap, ends = 24, sorted(range(m), key=lambda j: (y(rows[-1][j]), j))
    ly = {j: y(rows[-1][j]) for j in ends}
    for a, b in zip(ends, ends[1:]):
        ly[b] = max(ly[b], ly[a] + gap)
    ly[ends[-1]] = min(ly[ends[-1]], bottom - 8)
    for a, b in reversed(list(zip(ends, ends[1:]))):
        ly[a] = min(ly[a], ly[b] - gap)
    lx = x(k - 1) + 10
    for j in range(m):
        cls = f"ch-s{j % 4}" + (" ch-hi" if j == highlight else "")
        ye, yl = y(rows[-1][j]), ly[j]
        if abs(ye - yl) > 2:
            body.append(f'<path class="ch-lead" d="M{_n(x(k - 1) + 4)} {_n(ye)}L{_n(lx - 1)} {_n(yl)}"/>')
        body.append(f'<path class="ch-mk {cls}" d="{_marker(j, lx + 3, yl)}"/>')
        note = " (this page)" if j == highlight else ""
        label_cls = "ch-sm ch-b" if j == highlight else "ch-sm"
        body.append(_text(lx + 10, yl + 3, _short(cost_labels[j], w - lx - 10, 9), label_cls))
        body.append(_text(lx + 10, yl + 14, f"{decimal_str(rows[-1][j], 2)}×{note}", "ch-sm"))
    series = "; ".join(
        f"{label}{' (the assumption this page uses)' if j == highlight else ''}: "
        + ", ".join(decimal_str(r[j], 2) for r in rows) for j, label in enumerate(cost_labels))
    desc = (f"Speedup against one-token-at-a-time generation for k = 1 to {k} positions drafted per round, "
            f"under assumed costs, one line per draft-step cost. {series}. Below 1 means no gain.")
    title = f"Speedup against k, positions drafted per round, for {m} draft-step costs"
    return _svg(p, w, bottom + 32, title, desc, body)


def _log_axis(lo: float, hi: float, a: float, b: float) -> Callable[[float], float]:
    """Returns a map from [lo, hi] on a log scale onto [a, b]."""
    span = math.log10(hi) - math.log10(lo)
    return lambda v: a + (math.log10(max(v, lo)) - math.log10(lo)) / span * (b - a)


def tv_chart(rounds: Sequence[int], tv: Sequence[Sequence[float]], bound: Sequence[Sequence[float]],
             labels: Sequence[str], id_prefix: str) -> str:
    """Returns a log-log SVG of TV against rounds, one marked line per position, and position 1's bound.

    tv and bound are [checkpoint][position]; the bound shrinks as 1/sqrt(rounds), a straight line of slope -1/2.
    """
    p = _prefix(id_prefix)
    if len(rounds) < 2:
        raise ValueError("a TV chart needs at least two checkpoints")
    w, left, right, top, bottom, floor = 320, 44, 226, 24, 170, 1e-3
    x = _log_axis(rounds[0], rounds[-1], left, right)
    y = _log_axis(floor, 1.0, bottom, top)
    decades = [10.0 ** -e for e in range(0, 4)]
    body = [
        _text(4, 13, "TV distance against rounds (log–log)", "ch-cap"),
        f'<path class="ch-grid" d="{"".join(f"M{left} {_n(y(d))}H{right}" for d in decades)}"/>',
        _col(left - 4, "ch-e", [_text(None, y(d) + 4, f"{d:g}") for d in decades]),
        _row(bottom + 15, "ch-m", [_text(x(n), None, f"{n:,}" if n < 1000 else f"{n // 1000:,}k")
                                   for n in rounds[::2]]),
        f'<path class="ch-axis" d="M{left} {top}V{bottom}H{right}"/>',
        _path("ch-bound", ["".join(("L" if i else "M") + f"{_n(x(n))} {_n(y(b[0]))}" for i, (n, b) in enumerate(zip(rounds, bound)))]),
        f'<path class="ch-now" data-conv-now d="M0 {top}V{bottom}" transform="translate({_n(x(rounds[-1]))} 0)" '
        f'data-xs="{" ".join(_n(x(n)) for n in rounds)}"/>',
    ]
    ends = []
    for j, label in enumerate(labels):
        cls = f"ch-s{j % 4}"
        pts = "".join(f"{'L' if i else 'M'}{_n(x(n))} {_n(y(t[j]))}" for i, (n, t) in enumerate(zip(rounds, tv)))
        body.append(f'<path class="ch-line {cls}" d="{pts}"/>')
        body.append(f'<path class="ch-mk {cls}" d="{"".join(_marker(j, x(n), y(t[j])) for n, t in zip(rounds, tv))}"/>')
        ends.append((y(tv[-1][j]), j, label))
    body.append(_text(right + 6, y(bound[-1][0]) + 4, "bound", "ch-sm"))
    body += _end_labels(ends, right + 6, top, bottom)
    series = "; ".join(f"{label}: " + ", ".join(f"{t[j]:.4f}" for t in tv) for j, label in enumerate(labels))
    desc = (f"Total-variation distance between the observed and the target distribution after "
            f"{', '.join(f'{n:,}' for n in rounds)} rounds, on log scales. {series}. The bound for position 1 falls "
            f"from {bound[0][0]:.4f} to {bound[-1][0]:.4f}, as 1/√N: a straight line of slope −1/2.")
    return _svg(p, w, bottom + 24, "TV distance against rounds for every position, with the bound", desc, body)


def _end_labels(ends: list[tuple[float, int, str]], x: float, top: float, bottom: float) -> list[str]:
    """Returns the series labels at the right end of their lines, pushed apart so they never overlap."""
    out, last = [], top - 20.0
    for yv, j, label in sorted(ends):
        yl = min(max(yv, last + 13), bottom + 10)
        out.append(f'<path class="ch-mk ch-s{j % 4}" d="{_marker(j, x + 40, yl - 4)}"/>')
        out.append(_text(x + 48, yl, _short(label, 320 - x - 48, 11), "ch-sm"))
        last = yl
    return out

"""Charts as inline SVG strings, made at build time so the page reads with scripting off.

Every function is pure and deterministic. Colour and stroke come from CSS classes
(templates/charts.css), never from style attributes, because the page's CSP forbids them.
Every label that comes from data goes through html.escape.
"""

from __future__ import annotations

import html
import math
import re
import unicodedata
from collections.abc import Callable, Sequence
from fractions import Fraction

from .text import count, decimal_str, isolated, power_of_ten

_ID = re.compile(r"[A-Za-z][A-Za-z0-9_-]*\Z")
_EM = 0.56  # rough advance of one character in em, for laying out legends only


# --- formatting ---------------------------------------------------------------

def _e(s: object) -> str:
    return html.escape(str(s), quote=True)


def _n(v: float) -> str:
    """Returns v rounded to 1 decimal, without a trailing ".0"."""
    s = f"{float(v):.1f}"
    s = s[:-2] if s.endswith(".0") else s
    return "0" if s == "-0" else s


# --- markup -------------------------------------------------------------------

def _prefix(id_prefix: str) -> str:
    if not _ID.match(id_prefix):
        raise ValueError(f"id_prefix {id_prefix!r} must start with a letter and hold only letters, digits, _ and -")
    return id_prefix


def _svg(p: str, w: float, h: float, title: str, desc: str, body: Sequence[str], cls: str = "", hook: str = "") -> str:
    """Returns a chart: titled and described for screen readers by ids from `p`; `cls`, classes beside "chart";
    `hook`, a data attribute by which a script finds it."""
    return (f'<svg class="chart{" " + cls if cls else ""}" viewBox="0 0 {_n(w)} {_n(h)}" role="img" '
            f'aria-labelledby="{p}-t {p}-d"{" " + hook if hook else ""}><title id="{p}-t">{_e(title)}</title>'
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


_JOINS = re.compile(r"[\u0300-\u036f\u200c\u200d\ufe00-\ufe0f\U0001f3fb-\U0001f3ff\U000e0020-\U000e007f]")


def graphemes(s: str) -> list[str]:
    """Returns s split into user-perceived characters, near enough for labels: a base character keeps its
    combining marks, variation selectors, skin tones and zero-width-joined parts, and flags stay in pairs."""
    out: list[str] = []
    for ch in s:
        regional = "\U0001f1e6" <= ch <= "\U0001f1ff"
        joined = out and (out[-1].endswith("\u200d") or _JOINS.match(ch) or unicodedata.combining(ch))
        pair = out and regional and len(out[-1]) == 1 and "\U0001f1e6" <= out[-1] <= "\U0001f1ff"
        if joined or pair:
            out[-1] += ch
        else:
            out.append(ch)
    return out


def _short(s: str, room: float, size: float = 10) -> str:
    """Returns s, cut with an ellipsis between whole characters when wider than `room`; the desc keeps all of it."""
    most, parts = max(2, int(room / (size * _EM))), graphemes(s)
    return isolated(s if len(parts) <= most else "".join(parts[:most - 1]) + "…")


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
    """Returns path data for series j's marker: circle, square, triangle, diamond, inverted triangle, bar."""
    shape = j % 6
    if shape == 4:
        return f"M{_n(x)} {_n(y + 3.5)}l3.5-6.5h-7z"
    if shape == 5:
        return f"M{_n(x - 4)} {_n(y - 1.5)}h8v3h-8z"
    if shape == 0:
        return f"M{_n(x - 3)} {_n(y)}a3 3 0 1 0 6 0 3 3 0 1 0-6 0"
    if shape == 1:
        return f"M{_n(x - 3)} {_n(y - 3)}h6v6h-6z"
    if shape == 2:
        return f"M{_n(x)} {_n(y - 3.5)}l3.5 6.5h-7z"
    return _diamond(x, y)


def _hatch(p: str) -> str:
    """Returns the chart's two fills: the residual's diagonal hatch ({p}-h) and q − p's upright stripes ({p}-x), the
    same stripes the lab and the keys draw."""
    return (f'<defs><pattern id="{p}-h" width="5" height="5" patternUnits="userSpaceOnUse" '
            f'patternTransform="rotate(45)"><path class="ch-hatch" d="M2.5 0V5"/></pattern>'
            f'<pattern id="{p}-x" width="7" height="7" patternUnits="userSpaceOnUse">'
            f'<path class="ch-stripe" d="M2.5 0V7"/></pattern></defs>')


def _check_len(name: str, values: Sequence[object], n: int) -> None:
    if len(values) != n:
        raise ValueError(f"{name} has {len(values)} entries; expected {n}, one per token")


# --- public charts ------------------------------------------------------------

def overlap_matrix(vocab: Sequence[str], rows: Sequence[tuple[int, str, Sequence[Fraction], Sequence[Fraction], int]],
                   id_prefix: str, *, row_key: str = "") -> str:
    """Returns one SVG of every position of a profile: a row per position, a column per token.

    With row_key, each row gets a band marked data-position-block="{row_key}-{position}" that the player can light up.

    rows are (position, α shown, target p [V], draft q [V], proposed token). Each cell shows p as min(p, q) (solid)
    plus max(0, p − q) (hatched), and q as a dashed outline, with q − p striped where the draft offers more.
    """
    p = _prefix(id_prefix)
    n = len(vocab)
    if not n or not rows:
        raise ValueError("an overlap matrix needs at least one token and one position")
    for _, _, a, b, _ in rows:
        _check_len("target", a, n)
        _check_len("draft", b, n)
    top_v = max(max(max(a), max(b)) for _, _, a, b, _ in rows)
    scale = Fraction(math.ceil(top_v * 4), 4) or Fraction(1)  # round the axis up to a quarter
    # each row: a title line (position, α), then a plot ph high with its scale (0 and `scale`) at the left
    left, slot, head, rh, ph = 34, max(40, 240 / n), 30, 100, 60
    w = left + n * slot + 4
    y0 = lambda r: head + r * rh + 26 + ph  # noqa: E731  baseline of row r
    h = lambda v: float(v / scale) * ph  # noqa: E731
    shapes = _matrix_cells(rows, left, slot, w, y0, h, ph)
    shapes["labels"].append(_col(left - 4, "ch-e", [_text(None, y0(r) + dy, s) for r in range(len(rows))
                                                    for dy, s in ((5, "0"), (5 - ph, str(scale)))]))
    over, resid, excess, box, target, marks, grid, labels = (shapes[k] for k in ("over", "resid", "excess", "box", "p",
                                                                                "marks", "grid", "labels"))
    bands = [f'<path class="ch-band" data-position-block="{row_key}-{pos}" d="M0 {_n(y0(r) - ph - 30)}h{_n(w)}v{_n(ph + 42)}h-{_n(w)}z"/>'
             for r, (pos, *_rest) in enumerate(rows)] if row_key else []
    body = [_hatch(p), *bands, _path("ch-grid", grid),
            _row(head - 10, "ch-m", [_text(left + slot * (i + 0.5), None, _short(t, slot - 2, 14)) for i, t in enumerate(vocab)]),
            *labels, _path("ch-overlap", over), _path("ch-residual", resid, f' fill="url(#{p}-h)"'),
            _path("ch-excess", excess, f' fill="url(#{p}-x)"'), _path("ch-target", target), _path("ch-draft", box),
            _path("ch-mark", marks)]
    cells = "; ".join(f"position {pos}: α = {alpha}, proposed “{vocab[x]}”" for pos, alpha, _, _, x in rows)
    desc = (f"For each position, each token's target p as min(p, q), solid, plus max(0, p − q), hatched, outlined "
            f"as a whole, with the draft's q as a dashed outline and q − p striped where the draft offers more; a ▸ before the bar marks "
            f"the proposed token. Each row's scale runs from 0 to {scale}. The table above prints every p and q. {cells}.")
    return _svg(p, w, y0(len(rows) - 1) + 14, "Target p against draft q at every position", desc, body)


def _matrix_cells(rows: Sequence[tuple[int, str, Sequence[Fraction], Sequence[Fraction], int]], left: float,
                  slot: float, w: float, y0: Callable[[int], float], h: Callable[[Fraction], float],
                  ph: float) -> dict[str, list[str]]:
    """Returns the overlap matrix's shapes by class: bars, brackets, marks, gridlines and row labels."""
    out: dict[str, list[str]] = {k: [] for k in ("over", "resid", "excess", "box", "p", "marks", "grid", "labels")}
    for r, (pos, alpha, target, draft, x) in enumerate(rows):
        base = y0(r)
        out["grid"].append(f"M{left} {_n(base)}H{_n(w - 4)}M{left} {_n(base - ph)}H{_n(w - 4)}")
        out["labels"] += [_text(4, base - ph - 13, f"pos. {pos}", "ch-b"), _text(72, base - ph - 13, f"α = {alpha}", "ch-sm")]
        for i, (a, b) in enumerate(zip(target, draft, strict=True)):
            c, lo = left + slot * (i + 0.5), min(a, b)
            if lo:
                out["over"].append(_bar(c - 9, base - h(lo), 18, base))
            if a > b:
                out["resid"].append(_bar(c - 9, base - h(a), 18, base - h(lo)))
            if b > a:
                out["excess"].append(_bar(c - 12, base - h(b), 24, base - h(a)))
            if b:
                out["box"].append(_bar(c - 12, base - h(b), 24, base, closed=False))
            if a:
                out["p"].append(_bar(c - 9, base - h(a), 18, base))  # p itself, outlined over its two parts
            if i == x:  # ▸, as the table and the lab mark it, against the left edge of its bar
                out["marks"].append(f"M{_n(c - 20 if b else c - 17)} {_n(base - 10)}l7 4.5-7 4.5z")
    return out


def _log_axis(lo: float, hi: float, a: float, b: float) -> Callable[[float], float]:
    """Returns a map from [lo, hi] on a log scale onto [a, b]."""
    span = math.log10(hi) - math.log10(lo)
    return lambda v: a + (math.log10(max(v, lo)) - math.log10(lo)) / span * (b - a)


def _tick(n: int) -> str:
    """Returns a round count as the x axis prints it: 300, 3k, 100k."""
    return f"{n:,}" if n < 1000 else f"{n // 1000:,}k"


def tv_chart(rounds: Sequence[int], tv: Sequence[Sequence[float]], bound: Sequence[Sequence[float]],
             labels: Sequence[str], id_prefix: str, reached: Sequence[Sequence[int]] | None = None) -> str:
    """Returns a log-log SVG of TV against rounds, one marked line per position, position 1's bound, a line at the
    checkpoint shown (the script moves it) and the legend below the plot, so the ticks stay large on a phone.

    tv and bound are [checkpoint][position]; the bound shrinks as 1/sqrt(rounds), a straight line of slope -1/2.
    """
    p = _prefix(id_prefix)
    w, left, right, top, bottom = 290, 48, 274, 44, 194
    floor = _floor(tv)
    # one checkpoint (a run of at most 10 rounds): an axis from a tenth of it, so the one point sits at the right
    x = _log_axis(rounds[0] if len(rounds) > 1 else rounds[0] / 10, rounds[-1], left, right)
    y = _log_axis(floor, 1.0, bottom, top)
    decades = [10.0 ** -e for e in range(0, round(-math.log10(floor)) + 1)]
    body = [
        _text(0, 14, "TV against rounds (log–log)", "ch-cap"),
        f'<path class="ch-grid" d="{"".join(f"M{left} {_n(y(d))}H{right}" for d in decades)}"/>',
        _col(left - 4, "ch-e", [_text(None, y(d) + 5, f"{d:g}" if d >= 1e-4 else power_of_ten(d)) for d in decades]),
        _row(bottom + 18, "ch-m", [_text(x(n), None, _tick(n)) for n in rounds[::2]]),
        f'<path class="ch-axis" d="M{left} {top}V{bottom}H{right}"/>',
        _path("ch-bound", ["".join(("L" if i else "M") + f"{_n(x(n))} {_n(y(b[0]))}" for i, (n, b) in enumerate(zip(rounds, bound, strict=True)))]),
        _now(rounds, x, top, bottom),
    ]
    for j in range(len(labels)):
        cls = f"ch-s{j % 6}"
        pts = "".join(f"{'L' if i else 'M'}{_n(x(n))} {_n(y(t[j]))}" for i, (n, t) in enumerate(zip(rounds, tv, strict=True)))
        body.append(f'<g data-line="{j + 1}"><path class="ch-line {cls}" d="{pts}"/>'
                    f'<path class="ch-mk {cls}" d="{"".join(_marker(j, x(n), y(t[j])) for n, t in zip(rounds, tv, strict=True))}"/></g>')
    at = next((i for i, b in enumerate(bound) if b[0] < 0.3), len(rounds) - 1)  # above the line, clear of the data
    body.append(_text(x(rounds[at]) + 6, y(bound[at][0]) - 8, "bound", "ch-sm"))
    legend, height = _legend(labels, left, bottom + 44, w)
    desc = _tv_desc(rounds, tv, bound, labels, reached)
    return _svg(p, w, height, "TV distance against rounds for every position, with the bound", desc, [*body, *legend])


def _tv_desc(rounds: Sequence[int], tv: Sequence[Sequence[float]], bound: Sequence[Sequence[float]],
             labels: Sequence[str], reached: Sequence[Sequence[int]] | None) -> str:
    """Returns the TV chart's description: every position's TV at every checkpoint (the dash where no round reached
    it), how position 1's bound falls, and what that says of the later positions."""
    seen = reached or [[1] * len(labels) for _ in rounds]  # [checkpoint][position] rounds that reached it
    series = "; ".join(f"{label}: " + ", ".join(decimal_str(t[j], 4) if n[j] else "–" for t, n in zip(tv, seen, strict=True))
                       for j, label in enumerate(labels))
    first, last = (decimal_str(min(b[0], 1), 4) for b in (bound[0], bound[-1]))
    slope = "in proportion to 1 over the square root of the round count: a straight line of slope −1/2"
    falls = f"it falls from {first} to {last}, {slope}" if first != last else f"it is {first} after {count(rounds[-1], 'round')} ({slope})"
    return (f"Total-variation distance between the observed and the target distribution after "
            f"{', '.join(f'{n:,}' for n in rounds)} rounds, on log scales. {series}. Dashed: position 1's bound, "
            f"which every round reaches; {falls}. "
            f"{_later(reached[-1] if reached else None)}"
            f"A vertical line marks the number of rounds shown.")


def _later(reached: Sequence[int] | None) -> str:
    """Returns what the description says of the later positions' bounds, from the rounds that reached each."""
    if reached is not None and all(n == reached[0] for n in reached):
        return "Every round reaches every position, so each position has that bound. "
    return "Fewer rounds reach each later position, so its bound sits higher. "


def _floor(tv: Sequence[Sequence[float]]) -> float:
    """Returns the y axis's lowest decade: 0.001, or lower when a TV is smaller, so no point is drawn on the floor."""
    smallest = min((t for row in tv for t in row if t > 0), default=1.0)
    return min(1e-3, 10.0 ** math.floor(math.log10(smallest)))


def _now(rounds: Sequence[int], x: Callable[[float], float], top: float, bottom: float) -> str:
    """Returns the line at the checkpoint shown, with its round count on top; data-xs and data-ticks hold every
    checkpoint's x and count, so the script moves it (and the no-JS page shows the whole run)."""
    xs, ticks = [_n(x(n)) for n in rounds], [_tick(n) for n in rounds]
    return (f'<g class="ch-now" data-convergence-now="" transform="translate({xs[-1]} 0)" data-xs="{" ".join(xs)}" '
            f'data-ticks="{" ".join(ticks)}"><path d="M0 {_n(top - 4)}V{_n(bottom)}"/>'
            f'{_text(0, top - 8, ticks[-1], "ch-m ch-b")}</g>')


def _legend(labels: Sequence[str], left: float, y0: float, w: float) -> tuple[list[str], float]:
    """Returns the series' legend below the plot, in two columns read downwards, and the chart's height."""
    rows, gap, col = math.ceil(len(labels) / 2), 20.0, (w - left) / 2
    out = []
    for j, label in enumerate(labels):
        x, yl = left + col * (j // rows), y0 + gap * (j % rows)
        out.append(f'<path class="ch-mk ch-s{j % 6}" d="{_marker(j, x, yl - 5)}"/>')
        out.append(_text(x + 9, yl, _short(label, col - 12, 14), "ch-sm"))
    return out, y0 + gap * (rows - 1) + 8


def peel_bars(vocab: Sequence[str], layers: Sequence[Sequence[Fraction]], rest: Sequence[Fraction],
              p: Sequence[Fraction], id_prefix: str, title: str, keys: Sequence[str], rest_key: str) -> str:
    """Returns one SVG of p peeled by several candidates: a bar per token, made of what candidate 1, 2, ... keeps
    (the overlap's fill, fainter for each later candidate) and then what is drawn after every candidate failed (the
    residual's hatch); each bar fills the token's p, drawn as an outlined box."""
    pid = _prefix(id_prefix)
    for layer in layers:
        _check_len("layers", layer, len(vocab))
    _check_len("rest", rest, len(vocab))
    left, w, row, top = 60.0, 218.0, 22.0, 6.0  # 290 wide: its text stays at 14 px on a 360 px phone
    scale = w / float(max(max(p), Fraction(1, 100)))
    shapes: dict[str, list[str]] = {}
    labels = []
    for y, token in enumerate(vocab):
        x, mid = left, top + row * y
        for n, part in enumerate([*(layer[y] for layer in layers), rest[y]]):
            width = float(part) * scale
            cls = "ch-residual" if n == len(layers) else f"ch-overlap ch-layer-{n + 1}"
            shapes.setdefault(cls, []).append(f"M{_n(x)} {_n(mid + 3)}h{_n(width)}v{_n(row - 6)}h{_n(-width)}z" if width else "")
            x += width
        shapes.setdefault("ch-target", []).append(f"M{_n(left)} {_n(mid + 2)}h{_n(float(p[y]) * scale)}v{_n(row - 4)}h{_n(-float(p[y]) * scale)}z")
        labels.append(_text(left - 6, mid + row / 2 + 4, _short(token, left - 10, 14), "ch-e"))
    body = [_hatch(pid), *(_path(cls, d, f' fill="url(#{pid}-h)"' if cls == "ch-residual" else "")
                           for cls, d in shapes.items()), *labels]
    desc = "; ".join(f"{tok}: " + " + ".join(str(layer[y]) for layer in layers) + f" + {rest[y]} = {p[y]}"
                     for y, tok in enumerate(vocab))
    return _svg(pid, left + w + 12, top * 2 + row * len(vocab), title, f"{', '.join(keys)}, {rest_key}: {desc}", body)

"""The batching figure's two charts as inline SVG (figures/roofline.py draws them at the defaults for readers without
scripting; templates/js/roofline*.js re-draws them on every input, to these same scales), and how the figure writes
its numbers. Colour and stroke come from classes (templates/roofline.css), never from attributes.

Both charts: viewBox 0 0 290 208 (W × H); the plot box runs from x = 56 (LEFT) to 268 (RIGHT) and from y = 12 (TOP)
down to 162 (BOTTOM); x tick labels sit on y = BOTTOM + 18 (class ch-m), the x axis's title on y = 200 (ch-m, centred
on the plot), y tick labels end at x = LEFT − 5, 5 below their tick (ch-e). Text is 14 px (charts.css), so it stays
at 14 px or more on a 360 px phone. Every tick comes ready-made in the trace (`axes`): its place and its label.

The pass chart (svg data-roofline-pass): x = LEFT + log2(T) / 14 · (RIGHT − LEFT) for T tokens scored in one pass, T
from 1 to 2^14 (axes.tokens_log2_max); y = BOTTOM − (log10(t) − y_min) / (y_max − y_min) · (BOTTOM − TOP) for t
seconds, y_min and y_max whole decades (axes.pass.y_min_log10, y_max_log10): from the decade at or below the fastest
pass of any draft at 1 token to the one at or above the slowest pass of any target at 2^14 tokens, over every hardware
and pair, so the axes stay put as the choices change. Each model's line (classes roofline-line roofline-target or
roofline-draft) is the path through T = 1, the knee T* when 1 < T* < 2^14, and T = 2^14, at pass_time(P, T). The knee
(roofline-knee, when 1 ≤ T* ≤ 2^14) is a vertical line from TOP to BOTTOM with knee_label on y = TOP + 14, 4 right of
the line (class ch-sm), or 4 left of it, anchored at its end (ch-sm ch-e), when T* is past 2^11. The plain step
(roofline-step) is a circle of radius 5 at (n, pass_time(target, n)); the check (roofline-check) a square 10 wide
centred at (n · scored(k, m), pass_time(target, n · scored(k, m))). A point past 2^14 tokens is off the chart: it is
drawn instead as a triangle at the top-right end of the target's line, where the line leaves the chart, pointing on
along the line's last segment (tip at the line's end, base 11 back along the segment and 12 wide); the key says so.

The speedup chart (svg data-roofline-speedup): x = LEFT + log2(n) / 12 · (RIGHT − LEFT) for the batch n from 1 to 2^12
(batch_log2_max); y = BOTTOM − min(s, y_max) / y_max · (BOTTOM − TOP) for a speedup s, y_max = axes.speedup.y_max (a
whole number, at least 2, at or above the highest speedup any choice gives at a batch of 1, where it is highest). The
curve (roofline-curve) is the path through the distinct whole batches round(2^(i/8)), i = 0 … 96 (8 samples a
doubling), in order. The 1× line (roofline-one) runs across the plot at s = 1. The chosen batch (roofline-at) is a
ring of radius 6 at (n, speedup). The crossing (roofline-cross, dash-dotted where the knee's line is dotted), when
stops_paying gives a batch s with 1 < s ≤ 2^12, is a vertical line at s from TOP to BOTTOM with cross_label ({n}: s with its thousands grouped) on
y = TOP + 14, placed as the knee's label is (left of the line, ch-e, when s is past 2^6).

Numbers as the figure writes them (the script writes them the same way): a time in the largest of ROOFLINE's units
in which it is at least 1 (the last unit when none is), to 2 decimals below 10, 1 below 100, else none, thousands
grouped; E and a speedup to 2 decimals, half up (a speedup below 0.01 as ROOFLINE's "below" of 0.01: < 0.01); the
knee's tokens rounded half up to a whole number, grouped (to 2 decimals when below 1); token and batch counts grouped."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from . import charts
from .charts import _n, _text
from .roofline_strings import ROOFLINE
from .text import decimal_str, fill, power_of_ten

W, H = 290, 208
LEFT, RIGHT, TOP, BOTTOM = 56, 268, 12, 162
TOKENS_LOG2_MAX = 14
BATCH_LOG2_MAX = 12
SAMPLES_PER_DOUBLING = 8
TOKEN_TICKS = (0, 4, 8, 12)  # the log2 of the labelled token counts
BATCH_TICKS = (0, 3, 6, 9, 12)  # ... and batch sizes


def grouped(n: int) -> str:
    """Returns a whole number with its thousands grouped: 4,096."""
    return f"{n:,}".replace(",", ROOFLINE["group"])


def time_str(seconds: float) -> str:
    """Returns a time in the largest unit in which it is at least 1, to 3 significant figures: 21.0 ms."""
    units = ROOFLINE["units"]
    unit = next((u for u in units if seconds >= 10.0 ** u["exp"]), units[-1])
    value = seconds * 10.0 ** -unit["exp"]
    places = 2 if value < 10 else 1 if value < 100 else 0
    return fill(ROOFLINE["time"], {"value": f"{value:,.{places}f}".replace(",", ROOFLINE["group"]), "unit": unit["unit"]})


def speedup_str(value: Fraction | float) -> str:
    """Returns a speedup to 2 decimals, half up, or "< 0.01" below 0.01, which 2 decimals would write as 0.00."""
    return fill(ROOFLINE["below"], {"value": "0.01"}) if value < Fraction(1, 100) else decimal_str(value)


def decade_label(e: int) -> str:
    """Returns the tick label of 10^e seconds: 100 µs, 1 s; 10⁻¹² s outside the units' reach."""
    units = ROOFLINE["units"]
    unit = next((u for u in units if e >= u["exp"]), None)
    if unit is None or e - unit["exp"] > 4:
        return fill(ROOFLINE["time"], {"value": power_of_ten(10.0 ** e), "unit": units[0]["unit"]})
    return fill(ROOFLINE["time"], {"value": grouped(10 ** (e - unit["exp"])), "unit": unit["unit"]})


def knee_str(knee: Any) -> str:
    """Returns the knee's tokens per pass, rounded half up to a whole number (2 decimals below 1, and "less than
    0.01" where those would show 0.00)."""
    if knee < Fraction(1, 200):
        return ROOFLINE["knee_tiny"]
    return decimal_str(knee, 2) if knee < 1 else grouped(int(decimal_str(knee, 0)))


def axes(y_min_log10: int, y_max_log10: int, top: int) -> dict[str, Any]:
    """Returns both charts' fixed geometry and ticks, as the trace gives them to the script."""
    step = math.ceil((y_max_log10 - y_min_log10) / 5)
    s_step = 1 if top <= 6 else math.ceil(top / 6)
    return {"tokens_log2_max": TOKENS_LOG2_MAX, "width": W, "height": H,
            "plot": {"left": LEFT, "right": RIGHT, "top": TOP, "bottom": BOTTOM}, "samples_per_doubling": SAMPLES_PER_DOUBLING,
            "pass": {"y_min_log10": y_min_log10, "y_max_log10": y_max_log10,
                     "x_ticks": [{"log2": i, "label": grouped(2 ** i)} for i in TOKEN_TICKS],
                     "y_ticks": [{"log10": e, "label": decade_label(e)} for e in range(y_min_log10, y_max_log10 + 1, step)]},
            "speedup": {"y_max": top, "x_ticks": [{"log2": i, "label": grouped(2 ** i)} for i in BATCH_TICKS],
                        "y_ticks": [{"value": v, "label": fill(ROOFLINE["times"], {"value": v})} for v in range(0, top + 1, s_step)]}}


def samples() -> list[int]:
    """Returns the batch sizes the speedup curve passes through: the distinct round(2^(i/8)), i = 0 … 96."""
    return sorted({round(2 ** (i / SAMPLES_PER_DOUBLING)) for i in range(SAMPLES_PER_DOUBLING * BATCH_LOG2_MAX + 1)})


def _svg(hook: str, title: str, desc: str, body: Sequence[str]) -> str:
    return charts._svg(f"roofline-{hook}", W, H, title, desc, body, "roofline-chart", f"data-roofline-{hook}")


def _frame(x_ticks: Sequence[tuple[float, str]], y_ticks: Sequence[tuple[float, str]], x_title: str) -> list[str]:
    """Returns a chart's gridlines, axes, tick labels and x axis title, given each tick's place and label."""
    grid = "".join(f"M{LEFT} {_n(y)}H{RIGHT}" for y, _ in y_ticks) + "".join(f"M{_n(x)} {TOP}V{BOTTOM}" for x, _ in x_ticks)
    return [f'<path class="ch-grid" d="{grid}"/>', f'<path d="M{LEFT} {TOP}V{BOTTOM}H{RIGHT}" class="ch-axis"/>',
            f'<g class="ch-e">{"".join(_text(LEFT - 5, y + 5, label) for y, label in y_ticks)}</g>',
            f'<g class="ch-m">{"".join(_text(x, BOTTOM + 18, label) for x, label in x_ticks)}'
            f'{_text((LEFT + RIGHT) / 2, 200, x_title)}</g>']


def x_log2(value: float, top_log2: int) -> float:
    """Returns the x of a value on a log2 axis from 1 to 2^top_log2, clamped to the plot."""
    return LEFT + min(max(math.log2(value), 0), top_log2) / top_log2 * (RIGHT - LEFT)


def _label(x: float, text: str, far: bool) -> str:
    """Returns a vertical mark's label near the plot's top: right of the line, or left of it when `far` right."""
    return _text(x - 4, TOP + 14, text, "ch-sm ch-e") if far else _text(x + 4, TOP + 14, text, "ch-sm")


def _arrow(cls: str, tip: tuple[float, float], back: tuple[float, float]) -> str:
    """Returns a point off the chart: a triangle with its tip at `tip`, the end of a line whose last segment starts at
    `back`, pointing on along that segment."""
    dx, dy = tip[0] - back[0], tip[1] - back[1]
    length = math.sqrt(dx * dx + dy * dy)
    ux, uy = dx / length, dy / length
    bx, by = tip[0] - 11 * ux, tip[1] - 11 * uy
    return (f'<path class="{cls}" d="M{_n(tip[0])} {_n(tip[1])}L{_n(bx - 6 * uy)} {_n(by + 6 * ux)}'
            f'L{_n(bx + 6 * uy)} {_n(by - 6 * ux)}z"/>')


def _point(cls: str, x: float, y: float, square: bool) -> str:
    if square:
        return f'<path class="{cls}" d="M{_n(x - 5)} {_n(y - 5)}h10v10h-10z"/>'
    return f'<circle class="{cls}" cx="{_n(x)}" cy="{_n(y)}" r="5"/>'


def pass_chart(ax: dict[str, Any], lines: dict[str, Callable[[float], float]], knee: float, plain: int, check: int,
               title: str, desc: str, x_title: str) -> str:
    """Returns the pass chart: `lines` maps "target" and "draft" to seconds per pass at T tokens; `plain` and
    `check` are the tokens a plain step and a check score."""
    lo, hi, top = ax["pass"]["y_min_log10"], ax["pass"]["y_max_log10"], 2 ** TOKENS_LOG2_MAX
    def y(t: float) -> float:
        return BOTTOM - min(max((math.log10(t) - lo) / (hi - lo), 0), 1) * (BOTTOM - TOP)
    def x(t: float) -> float:
        return x_log2(t, TOKENS_LOG2_MAX)
    frame = _frame([(x(2 ** t["log2"]), t["label"]) for t in ax["pass"]["x_ticks"]],
                   [(y(10.0 ** t["log10"]), t["label"]) for t in ax["pass"]["y_ticks"]], x_title)
    at = [1.0, *([knee] if 1 < knee < top else []), float(top)]
    body = [f'<path class="roofline-line roofline-{name}" d="M{"L".join(f"{_n(x(t))} {_n(y(f(t)))}" for t in at)}"/>'
            for name, f in lines.items()]
    if 1 <= knee <= top:
        body += [f'<path class="roofline-knee" d="M{_n(x(knee))} {TOP}V{BOTTOM}"/>',
                 _label(x(knee), ROOFLINE["knee_label"], knee > 2 ** 11)]
    target = lines["target"]
    end, back = (x(top), y(target(top))), (x(at[-2]), y(target(at[-2])))
    body += [_arrow(cls, end, back) if t > top else _point(cls, x(t), y(target(t)), square)
             for cls, t, square in (("roofline-step", plain, False), ("roofline-check", check, True))]
    return _svg("pass", title, desc, [*frame, *body])


def speedup_chart(ax: dict[str, Any], curve: Sequence[tuple[int, float]], n: int, at: float, stop: int | None,
                  title: str, desc: str, x_title: str) -> str:
    """Returns the speedup chart: `curve` is (batch, speedup) at samples(), `at` the speedup at the chosen batch n,
    `stop` the batch where speculation stops paying (roofline.stops_paying)."""
    top = ax["speedup"]["y_max"]
    def y(s: float) -> float:
        return BOTTOM - min(s, top) / top * (BOTTOM - TOP)
    def x(b: float) -> float:
        return x_log2(b, BATCH_LOG2_MAX)
    frame = _frame([(x(2 ** t["log2"]), t["label"]) for t in ax["speedup"]["x_ticks"]],
                   [(y(t["value"]), t["label"]) for t in ax["speedup"]["y_ticks"]], x_title)
    body = [f'<path class="roofline-one" d="M{LEFT} {_n(y(1))}H{RIGHT}"/>',
            f'<path class="roofline-curve" d="M{"L".join(f"{_n(x(b))} {_n(y(s))}" for b, s in curve)}"/>']
    if stop is not None and 1 < stop <= 2 ** BATCH_LOG2_MAX:
        body += [f'<path class="roofline-cross" d="M{_n(x(stop))} {TOP}V{BOTTOM}"/>',
                 _label(x(stop), fill(ROOFLINE["cross_label"], {"n": grouped(stop)}), stop > 2 ** 6)]
    body.append(f'<circle class="roofline-at" cx="{_n(x(n))}" cy="{_n(y(at))}" r="6"/>')
    return _svg("speedup", title, desc, [*frame, *body])

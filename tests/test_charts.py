"""Charts: well-formed, accessible, CSP-clean, escaped, id-prefixed, deterministic and drawn to scale."""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from fractions import Fraction as F

import pytest

from speculative.charts import overlap_matrix, tv_chart
from speculative.text import isolated

from .conftest import ROOT

VOCAB = ["the", "cat", "sat", "on", "a", "mat"]
HOSTILE = "</script><img src=x onerror=alert(1)>"
E = [F(n, 8) for n in range(9)]  # E[n] = n/8
P = [E[4], E[1], E[0], E[0], E[2], E[1]]  # the shipped target at position 1
Q = [E[2], E[1], E[0], E[2], E[2], E[1]]  # the divergent draft there
ROUNDS = [10, 30, 100, 300, 1000]
TV = [[0.3, 0.2], [0.1, 0.12], [0.05, 0.06], [0.02, 0.03], [0.01, 0.009]]
BOUND = [[0.9, 0.95], [0.5, 0.55], [0.3, 0.31], [0.16, 0.17], [0.09, 0.1]]


def overlap(vocab=VOCAB, prefix="ov1", proposal=0):
    return overlap_matrix(vocab, [(1, "6/8", P, Q, proposal), (2, "7/8", Q, P, 3)], prefix)


def tv(prefix="tv1", labels=("pos. 1", "pos. 2")):
    return tv_chart(ROUNDS, TV, BOUND, list(labels), prefix)


ALL = [overlap, tv]


def ids(svg: str) -> set[str]:
    return {el.get("id") for el in ET.fromstring(svg).iter() if el.get("id")}


def paths(root: ET.Element, cls: str) -> list[ET.Element]:
    return [el for el in root.iter("path") if el.get("class") == cls]


def bars(root: ET.Element, cls: str) -> dict[float, tuple[float, float]]:
    """Returns {centre x: (top y, height)} of the upright bars drawn with class cls (legend swatches excluded)."""
    found = {}
    for el in paths(root, cls):
        for x, bottom, top, w in re.findall(r"M([\d.]+) ([\d.]+)V([\d.]+)h([\d.]+)V", el.get("d")):
            found[round(float(x) + float(w) / 2, 1)] = (float(top), float(bottom) - float(top))
    return found


def heights_by_x(root: ET.Element, cls: str) -> dict[float, float]:
    return {x: h for x, (_, h) in bars(root, cls).items()}


def observed_marks(root: ET.Element) -> list[tuple[float, float]]:
    """Returns the (x, y) centres of the observed diamonds (the legend's swatch is a one-diamond path)."""
    paths = [p.get("d") for p in root.iter("path") if p.get("class") == "ch-observed"]
    d = max(paths, key=len) if paths else ""
    return [(float(x), float(y) + 4) for x, y in re.findall(r"M([\d.]+) ([\d.]+)", d)]


def texts(root: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in root.iter("text")]


@pytest.mark.parametrize("make", ALL)
def test_chart_is_an_accessible_svg_image(make):
    root = ET.fromstring(make())
    assert root.tag == "svg" and root.get("role") == "img" and "chart" in root.get("class").split()
    assert root.get("viewBox") and root.get("width") is None  # scales with its container
    title_id, desc_id = root.get("aria-labelledby").split()
    found = {el.get("id"): el for el in root.iter() if el.get("id")}
    assert found[title_id].tag == "title" and found[desc_id].tag == "desc"
    assert len(found[title_id].text) > 20 and len(found[desc_id].text) > 40


@pytest.mark.parametrize("make", ALL)
def test_chart_has_no_style_or_script(make):
    svg = make()
    root = ET.fromstring(svg)
    assert all("style" not in el.attrib for el in root.iter())
    assert not [el for el in root.iter() if el.tag in ("style", "script", "foreignObject")]
    assert not re.search(r"\son\w+=", svg)


def test_hostile_token_label_comes_out_as_inert_text():
    svg = overlap(vocab=[HOSTILE, *VOCAB[1:]])
    assert "<img" not in svg and "</script" not in svg
    root = ET.fromstring(svg)
    assert HOSTILE in root.find("desc").text  # the text alternative keeps the whole proposed label, as text
    assert any(t.strip("\u2068\u2069").startswith("</") for t in texts(root))


def test_tv_labels_are_escaped():
    svg = tv(labels=["<b>x</b>", "a & b"])
    assert "<b>" not in svg and "a &amp; b" in svg
    ET.fromstring(svg)


@pytest.mark.parametrize("make", ALL)
def test_every_id_carries_the_prefix_so_two_charts_never_clash(make):
    a, b = make(prefix="first"), make(prefix="second")
    assert ids(a) and all(i.startswith("first-") for i in ids(a))
    assert not ids(a) & ids(b)
    for ref in re.findall(r"url\(#([^)]+)\)", a):
        assert ref in ids(a)


def test_rejects_an_id_prefix_that_could_break_the_markup():
    with pytest.raises(ValueError, match="id_prefix"):
        overlap(prefix='x" onload="alert(1)')


@pytest.mark.slow  # two fresh Python processes per chart: the full run only
@pytest.mark.parametrize("make", ALL)
def test_same_input_gives_byte_identical_output_in_another_process_with_another_hash_seed(make):
    code = f"import sys; from tests.test_charts import {make.__name__}; sys.stdout.write({make.__name__}())"
    for seed in ("0", "4242"):  # set and dict order of strings follow the hash seed: output must not
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**os.environ, "PYTHONHASHSEED": seed},
                             capture_output=True, text=True, encoding="utf-8")
        assert out.returncode == 0, out.stderr
        assert out.stdout == make()


def test_overlap_bars_are_min_residual_and_excess_drawn_to_scale():
    root = ET.fromstring(overlap_matrix(VOCAB, [(1, "6/8", P, Q, 0)], "one"))
    over, resid = heights_by_x(root, "ch-overlap"), heights_by_x(root, "ch-residual")
    excess = heights_by_x(root, "ch-excess")
    xs = sorted({*over, *resid, *excess, *heights_by_x(root, "ch-draft")})
    unit = over[min(over)] / float(min(P[0], Q[0]))  # user units per probability 1
    for a, b in zip(P, Q, strict=True):
        if min(a, b):
            assert any(abs(h - float(min(a, b)) * unit) < 0.11 for h in over.values())
    assert sorted(round(h / unit, 3) for h in resid.values()) == sorted(round(float(a - b), 3) for a, b in zip(P, Q, strict=True) if a > b)
    assert sorted(round(h / unit, 3) for h in excess.values()) == sorted(round(float(b - a), 3) for a, b in zip(P, Q, strict=True) if b > a)
    assert len(xs) >= 4


def test_overlap_outlines_p_itself_over_its_two_parts_and_marks_the_proposal_against_its_bar():
    root = ET.fromstring(overlap_matrix(VOCAB, [(1, "6/8", P, Q, 0)], "one"))
    over, target = bars(root, "ch-overlap"), bars(root, "ch-target")
    unit = over[min(over)][1] / float(min(P[0], Q[0]))
    assert sorted(round(h / unit, 3) for _, h in target.values()) == sorted(round(float(a), 3) for a in P if a)
    # the ▸ (7 wide) ends one unit short of the left edge of the proposed token's dashed q box (24 wide)
    start = float(re.match(r"M([\d.]+) ", paths(root, "ch-mark")[0].get("d")).group(1))
    centre = min(bars(root, "ch-draft"))  # token 0, the proposal
    assert start + 7 == pytest.approx(centre - 12 - 1, abs=0.11)


def test_overlap_marks_each_rows_proposed_token_and_states_alpha():
    root = ET.fromstring(overlap())
    marks = paths(root, "ch-mark")[0].get("d")
    assert marks.count("M") == 2
    assert {"α = 6/8", "α = 7/8"} <= set(texts(root))
    desc = root.find("desc").text
    assert "position 1: α = 6/8, proposed “the”" in desc and "position 2: α = 7/8, proposed “on”" in desc


def test_tv_chart_draws_one_line_per_position_and_the_bound_on_log_scales():
    root = ET.fromstring(tv())
    lines = [el for el in root.iter("path") if "ch-line" in (el.get("class") or "")]
    assert len(lines) == 2
    ys = [float(y) for y in re.findall(r"[ML][\d.]+ ([\d.]+)", lines[0].get("d"))]
    assert ys == sorted(ys)  # TV falls as rounds grow, so each point sits lower (a larger y)
    assert "1 over the square root of the round count" in root.find("desc").text


@pytest.mark.parametrize("smallest, floor", [(0.002, "0.001"), (0.0005, "0.0001"), (0.00004, "10⁻⁵")])
def test_tv_chart_reaches_down_to_its_smallest_tv_so_no_point_sits_on_the_floor(smallest, floor):
    root = ET.fromstring(tv_chart([10, 100], [[0.3, 0.2], [0.01, smallest]], [[0.9, 0.9], [0.3, 0.3]], ["a", "b"], "x"))
    scale = [el.text for g in root.iter("g") if g.get("class") == "ch-e" for el in g]
    assert scale[-1] == floor  # the lowest decade printed
    line = [el for el in root.iter("path") if "ch-line ch-s1" in (el.get("class") or "")][0]
    y_last = float(re.findall(r"[ML][\d.]+ ([\d.]+)", line.get("d"))[-1])
    assert y_last < 194  # above the bottom axis (y = 194), not clipped onto it


def test_tv_chart_marks_the_current_checkpoint_at_each_rounds_x():
    root = ET.fromstring(tv())
    now = next(el for el in root.iter("g") if el.get("class") == "ch-now")
    xs, ticks = now.get("data-xs").split(), now.get("data-ticks").split()
    assert len(xs) == len(ROUNDS) and [float(x) for x in xs] == sorted(float(x) for x in xs)
    assert ticks == [f"{n:,}" if n < 1000 else f"{n // 1000:,}k" for n in ROUNDS]
    assert now.get("transform") == f"translate({xs[-1]} 0)"
    assert "".join(now.itertext()) == ticks[-1]  # the whole run, as the page shows it without the script


def test_tv_chart_draws_a_run_of_one_checkpoint():
    root = ET.fromstring(tv_chart([7], [[0.1, 0.2]], [[0.3, 0.4]], ["a", "b"], "x"))  # monte_carlo.rounds = 7
    now = next(el for el in root.iter("g") if el.get("class") == "ch-now")
    assert now.get("transform") == f"translate({now.get('data-xs')} 0)"


@pytest.mark.parametrize("call, message", [
    (lambda: overlap_matrix(VOCAB, [(1, "1", P[:5], Q, 0)], "x"), "target has 5 entries; expected 6"),
    (lambda: overlap_matrix([], [], "x"), "at least one token"),
])
def test_rejects_mismatched_inputs(call, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        call()


def test_tv_chart_puts_the_bound_label_above_its_line_clear_of_every_data_line():
    root = ET.fromstring(tv())
    label = next(el for el in root.iter("text") if el.text == "bound")
    lx, ly = float(label.get("x")), float(label.get("y"))
    span = (lx, lx + len("bound") * 14 * 0.6)  # the label's box: 14-unit text, from its baseline up
    bound = next(el for el in root.iter("path") if el.get("class") == "ch-bound")
    lines = [el for el in root.iter("path") if "ch-line" in (el.get("class") or "")]
    points = lambda el: [(float(a), float(b)) for a, b in re.findall(r"[ML]([\d.]+) ([\d.]+)", el.get("d"))]  # noqa: E731
    for el in lines:
        for (x0, y0), (x1, y1) in itertools.pairwise(points(el)):  # the data line under the label's box
            for x in span:
                if x0 <= x <= x1:
                    assert y0 + (y1 - y0) * (x - x0) / (x1 - x0) > ly + 4
    under = [y for x, y in points(bound) if span[0] - 6 <= x <= span[1]]
    assert under and all(y > ly for y in under)  # the label sits above the dashed bound it names


def test_tv_chart_legend_sits_below_the_ticks_so_the_plot_keeps_the_width():
    three = lambda rows: [[*r, r[-1]] for r in rows]  # noqa: E731
    root = ET.fromstring(tv_chart(ROUNDS, three(TV), three(BOUND), ["position 1", "position 2", "bonus 3"], "tv3"))
    ticks = max(float(re.search(r"translate\(0 ([\d.]+)\)", g.get("transform")).group(1))
                for g in root.iter("g") if g.get("class") == "ch-m")
    legend = [el for el in root.iter("text") if (el.text or "").strip("\u2068\u2069") in ("position 1", "position 2", "bonus 3")]
    assert len(legend) == 3 and all(float(el.get("y")) > ticks for el in legend)
    assert float(root.get("viewBox").split()[2]) <= 300  # drawn at about 1:1 in a 360 px phone's column


def test_a_left_to_right_legend_label_carries_no_invisible_isolates(built_site):
    """Copying a chart's legend ("position 1") from a printed PDF picked up FSI/PDI around it (a reader's review):
    a label of left-to-right words and digits needs no isolates; one whose direction could reorder the text around it
    (an emoji, a right-to-left word) keeps them."""
    svgs = "".join(re.findall(r"<svg.*?</svg>", (built_site / "index.html").read_text(encoding="utf-8"), re.S))
    assert "position 1" in svgs
    assert not re.search("[\u2066\u2067\u202a-\u202e]", svgs)
    for inner in re.findall("\u2068([^\u2069]*)\u2069", svgs):
        assert isolated(inner) != inner, inner


def test_the_residuals_colour_is_not_the_rejected_red_in_light_or_dark():
    """Hatching means "the residual's share" on this page, red means "rejected": a reader must not take one for the
    other, so every residual colour (charts, lab bars, player) sits at least 60° of hue from every rejected red."""
    css = "".join((ROOT / "templates" / f).read_text(encoding="utf-8") for f in ("style.css", "charts.css", "figures.css", "walkthrough.css"))
    hue = lambda names: [int(h) for h in re.findall(rf"--(?:{names}): hsl\((\d+) ", css)]  # noqa: E731
    residual, rejected = hue("role-residual"), hue("role-rejected")  # one role each, light and dark (style.css)
    assert len(residual) == 2 and len(rejected) == 2
    for r in residual:
        for x in rejected:
            assert min(abs(r - x), 360 - abs(r - x)) >= 60, (r, x)

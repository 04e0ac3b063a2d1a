"""Charts: well-formed, accessible, CSP-clean, escaped, id-prefixed, deterministic and drawn to scale."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from fractions import Fraction as F

import pytest

from speculative.stats import mean_tokens, overlap as overlap_of
from speculative.charts import convergence_chart, lengths_chart, overlap_chart, speedup_chart

VOCAB = ["the", "cat", "sat", "on", "a", "mat"]
HOSTILE = "</script><img src=x onerror=alert(1)>"
E = [F(n, 8) for n in range(9)]  # E[n] = n/8
P = [E[4], E[1], E[0], E[0], E[2], E[1]]  # the shipped target at position 1
Q = [E[2], E[1], E[0], E[2], E[2], E[1]]  # the divergent draft there
DIST = [F(1, 4), F(3, 32), F(21, 256), F(147, 2048), F(1029, 16384), F(7203, 16384)]
SPEED = [[F(5, 3) * (1 + F(i, 4)), F(8, 5) * (1 + F(i, 5)), F(7, 5) * (1 + F(i, 20))] for i in range(5)]
COSTS = ["draft step = 1/20", "draft step = 1/10", "draft step = 1/4"]


def overlap(vocab=VOCAB, prefix="ov1", proposal=0):
    return overlap_chart(vocab, P, Q, proposal, 1, prefix, alpha=overlap_of(P, Q))


def convergence(counts=(49_900, 12_400, 0, 0, 25_200, 12_500), prefix="cv1", vocab=VOCAB):
    return convergence_chart(vocab, P, list(counts), 0.0021, 0.0097, "position 1", prefix)


def lengths(prefix="ln1", observed=(25_100, 9_400, 8_300, 7_200, 6_100, 43_900)):
    return lengths_chart(DIST, list(observed), prefix, mean=mean_tokens(DIST))


def speedup(prefix="sp1", labels=COSTS):
    return speedup_chart(SPEED, list(labels), 1, prefix)


ALL = [overlap, convergence, lengths, speedup]


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


@pytest.mark.parametrize("make", [overlap, convergence])
def test_hostile_token_label_comes_out_as_inert_text(make):
    vocab = [HOSTILE, *VOCAB[1:]]
    svg = make(vocab=vocab)
    assert "<img" not in svg and "<script" not in svg.replace("</script", "")
    assert "</script" not in svg
    root = ET.fromstring(svg)
    assert HOSTILE in root.find("desc").text  # the text alternative keeps the whole label, as text
    assert any(t.startswith("</scri") for t in texts(root))


def test_speedup_cost_labels_are_escaped():
    svg = speedup(labels=["<b>x</b>", "a & b", '"q"'])
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


@pytest.mark.parametrize("make", ALL)
def test_same_input_gives_byte_identical_output(make):
    assert make() == make()


def test_overlap_bars_are_min_and_residual_drawn_to_scale():
    root = ET.fromstring(overlap())
    over, resid = heights_by_x(root, "ch-overlap"), heights_by_x(root, "ch-residual")
    box, excess = heights_by_x(root, "ch-draft"), heights_by_x(root, "ch-excess")
    unit = over[min(over)] / float(min(P[0], Q[0]))  # user units per probability 1
    xs = sorted({*over, *box})
    cx = {x: i for i, x in enumerate(sorted(set(xs) | set(resid) | set(excess)))}
    assert len(cx) == 5  # "sat" has p = q = 0 and draws nothing
    col = dict(zip(sorted(cx), [0, 1, 3, 4, 5]))
    for x, i in col.items():
        assert over.get(x, 0) == pytest.approx(float(min(P[i], Q[i])) * unit, abs=0.11)
        assert resid.get(x, 0) == pytest.approx(float(max(0, P[i] - Q[i])) * unit, abs=0.11)
        assert box.get(x, 0) == pytest.approx(float(Q[i]) * unit, abs=0.11)
        assert excess.get(x, 0) == pytest.approx(float(max(0, Q[i] - P[i])) * unit, abs=0.11)
    assert resid and all(el.get("fill") == "url(#ov1-h)" for el in paths(root, "ch-residual"))
    assert all(not d.endswith("z") for d in re.split(r"(?=M)", paths(root, "ch-draft")[-1].get("d")) if d)


def test_overlap_states_alpha_and_marks_the_proposed_token():
    root = ET.fromstring(overlap(proposal=4))
    assert "Position 1 · α = Σ min(p, q) = 6/8" in texts(root)
    labels = [t for t in root.iter("text") if t.text in VOCAB]
    assert [t.text for t in labels if t.get("class") == "ch-b"] == ["a"]
    assert "proposed" in texts(root) and root.findall(".//path[@class='ch-mark']")
    assert "proposed “a”: p ≥ q, so it is accepted outright" in root.find("desc").text


@pytest.mark.parametrize("make, key", [
    (lambda **kw: overlap_chart(VOCAB, P, Q, 0, 1, "a", alpha=overlap_of(P, Q), **kw), "min(p, q)"),
    (lambda **kw: convergence_chart(VOCAB, P, [1] * 6, 0.1, 0.2, "position 1", "a", **kw), "target p"),
])
def test_legend_can_be_left_to_the_first_chart_of_a_grid_without_moving_anything(make, key):
    with_key, without = ET.fromstring(make()), ET.fromstring(make(legend=False))
    assert key in texts(with_key) and key not in texts(without)
    assert with_key.get("viewBox") == without.get("viewBox")
    assert bars(with_key, "ch-target") == bars(without, "ch-target")


def test_overlap_without_a_proposal_marks_nothing():
    root = ET.fromstring(overlap(proposal=None))
    assert "proposed" not in texts(root) and not root.findall(".//path[@class='ch-mark']")


@pytest.mark.parametrize("p, q, verdict", [
    ([E[0], E[8]], [E[4], E[4]], "p = 0, so it is always rejected"),
    ([E[2], E[6]], [E[4], E[4]], "accepted with probability p/q = 4/8"),
    ([E[5], E[3]], [E[4], E[4]], "p ≥ q, so it is accepted outright"),
])
def test_overlap_desc_states_the_rule_for_the_proposal(p, q, verdict):
    assert verdict in ET.fromstring(overlap_chart(["x", "y"], p, q, 0, 2, "v", alpha=overlap_of(p, q))).find("desc").text


@pytest.mark.parametrize("x, denom, shown", [(F(1, 2), 8, "4/8"), (F(0), 8, "0"), (F(1), 8, "1"),
                                             (F(1, 3), 8, "1/3"), (F(1, 2), 64, "1/2")])
def test_fractions_show_over_the_common_denominator_when_exact(x, denom, shown):
    root = ET.fromstring(convergence_chart(["a", "b"], [x, 1 - x], [1, 1], 0.0, 1.0, "position 1", "f", denom=denom))
    assert f"a: p {shown}," in root.find("desc").text


def test_convergence_draws_target_bars_to_scale_and_states_n_and_tv():
    root = ET.fromstring(convergence())
    found = heights_by_x(root, "ch-target")
    hs = [found[x] for x in sorted(found)]
    nonzero = [float(v) for v in P if v]
    assert [h / hs[0] for h in hs] == pytest.approx([v / nonzero[0] for v in nonzero])
    assert "position 1: 100,000 rounds" in texts(root) and "TV 0.0021 ≤ bound 0.0097" in texts(root)
    assert "0.0021 over 100,000 rounds, within the bound 0.0097" in root.find("desc").text


def test_convergence_observed_markers_sit_at_the_observed_frequency():
    counts = [50_000, 12_500, 0, 0, 25_000, 12_500]  # exactly the target: each diamond centres on its bar top
    root = ET.fromstring(convergence(counts))
    tops = {x: top for x, (top, _) in bars(root, "ch-target").items()}
    base = float(re.search(r" ([\d.]+)H", root.find("./path[@class='ch-axis']").get("d")).group(1))
    marks = observed_marks(root)
    assert len(marks) == 6 and len(tops) == 4
    for x, y in marks:
        assert y == pytest.approx(tops.get(round(x, 1), base), abs=0.11)


def test_convergence_observed_marker_follows_the_counts_not_the_target():
    root = ET.fromstring(convergence([0, 10, 0, 0, 0, 0]))  # every round committed "cat"
    base = float(re.search(r" ([\d.]+)H", root.find("./path[@class='ch-axis']").get("d")).group(1))
    heights = [base - y for _, y in observed_marks(root)]
    assert heights == pytest.approx([0, 112, 0, 0, 0, 0], abs=0.11)  # 112 = the plot height, probability 1
    assert "1.000" in texts(root)


def test_convergence_reports_a_tv_above_its_bound_honestly():
    svg = convergence_chart(VOCAB, P, [1, 0, 0, 0, 0, 0], 0.5, 0.1, "position 2", "bad")
    assert "TV 0.5000 &gt; bound 0.1000" in svg and "above the bound" in svg


def test_convergence_with_no_rounds_draws_only_the_target():
    root = ET.fromstring(convergence([0] * 6))
    assert "position 1: 0 rounds reached it" in texts(root)
    assert not observed_marks(root) and "observed" not in texts(root)
    assert len(bars(root, "ch-target")) == 4
    assert "No Monte Carlo round reached this position" in root.find("desc").text


def test_lengths_bars_are_to_scale_and_labelled_exactly():
    root = ET.fromstring(lengths())
    (d,) = [el.get("d") for el in paths(root, "ch-target") if "H" in el.get("d")]
    widths = [float(x2) - float(x1) for x1, x2 in re.findall(r"M([\d.]+) [\d.]+H([\d.]+)v12H", d)]
    assert len(widths) == len(DIST)
    assert [w / widths[0] for w in widths] == pytest.approx([float(d / DIST[0]) for d in DIST], abs=0.01)
    shown = texts(root)
    assert "7203/16384 ≈ 44.0%" in shown and "2/8 ≈ 25.0%" in shown and "observed 43.9%" in shown
    assert [f"n = {n}" for n in range(1, 7)] == [t for t in shown if t.startswith("n = ")]
    title = root.find("title").text
    assert "mean" in title and "3.92" in title
    assert len(observed_marks(root)) == 6


def test_lengths_without_rounds_shows_exact_values_only():
    root = ET.fromstring(lengths(observed=[0] * 6))
    assert not root.findall(".//path[@class='ch-observed']")
    assert "no Monte Carlo rounds: exact values only" in texts(root)


def test_speedup_draws_one_line_per_cost_with_the_highlight_heavier_and_labelled():
    root = ET.fromstring(speedup())
    lines = [p for p in root.iter("path") if "ch-line" in p.get("class", "").split()]
    assert sorted(p.get("class") for p in lines) == ["ch-line ch-s0", "ch-line ch-s1 ch-hi", "ch-line ch-s2"]
    assert all(p.get("d").count("L") == len(SPEED) - 1 for p in lines)
    shown = texts(root)
    assert all(label in shown for label in COSTS)
    assert [t.get("class") for t in root.iter("text") if t.text == COSTS[1]] == ["ch-sm ch-b"]
    assert "1× = no gain" in shown and "speedup ×" in shown and "k (positions drafted per round)" in shown
    assert root.findall(".//path[@class='ch-ref']")


def test_speedup_line_points_are_to_scale():
    root = ET.fromstring(speedup())
    (line,) = [p for p in root.iter("path") if p.get("class") == "ch-line ch-s0"]
    ys = [float(y) for y in re.findall(r"[ML][\d.]+ ([\d.]+)", line.get("d"))]
    (axis,) = root.findall("./path[@class='ch-axis']")
    base = float(re.search(r"V([\d.]+)", axis.get("d")).group(1))
    heights = [base - y for y in ys]
    assert [h / heights[0] for h in heights] == pytest.approx([float(r[0] / SPEED[0][0]) for r in SPEED], abs=0.01)


@pytest.mark.parametrize("highlight", [None, -1])
def test_speedup_without_a_highlight_draws_every_line_alike(highlight):
    root = ET.fromstring(speedup_chart(SPEED, COSTS, highlight, "none"))
    assert not [el for el in root.iter() if "ch-hi" in el.get("class", "")]
    assert "this page" not in ET.tostring(root, encoding="unicode")


def test_speedup_labels_that_end_close_together_are_pushed_apart():
    rows = [[F(2), F(2), F(2)] for _ in range(3)]
    root = ET.fromstring(speedup_chart(rows, COSTS, 0, "tie"))
    ys = sorted(float(t.get("y")) for t in root.iter("text") if t.text in COSTS)
    assert len(ys) == 3 and min(b - a for a, b in zip(ys, ys[1:])) >= 20


def test_representative_page_set_stays_small():
    charts = [overlap(prefix=f"o{i}") for i in range(5)] + [convergence(prefix=f"c{i}") for i in range(12)]
    charts += [lengths(prefix=f"l{i}") for i in range(2)] + [speedup(prefix=f"s{i}") for i in range(2)]
    size = len("".join(charts).encode())
    print(f"\n21 charts: {size:,} bytes raw")
    assert size < 55_000


@pytest.mark.parametrize("call, message", [
    (lambda: overlap_chart(VOCAB, P[:5], Q, 0, 1, "x", alpha=overlap_of(P, Q)), "target has 5 entries; expected 6"),
    (lambda: overlap_chart(VOCAB, P, Q, 6, 1, "x", alpha=overlap_of(P, Q)), "proposal 6 is not an index"),
    (lambda: convergence_chart(VOCAB, P, [1, 2], 0, 1, "p", "x"), "counts has 2 entries; expected 6"),
    (lambda: lengths_chart(DIST, [1], "x", mean=mean_tokens(DIST)), "observed has 1 entries; expected 6"),
    (lambda: speedup_chart(SPEED, COSTS, 3, "x"), "highlight 3 is not a column"),
])
def test_rejects_mismatched_inputs(call, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        call()

"""The batching figure's Python side (speculative/figures/roofline.py): its table for readers without scripting is
roofline.speedup at the right settings and its stops-paying words are roofline.stops_paying's, for any valid data
file; the prose's tie to the explorer's cost model appears exactly when it holds; the trace part keeps the contract
with the script (templates/js/roofline*.js)."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from html import unescape

import pytest

from speculative import roofline as rl
from speculative import roofline_charts as ch
from speculative import strings, trees
from speculative.figures.roofline import Roofline
from speculative.text import decimal_str

from .conftest import edited_data


@pytest.fixture(scope="session")
def model(explained) -> Roofline:
    return Roofline(explained, ())


@pytest.fixture(scope="session")
def facts(model) -> dict:
    return model.context()["roofline_facts"]


def defaults(data):
    rf = data.roofline
    return rf.hardware[0], rf.pairs[0], rf.bytes_per_parameter


def test_each_table_cell_is_the_models_speedup_at_its_batch_and_the_slow_ones_are_marked(dataset, facts):
    hw, pair, b = defaults(dataset)
    k = dataset.k
    assert facts["batches"] == [f"{n:,}" for n in dataset.roofline.table_batches]
    assert [row["name"] for row in facts["rows"]] == [p.name for p in dataset.profiles]
    for row, p in zip(facts["rows"], dataset.profiles, strict=True):
        e = rl.expected_tokens(dataset.target, p.draft, k, 1)
        values = [rl.speedup(e, pair, hw, b, n, k) for n in dataset.roofline.table_batches]
        assert [c["text"] for c in row["cells"]] == [f"{ch.speedup_str(v)}×" for v in values]
        assert [c["slow"] for c in row["cells"]] == [v < 1 for v in values]


def test_the_stops_paying_column_says_what_stops_paying_finds(dataset, facts):
    hw, pair, b = defaults(dataset)
    page = strings.ROOFLINE_PAGE
    for row, p in zip(facts["rows"], dataset.profiles, strict=True):
        stop = rl.stops_paying(rl.expected_tokens(dataset.target, p.draft, dataset.k, 1), pair, hw, b, dataset.k)
        want = (page["beyond_cell"].replace("{n}", f"{rl.MAX_BATCH:,}") if stop is None else page["never_cell"]
                if stop == 1 else f"{stop:,}")
        assert row["stop"] == want


def test_the_stop_sentence_and_the_charts_crossing_follow_stops_paying(dataset, facts):
    hw, pair, b = defaults(dataset)
    stop = rl.stops_paying(rl.expected_tokens(dataset.target, dataset.profiles[0].draft, dataset.k, 1), pair, hw, b, dataset.k)
    w = strings.ROOFLINE
    said = {None: w["stop_beyond"].replace("{n}", f"{rl.MAX_BATCH:,}"), 1: w["stop_never"]}.get(
        stop, w["stop_at"].replace("{n}", f"{stop:,}"))
    assert facts["stop"] == said
    crossed = stop is not None and 1 < stop <= 2 ** ch.BATCH_LOG2_MAX
    assert ('class="roofline-cross"' in facts["speedup_chart"]) == crossed
    assert "data-roofline-speedup" in facts["speedup_chart"] and "data-roofline-pass" in facts["pass_chart"]


def test_a_speedup_below_a_hundredth_is_written_as_below_not_as_zero():
    assert ch.speedup_str(Fraction(1, 101)) == "<\u00a00.01" and ch.speedup_str(0.004) == "<\u00a00.01"
    assert ch.speedup_str(Fraction(1, 100)) == "0.01" and ch.speedup_str(Fraction(262, 100)) == "2.62"


def test_the_line_under_the_controls_names_the_default_setting(dataset, facts):
    rf, k = dataset.roofline, dataset.k
    assert facts["shown"] == strings.ROOFLINE["shown"].format(
        hardware=rf.hardware[0].name, pair=rf.pairs[0].name, profile=dataset.profiles[0].name,
        positions=strings.ROOFLINE["positions_one" if k == 1 else "positions_many"].format(k=k),
        candidates=strings.ROOFLINE["candidates_one"], batch=strings.ROOFLINE["batch_one"])


def test_the_widest_tree_facts_are_roofline_pys_and_the_explorers(dataset, facts):
    from speculative.stats import speedup_curve

    hw, pair, b = defaults(dataset)
    k, m, w = dataset.k, trees.MAX_CANDIDATES, facts["widest"]
    e = rl.expected_tokens(dataset.target, dataset.profiles[0].draft, k, m)
    a = [trees.position(t, q, m, trees.WITHOUT).acceptance for t, q in zip(dataset.target, dataset.profiles[0].draft, strict=True)]
    assert set(w) == {"m", "scored", "past_at_one", "speedup", "explorer_speedup"}
    assert w["m"] == m and w["scored"] == f"{rl.scored(k, m):,}" and w["past_at_one"] == (rl.scored(k, m) > rl.knee(hw, b))
    assert w["speedup"] == ch.speedup_str(rl.speedup(e, pair, hw, b, 1, k, m))
    assert w["explorer_speedup"] == ch.speedup_str(speedup_curve(a, dataset.cost, width=m)[k - 1])


def test_a_check_past_the_token_axis_is_a_triangle_at_the_end_of_the_targets_line(model):
    """Drawn where the line leaves the chart (its tip on the right edge at the line's end), pointing on along it."""
    ax = model.trace()["axes"]
    lines = {"target": lambda t: 1e-2 * max(1, t / 256), "draft": lambda t: 1e-3 * max(1, t / 256)}
    svg = ch.pass_chart(ax, lines, 256.0, 4096, 2 ** 20, "", "", "")
    line = re.search(r'class="roofline-line roofline-target" d="M[^"]*L([\d.]+) ([\d.]+)"', svg)
    arrow = re.search(r'<path class="roofline-check" d="M([\d.]+) ([\d.]+)L([\d.]+) ([\d.]+)L([\d.]+) ([\d.]+)z"', svg)
    assert line and arrow and arrow.group(1, 2) == line.group(1, 2) and float(line.group(1)) == ch.RIGHT
    base = [float(v) for v in arrow.groups()[2:]]
    assert max(base[0], base[2]) < ch.RIGHT and min(base[1], base[3]) > float(line.group(2)) - 12  # behind the tip, up the line
    assert "roofline-step" in svg and 'class="roofline-check" d="M' in svg


def test_the_explorer_tie_holds_exactly_when_the_first_pair_is_the_files_cost_model(dataset, explained, facts):
    hw, pair, b = defaults(dataset)
    cost, k = dataset.cost, dataset.k
    ours = [rl.speedup(rl.expected_tokens(dataset.target, p.draft, k, 1), pair, hw, b, 1, k) for p in dataset.profiles]
    same = pair.ratio == cost.draft_step and cost.verify_round == 1
    tie = facts["explorer"]
    assert tie["same_ratio"] == same
    assert tie["matches"] == (same and ours == [r.stats.speedup for r in explained.results])
    assert [s["value"] for s in tie["speedups"]] == [decimal_str(v) for v in ours]


def test_the_folds_crossing_is_the_closed_form_and_the_first_batch_past_it(dataset, facts):
    hw, pair, b = defaults(dataset)
    k, reg = dataset.k, facts["regimes"]
    e = rl.expected_tokens(dataset.target, dataset.profiles[0].draft, k, 1)
    stop = rl.stops_paying(e, pair, hw, b, k)
    if reg["crossing"] is not None:
        cross = rl.crossing(e, k, pair.ratio, rl.knee(hw, b))
        assert cross is not None and reg["crossing"] == decimal_str(cross, 1)
        assert stop is not None and reg["stop"] == f"{stop:,}" and stop == int(cross) + 1  # the first whole batch past n*


def test_the_trace_part_keeps_the_contract_with_the_script(dataset, model):
    part = json.loads(json.dumps(model.trace()))  # plain JSON, as the page carries it
    rf, k = dataset.roofline, dataset.k
    assert {"hardware", "pairs", "bytes", "k", "widths", "profiles", "batch_log2_max", "defaults", "axes"} <= set(part)
    assert [(h["name"], h["bandwidth"], h["flops"]) for h in part["hardware"]] == \
        [(h.name, float(h.bandwidth), float(h.flops)) for h in rf.hardware]
    assert [(p["name"], p["target"], p["draft"]) for p in part["pairs"]] == [(p.name, float(p.target), float(p.draft)) for p in rf.pairs]
    assert part["bytes"] == float(rf.bytes_per_parameter) and part["k"] == k and part["widths"] == [1, 2, 3, 4]
    assert part["batch_log2_max"] == 12 and part["axes"]["tokens_log2_max"] == 14
    assert part["defaults"] == {"hardware": 0, "pair": 0, "profile": 0, "k": k, "m": 1, "batch_log2": 0}
    for p, prof in zip(part["profiles"], dataset.profiles, strict=True):
        assert p["name"] == prof.name and len(p["a"]) == 4
        for m, row in enumerate(p["a"], start=1):
            assert row == [float(trees.position(t, q, m, trees.WITHOUT).acceptance) for t, q in zip(dataset.target, prof.draft, strict=True)]


def test_the_context_round_trips_through_json(model):
    context = model.context()
    assert json.loads(json.dumps(context)) == context


def test_the_scripts_words_all_reach_the_trace():
    assert not set(strings.ROOFLINE) & strings.BUILD_ONLY
    assert "ROOFLINE" in Roofline.WORDS and "ROOFLINE_PAGE" not in Roofline.WORDS


@pytest.mark.shipped
def test_the_shipped_defaults_give_the_explorers_seed_speedups_and_the_known_crossings(facts):
    assert [c["text"] for c in facts["rows"][0]["cells"][:1]] == ["2.62×"] and facts["rows"][0]["stop"] == "169"
    assert facts["rows"][1]["cells"][0]["text"] == "1.75×"
    assert facts["explorer"]["matches"] and facts["regimes"]["stop_wide"] == "21"


# --- the prose, after edits of the known data file ----------------------------------------------------------------------

def draft_step_fifth(raw):
    raw["cost_model"]["draft_step"] = "1/5"


def slow_memory_fast_arithmetic(raw):  # the same ratio, but on hardware whose knee is below one token
    raw["roofline"] = {"hardware": [{"name": "a strange chip", "bandwidth_gb_s": 100000, "tflops": 1}]}


def as_shipped(raw):
    pass


EDITS = {f.__name__: f for f in (as_shipped, draft_step_fifth, slow_memory_fast_arithmetic)}
SAYS = {"matches": "is exactly the cost model of the speedup explorer",
        "same_ratio": "some pass is past the knee even at a batch of 1",
        "differs": "which the speedup explorer uses, sets a draft step at"}


@pytest.fixture(scope="module", params=list(EDITS))
def edited_page(request, tmp_path_factory):
    from speculative import checkout, pipeline
    from speculative.profiles import parse

    path = edited_data(tmp_path_factory.mktemp(request.param), EDITS[request.param])
    files = pipeline.build_files(path, checkout.ROOT / "content", checkout.ROOT / "templates")
    html = re.sub(r"<script.*?</script>|<style>.*?</style>", "", files["index.html"].decode("utf-8"), flags=re.S)
    return parse(path.read_text(encoding="utf-8"), str(path)), " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def test_the_prose_ties_to_the_explorer_only_as_far_as_the_data_allows(edited_page):
    from speculative.stats import speedup_curve

    data, text = edited_page
    hw, pair, b = defaults(data)
    cost, k = data.cost, data.k
    ours = [rl.speedup(rl.expected_tokens(data.target, p.draft, k, 1), pair, hw, b, 1, k) for p in data.profiles]
    alphas = [[sum(min(x, y) for x, y in zip(t, q, strict=True)) for t, q in zip(data.target, p.draft, strict=True)]
              for p in data.profiles]  # the accept test's α at each position
    theirs = [speedup_curve(a, cost)[-1] for a in alphas]  # the explorer's speedup at k = all, the file's draft step
    same = pair.ratio == cost.draft_step and cost.verify_round == 1
    case = "matches" if same and ours == theirs else "same_ratio" if same else "differs"
    for name, words in SAYS.items():
        assert (words in text) == (name == case), (name, case)
    if case == "matches":
        for p, v in zip(data.profiles, ours, strict=True):
            assert f"{decimal_str(v)}× for {p.name}" in text

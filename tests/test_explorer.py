"""The speedup explorer: its trace slice against the exact statistics, and, in a real Chromium from file://, its
controls (positions drafted, draft step cost, rule, verification cost per position) against that slice."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from playwright.sync_api import Page, expect

from speculative.figures.explorer import (
    Explorer,
    best_paying_k,
    column_texts,
    profile_trace,
    tree_acceptance,
    tree_speedups,
)
from speculative.rules import BY_ID
from speculative.stats import best_k, expected_tokens, round_cost
from speculative.text import cost_phrase, decimal_str

from .conftest import data_is_shipped, script_source
from .test_mutants import call_js, script_twin

NO_K = "at this cost no k beats decoding one token at a time"


@pytest.fixture(scope="module")
def trace(built_site) -> dict:
    return json.loads((built_site / "trace.json").read_text(encoding="utf-8"))


def exact_speedup(explained, i: int, rule: str, v: Fraction, c: Fraction, k: int) -> Fraction:
    """E_k over k·c + verify_round + k·v, from the rule's own acceptance function, not from the tables."""
    data, prof = explained.data, explained.data.profiles[i]
    acc = [BY_ID[rule].acceptance(p, q) for p, q in zip(data.target, prof.draft, strict=True)]
    return expected_tokens(acc[:k]) / (k * c + data.cost.verify_round + k * v)


def test_the_trace_holds_every_rule_verify_cost_and_draft_cost_exactly(explained):
    cost, K = explained.data.cost, explained.data.k
    assert len(cost.verify_costs) > 1 and Fraction(0) in cost.verify_costs
    for i, r in enumerate(explained.results):
        sp = profile_trace(r, Fraction(1))
        for rule in BY_ID:
            for vi, v in enumerate(cost.verify_costs):
                for ci, c in enumerate(cost.compare_draft_steps):
                    col = [exact_speedup(explained, i, rule, v, c, k) for k in range(1, K + 1)]
                    n = next((n for n in (2, 3) if [decimal_str(x, n) for x in col].count(decimal_str(max(col), n)) == 1), 4)
                    assert sp["values"][rule][vi][ci] == [decimal_str(x, n) for x in col]  # the best k reads apart
                    assert sp["slow"][rule][vi][ci] == [x < 1 for x in col]
                    best = max(range(K), key=lambda j: (col[j], -j)) + 1
                    assert sp["best"][rule][vi][ci] == (best if col[best - 1] > 1 else 0)


def test_the_default_state_is_the_accept_test_with_free_checks_as_before(explained):
    for r in explained.results:
        sp, table = profile_trace(r, Fraction(1)), r.stats.speedup_table  # [k][cost]: the page's one table before the controls
        for c in range(len(table[0])):
            assert sp["values"]["accept-test"][0][c] == column_texts([row[c] for row in table])  # the no-JS table's own texts
            assert [Fraction(t) for t in sp["values"]["accept-test"][0][c]] == [  # each the exact value, rounded
                Fraction(decimal_str(row[c], len(t.split(".")[1]))) for row, t in zip(table, sp["values"]["accept-test"][0][c], strict=True)]
            best = best_k([row[c] for row in table])
            assert sp["best"]["accept-test"][0][c] == (best if table[best - 1][c] > 1 else 0)


def test_every_profiles_chart_is_drawn_to_one_scale_the_highest_speedup_any_can_show(explained):
    """Two drafts' charts side by side compare by height only if both use one scale (and one 1× line)."""
    cost, K = explained.data.cost, explained.data.k
    highest = max(exact_speedup(explained, i, rule, v, c, k) for i in range(len(explained.results)) for rule in BY_ID
                  for v in cost.verify_costs for c in cost.compare_draft_steps for k in range(1, K + 1))
    tops = {Explorer(explained, ()).profile_trace(i)["explorer"]["top"] for i in range(len(explained.results))}
    widest = max(max(tree_speedups(acc, m, cost, c, v)) for i in range(len(explained.results))
                 for by_m in tree_acceptance(explained.data.target, explained.data.profiles[i].draft).values()
                 for m, acc in enumerate(by_m, start=1) for v in cost.verify_costs for c in cost.compare_draft_steps)
    assert tops == {round(float(max(highest, widest, 1)), 4)}  # the trees' widths too (tests/test_explorer_trees.py)


@pytest.mark.parametrize("column, best", [((Fraction(1, 2), Fraction(1)), 0), ((Fraction(2), Fraction(2)), 1),
                                          ((Fraction(1), Fraction(3, 2), Fraction(5, 4)), 2)])
def test_the_best_paying_k_is_the_first_highest_and_none_at_or_below_one(column, best):
    assert best_paying_k(column) == best


def explorer(page: Page):
    return page.locator("[data-explorer]")


def choose(fig, rule: int, verify: int, cost: int, k: int) -> None:
    fig.get_by_label("Rule", exact=True).select_option(list(BY_ID)[rule])
    fig.get_by_label("Verification cost per position").select_option(str(verify))
    fig.get_by_label("Draft step cost").select_option(str(cost))
    fig.get_by_label("Positions drafted").fill(str(k))


# (rule, verify cost, draft cost, k) on the shipped data: exact match with the page's own draft cost, greedy with
# the dearest check, the accept test with a cheap check and a cheap draft; on another file each index is taken to
# its last option when the file offers fewer (fewer positions, verification costs or draft costs)
COMBOS = [(2, 0, 3, 5), (1, 3, 3, 2), (0, 1, 0, 5), (2, 3, 7, 1)]


@pytest.mark.browser
@pytest.mark.parametrize("rule, verify, cost, k", COMBOS)
def test_rule_and_verification_cost_change_the_figures_to_the_exact_values(page: Page, page_url, explained, trace,
                                                                          rule, verify, cost, k):
    page.goto(page_url)
    fig, data = explorer(page), explained.data
    verify, cost = min(verify, len(data.cost.verify_costs) - 1), min(cost, len(data.cost.compare_draft_steps) - 1)
    k = min(k, data.k)
    choose(fig, rule, verify, cost, k)
    readout = fig.locator("[data-explorer-readout]")
    if rule:  # the readout names a rule other than the accept test
        expect(readout).to_contain_text(f"Checked by {trace['explorer']['rules'][rule]['name']}:")
    v, c = data.cost.verify_costs[verify], data.cost.compare_draft_steps[cost]
    total = round_cost(k, data.cost, c, v)
    if v:
        expect(readout).to_contain_text(f"{k} · {c} + {data.cost.verify_round} + {k} · {v} = {cost_phrase(total)}.")
    else:
        expect(readout).to_contain_text(f"a round costs {cost_phrase(total)}.")
    for i, p in enumerate(trace["profiles"]):
        col = [exact_speedup(explained, i, list(BY_ID)[rule], v, c, j) for j in range(1, data.k + 1)]
        shown = column_texts(col)  # 2 decimals, or more where the best k would tie another
        expect(readout).to_contain_text(f"For {p['name']}, drafting k = {k} gives {shown[k - 1]}×")
        best = best_paying_k(col)
        expect(readout).to_contain_text(f"the best k is {best} ({shown[best - 1]}×)" if best else NO_K)
        row = fig.locator(".explorer-row").nth(i)
        expect(row.locator(".explorer-val")).to_have_text([f"{x}×" for x in shown])
        expect(row.locator(".explorer-col.is-slow")).to_have_count(sum(x < 1 for x in col))
        expect(row.locator(".explorer-col.is-best .explorer-k")).to_have_text([str(best)] if best else [])


@pytest.mark.browser
def test_a_dearer_check_moves_the_best_k_down_and_the_bars_with_it(page: Page, page_url, trace):
    page.goto(page_url)
    fig = explorer(page)
    page_c, nv = int(fig.get_by_label("Draft step cost").input_value()), len(trace["explorer"]["verify"])
    best = lambda i, v, c: trace["profiles"][i]["explorer"]["best"]["accept-test"][v][c]  # noqa: E731
    # the page's own draft cost first (the shipped data's case), then the others the select offers
    moved = [(c, i) for c in [page_c, *(c for c in range(len(trace["explorer"]["costs"])) if c != page_c)]
             for i in range(len(trace["profiles"])) if best(i, 0, c) > best(i, nv - 1, c)]
    if data_is_shipped():
        assert moved and moved[0][0] == page_c, "on the shipped data the dearest check moves some draft's best k at the page's draft cost"
    if not moved:
        pytest.skip("at no draft cost on offer does the dearest check move any draft's best k down in this data file")
    c, i = moved[0]
    fig.get_by_label("Draft step cost").select_option(str(c))
    row = fig.locator(".explorer-row").nth(i)
    bar = row.locator(".explorer-bar").last
    best_k = row.locator(".explorer-col.is-best .explorer-k")
    expect(best_k).to_have_text(str(best(i, 0, c)))
    free = bar.bounding_box()["height"]
    fig.get_by_label("Verification cost per position").select_option(str(nv - 1))
    expect(best_k).to_have_text([str(best(i, nv - 1, c))] if best(i, nv - 1, c) else [])  # none when no k pays
    assert bar.bounding_box()["height"] < free


@pytest.mark.browser
def test_the_speedup_explorer_shows_the_trace_values(page: Page, page_url, trace):
    page.goto(page_url)
    fig = explorer(page)
    costs = trace["explorer"]["costs"]
    expect(fig.get_by_label("Rule", exact=True)).to_have_value("accept-test")
    expect(fig.get_by_label("Verification cost per position")).to_have_value(str(trace["explorer"]["verify"].index("0")))
    for c, _cost in enumerate(costs):
        fig.get_by_label("Draft step cost").select_option(str(c))
        for k in (1, trace["k"]):
            fig.get_by_label("Positions drafted").fill(str(k))
            readout = fig.locator("[data-explorer-readout]")
            expect(readout).to_contain_text(f"a draft step costing {trace['explorer']['cost_text'][c]}")
            total = Fraction(trace["explorer"]["round_costs"][0][c][k - 1])
            expect(readout).to_contain_text(f"round costs {cost_phrase(total)}.")  # "1 target pass", "3/2 target passes"
            for p in trace["profiles"]:
                s = {key: p["explorer"][key]["accept-test"][0][c] for key in ("values", "slow", "best")}
                best = f"the best k is {s['best']}" if s["best"] else NO_K
                expect(readout).to_contain_text(f"For {p['name']}, drafting k = {k} gives {s['values'][k - 1]}×")
                expect(readout).to_contain_text(best)
    first = lambda p, c: {key: p["explorer"][key]["accept-test"][0][c] for key in ("slow", "best")}  # noqa: E731
    slow = [(c, p) for p in trace["profiles"] for c in range(len(costs)) if True in first(p, c)["slow"] and first(p, c)["best"]]
    if data_is_shipped():
        assert slow, "the costs on offer include one where some k beats plain decoding and another k is slower"
    if slow:  # a file may have none: a single position, say, or drafts no k of which is slower at a cost that pays
        c, p = slow[0]
        fig.get_by_label("Draft step cost").select_option(str(c))
        fig.get_by_label("Positions drafted").fill(str(first(p, c)["slow"].index(True) + 1))
        expect(fig.locator("[data-explorer-readout]")).to_contain_text(f"For {p['name']}, drafting k = ")
        expect(fig.locator("[data-explorer-readout]")).to_contain_text("slower than decoding one token at a time")
        expect(fig.locator(".explorer-col.is-slow").first).to_be_visible()
    none = [c for c in range(len(costs)) if not any(first(p, c)["best"] for p in trace["profiles"])]
    if none:  # a cost so high that no k beats plain decoding: the page says so instead of starring a loss
        fig.get_by_label("Draft step cost").select_option(str(none[0]))
        expect(fig.locator("[data-explorer-readout]")).to_contain_text(NO_K)
        expect(fig.locator(".explorer-col.is-best")).to_have_count(0)


def test_a_best_k_that_ties_another_at_two_decimals_is_shown_with_more():
    from fractions import Fraction as F

    assert column_texts([F(1), F(1813, 1000), F(1811, 1000)]) == ["1.000", "1.813", "1.811"]  # 1.81 twice: 3 places
    assert column_texts([F(1), F(18, 10), F(17, 10)]) == ["1.00", "1.80", "1.70"]  # distinct at 2 places: kept
    assert column_texts([F(2), F(2)]) == ["2.0000", "2.0000"]  # a true tie stays a tie, at the most places


@script_twin
def test_a_rounds_cost_takes_the_noun_python_gives_it(tmp_path, trace):
    """explorer.js's stepsNoun agrees with text.cost_phrase: "1 target pass", "1/2 of a target pass", "3/2 target
    steps", so no readout says "1 target passes" whatever the data's costs make a round cost."""
    costs = ["0", "1", "1/2", "3/2", "2", "101/100", "99/100"]
    source = script_source("core.js", "explorer.js")
    got = call_js(tmp_path, "([costs, E]) => {" + source + " return costs.map(c => c + ' ' + stepsNoun(E, c)); }",
                  [costs, trace["text"]["explorer"]])
    assert got == [cost_phrase(Fraction(c)) for c in costs]


@pytest.mark.browser
def test_every_bar_colour_the_explorer_draws_has_a_swatch_in_its_key(page: Page, page_url):
    """A first-time reader found a dark-red bar the key did not name (the picked k, below 1×). Each kind of bar,
    faint or picked, at or below 1×, must match one swatch of the key in colour and opacity."""
    page.goto(page_url)
    fig = page.locator("[data-explorer]")
    cost = fig.get_by_label("Draft step cost")
    cost.select_option(str(cost.locator("option").count() - 1))  # the dearest draft: every k below 1×
    expect(fig.locator(".explorer-col.is-slow.is-k")).not_to_have_count(0)
    looks = """els => els.map(e => { const s = getComputedStyle(e, %s); return s.backgroundColor + ' ' + s.opacity; })"""
    bars = set(fig.locator(".explorer-bar").evaluate_all(looks % "null"))
    cost.select_option("0")  # the cheapest: some k above 1×
    bars |= set(fig.locator(".explorer-bar").evaluate_all(looks % "null"))
    swatches = set(fig.locator(".fig-key > span").evaluate_all(looks % "'::before'"))
    assert len(bars) == 4, bars  # faint, picked; each at or below 1×
    assert bars <= swatches, bars - swatches


# Each label's box and the 1× line's height, in page pixels, for every bar the explorer draws now: the line is the
# chart's ::after, drawn at 1/top of the chart's height above its bottom edge.
LABELS_AND_LINES = """fig => [...fig.querySelectorAll('.explorer-chart')].flatMap(chart => {
  const box = chart.getBoundingClientRect(), style = getComputedStyle(chart);
  const line = box.bottom - parseFloat(style.borderBottomWidth) - parseFloat(getComputedStyle(chart, '::after').bottom);
  return [...chart.querySelectorAll('.explorer-val')].map(v => {
    const r = v.getBoundingClientRect();
    return { text: v.textContent, top: r.top, bottom: r.bottom, line };
  });
})"""


@pytest.mark.browser
def test_no_value_label_crosses_the_one_times_line_at_any_setting(page: Page, page_url, trace):
    """Every rule, verification cost and draft cost the explorer offers: each bar's label lies wholly above or
    wholly below the dashed 1× line, so the line never runs through a number."""
    page.goto(page_url)
    fig = explorer(page)
    choose(fig, 0, 0, 0, trace["k"])  # through the controls once, as a reader would; then every setting in one call
    rules, nv, nc = len(trace["rules"]), len(trace["explorer"]["verify"]), len(trace["explorer"]["costs"])
    settings = [[rule, str(verify), str(cost)] for rule in list(BY_ID)[:rules] for verify in range(nv) for cost in range(nc)]
    crossed = crossings(fig, ("Rule", "Verification cost per position", "Draft step cost"), settings)
    assert len(settings) == rules * nv * nc and settings[-1][0] == list(BY_ID)[rules - 1]
    assert not crossed, f"labels the 1× line runs through (rule, verify, cost, label): {crossed[:8]}"


def crossings(fig, labels: tuple[str, ...], settings: list[list[str]]) -> list[list[str]]:
    """Returns [*values, label] for each bar label the 1× line runs through, at each setting: the controls named by
    `labels` set to `values` and their input and change events sent, all in one call to the page (the explorer
    redraws as each event arrives)."""
    controls = [fig.get_by_label(name, exact=True).element_handle() for name in labels]
    return fig.evaluate("""(fig, [controls, settings]) => settings.flatMap(values => {
      controls.forEach((c, i) => { c.value = values[i]; c.dispatchEvent(new Event('input', { bubbles: true }));
                                   c.dispatchEvent(new Event('change', { bubbles: true })); });
      return (""" + LABELS_AND_LINES + """)(fig).filter(l => l.top < l.line && l.line < l.bottom).map(l => [...values, l.text]);
    })""", [controls, settings])

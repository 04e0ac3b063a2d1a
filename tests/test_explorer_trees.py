"""The speedup explorer's tree width m: A per position from speculative/trees.py, a tree's speedup
E_k / (k·c + verify_round + v·nodes(m, k)), the best (k, m), the no-JS table, and, in Chromium, the script's exact twin
of the build's arithmetic and the width control."""

from __future__ import annotations

import json
from fractions import Fraction as F

import pytest
from playwright.sync_api import Page, expect

from speculative import strings, text, trees
from speculative.figures.explorer import (
    DEFAULT_WAY,
    Explorer,
    best_tree,
    column_texts,
    tree_acceptance,
    tree_cell,
    tree_speedups,
    verify_phrase,
)
from speculative.stats import expected_tokens, round_cost

from .conftest import axe_violations, script_source
from .test_mutants import call_js, script_twin

T = strings.EXPLORER_TREES


def acceptances(explained, i: int) -> dict:
    return tree_acceptance(explained.data.target, explained.data.profiles[i].draft)


def brute_force(explained, i: int, way, c: F, v: F) -> tuple[F, int, int]:
    """The best (speedup, k, m) from trees.position and the cost model written out: highest, then narrowest, then
    shallowest."""
    data, found = explained.data, []
    for m in range(1, trees.MAX_CANDIDATES + 1):
        acc = [trees.position(p, q, m, way).acceptance for p, q in zip(data.target, data.profiles[i].draft, strict=True)]
        for k in range(1, data.k + 1):
            nodes = sum(m ** d for d in range(1, k + 1))
            found.append((expected_tokens(acc[:k]) / (k * c + data.cost.verify_round + nodes * v), -m, -k))
    s, m, k = max(found)
    return s, -k, -m


# --- the shipped data, worked by hand ---------------------------------------------------------------------------

@pytest.mark.shipped
def test_the_aligned_drafts_two_candidates_keep_one_with_the_hand_worked_chances(explained):
    """Aligned draft, m = 2. With replacement at position 1: α = 3/4, r₂ = (1/2, 0, 0, 0, 1/2, 0) after peeling q, and
    Σ min(r₂, q) = 1/8 + 1/8 = 1/2, so A = 1 − (1/4)(1/2) = 7/8. E(k = 5) = 1 + A₁ + A₁A₂ + … ."""
    shown = Explorer(explained, ()).profile_trace(0)["explorer"]["tree"]
    assert shown["with"][1] == ["7/8", "57/64", "15/16", "15/16", "57/64"]
    assert shown["without"][1] == ["25/28", "25/28", "53/56", "23/24", "25/28"]
    assert expected_tokens([F(a) for a in shown["with"][1]]) == F(39257271, 8388608)
    assert shown["with"][0] == shown["without"][0] == ["3/4", "7/8", "7/8", "7/8", "7/8"]  # one candidate: α


@pytest.mark.shipped
def test_a_two_wide_tree_of_depth_five_costs_its_62_nodes(explained):
    """k = 5, m = 2: 2 + 4 + 8 + 16 + 32 = 62 nodes; at c = 1/10 and v = 1/20 a round costs 1/2 + 1 + 62/20 = 23/5."""
    cost, acc = explained.data.cost, acceptances(explained, 0)["with"][1]
    assert trees.tree_nodes(2, 5) == 62
    assert round_cost(5, cost, F(1, 10), F(1, 20), 62) == F(23, 5)
    assert tree_speedups(acc, 2, cost, F(1, 10), F(0))[-1] == F(39257271, 8388608) / F(3, 2)
    assert tree_speedups(acc, 2, cost, F(1, 10), F(1, 20))[-1] == F(39257271, 8388608) / F(23, 5)


@pytest.mark.shipped
def test_the_no_script_table_of_best_trees_on_the_shipped_data(explained):
    """At the file's draft step 1/10, without replacement. Free checks: the aligned draft's widest, deepest tree,
    E = 241/42 (A = 199/210 then four 1s) over 3/2 = 241/63 ≈ 3.83. At v = 1/20 one candidate wins: k = 5, m = 1
    gives (64267/16384) / (7/4) ≈ 2.24, against 2109/784 / (3/2) ≈ 1.79 for k = 2, m = 2."""
    table = Explorer(explained, ()).context()["explorer"]["trees"]
    assert [row["verify"] for row in table] == ["free (0)", "1/100 of a target pass", "1/20 of a target pass",
                                                "1/10 of a target pass"]
    assert table[0]["cells"][0] == {"k": 5, "m": 4, "value": "3.83", "pays": True}
    assert table[2]["cells"][0] == {"k": 5, "m": 1, "value": "2.24", "pays": True}


@pytest.mark.shipped
def test_the_page_without_scripting_reads_the_best_trees(page_text):
    assert ("The best tree (depth k, width m up to 4) by verification cost per scored node, at a draft step costing "
            "1/10 of a target pass, candidates drawn without replacement (Recursive Speculative Decoding).") in page_text
    assert "k = 5, m = 4: 3.83×" in page_text and "k = 2, m = 3: 2.02×" in page_text  # divergent, v = 1/100


# --- any valid data file ----------------------------------------------------------------------------------------

def test_one_candidate_is_todays_chain_exactly(explained):
    """m = 1 either way is the accept test: its A are the α, and its speedups at every verification and draft cost
    are the accept test's tables, so the explorer at width 1 shows what it showed before."""
    cost = explained.data.cost
    for i, r in enumerate(explained.results):
        rule = next(f for f in r.stats.rules if f.rule == "accept-test")
        for way, by_m in acceptances(explained, i).items():
            assert by_m[0] == r.stats.alphas == rule.acceptance, way
            for v, table in zip(cost.verify_costs, rule.speedup_tables, strict=True):
                for ci, c in enumerate(cost.compare_draft_steps):
                    assert tree_speedups(by_m[0], 1, cost, c, v) == [row[ci] for row in table]


def test_the_trace_carries_a_per_position_for_every_width_and_way_exactly(explained):
    data = explained.data
    for i, prof in enumerate(data.profiles):
        shown = Explorer(explained, ()).profile_trace(i)["explorer"]["tree"]
        assert set(shown) == {s.id for s in trees.SPECS}
        for spec in trees.SPECS:
            assert shown[spec.id] == [[str(trees.position(p, q, m, spec).acceptance)
                                       for p, q in zip(data.target, prof.draft, strict=True)]
                                      for m in range(1, trees.MAX_CANDIDATES + 1)]


def test_with_free_checks_the_speedup_never_falls_as_the_tree_widens(explained):
    cost = explained.data.cost
    for i in range(len(explained.results)):
        for by_m in acceptances(explained, i).values():
            for c in cost.compare_draft_steps:
                curves = [tree_speedups(acc, m, cost, c, F(0)) for m, acc in enumerate(by_m, start=1)]
                assert all(a <= b for lo, hi in zip(curves, curves[1:], strict=False) for a, b in zip(lo, hi, strict=True))


def test_without_replacement_never_keeps_a_candidate_less_often(explained):
    """What the figure's note says of the default way, on this file: A without ≥ A with at every position and m."""
    for i in range(len(explained.results)):
        acc = acceptances(explained, i)
        assert all(a >= b for wo, wi in zip(acc["without"], acc["with"], strict=True)
                   for a, b in zip(wo, wi, strict=True))


def test_the_best_tree_is_a_brute_force_searchs(explained):
    cost = explained.data.cost
    for i in range(len(explained.results)):
        for way in trees.SPECS:
            by_m = acceptances(explained, i)[way.id]
            for v in cost.verify_costs:
                for c in (*cost.compare_draft_steps, cost.draft_step):
                    best = best_tree(by_m, cost, c, v)
                    assert (best.speedup, best.k, best.m) == brute_force(explained, i, way, c, v)
                    col = tree_speedups(by_m[best.m - 1], best.m, cost, c, v)
                    assert best.text == column_texts(col)[best.k - 1]


def test_the_no_script_table_holds_each_drafts_best_tree_per_verification_cost(explained):
    cost, fig = explained.data.cost, Explorer(explained, ())
    ctx = fig.context()["explorer"]
    assert [row["verify"] for row in ctx["trees"]] == [verify_phrase(v) for v in cost.verify_costs]
    for v, row in zip(cost.verify_costs, ctx["trees"], strict=True):
        for i, cell in enumerate(row["cells"]):
            s, k, m = brute_force(explained, i, trees.BY_ID[DEFAULT_WAY], cost.draft_step, v)
            col = tree_speedups(acceptances(explained, i)[DEFAULT_WAY][m - 1], m, cost, cost.draft_step, v)
            assert cell == tree_cell(best_tree(acceptances(explained, i)[DEFAULT_WAY], cost, cost.draft_step, v))
            assert cell == {"k": k, "m": m, "value": column_texts(col)[k - 1], "pays": s > 1}
    assert ctx["tree_cost"] == text.cost_phrase(cost.draft_step)


def test_the_chart_scale_covers_every_width(explained):
    """Every profile's chart shares one top, the highest speedup any rule or any tree width can show."""
    cost, K = explained.data.cost, explained.data.k
    highest = max(tree_speedups(acc, m, cost, c, v)[k] for i in range(len(explained.results))
                  for by_m in acceptances(explained, i).values() for m, acc in enumerate(by_m, start=1)
                  for v in cost.verify_costs for c in cost.compare_draft_steps for k in range(K))
    tops = {Explorer(explained, ()).profile_trace(i)["explorer"]["top"] for i in range(len(explained.results))}
    assert len(tops) == 1 and tops.pop() >= round(float(highest), 4)


# --- the script: its exact twin, and the control ----------------------------------------------------------------

@pytest.fixture(scope="module")
def trace(built_site) -> dict:
    return json.loads((built_site / "trace.json").read_text(encoding="utf-8"))


TWIN = """([profiles, ex]) => {%s
  const out = [];
  profiles.forEach(p => Object.keys(p.explorer.tree).forEach(way => ex.verify.forEach(v => ex.costs.forEach(c => {
    const cost = { c, v, one: ex.verify_round }, byM = p.explorer.tree[way];
    const cols = byM.map((A, j) => { const t = treeColumn(A, j + 1, cost); return [t.values, t.slow, t.best]; });
    const b = bestTree(byM, cost);
    out.push([cols, [b.k, b.m, b.text, b.pays]]);
  }))));
  return out;
}"""


@script_twin
def test_the_scripts_tree_arithmetic_is_the_builds_exactly(tmp_path, explained, trace):
    """explorer_tree.js works in BigInt fractions: its texts, slow flags, best k and best (k, m) equal the build's at
    every profile, way, verification cost, draft cost and width."""
    got = call_js(tmp_path, TWIN % script_source("core.js", "explorer_tree.js"), [trace["profiles"], trace["explorer"]])
    cost, want = explained.data.cost, []
    for i in range(len(explained.results)):
        for by_m in acceptances(explained, i).values():
            for v in cost.verify_costs:
                for c in cost.compare_draft_steps:
                    cols = []
                    for m, acc in enumerate(by_m, start=1):
                        col = tree_speedups(acc, m, cost, c, v)
                        k = max(range(len(col)), key=lambda j, col=col: (col[j], -j))
                        cols.append([column_texts(col), [x < 1 for x in col], k + 1 if col[k] > 1 else 0])
                    b = best_tree(by_m, cost, c, v)
                    want.append([cols, [b.k, b.m, b.text, b.speedup > 1]])
    assert got == want


def width_line(explained, i: int, way: str, c: F, v: F, k: int) -> str:
    """The sentence under a draft's bars: its best (k, m), then its speedup by width at k and where widening stops."""
    by_m, cost = acceptances(explained, i)[way], explained.data.cost
    best = best_tree(by_m, cost, c, v)
    cols = [tree_speedups(acc, m, cost, c, v) for m, acc in enumerate(by_m, start=1)]
    items = T["sep"].join(text.fill(T["item"], {"m": m, "value": column_texts(col)[k - 1]})
                               for m, col in enumerate(cols, start=1))
    at = max(range(len(cols)), key=lambda j: (cols[j][k - 1], -j)) + 1
    stop = text.fill(T["widest"] if at == len(cols) else T["stop"], {"m": at})
    head = (text.fill(T["best"], {"k": best.k, "m": best.m, "value": best.text}) if best.speedup > 1
            else text.fill(T["none"], {"max": len(cols)}))
    return head + text.fill(T["widths"], {"k": k, "list": items, "stop": stop})


@pytest.mark.browser
def test_moving_the_width_updates_the_figure_within_a_frame(page: Page, page_url, explained, trace):
    page.goto(page_url)
    fig, data = page.locator("[data-explorer]"), explained.data
    expect(fig.locator(".explorer-tree")).to_have_count(len(trace["profiles"]))
    ci, vi = int(fig.get_by_label("Draft step cost").input_value()), len(data.cost.verify_costs) - 1
    fig.get_by_label("Verification cost per position").select_option(str(vi))
    c, v, m, k = data.cost.compare_draft_steps[ci], data.cost.verify_costs[vi], min(2, trees.MAX_CANDIDATES), data.k
    # the input event, then one animation frame: the bars, their values and the round's cost are already redrawn
    shown = fig.evaluate("""(root, m) => new Promise(done => {
      const input = root.querySelector('[data-explorer-m]');
      input.value = String(m);
      input.dispatchEvent(new Event('input', { bubbles: true }));
      requestAnimationFrame(() => done({
        values: [...root.querySelectorAll('.explorer-row')].map(r => [...r.querySelectorAll('.explorer-val')].map(e => e.textContent)),
        readout: root.querySelector('[data-explorer-readout]').textContent,
        out: root.querySelector('[data-explorer-m-out]').textContent }));
    })""", m)
    assert shown["out"] == str(m)
    for i in range(len(explained.results)):
        col = tree_speedups(acceptances(explained, i)[DEFAULT_WAY][m - 1], m, data.cost, c, v)
        assert shown["values"][i] == [f"{x}×" for x in column_texts(col)]
    nodes, total = trees.tree_nodes(m, k), round_cost(k, data.cost, c, v, trees.tree_nodes(m, k))
    fields = {"m": m, "k": k, "nodes": nodes, "cost": text.cost_phrase(c), "verify": verify_phrase(v), "c": c, "v": v,
              "one": data.cost.verify_round, "round_cost": total, "steps": text.cost_phrase(total).split(" ", 1)[1],
              "k_text": text.fill(strings.EXPLORER["k_one" if k == 1 else "k_many"], {"k": k})}
    said = text.fill(T["readout_verify"] if v else strings.EXPLORER["readout"], fields)
    assert shown["readout"].startswith(f"{text.fill(T['nodes'], fields)} {said}")
    assert f"{k} · {c} + {data.cost.verify_round} + {nodes} · {v} = {text.cost_phrase(total)}." in said or not v
    for i in range(len(explained.results)):
        expect(fig.locator(".explorer-tree").nth(i)).to_have_text(width_line(explained, i, DEFAULT_WAY, c, v, k))
    expect(fig.get_by_label("Tree width m")).to_have_attribute("aria-valuetext", f"m = {m}")


@pytest.mark.browser
def test_the_way_and_the_depth_change_the_width_sentences(page: Page, page_url, explained):
    page.goto(page_url)
    fig, data = page.locator("[data-explorer]"), explained.data
    fig.get_by_label("Candidates drawn").select_option("with")
    fig.get_by_label("Positions drafted").fill("1")
    fig.get_by_label("Draft step cost").select_option("0")
    fig.get_by_label("Verification cost per position").select_option("0")
    c, v = data.cost.compare_draft_steps[0], data.cost.verify_costs[0]
    for i in range(len(explained.results)):
        expect(fig.locator(".explorer-tree").nth(i)).to_have_text(width_line(explained, i, "with", c, v, 1))


@pytest.mark.browser
def test_width_is_the_accept_tests_alone(page: Page, page_url, trace):
    page.goto(page_url)
    fig = page.locator("[data-explorer]")
    fig.get_by_label("Tree width m").fill(str(trees.MAX_CANDIDATES))
    before = fig.locator(".explorer-row").first.locator(".explorer-val").all_text_contents()
    other = trace["explorer"]["rules"][-1]
    fig.get_by_label("Rule", exact=True).select_option(other["id"])
    expect(fig.get_by_label("Tree width m")).to_be_disabled()
    expect(fig.get_by_label("Candidates drawn")).to_be_disabled()
    expect(fig.locator(".explorer-tree")).to_have_count(0)
    expect(fig.locator("[data-explorer-readout]")).to_contain_text(text.fill(T["off"], {"rule": other["name"]}))
    fig.get_by_label("Rule", exact=True).select_option(trace["explorer"]["tree_rule"])
    expect(fig.get_by_label("Tree width m")).to_be_enabled()
    expect(fig.locator(".explorer-row").first.locator(".explorer-val")).to_have_text(before)


@pytest.mark.browser
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_nothing_in_the_explorer_at_its_widest(page: Page, page_url, scheme):
    page.emulate_media(color_scheme=scheme)
    page.goto(page_url)
    fig = page.locator("[data-explorer]")
    fig.get_by_label("Tree width m").fill(str(trees.MAX_CANDIDATES))
    expect(fig.locator("[data-explorer-m-out]")).to_have_text(str(trees.MAX_CANDIDATES))
    assert axe_violations(page, ".explorer") == []


@pytest.mark.browser
def test_at_360_px_the_widest_tree_needs_no_sideways_scroll(page: Page, page_url):
    page.set_viewport_size({"width": 360, "height": 800})
    page.goto(page_url)
    fig = page.locator("[data-explorer]")
    fig.get_by_label("Tree width m").fill(str(trees.MAX_CANDIDATES))
    fig.get_by_label("Verification cost per position").select_option("0")
    expect(fig.locator("[data-explorer-m-out]")).to_have_text(str(trees.MAX_CANDIDATES))
    expect(fig.locator(".explorer-tree").first).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert fig.evaluate("e => e.scrollWidth <= e.clientWidth")


@pytest.mark.browser
def test_no_value_label_crosses_the_one_times_line_at_any_width(page: Page, page_url, trace):
    """As tests/test_explorer.py checks at one candidate: at every wider tree, verification cost and draft cost, each
    bar's label lies wholly above or below the dashed 1× line."""
    from .test_explorer import crossings

    page.goto(page_url)
    fig = page.locator("[data-explorer]")
    fig.get_by_label("Tree width m").fill("2")  # through the control once, as a reader would
    expect(fig.get_by_label("Tree width m")).to_have_value("2")
    settings = [[str(m), str(verify), str(cost)] for m in range(2, trees.MAX_CANDIDATES + 1)
                for verify in range(len(trace["explorer"]["verify"])) for cost in range(len(trace["explorer"]["costs"]))]
    crossed = crossings(fig, ("Tree width m", "Verification cost per position", "Draft step cost"), settings)
    assert not crossed, f"labels the 1× line runs through (m, verify, cost, label): {crossed[:8]}"

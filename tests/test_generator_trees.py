"""Watch it generate with several candidates per position (speculative trees, speculative/trees.py): Python's tree
rounds commit exactly the target's text, the script's rounds are Python's draw for draw, one candidate is the chain
as it was, and the figure's control, drawing and tally work in a real Chromium."""

from __future__ import annotations

import itertools
import json
import re
from fractions import Fraction

import numpy as np
import pytest
from playwright.sync_api import Page, expect
from scipy.stats import chi2

from speculative import generate, strings, trees
from speculative.figures.generator import rates, tree_costs, tree_round_cost, tree_verdict
from speculative.stats import round_cost
from speculative.text import decimal_str

from .test_generator import LANE_JS, LONG, gen, open_figure, step, text_of

# --- Python's tree rounds ------------------------------------------------------------------------------------------

# A tiny bigram pair over 4 tokens: each context's target and draft rows, far enough apart that rejections are common.
TINY_P = np.array([[.5, .2, .2, .1], [.1, .6, .2, .1], [.25, .25, .25, .25], [.05, .05, .1, .8]])
TINY_Q = np.array([[.1, .3, .3, .3], [.4, .1, .4, .1], [.7, .1, .1, .1], [.25, .25, .25, .25]])


def tiny(rows: np.ndarray):
    return lambda context: rows[context[-1]]


def first_two(p, q, context, k: int, m: int, replace: bool, u) -> tuple[int, int]:
    """Returns the first two tokens tree rounds commit after `context` (a second round if the first commits one)."""
    r = generate.tree_round(p, q, context, k, m, replace, u)
    if len(r.committed) >= 2:
        return r.committed[0], r.committed[1]
    return r.committed[0], generate.tree_round(p, q, (r.committed[0],), k, m, replace, u).committed[0]


def pair_p_value(drawn: list[tuple[int, int]], p: np.ndarray, start: int) -> float:
    """Returns the chi-square p-value of the drawn pairs against the target's own p(t1 | start) p(t2 | t1)."""
    expected = (p[start][:, None] * p).ravel() * len(drawn)  # [V*V]
    counts = np.bincount([a * len(p) + b for a, b in drawn], minlength=expected.size)
    return float(chi2.sf(((counts - expected) ** 2 / expected).sum(), expected.size - 1))


@pytest.mark.data_independent
@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("m", [2, 3, trees.MAX_CANDIDATES])
@pytest.mark.parametrize("replace", [True, False])
def test_tree_rounds_commit_the_targets_next_two_tokens_exactly(k, m, replace):
    u = generate.uniforms(100 * k + 10 * m + replace)
    drawn = [first_two(tiny(TINY_P), tiny(TINY_Q), (0,), k, m, replace, u) for _ in range(6000)]
    assert pair_p_value(drawn, TINY_P, 0) > 1e-4


@pytest.mark.data_independent
@pytest.mark.parametrize("replace", [True, False])
def test_a_one_hot_draft_leaves_nothing_to_draw_without_replacement_and_the_token_still_follows_p(replace):
    q = np.eye(4)[[1, 1, 0, 2]]  # a greedy draft: every row on one token
    u = generate.uniforms(7)
    rounds = [generate.tree_round(tiny(TINY_P), tiny(q), (0,), 1, 3, replace, u) for _ in range(8000)]
    assert all(len(r.depths[0].candidates) == (3 if replace else 1) for r in rounds)
    counts = np.bincount([r.committed[0] for r in rounds], minlength=4)
    e = TINY_P[0] * len(rounds)
    assert chi2.sf(((counts - e) ** 2 / e).sum(), 3) > 1e-4


@pytest.mark.data_independent
def test_a_tree_round_reads_k_times_m_draft_draws_then_one_per_check_then_one_last_draw():
    k, m, draws = 3, 2, np.random.default_rng(5).random(100).tolist()
    source = iter(draws)
    r = generate.tree_round(tiny(TINY_P), tiny(TINY_Q), (2,), k, m, True, source)
    read = k * m + sum(len(d.uniforms) for d in r.depths) + 1
    assert next(source) == draws[read]
    assert [d.uniforms for d in r.depths] == [tuple(x) for x in _split(draws[k * m:read - 1], r.depths)]
    assert r.last_draw == draws[read - 1]
    for d, depth in enumerate(r.depths):  # each depth's candidates read that depth's m draft draws
        assert depth.candidates == tuple(generate.inverse_cdf(TINY_Q[depth.context[-1]], x) for x in draws[d * m:(d + 1) * m])


def _split(flat: list[float], depths) -> list[list[float]]:
    out, i = [], 0
    for d in depths:
        out.append(flat[i:i + len(d.uniforms)])
        i += len(d.uniforms)
    return out


@pytest.fixture(scope="module")
def run(explained):
    return explained.language


def model_rows(run, temperature: float = 1.0):
    s = run.settings
    return generate.rows(run.target, temperature), generate.rows(run.drafts[run.draft_index(s.default_draft)], temperature)


@pytest.mark.data_independent
@pytest.mark.parametrize("temperature", [1.0, 0.0])
def test_one_candidate_per_position_is_the_chain_draw_for_draw(run, temperature):
    p, q = model_rows(run, temperature)
    chain = generate.generate(p, q, run.prompt, run.settings.k, generate.mulberry32(4), 1500)
    u, text, width = generate.mulberry32(4), list(run.prompt), len(run.prompt)
    for c in chain:
        t = generate.tree_round(p, q, tuple(text[-width:]), run.settings.k, 1, True, u)
        assert (t.committed, t.kinds, t.last_draw) == (c.committed, c.kinds, c.last_draw)
        assert [d.candidates[0] for d in t.depths] == list(c.proposals[:len(t.depths)])
        text += t.committed


@pytest.mark.data_independent
def test_a_tree_round_costs_k_draft_steps_a_target_pass_and_its_nodes(dataset):
    cost = dataset.cost
    for m, row in zip(range(2, trees.MAX_CANDIDATES + 1), tree_costs(cost), strict=True):
        for k, c in enumerate(row, start=1):
            assert c == float(tree_round_cost(k, m, cost)) == float(k * cost.draft_step + cost.verify_round)  # no node cost


@pytest.mark.data_independent
def test_the_tally_rates_and_verdict():
    assert rates([3, 2, 5], 8, Fraction(3, 2)) == (8 / 3, 8 / 4.5)
    g = strings.GENERATOR_TREES
    assert (tree_verdict(2.0, 1.5), tree_verdict(1.5, 2.0), tree_verdict(1.501, 1.499)) == (g["better"], g["worse"], g["same"])


@pytest.mark.data_independent
def test_the_page_without_scripting_states_each_tree_race_against_the_chain(run, page_text, dataset):
    s, cost = run.settings, dataset.cost
    p, q = model_rows(run, float(s.default_temperature))
    chain_per, chain_pass = rates([len(r.committed) for r in run.run], run.goal, round_cost(s.k, cost))
    for m, spec in itertools.product(range(2, trees.MAX_CANDIDATES + 1), trees.SPECS):
        race = generate.tree_race(p, q, run.prompt, s.k, m, spec.replace, generate.mulberry32(s.seed), run.goal)
        per, per_pass = rates([len(r.committed) for r in race], run.goal,
                              tree_round_cost(s.k, m, cost))
        way = strings.GENERATOR_TREES["ways"][str(spec.replace).lower()]
        assert f"{m} candidates, {way}: {decimal_str(per, 2)} tokens per round, {decimal_str(per_pass, 2)} per target pass" in page_text
        assert tree_verdict(per_pass, chain_pass) in page_text


# --- the figure, in Chromium ---------------------------------------------------------------------------------------

def choose_tree(page: Page, m: int, way: str = "With replacement") -> None:
    g = gen(page)
    g.get_by_label("Candidates per position").select_option(str(m))
    g.get_by_label("Candidates drawn").select_option(label=way)
    expect(g.locator("[data-generator-spec-stats]")).to_contain_text("· 0 target passes ·")


@pytest.mark.browser
@pytest.mark.parametrize(("m", "way", "temperature"), [(3, "Without replacement", "1"), (2, "With replacement", "0.5"),
                                                       (4, "Without replacement", "0")])
def test_the_scripts_tree_race_is_pythons_draw_for_draw(page: Page, page_url, run, m, way, temperature):
    rng = np.random.default_rng(41)
    spec, plain = rng.random(12000).tolist(), rng.random(3000).tolist()
    open_figure(page, page_url, f"window.__generateUniforms = {json.dumps({'spec': spec, 'plain': plain})};" + LONG)
    gen(page).get_by_label("Temperature", exact=True).select_option(label=temperature)
    choose_tree(page, m, way)
    step(page, 150)
    p, q = model_rows(run, float(temperature))
    u, text, width, k = iter(spec), list(run.prompt), len(run.prompt), run.settings.k
    for _ in range(150):
        text += generate.tree_round(p, q, tuple(text[-width:]), k, m, way == "With replacement", u).committed
    assert page.evaluate(LANE_JS, "[data-generator-spec]") == text_of(run, text)
    chain = generate.generate(p, q, run.prompt, k, iter(spec), 150)  # the chain alongside: the same stream, its own reader
    chain_tokens = sum(len(r.committed) for r in chain)
    tally = gen(page).locator("[data-generator-tally]")
    expect(tally).to_contain_text(f"{decimal_str((len(text) - width) / 150, 2)} tokens per round")
    expect(tally).to_contain_text(f"{decimal_str(chain_tokens / 150, 2)} and")


@pytest.mark.browser
def test_one_candidate_after_a_tree_is_todays_race_draw_for_draw(page: Page, page_url, run):
    rng = np.random.default_rng(31)
    spec, plain = rng.random(4000).tolist(), rng.random(2000).tolist()
    open_figure(page, page_url, f"window.__generateUniforms = {json.dumps({'spec': spec, 'plain': plain})};" + LONG)
    choose_tree(page, 3)
    gen(page).get_by_label("Candidates per position").select_option("1")
    expect(gen(page).get_by_label("Candidates drawn")).to_be_disabled()
    step(page, 200)
    p, q = model_rows(run)
    rounds = generate.generate(p, q, run.prompt, run.settings.k, iter(spec), 200)
    assert page.evaluate(LANE_JS, "[data-generator-spec]") == text_of(run, (*run.prompt, *(t for r in rounds for t in r.committed)))
    tokens = generate.plain(p, run.prompt, iter(plain), int(run.round_cost * 200))
    assert page.evaluate(LANE_JS, "[data-generator-plain]") == text_of(run, (*run.prompt, *tokens))
    expect(gen(page).locator("[data-generator-tally]")).to_be_empty()
    expect(gen(page).locator("[data-generator-tree] li")).to_have_count(0)


@pytest.mark.browser
@pytest.mark.parametrize("m", [2, 3, trees.MAX_CANDIDATES])
def test_the_last_round_is_drawn_as_a_tree_with_m_candidates_a_depth_and_said_in_words(page: Page, page_url, run, m):
    open_figure(page, page_url, "window.__generateSeed = 12;" + LONG)
    choose_tree(page, m)
    g = gen(page)
    for n in range(1, 6):
        step(page, 1)
        expect(g.locator("[data-generator-checks-title]")).to_contain_text(f"Round {n}’s tree: {m} candidates")
        depths = g.locator("[data-generator-tree] .generator-tree-depth")
        count = depths.count()
        assert count >= 1
        for d in range(count):
            row = depths.nth(d)
            if row.locator(".is-bonus").count():
                assert d == count - 1 and count == run.settings.k + 1  # after k kept depths
                continue
            expect(row.locator(".generator-tree-node:not(.is-replaced)")).to_have_count(m)
            assert row.locator(".is-kept").count() + row.locator(".is-replaced").count() == 1
        alt = g.locator("[data-generator-tree-alt]")
        expect(alt).to_contain_text("Depth 1:")
        assert alt.inner_text().count("Depth ") == count - (1 if depths.last.locator(".is-bonus").count() else 0)


@pytest.mark.browser
def test_the_candidates_control_is_the_accept_tests_alone_and_a_chosen_tree_token_says_its_check(page: Page, page_url):
    open_figure(page, page_url, "window.__generateSeed = 12;" + LONG)
    g = gen(page)
    way = g.get_by_label("Candidates drawn")
    expect(way).to_be_disabled()
    choose_tree(page, 2, "Without replacement")
    expect(way).to_be_enabled()
    step(page, 3)
    expect(g.locator("[data-generator-tally]")).to_contain_text("2 candidates per position (without replacement)")
    verdicts = [re.escape(strings.GENERATOR_TREES[key]) for key in ("better", "worse", "same")]
    expect(g.locator("[data-generator-tally]")).to_contain_text(re.compile("|".join(verdicts)))  # whichever the race says
    expect(g.locator("[data-generator-expected]")).to_contain_text(strings.GENERATOR_TREES["expected_chain"])
    g.locator("[data-generator-spec] [role=button]").first.click()
    expect(g.locator("[data-generator-check-text]")).to_contain_text("2 candidates were drafted here")
    g.get_by_label("Sampler", exact=True).select_option(index=1)
    expect(g.get_by_label("Candidates per position")).to_be_disabled()
    expect(g.get_by_label("Candidates per position")).to_have_value("1")
    expect(g.locator("[data-generator-m-note]")).to_have_text(strings.GENERATOR_TREES["only_one"])
    g.get_by_label("Sampler", exact=True).select_option(index=0)
    expect(g.get_by_label("Candidates per position")).to_be_enabled()
    expect(g.locator("[data-generator-m-note]")).to_be_empty()


@pytest.mark.browser
def test_axe_finds_nothing_in_the_tree_in_light_or_dark_and_360px_has_no_sideways_scroll(page: Page, page_url):
    from .conftest import axe_violations

    page.set_viewport_size({"width": 360, "height": 800})
    open_figure(page, page_url, "window.__generateSeed = 3;" + LONG)
    choose_tree(page, trees.MAX_CANDIDATES)
    step(page, 4)
    expect(gen(page).locator("[data-generator-tree] .generator-tree-depth").first).to_be_visible()
    gen(page).locator("[data-generator-spec] [role=button]").first.click()
    found = []
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        found += [(scheme, v) for v in axe_violations(page, "#generator")]
    assert found == []
    assert page.evaluate("document.scrollingElement.scrollWidth <= document.scrollingElement.clientWidth")


# Each mark the tree's nodes wear, beside the mark of the swatch its key names it by, and the lanes' key's struck
# proposal (dropped unchecked): the page's marks, with their meanings.
MARKS_JS = """() => {
  const fig = document.querySelector('#generator'), ghost = getComputedStyle(fig.querySelector('.generator-key .is-ghost'));
  const roles = { 'is-kept': 'accepted', 'is-rejected': 'rejected', 'is-untried': 'dropped', 'is-replaced': 'replacement',
                  'is-bonus': 'bonus' };
  return Object.entries(roles).filter(([state]) => fig.querySelector(`[data-generator-tree] .${state}`)).map(([state, role]) => {
    const el = fig.querySelector(`[data-generator-tree] .${state}`), n = getComputedStyle(el), b = getComputedStyle(el, '::before');
    const s = getComputedStyle(fig.querySelector(`[data-generator-tree-key] .swatch-${role}`), '::before');
    return { state, glyph: [b.content, s.content], border: [n.borderTopStyle + ' ' + n.borderTopColor, s.borderTopStyle + ' ' + s.borderTopColor],
             struck: n.textDecorationLine, colour: n.color, ghost: [ghost.textDecorationLine, ghost.color] };
  }); }"""


@pytest.mark.browser
def test_the_trees_marks_are_the_pages_and_its_key_names_each(page: Page, page_url):
    """A rejected candidate wears the rejected swatch's box and glyph, not the lanes' strike-through; one never tried
    is struck and grey, as the lanes strike a proposal dropped unchecked; the drawing's key names every mark."""
    open_figure(page, page_url, "window.__generateSeed = 12;" + LONG)
    choose_tree(page, trees.MAX_CANDIDATES, "Without replacement")
    g, seen = gen(page), {}
    key = g.locator("[data-generator-tree-key]")
    for _ in range(40):
        step(page, 1)
        expect(key).to_be_visible()
        seen.update({m["state"]: m for m in page.evaluate(MARKS_JS)})
        if len(seen) == 5:
            break
    assert set(seen) == {"is-kept", "is-rejected", "is-untried", "is-replaced", "is-bonus"}
    for m in seen.values():
        assert m["glyph"][0] == m["glyph"][1] and m["glyph"][0] not in ("none", "normal"), m
        assert m["border"][0] == m["border"][1], m
        assert m["struck"] == ("line-through" if m["state"] == "is-untried" else "none"), m
    assert [seen["is-untried"]["struck"], seen["is-untried"]["colour"]] == seen["is-untried"]["ghost"]
    words = strings.GENERATOR_TREES_PAGE["tree_key"]
    expect(key.locator(".swatch")).to_have_text(list(words.values()))
    # the drawing's text alternative names the states of the round drawn last, whichever the prose's model gave
    drawn, alt = {m["state"] for m in page.evaluate(MARKS_JS)}, g.locator("[data-generator-tree-alt]")
    for state, word in (("is-kept", "kept"), ("is-rejected", "rejected")):
        if state in drawn:
            expect(alt).to_contain_text(strings.GENERATOR_TREES["states"][word])


@pytest.mark.browser
def test_a_restarted_race_hides_the_last_races_checks_until_its_own_first_round(page: Page, page_url):
    """Any control changed starts a fresh race from the prompt: the row of the race before (the page's seeded race,
    or a tree's) goes, and the fresh race's first round brings its own."""
    open_figure(page, page_url)  # the page's seeded race, run to its finish
    g = gen(page)
    checks, title = g.locator("[data-generator-checks]"), g.locator("[data-generator-checks-title]")
    expect(checks).to_be_visible()
    expect(title).to_contain_text("’s checks")
    g.get_by_label("Candidates per position").select_option("3")
    expect(g.locator("[data-generator-spec-stats]")).to_contain_text("· 0 target passes ·")
    expect(checks).to_be_hidden()
    step(page, 1)
    expect(title).to_contain_text("Round 1’s tree: 3 candidates")
    expect(checks).to_be_visible()
    g.get_by_label("Candidates drawn").select_option(label="Without replacement")
    expect(g.locator("[data-generator-spec-stats]")).to_contain_text("· 0 target passes ·")
    expect(checks).to_be_hidden()
    expect(g.locator("[data-generator-tree-alt]")).to_be_empty()
    g.get_by_label("Candidates per position").select_option("1")
    step(page, 1)
    expect(title).to_contain_text("Round 1’s checks")
    expect(g.locator("[data-generator-tree-key]")).to_be_hidden()
    g.get_by_label("Temperature", exact=True).select_option(label="0")
    expect(g.locator("[data-generator-spec-stats]")).to_contain_text("· 0 target passes ·")
    expect(checks).to_be_hidden()


def test_the_tally_says_the_tree_and_the_chain_share_a_seed_not_their_draws():
    """A tree round reads k · m draft draws and a chain round k, so the two read one seeded stream at different places:
    the words claim the same seed, not the same draws, in the tally and in the page without scripting."""
    for words in (strings.GENERATOR_TREES["tally"], strings.GENERATOR_TREES_PAGE["static_title"]):
        assert "same draws" not in words and "same seed" in words and "either can lead by chance" in words


# --- the check command's tree rows, and a broken tree way -----------------------------------------------------------

@pytest.mark.data_independent
@pytest.mark.parametrize("spec", [s for s in trees.BROKEN if not s.typical], ids=lambda s: s.id)
def test_a_broken_tree_way_commits_its_own_exact_distribution_not_p(spec):
    """generate.tree_round's broken ways are trees.py's: at one position, the first token against trees.position."""
    p, q = (Fraction(1, 8), Fraction(7, 8), Fraction(0)), (Fraction(1, 16), Fraction(1, 16), Fraction(7, 8))
    exact = trees.position(p, q, 2, spec).committed  # a position where each way is far from p
    assert max(abs(a - b) for a, b in zip(exact, p, strict=True)) > Fraction(1, 25)
    rows_p, rows_q = np.array([float(a) for a in p]), np.array([float(b) for b in q])
    u = generate.uniforms(17)
    drawn = [generate.tree_round(lambda c: rows_p, lambda c: rows_q, (0,), 1, 2, spec.replace, u, spec).committed[0]
             for _ in range(8000)]
    counts, e = np.bincount(drawn, minlength=3), np.array([float(x) for x in exact]) * len(drawn)
    live = e > 0
    assert counts[~live].sum() == 0 and chi2.sf(((counts[live] - e[live]) ** 2 / e[live]).sum(), live.sum() - 1) > 1e-4


@pytest.mark.slow  # about 3 s
@pytest.mark.data_independent  # the tree sampler at the generator's scale: the model pair is counted from the prose
def test_the_check_commands_tree_rows_pass_for_both_ways_and_each_width(run):
    from speculative import lm_checks

    rows = lm_checks.tree_language_checks(run, 150)
    assert len(rows) == len(lm_checks.KS) * len(lm_checks.TREE_MS) * len(trees.SPECS)
    assert all(c.ok for c in rows), [c for c in rows if not c.ok]


@pytest.mark.slow  # up to 15 s
def test_a_tree_checked_against_p_fails_the_tree_rows(run):
    """The broken way that checks each candidate against p (not what the earlier rejections left) fails a tree row
    with the unigram draft at some k with at most 1,000 generations per context, sizes going up as the chain's does."""
    from speculative import checks, lm_checks

    exact, spec = lm_checks.targets(run), trees.BY_ID["against-p"]
    for repeats in (100, 300, 1000):
        for k in lm_checks.KS:
            if not lm_checks.tree_check(run, 0, k, 3, spec, repeats, checks.SEED, exact).ok:
                return
    pytest.fail("checking every candidate against p passed the tree rows at every k with 1,000 generations")

"""See what goes wrong: the broken samplers the lab and the generator let a reader switch on.

Each broken sampler is the rule with one piece wrong (speculative/variants.py). What it commits at a position is
worked out exactly in Python (tests/test_variants.py checks that against each one's Monte Carlo and against the
textbook formulas); here the page's copies are checked against Python: the trace, the table readers without
scripting see, templates/js/variants.js's arithmetic in eighths (fraction for fraction) and in floats, the browser's
seeded draws (chi-square), the words that say a sampler is broken, and the generator's rounds, draw for draw.

The rule itself commits exactly p: min(p, q) + (1 - alpha) * max(0, p - q) / (1 - alpha) = p (Leviathan et al. 2023,
arXiv:2211.17192, Theorem 3.5); every broken sampler here moves some shipped position away from p."""

from __future__ import annotations

import html
import json
import random
import re
from fractions import Fraction

import numpy as np
import pytest
from playwright.sync_api import Page, expect

from speculative import generate, ngram, sampler, variants
from speculative.figures.lab import Broken
from speculative.strings import LAB

from .conftest import RANDOM_SHARE
from .labkit import chi_square_p, draw, lab, seeded, tally_counts
from .test_generator import LANE_JS, gen, open_figure, step, text_of
from .test_lab import eighths, fitted, link, random_eighths, shipped_positions
from .test_mutants import run_js as node_js
from .test_mutants import script_twin
from .test_oracle import Tables

SCRIPTS = ("core.js", "variants.js", "eighths.js")
BROKEN_WORDS = "This sampler is broken"


@pytest.fixture(scope="module")
def trace(built_site) -> dict:
    return json.loads((built_site / "trace.json").read_text(encoding="utf-8"))


def exact(pos: dict) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...]]:
    return tuple(Fraction(x) for x in pos["target"]), tuple(Fraction(x) for x in pos["draft"])


# --- the build's copies --------------------------------------------------------------------------------------


def test_the_trace_holds_every_broken_samplers_exact_distribution_at_every_shipped_position(trace):
    assert [s["id"] for s in trace["samplers"]] == [v.id for v in variants.VARIANTS]
    for where, pos in shipped_positions(trace):
        p, q = exact(pos)
        for v, got in zip(variants.BROKEN, trace["lab"]["broken"][where], strict=True):
            c = v.committed(p, q)
            assert [Fraction(x) for x in got[0]] == list(c), (where, v.id)
            assert Fraction(got[1]) == variants.total_variation(c, p) == sum(abs(a - b) for a, b in zip(c, p, strict=True)) / 2
            assert got[3] == "".join("+" if a > b else "-" if a < b else "=" for a, b in zip(c, p, strict=True))


def test_each_broken_sampler_is_shown_at_the_position_where_it_moves_furthest(trace):
    at = trace["lab"]["broken"]
    for i, v in enumerate(variants.BROKEN):
        where, furthest = trace["lab"]["shows"][i], max(Fraction(b[i][1]) for b in at.values())
        if where == "":  # this file has no position where the sampler goes wrong (p = q at every one, say)
            assert furthest == 0, v.id
        else:
            assert Fraction(at[where][i][1]) == furthest > 0, v.id


def noscript_table(page_html: str) -> tuple[str, list[list[str]]]:
    """Returns the caption and rows (cell texts) of the no-JS table of every sampler."""
    parser = Tables()
    parser.feed(page_html)
    table = next(t for t in parser.tables if t["caption"].startswith("What each sampler commits"))
    return table["caption"], table["rows"]


def test_readers_without_scripting_see_every_sampler_at_one_position_that_shows_them_all(built_site, trace):
    page_html = (built_site / "index.html").read_text(encoding="utf-8")
    caption, (head, *rows) = noscript_table(page_html)
    m = re.search(r"commits at position (\d+) of (.+), worked", caption)
    prof = next(x for x in trace["profiles"] if x["name"] == m.group(2))
    pos = dict(shipped_positions(trace))[f"{prof['id']}/{m.group(1)}"]
    p, q = exact(pos)
    assert head == ["Sampler", *trace["vocabulary"], "TV from p"]
    assert len(rows) == len(variants.VARIANTS)
    for v, row in zip(variants.VARIANTS, rows, strict=True):
        c = v.committed(p, q)
        assert row[0].lower() == v.name.lower()
        assert [Fraction(cell.rstrip(" ▲▼")) for cell in row[1:-1]] == list(c), v.id
        tv = variants.total_variation(c, p)
        assert Fraction(row[-1].split(" ≈")[0]) == tv and (tv == 0 if v.id == "rule" else tv >= 0), v.id
    for v in variants.BROKEN:
        assert f"{v.name[0].upper()}{v.name[1:]}: {v.why}." in " ".join(html.unescape(page_html).split())


# --- variants.js against Python ---------------------------------------------------------------------------------


def run_js(tmp_path, body: str, payload) -> list:
    """Runs `body` (which reads `data` and returns its answer as JSON text) with the lab's arithmetic loaded on its
    own, in Node: the page's own source in the engine Chromium runs it in."""
    return json.loads(node_js(tmp_path, SCRIPTS, body, payload))


EIGHTHS_JS = """return JSON.stringify(data.pairs.map(([p, q]) => data.specs.map(spec => eighthsBroken(spec, p, q))));"""


@script_twin
def test_the_scripts_eighths_arithmetic_is_pythons_fraction_for_fraction_on_random_pairs(tmp_path, trace):
    """Every shipped position, two where p = q, and 5,000 random pairs in eighths (500 in the fast tier)."""
    rng = random.Random(32)
    size = len(trace["vocabulary"])
    pairs = [(eighths(pos["target"]), eighths(pos["draft"])) for _, pos in shipped_positions(trace)]
    pairs += [([8] + [0] * (size - 1),) * 2, ([2] * 4 + [0] * (size - 4),) * 2]  # p = q: nothing to draw from
    pairs += [(random_eighths(rng, size), random_eighths(rng, size)) for _ in range(5000 // RANDOM_SHARE)]
    specs = [s for s in trace["samplers"][1:]]
    got = run_js(tmp_path, EIGHTHS_JS, {"pairs": pairs, "specs": specs})
    for (p, q), row in zip(pairs, got, strict=True):
        P, Q = tuple(Fraction(a, 8) for a in p), tuple(Fraction(b, 8) for b in q)
        want = [Broken(P, v.committed(P, Q)).json(8) for v in variants.BROKEN]
        assert row == want, (p, q)


@script_twin
def test_the_eighths_comparison_catches_a_wrong_switch(tmp_path, trace):
    p, q = [2, 0, 0, 0, 4, 2], [2, 2, 0, 2, 2, 0]  # the divergent draft's position 5
    specs = [dict(s, fix=0) for s in trace["samplers"][1:3]]  # the two wrong replacements made right
    got = run_js(tmp_path, EIGHTHS_JS, {"pairs": [(p, q)], "specs": specs})[0]
    P, Q = tuple(Fraction(a, 8) for a in p), tuple(Fraction(b, 8) for b in q)
    assert [g[1] for g in got] == ["0", "0"]
    assert all(Broken(P, v.committed(P, Q)).json(8) != g for v, g in zip(variants.BROKEN[:2], got, strict=True))


FLOATS_JS = """return JSON.stringify(data.rows.map(([p, q]) => data.specs.map(spec =>
  shared.committedIn(shared.variantPieces(spec, p, q, shared.FLOATS), shared.FLOATS))));"""


@script_twin
def test_the_scripts_float_arithmetic_is_pythons_on_the_models_rows(tmp_path, trace, explained):
    run = explained.language
    rows = []
    for t in (0.5, 1.0, 1.5):
        for d in run.drafts[:-1]:
            for ctx in run.top_contexts[:4]:
                rows.append((ngram.tempered(run.target.row(ctx), t), ngram.tempered(d.row(ctx), t)))
    got = run_js(tmp_path, FLOATS_JS, {"rows": [(p.tolist(), q.tolist()) for p, q in rows], "specs": trace["samplers"]})
    for (p, q), row in zip(rows, got, strict=True):
        for v, c in zip(variants.VARIANTS, row, strict=True):
            assert np.allclose(c, v.committed(p, q), rtol=0, atol=1e-12), v.id
        assert np.allclose(row[0], p, rtol=0, atol=1e-12)  # the rule commits p


# --- the lab: seeded draws, and the words ----------------------------------------------------------------------


def committed_counts(page: Page) -> list[int]:
    return [a + r for a, r in tally_counts(page)]


def token_chi_square(counts: list[int], probs) -> float:
    return chi_square_p([(c, 0) for c in counts], [s for x in probs for s in (Fraction(x), Fraction(0))])


def choose(page: Page, where: str, sampler_index: int) -> None:
    lab(page).get_by_label("Position", exact=True).select_option(where)
    lab(page).get_by_label("Sampler", exact=True).select_option(str(sampler_index))
    expect(lab(page).locator("[data-lab-tally-readout]")).to_contain_text("No draws yet")


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.parametrize("index", range(1, len(variants.VARIANTS)), ids=[v.id for v in variants.BROKEN])
def test_seeded_draws_of_each_broken_sampler_match_its_exact_distribution_not_p(pages, page_url, trace, index):
    """At each position, as many draws (10,000 at a time, at most 100,000) as rule out p where the sampler commits
    something else (batches_to_rule_out); 10,000 where it commits p."""
    page = seeded(pages, page_url)
    for where, pos in shipped_positions(trace):
        committed = trace["lab"]["broken"][where][index - 1][0]
        choose(page, where, index)
        draw(page, batches_to_rule_out(committed, pos["target"]))
        counts = committed_counts(page)
        assert token_chi_square(counts, committed) > 1e-6, where
        if trace["lab"]["broken"][where][index - 1][1] != "0":  # the same draws, judged against p, fail
            assert rules_out(counts, pos["target"]), where
    page.close()


def batches_to_rule_out(committed, probs, most: int = 10) -> int:
    """Returns how many draws of 10,000 from `committed` leave p ruled out (rules_out) but by a chance under about
    1e-6: enough to expect 25 draws where p is 0 (missed with chance e^-25), or else a chi-square noncentrality
    n * sum((c - p)^2 / p) of 200, which the 1e-6 threshold (about 36 at 5 degrees of freedom) misses by more than
    5 standard deviations. At most `most`; 1 where committed is p."""
    c, p = [Fraction(x) for x in committed], [Fraction(x) for x in probs]
    if c == p:
        return 1
    zero = sum(a for a, b in zip(c, p, strict=True) if b == 0)
    distance = sum((a - b) ** 2 / b for a, b in zip(c, p, strict=True) if b > 0)
    needed = min(25 / zero if zero else float("inf"), 200 / distance if distance else float("inf"))
    return max(1, min(most, -(-int(needed) // 10_000)))


def test_the_draws_sized_to_rule_out_p_do_so_with_room_to_spare():
    """The sizing's own check, in exact arithmetic: a commit 1/8 off p at two tokens of eight needs more draws than one
    1/4 off; mass where p is 0 needs few; and no size passes the cap."""
    p = [Fraction(1, 8)] * 8
    near, far = [*p[:6], Fraction(1, 4), Fraction(0)], [*p[:5], Fraction(3, 8), Fraction(0), Fraction(0)]
    assert batches_to_rule_out(p, p) == 1
    assert batches_to_rule_out(far, p) <= batches_to_rule_out(near, p) <= 10
    assert batches_to_rule_out([Fraction(1, 2), Fraction(1, 2)], [Fraction(1), Fraction(0)]) == 1
    assert batches_to_rule_out([Fraction(5001, 10000), Fraction(4999, 10000)], [Fraction(1, 2)] * 2) == 10


def rules_out(counts: list[int], probs) -> bool:
    """Returns True when the counts cannot have come from probs: a draw where probs gives 0, or a chi-square
    p-value below 1e-6."""
    if any(c and Fraction(x) == 0 for c, x in zip(counts, probs, strict=True)):
        return True
    return token_chi_square(counts, probs) < 1e-6


@pytest.mark.browser
def test_the_words_say_broken_for_each_broken_sampler_where_it_shows_and_never_for_the_rule(pages, page_url, trace):
    page = seeded(pages, page_url)
    readout = lab(page).locator("[data-lab-tally-readout]")
    for i, where in enumerate(trace["lab"]["shows"], start=1):
        if not where:  # no position of this file shows this sampler's fault (tested where the lab says so)
            continue
        choose(page, where, i)
        draw(page, 1)
        expect(readout).to_contain_text(BROKEN_WORDS)
        expect(readout).to_contain_text("that chance alone reaches at 10,000 draws")
        expect(readout).to_contain_text("from what this sampler commits, within that bound")
    for where, _ in shipped_positions(trace):
        choose(page, where, 0)
        draw(page, 1)
        expect(readout).to_contain_text("10,000 draws")
        expect(readout).not_to_contain_text("broken")
        expect(lab(page).locator("[data-lab-variant]")).to_be_hidden()
    page.close()


@pytest.mark.browser
def test_a_position_where_a_sampler_commits_p_says_so_and_names_one_that_shows_it(pages, page_url, trace):
    page = seeded(pages, page_url)
    at, shows_at = trace["lab"]["broken"], trace["lab"]["shows"]
    # a sampler that commits p here and that another position shows, when the file has one (the shipped file does);
    # else one that no position of the file shows
    found = sorted(((not shows_at[i], i, w) for i in range(len(variants.BROKEN)) for w in at if at[w][i][1] == "0"),
                   key=lambda t: t[0])
    if not found:
        pytest.skip("every broken sampler moves away from p at every position of this data file")
    _, i, where = found[0]
    v, shows = variants.BROKEN[i], shows_at[i]
    choose(page, where, i + 1)
    text = lab(page).locator("[data-lab-variant-text]")
    if shows:
        prof = next(x for x in trace["profiles"] if x["id"] == shows.split("/")[0])
        expect(text).to_contain_text(f"At this position “{v.name}” commits p exactly, so it cannot show its fault.")
        expect(text).to_contain_text(f"Position {shows.split('/')[1]} of {prof['name']} shows it (total variation "
                                     f"{at[shows][i][2]} from p)")
    else:
        expect(text).to_contain_text(LAB["variant_never"].replace("{name}", v.name))
    draw(page, 1)
    expect(lab(page).locator("[data-lab-tally-readout]")).not_to_contain_text(BROKEN_WORDS)
    expect(lab(page).locator("[data-lab-tally-readout]")).to_contain_text(LAB["still_p"].strip())
    page.close()


@pytest.mark.browser
def test_a_shown_sampler_names_the_tokens_that_gain_and_lose_and_its_distance(pages, page_url, trace):
    page = seeded(pages, page_url)
    where = trace["lab"]["shows"][0]
    choose(page, where, 1)
    b = trace["lab"]["broken"][where][0]
    text = lab(page).locator("[data-lab-variant-text]")
    expect(text).to_contain_text(f"Its total variation from p is {b[1]} ≈ {b[2]}.")
    gains = [f"“{t}”" for t, s in zip(trace["vocabulary"], b[3], strict=True) if s == "+"]
    expect(text).to_contain_text(f"Here {gains[0]}")
    expect(text).to_contain_text(variants.BROKEN[0].why)
    rows = lab(page).locator("[data-lab-variant-bars] .bar-row")
    expect(rows).to_have_count(len(trace["vocabulary"]))
    for y, c in enumerate(b[0]):
        expect(rows.nth(y)).to_contain_text(f"this sampler {c}")
    lab(page).get_by_role("radio", name="Greedy draft").check()  # another rule: back to the rule's sampler
    expect(lab(page).get_by_label("Sampler", exact=True)).to_have_value("0")
    expect(lab(page).locator("[data-lab-variant]")).to_be_hidden()
    page.close()


@pytest.mark.browser
def test_your_own_position_shows_a_broken_sampler_and_its_draws_follow_it(pages, page_url, trace):
    size = len(trace["vocabulary"])
    p, q = fitted([4, 1, 0, 0, 2, 1], size), fitted([1, 1, 1, 1, 2, 2], size)
    page = seeded(pages, page_url, link(p, q))
    P, Q = tuple(Fraction(a, 8) for a in p), tuple(Fraction(b, 8) for b in q)
    for i, v in enumerate(variants.BROKEN, start=1):
        lab(page).get_by_label("Sampler", exact=True).select_option(str(i))
        b = Broken(P, v.committed(P, Q)).json(8)
        words = f"Its total variation from p is {b[1]}" if b[1] != "0" else f"“{v.name}” commits p exactly"
        expect(lab(page).locator("[data-lab-variant-text]")).to_contain_text(words)
        draw(page, 5)
        assert token_chi_square(committed_counts(page), b[0]) > 1e-6, v.id
    page.close()


# --- the generator -------------------------------------------------------------------------------------------


@pytest.mark.browser
@pytest.mark.parametrize("index", range(1, len(variants.VARIANTS)), ids=[v.id for v in variants.BROKEN])
def test_the_generator_runs_each_broken_sampler_as_python_does_draw_for_draw(page: Page, page_url, explained, index):
    run, v = explained.language, variants.VARIANTS[index]
    rng = np.random.default_rng(40 + index)
    spec, plain = rng.random(3000).tolist(), rng.random(1500).tolist()
    open_figure(page, page_url, f"window.__generateUniforms = {json.dumps({'spec': spec, 'plain': plain})};"
                                "window.__generateRace = 100000;")  # a race past 100 rounds: it starts empty
    gen(page).get_by_label("Sampler", exact=True).select_option(str(index))  # a fresh run from the same draws
    step(page, 100)
    p, q = generate.rows(run.target, 1.0), generate.rows(run.drafts[run.draft_index(run.settings.default_draft)], 1.0)
    rounds = generate.generate(p, q, run.prompt, run.settings.k, iter(spec), 100, rule=v.rule)
    assert page.evaluate(LANE_JS, "[data-generator-spec]") == text_of(run, (*run.prompt, *(t for r in rounds for t in r.committed)))
    right = generate.generate(p, q, run.prompt, run.settings.k, iter(spec), 100, rule=sampler.RULE)
    assert [r.committed for r in rounds] != [r.committed for r in right]  # the comparison can tell them apart
    ctx = tuple(run.top_contexts[0])
    tv = float(variants.total_variation(v.committed(p(ctx), q(ctx)), p(ctx)))
    expect(gen(page).locator("[data-generator-broken-text]")).to_contain_text(f"is {tv:.4f} in total variation")
    expect(gen(page).locator("[data-generator-broken-bars] .bar-row")).to_have_count(6)
    expect(gen(page).locator("[data-generator-expected]")).to_contain_text("The expected values are the rule’s")


@pytest.mark.browser
def test_the_generator_with_the_rule_shows_no_broken_part(page: Page, page_url):
    open_figure(page, page_url)
    expect(gen(page).get_by_label("Sampler", exact=True)).to_have_value("0")
    expect(gen(page).locator("[data-generator-broken]")).to_be_hidden()
    expect(gen(page).locator("[data-generator-broken-bars] > *")).to_have_count(0)
    gen(page).get_by_label("Sampler", exact=True).select_option("4")
    expect(gen(page).locator("[data-generator-broken]")).to_be_visible()
    gen(page).get_by_label("Sampler", exact=True).select_option("0")
    expect(gen(page).locator("[data-generator-broken]")).to_be_hidden()
    expect(gen(page).locator("[data-generator-expected]")).not_to_contain_text("rule’s")

"""Several candidates per position in the accept-test lab (speculative/trees.py): the build's figures against
trees.position, the browser's tree arithmetic (templates/js/lab_trees.js) against trees.position fraction for
fraction, and the lab in Chromium: the two controls, one run's checks in turn, the tally converging to p under each
correct way and catching each broken way."""

from __future__ import annotations

import json
import random
import re
from fractions import Fraction

import pytest
from labkit import chi_square_p, draw, lab, seeded, tally_counts
from playwright.sync_api import Page, expect

from speculative import strings, text, trees, variants
from speculative.text import prob_str

from .conftest import RANDOM_SHARE, axe_violations
from .test_mutants import run_js as node_js
from .test_mutants import script_twin

MS = range(1, trees.MAX_CANDIDATES + 1)
ALL_WAYS = (*trees.SPECS, *trees.BROKEN)


def shipped_positions(trace: dict) -> list[tuple[str, dict]]:
    """Returns ("profile/n", facts) for every shipped position, in the Position select's order."""
    return [(f"{p['id']}/{n}", pos) for p in trace["profiles"] for n, pos in enumerate(p["positions"], start=1)]


def dists(pos: dict) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...]]:
    return tuple(Fraction(x) for x in pos["target"]), tuple(Fraction(x) for x in pos["draft"])


def tv(a, b) -> Fraction:
    return sum((abs(x - y) for x, y in zip(a, b, strict=True)), Fraction(0)) / 2


def denominators(explained) -> dict[str, int]:
    return {r.profile.id: explained.position_denom(i) for i, r in enumerate(explained.results)}


# --- the build's figures (Python only) ----------------------------------------------------------------------------


def test_the_trace_carries_trees_position_at_every_shipped_position(trace, explained):
    d = denominators(explained)
    for where, pos in shipped_positions(trace):
        p, q = dists(pos)
        got, den = trace["lab"]["trees"][where], d[where.split("/")[0]]
        for s in trees.SPECS:
            assert got["a"][s.id] == [prob_str(trees.position(p, q, m, s).acceptance, den) for m in MS], (where, s.id)
        for i, s in enumerate(trees.BROKEN):
            for m in MS[1:]:
                c = trees.position(p, q, m, s).committed
                assert got["broken"][i][m - 2][:3] == [[prob_str(x, den) for x in c], str(tv(c, p)), text.decimal_str(tv(c, p), 3)]


def test_both_correct_ways_commit_p_and_one_candidate_is_the_accept_test(trace):
    for where, pos in shipped_positions(trace):
        p, q = dists(pos)
        for s in trees.SPECS:
            for m in MS:
                assert trees.position(p, q, m, s).committed == p
        assert [Fraction(a[0]) for a in trace["lab"]["trees"][where]["a"].values()] == [Fraction(pos["alpha"])] * len(trees.SPECS)


def test_the_position_a_broken_way_is_named_at_moves_furthest(trace):
    at = trace["lab"]["trees"]
    for i, row in enumerate(trace["lab"]["tree_shows"]):
        for k, where in enumerate(row):
            tvs = {w: Fraction(t["broken"][i][k][1]) for w, t in at.items()}
            assert (where == "") == (max(tvs.values()) == 0)
            if where:
                assert tvs[where] == max(tvs.values())


def test_the_no_script_table_gives_a_for_every_m_both_ways_at_the_labs_position(built_site, trace, explained):
    html = (built_site / "index.html").read_text(encoding="utf-8")
    where = trace["lab"]["where"]
    pos = dict(shipped_positions(trace))[where]
    p, q = dists(pos)
    den = denominators(explained)[where.split("/")[0]]
    for m in MS:
        cells = [text.fill(strings.TREES_STATIC["approx"], {"a": prob_str(a, den), "f": text.decimal_str(a, 3)})
                 for a in (trees.position(p, q, m, s).acceptance for s in trees.SPECS)]
        assert f'<tr><th scope="row">{m}</th>' + "".join(f"<td>{c}</td>" for c in cells) + "</tr>" in html
    assert text.fill(strings.TREES_STATIC["rule"], {}) in html


def text_of(table) -> list[str]:
    """Returns every string of a words table, nested ones included."""
    if isinstance(table, str):
        return [table]
    items = table.values() if isinstance(table, dict) else table
    return [t for item in items for t in text_of(item)]


def test_the_labs_words_write_a_subscript_as_the_page_does():
    """α₁ on the page, so qⱼ in the lab: no q_j."""
    for words in text_of(strings.TREES) + text_of(strings.TREES_STATIC):
        assert "_j" not in words, words


def test_checking_every_candidate_against_p_favours_the_tokens_whose_q_covers_p_as_its_why_says(trace):
    """The why of "Every candidate checked against p": each try keeps a token whose q covers its p (q ≥ p > 0) with its
    whole p, so with two or more candidates it comes too often, wherever the draft can miss (0 < α < 1): at every
    shipped position and at 300 random ones."""
    assert "a token whose q covers its p" in strings.TREES["why"]["against-p"]
    rng = random.Random(7)
    size = len(trace["vocabulary"])
    cases = [dists(pos) for _, pos in shipped_positions(trace)]
    cases += [(tuple(Fraction(a, 8) for a in random_eighths(rng, size)), tuple(Fraction(b, 8) for b in random_eighths(rng, size)))
              for _ in range(300)]
    seen = 0
    for p, q in cases:
        alpha = sum((min(a, b) for a, b in zip(p, q, strict=True)), Fraction(0))
        if not 0 < alpha < 1:
            continue
        for m in MS[1:]:
            c = trees.position(p, q, m, trees.BY_ID["against-p"]).committed
            for y in range(len(p)):
                if q[y] >= p[y] > 0:
                    assert c[y] > p[y], (p, q, m, y)
                    seen += 1
    assert seen


# --- lab_trees.js against trees.position ---------------------------------------------------------------------------


def random_eighths(rng: random.Random, size: int) -> list[int]:
    counts = [0] * size
    for _ in range(8):
        counts[rng.randrange(size)] += 1
    return counts


def run_trees(tmp_path, cases: list[tuple[list[str], list[str]]], typical: list[float]) -> list[dict]:
    """Returns, for each (p, q) written as fraction strings, lab_trees.js's exact [committed, A] for every way and m,
    computed by the page's script in Node."""
    ways = [{"id": s.id, "replace": s.replace, "against_p": s.against_p, "plain_q": s.plain_q, "typical": s.typical}
            for s in ALL_WAYS]
    return json.loads(node_js(tmp_path, ("core.js", "variants.js", "eighths.js", "lab_trees.js"), """
        const text = a => a[1] === 1n ? String(a[0]) : `${a[0]}/${a[1]}`;
        return JSON.stringify(data.cases.map(([p, q]) => {
          const P = p.map(EXACT.of), Q = q.map(EXACT.of), out = {};
          data.ways.forEach(w => { out[w.id] = data.ms.map(m => {
            const r = treeRoutes(P, Q, m, w, EXACT, data.typical);
            return [r.committed.map(text), text(r.acceptance)];
          }); });
          return out;
        }));
        """, {"cases": cases, "ways": ways, "typical": typical, "ms": list(MS)}))


@script_twin
def test_the_scripts_tree_arithmetic_is_trees_position_at_every_shipped_position_and_random_pairs(tmp_path, trace):
    """500 random pairs in eighths (50 in the fast tier)."""
    rng = random.Random(2402)
    size = len(trace["vocabulary"])
    cases = [(pos["target"], pos["draft"]) for _, pos in shipped_positions(trace)]
    cases += [([f"{a}/8" for a in random_eighths(rng, size)], [f"{b}/8" for b in random_eighths(rng, size)])
              for _ in range(500 // RANDOM_SHARE)]
    got = run_trees(tmp_path, cases, list(trees.TYPICAL))
    for (ps, qs), out in zip(cases, got, strict=True):
        p, q = tuple(Fraction(x) for x in ps), tuple(Fraction(x) for x in qs)
        for s in ALL_WAYS:
            for m in MS:
                want = trees.position(p, q, m, s)
                assert out[s.id][m - 1] == [[str(c) for c in want.committed], str(want.acceptance)], (ps, qs, s.id, m)


@script_twin
def test_the_comparison_catches_a_wrong_way(tmp_path, trace):
    size = len(trace["vocabulary"])
    p, q = [f"{a}/8" for a in random_eighths(random.Random(3), size)], [f"{b}/8" for b in random_eighths(random.Random(4), size)]
    out = run_trees(tmp_path, [(p, q)], list(trees.TYPICAL))[0]
    P, Q = tuple(Fraction(x) for x in p), tuple(Fraction(x) for x in q)
    assert out["without"][1][1] == str(trees.position(P, Q, 2, trees.WITHOUT).acceptance)
    if trees.position(P, Q, 2, trees.WITH).acceptance != trees.position(P, Q, 2, trees.WITHOUT).acceptance:
        assert out["without"][1][1] != str(trees.position(P, Q, 2, trees.WITH).acceptance)


# --- the lab in the browser ----------------------------------------------------------------------------------------


def candidates(page: Page):
    return lab(page).get_by_label("Candidates per position", exact=True)


def way_select(page: Page):
    return lab(page).get_by_label("Draw with or without replacement", exact=True)


def way_phrase(way: str) -> str:
    return strings.TREES["ways"][way]


def a_text(trace: dict, where: str, way: str, m: int) -> str:
    return trace["lab"]["trees"][where]["a"][way][m - 1]


@pytest.mark.browser
def test_one_candidate_is_the_lab_as_it_was_and_the_way_waits_for_two(pages, page_url, trace):
    page = seeded(pages, page_url, seed=None)
    expect(candidates(page)).to_have_value("1")
    expect(way_select(page)).to_be_disabled()
    expect(lab(page).locator("[data-lab-trees]")).to_have_count(0)
    expect(lab(page).get_by_label("Uniform draw u")).to_be_visible()
    candidates(page).select_option("2")
    expect(way_select(page)).to_be_enabled()
    expect(lab(page).locator("[data-lab-trees]")).to_have_count(1)
    expect(lab(page).get_by_label("Uniform draw u")).to_be_hidden()
    expect(lab(page).get_by_role("group", name="Proposed token")).to_be_hidden()
    lab(page).get_by_role("radio", name="Exact match").check()  # another rule has one candidate
    expect(candidates(page)).to_have_value("1")
    expect(lab(page).locator("[data-lab-trees]")).to_have_count(0)
    page.close()


@pytest.mark.browser
def test_each_position_m_and_way_states_its_exact_a(pages, page_url, trace):
    page = seeded(pages, page_url, seed=None)
    rate = lab(page).locator("[data-lab-trees-rate]")
    for where, pos in shipped_positions(trace)[:4]:
        lab(page).get_by_label("Position", exact=True).select_option(where)
        for m in MS[1:]:
            candidates(page).select_option(str(m))
            for s in trees.SPECS:
                way_select(page).select_option(s.id)
                expect(rate).to_have_text(text.fill(strings.TREES["rate"], {
                    "m": m, "way": way_phrase(s.id), "a": a_text(trace, where, s.id, m), "alpha": pos["alpha"]}))
    page.close()


@pytest.mark.browser
def test_one_draw_shows_each_candidates_check_in_turn(pages, page_url, trace):
    page = seeded(pages, page_url)
    vocab = trace["vocabulary"]
    candidates(page).select_option("3")
    box = lab(page).locator("[data-lab-trees]")
    seen = set()
    for _ in range(30):
        box.get_by_role("button", name="Draw the candidates").click()
        steps = box.locator(".lab-trees-step")
        verdict = box.locator("[data-lab-trees-verdict]").text_content() or ""
        n = steps.count()
        texts = [steps.nth(i).locator("[data-accept-text]").text_content() or "" for i in range(n)]
        if "rejected" in verdict:  # every candidate rejected, then the last draw from r, in the residual strip's look
            assert all(t.endswith(": rejected") for t in texts[:-1]) and texts[-1].startswith("r = ")
            assert n >= 2
            seen.add("all")
        else:  # the last strip is the kept candidate's, every one before it rejected
            assert texts[-1].endswith(": kept") and all(t.endswith(": rejected") for t in texts[:-1])
            j = n
            assert verdict.startswith(f"Candidate {j} of 3, “")
            seen.add(j)
        assert any(tok in verdict for tok in vocab)
    assert len(seen) >= 2  # the draws reach more than one outcome
    page.close()


@pytest.mark.browser
def test_each_candidate_says_its_draw_d_and_writes_r_and_q_as_p_and_q_are(pages, page_url, trace, explained):
    """d is a uniform draw laid against q's running total: the heading names the segment it lands in, which holds d,
    and for the first candidate is the drawn token's own segment of q, over the position's denominator; the first
    candidate's bars write r (p itself) and q as the one-candidate bars write p and q."""
    page = seeded(pages, page_url)
    where = trace["lab"]["where"]
    pos = dict(shipped_positions(trace))[where]
    _, q = dists(pos)
    den = denominators(explained)[where.split("/")[0]]
    cuts = [sum(q[:y], Fraction(0)) for y in range(len(q) + 1)]
    candidates(page).select_option("3")
    box = lab(page).locator("[data-lab-trees]")
    for _ in range(8):
        box.get_by_role("button", name="Draw the candidates").click()
        heads = [h for h in box.locator("[data-lab-trees-head]").all_text_contents() if h.startswith("Candidate ")]
        assert heads
        for j, head in enumerate(heads):
            found = re.search(r"d = ([\d.]+): .*segment of “.*?”, \[([^,\]]+), ([^)]+)\)", head)
            assert found, head
            d, lo, hi = Fraction(found[1]), Fraction(found[2]), Fraction(found[3])
            assert lo <= d < hi, head
            if j == 0:
                y = next(y for y in range(len(q)) if q[y] and cuts[y] <= d < cuts[y + 1])
                assert f"“{trace['labels'][y]}”" in head
                assert (found[2], found[3]) == (prob_str(cuts[y], den), prob_str(cuts[y + 1], den)), head
        numbers = box.locator(".lab-trees-step").first.locator(".bar-num").all_text_contents()
        assert numbers == [text.fill(strings.TREES["numbers"], {"p": a, "q": b}) for a, b in zip(pos["target"], pos["draft"], strict=True)]
    page.close()


LAB_BUTTONS = ("Draw u", "Reset tally", "Draw 100 times", "Draw 10,000 times", "Draw the candidates")


def the_buttons_the_tally_names_are_shown_above_it(page: Page) -> None:
    """The tally's words before any draw name buttons: each is on the page, above the words."""
    readout = lab(page).locator("[data-lab-tally-readout]")
    said = readout.text_content() or ""
    named = [b for b in LAB_BUTTONS if b in said]
    assert named and "below" not in said, said
    top = (readout.bounding_box() or {})["y"]
    for name in named:
        button = lab(page).get_by_role("button", name=name, exact=True)
        expect(button).to_be_visible()
        box = button.bounding_box() or {}
        assert box["y"] + box["height"] <= top, (name, said)


@pytest.mark.browser
def test_before_any_draw_the_tally_names_only_buttons_shown_above_it(pages, page_url, trace):
    size = len(trace["vocabulary"])
    page = seeded(pages, page_url)
    for m in ("1", "2", "4"):
        candidates(page).select_option(m)
        the_buttons_the_tally_names_are_shown_above_it(page)
    page.close()
    page = seeded(pages, page_url, link(fitted([4, 4, 0, 0, 2, 1], size), fitted([1, 1, 2, 2, 1, 1], size)))  # p sums to 11/8
    expect(lab(page).locator("[data-lab-off]")).to_be_visible()
    candidates(page).select_option("3")
    expect(lab(page).locator("[data-lab-tally-readout]")).to_have_text(text.fill(strings.TREES["tally_empty"], {"m": 3}))
    the_buttons_the_tally_names_are_shown_above_it(page)
    page.close()


@pytest.mark.browser
def test_a_control_that_sets_another_says_so_beside_them(pages, page_url, trace):
    page = seeded(pages, page_url, seed=None)
    resets, note, sampler = strings.TREES["resets"], lab(page).locator("[data-lab-note]"), lab(page).get_by_label("Sampler", exact=True)
    rule = variants.VARIANTS[0].name
    sampler.select_option("1")  # a broken sampler of one candidate, at one candidate: nothing else moves
    expect(note).to_be_hidden()
    candidates(page).select_option("2")
    expect(sampler).to_have_value("0")
    expect(note).to_have_text(text.fill(resets["sampler_for_one"], {"name": variants.VARIANTS[1].name, "rule": rule}))
    expect(note).to_be_visible()
    candidates(page).select_option("1")
    expect(note).to_be_hidden()
    tree = trees.BROKEN[1]
    sampler.select_option(str(len(variants.VARIANTS) + 1))  # a broken way of several candidates sets two and its way
    expect(candidates(page)).to_have_value("2")
    expect(way_select(page)).to_be_disabled()
    way = trees.SPECS[0 if tree.replace else 1]
    expect(way_select(page)).to_have_value(way.id)
    expect(note).to_have_text(text.fill(resets["m_for_tree"], {"m": 2}) + " "
                              + text.fill(resets["way_for_tree"], {"name": tree.name, "way": way.name}))
    candidates(page).select_option("1")
    expect(sampler).to_have_value("0")
    expect(note).to_have_text(text.fill(resets["sampler_for_tree"], {"rule": rule}))
    candidates(page).select_option("3")
    lab(page).get_by_role("radio", name="Exact match").check()
    expect(candidates(page)).to_have_value("1")
    expect(note).to_have_text(resets["m_for_rule"])
    page.close()


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.parametrize("way", [s.id for s in trees.SPECS])
def test_the_tally_with_several_candidates_converges_to_p(pages, page_url, trace, way):
    page = seeded(pages, page_url)
    for where, pos in shipped_positions(trace)[:3]:
        lab(page).get_by_label("Position", exact=True).select_option(where)
        candidates(page).select_option(str(trees.MAX_CANDIDATES))
        way_select(page).select_option(way)
        draw(page, 5)
        counts = [a + r for a, r in tally_counts(page)]
        assert chi_square_p([(c,) for c in counts], [Fraction(x) for x in pos["target"]]) > 1e-6, (where, way)
        expect(lab(page).locator("[data-lab-tally-readout]")).to_contain_text(
            f"exactly, A = {a_text(trace, where, way, trees.MAX_CANDIDATES)}.")
        expect(lab(page).locator("[data-lab-tally-readout]")).to_contain_text("within the bound")
    page.close()


def showcase(trace: dict, i: int, m: int) -> str:
    """Returns the shipped position where broken way i moves furthest with m candidates, or the lab's own."""
    return trace["lab"]["tree_shows"][i][m - 2] or trace["lab"]["where"]


@pytest.mark.browser
@pytest.mark.parametrize("i", range(len(trees.BROKEN)))
def test_each_broken_way_shows_what_it_commits_and_the_tally_catches_it(pages, page_url, trace, i):
    spec, m = trees.BROKEN[i], 2
    where = showcase(trace, i, m)
    page = seeded(pages, page_url)
    lab(page).get_by_label("Position", exact=True).select_option(where)
    lab(page).get_by_label("Sampler", exact=True).select_option(str(len(variants.VARIANTS) + i))
    expect(candidates(page)).to_have_value(str(m))  # a broken way of several candidates needs two at least
    expect(way_select(page)).to_be_disabled()
    committed, tv_text, tv_f, _ = trace["lab"]["trees"][where]["broken"][i][m - 2]
    variant = lab(page).locator("[data-lab-variant]")
    if tv_text == "0":
        expect(variant).to_contain_text("commits p exactly")
        page.close()
        return
    expect(variant).to_contain_text(f"Exactly what “{spec.name}” commits at this position, beside p. Its total variation from p is {tv_text} ≈ {tv_f}.")
    draw(page, 10)
    counts = [a + r for a, r in tally_counts(page)]
    if Fraction(tv_text) > Fraction(1, 50):  # 100,000 draws catch a distance this large every time
        assert chi_square_p([(c,) for c in counts], [Fraction(x) for x in dict(shipped_positions(trace))[where]["target"]]) < 1e-6
        expect(lab(page).locator("[data-lab-tally-readout]")).to_contain_text("This sampler is broken")
    assert chi_square_p([(c,) for c in counts], [Fraction(x) for x in committed]) > 1e-6
    page.close()


def link(p: list[int], q: list[int]) -> str:
    return f"#lab/p={'.'.join(map(str, p))}/q={'.'.join(map(str, q))}"


def fitted(eighths_: list[int], size: int) -> list[int]:
    out = [0] * size
    for y, n in enumerate(eighths_):
        out[y % size] += n
    return out


@pytest.mark.browser
def test_your_own_position_gets_a_and_broken_distributions_worked_out_in_the_browser(pages, page_url, trace):
    size = len(trace["vocabulary"])
    p, q = fitted([4, 1, 0, 0, 2, 1], size), fitted([1, 1, 2, 2, 1, 1], size)
    P, Q = tuple(Fraction(a, 8) for a in p), tuple(Fraction(b, 8) for b in q)
    page = seeded(pages, page_url, link(p, q))
    candidates(page).select_option("3")
    way_select(page).select_option("without")
    a = trees.position(P, Q, 3, trees.WITHOUT).acceptance
    expect(lab(page).locator("[data-lab-trees-rate]")).to_contain_text(f"A = {prob_str(a, 8)};")
    for i, spec in enumerate(trees.BROKEN):
        lab(page).get_by_label("Sampler", exact=True).select_option(str(len(variants.VARIANTS) + i))
        c = trees.position(P, Q, 3, spec).committed
        if tv(c, P):
            expect(lab(page).locator("[data-lab-variant]")).to_contain_text(
                f"Its total variation from p is {tv(c, P)} ≈ {text.decimal_str(tv(c, P), 3)}.")
    page.close()


@pytest.mark.browser
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_nothing_with_several_candidates(pages, page_url, trace, scheme):
    page = seeded(pages, page_url)
    page.emulate_media(color_scheme=scheme)
    candidates(page).select_option("3")
    lab(page).get_by_role("button", name="Draw 100 times").click()
    found = axe_violations(page, "#lab")
    lab(page).get_by_label("Sampler", exact=True).select_option(str(len(variants.VARIANTS)))
    found += axe_violations(page, "#lab")
    assert found == []
    page.close()


@pytest.mark.browser
def test_several_candidates_fit_360px_without_sideways_scroll(pages, page_url, trace):
    page = seeded(pages, page_url)
    page.set_viewport_size({"width": 360, "height": 800})
    candidates(page).select_option("4")
    for _ in range(5):
        lab(page).locator("[data-lab-trees]").get_by_role("button", name="Draw the candidates").click()
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.close()


# The tally's scroll box: whether the table scrolls sideways in it, and whether its caption's words end inside it.
TALLY_FITS_JS = """t => { const box = t.closest('.table-scroll'), b = box.getBoundingClientRect(), c = t.caption.getBoundingClientRect();
  return { scrolls: box.scrollWidth > box.clientWidth + 1, caption: c.left >= b.left - 0.5 && c.right <= b.right + 0.5 }; }"""


@pytest.mark.browser
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_at_360px_the_tallys_caption_wraps_in_the_screen_and_four_candidates_table_needs_no_sideways_scroll(pages, page_url, scheme):
    page = seeded(pages, page_url)
    page.set_viewport_size({"width": 360, "height": 800})
    page.emulate_media(color_scheme=scheme)
    table = lab(page).locator("[data-lab-tally] table")
    lab(page).get_by_role("button", name="Draw 10,000 times").click()
    assert table.evaluate(TALLY_FITS_JS)["caption"]  # one candidate: the table may scroll, its caption does not
    lab(page).get_by_label("Candidates per position", exact=True).select_option("4")
    draw(page, 10)  # 100,000 draws: six-figure counts
    assert table.evaluate(TALLY_FITS_JS) == {"scrolls": False, "caption": True}
    heads = table.locator("thead th").all_text_contents()
    assert heads[1:-1] == strings.TREES["heads"]
    assert all(h in strings.TREES["counts"] for h in strings.TREES["heads"])  # the caption says what each head means
    page.close()


@pytest.mark.browser
def test_the_controls_respond_within_a_frame(pages, page_url, trace):
    size = len(trace["vocabulary"])
    page = seeded(pages, page_url, link(fitted([4, 1, 0, 0, 2, 1], size), fitted([1, 1, 2, 2, 1, 1], size)))
    took = page.evaluate("""first => {
      const fig = window.__player.figures.lab, times = [];
      for (const patch of [{ m: 4, way: 'without' }, { m: 4, way: 'with' }, { m: 3, way: 'without' }, { sampler: first, m: 4 }]) {
        const t = performance.now(); fig.update(patch); times.push(performance.now() - t);
      }
      return Math.max(...times);
    }""", len(variants.VARIANTS))
    assert took <= 16
    page.close()

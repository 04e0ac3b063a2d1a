"""The identity min(p, q) + max(0, p − q) = p (issue 43, item 4): the stacked bars the script draws for the position
and token the lab shows, and α against that token's own accept probability, checked in Chromium against exact
fractions worked out here from the trace's p and q; the table that readers without scripting, and print, see instead.
Positions and tokens come from the trace, so every test holds for any valid data file."""

from __future__ import annotations

import json
import re
from fractions import Fraction

import pytest
from labkit import lab
from playwright.sync_api import Page, expect

from speculative import render, strings, text
from speculative.figures import identity as identity_figure

from .conftest import DATA, ROOT, axe_violations
from .test_colours import colour_literals

W = strings.IDENTITY
PICTURE, TABLE = "[data-identity]", "table.identity"
MARKED = "[data-identity-row].is-mark"


@pytest.fixture(scope="module")
def trace(built_site) -> dict:
    return json.loads((built_site / "trace.json").read_text(encoding="utf-8"))


def at(trace: dict, where: str) -> tuple[dict, int]:
    """Returns (profile, position index) of "profile id/position"."""
    pid, n = where.split("/")
    return next(p for p in trace["profiles"] if p["id"] == pid), int(n) - 1


def exact(p: list[Fraction], q: list[Fraction], y: int) -> dict[str, Fraction | None]:
    """Returns token y's parts and rates, worked out here: min(p, q), max(0, p − q), p, α = Σ min(p, q), and the accept
    probability min(1, p/q) (None where q = 0)."""
    return {"min": min(p[y], q[y]), "fix": max(Fraction(0), p[y] - q[y]), "p": p[y],
            "alpha": sum((min(a, b) for a, b in zip(p, q, strict=True)), Fraction(0)),
            "accept": None if q[y] == 0 else min(Fraction(1), p[y] / q[y])}


def shipped(trace: dict, where: str) -> tuple[list[Fraction], list[Fraction]]:
    prof, k = at(trace, where)
    pos = prof["positions"][k]
    return [Fraction(x) for x in pos["target"]], [Fraction(x) for x in pos["draft"]]


def numbers(scope) -> dict[str, str]:
    """Returns the printed numbers inside an element, by the field each fills ({min}, {fix}, {p}, {alpha}, ...)."""
    return scope.evaluate("e => Object.fromEntries([...e.querySelectorAll('[data-identity-num]')]"
                          ".map(s => [s.dataset.identityNum, s.textContent]))")


def lab_pick(page: Page) -> tuple[str, int]:
    """Returns the lab's position and its checked proposal."""
    where = lab(page).get_by_label("Position", exact=True).input_value()
    radio = lab(page).get_by_role("group", name="Proposed token").get_by_role("radio", checked=True)
    return where, int(radio.input_value())


def expect_picture(page: Page, trace: dict, where_words: str, y: int, p: list[Fraction], q: list[Fraction]) -> None:
    """Waits until the picture shows token y at a position with target p and draft q, then checks every number it
    prints against the exact values: the parts sum to p, α and the accept probability are exact."""
    want = exact(p, q, y)
    picture = page.locator(PICTURE)
    expect(picture.locator(MARKED)).to_have_attribute("data-identity-row", str(y))
    head = picture.locator("[data-identity-head]")
    expect(head).to_contain_text(where_words)
    got = numbers(picture.locator(MARKED))
    assert {k: Fraction(v) for k, v in got.items()} == {"min": want["min"], "fix": want["fix"], "p": want["p"]}
    assert Fraction(got["min"]) + Fraction(got["fix"]) == Fraction(got["p"]) == p[y]
    expect(head).to_have_text(text.fill(W["head"], {"tok": trace["labels"][y], "where": where_words, **got}))
    alpha, accept = numbers(picture.locator("[data-identity-alpha]")), numbers(picture.locator("[data-identity-accept]"))
    assert Fraction(alpha["alpha"]) == want["alpha"]
    assert (accept["accept"] == W["none"]) if want["accept"] is None else Fraction(accept["accept"]) == want["accept"]
    assert accept["tok"] == trace["labels"][y]
    rows = picture.locator("[data-identity-row]")
    expect(rows).to_have_count(len(trace["vocabulary"]))
    for z in range(len(p)):  # every token's row sums exactly too
        row = {k: Fraction(v) for k, v in numbers(rows.nth(z)).items()}
        assert row == {"min": min(p[z], q[z]), "fix": max(Fraction(0), p[z] - q[z]), "p": p[z]}, z


def where_words(trace: dict, where: str) -> str:
    prof, k = at(trace, where)
    return text.fill(W["at"], {"name": prof["name"], "pos": k + 1})


# --- the build's part: the rows the picture prints, and the table ------------------------------------------------


def test_every_positions_rows_are_min_residual_and_p_in_exact_fractions(trace):
    for prof in trace["profiles"]:
        assert len(prof["identity"]) == len(prof["positions"])
        for rows, pos in zip(prof["identity"], prof["positions"], strict=True):
            p, q = [Fraction(x) for x in pos["target"]], [Fraction(x) for x in pos["draft"]]
            for y, (m, fix, total) in enumerate(rows):
                assert (Fraction(m), Fraction(fix), Fraction(total)) == (min(p[y], q[y]), max(Fraction(0), p[y] - q[y]), p[y])
                assert Fraction(m) + Fraction(fix) == Fraction(total)
                assert fix == pos["residual_raw"][y]  # the same fraction, written over the same denominator


def test_the_opening_without_a_lab_is_the_tables_position_and_a_token_the_draft_proposes(trace, page_text):
    prof, k = at(trace, trace["identity"]["where"])
    assert prof["positions"][k]["accept"][trace["identity"]["token"]] is not None
    assert f"{prof['name']}, position {k + 1}: what each token’s total chance is made of.".lower() in page_text.lower()


def test_the_words_the_build_fills_stay_out_of_the_trace(trace):
    assert set(trace["text"]["identity"]) == {k for k in W if k not in strings.BUILD_ONLY}
    assert identity_figure.Identity.WORDS == ("IDENTITY",)


def test_the_figure_writes_no_colour_of_its_own():
    mine = ("templates/identity.html.j2", "templates/js/identity.js", "templates/figures.css")
    assert [line for line in colour_literals(ROOT) if line.startswith(mine)] == []
    css = (ROOT / "templates" / "figures.css").read_text(encoding="utf-8")
    block = css[css.index("/* the identity (identity.html.j2"):]
    assert set(re.findall(r"var\((--[\w-]+)\)", block)) <= {
        "--w", "--paper", "--ink", "--muted", "--role-shared", "--role-residual", "--role-target", "--role-accepted",
        "--role-accepted-bg"}


# --- the picture in Chromium -----------------------------------------------------------------------------------------


@pytest.mark.browser
def test_the_picture_opens_on_the_labs_pick_and_its_parts_sum_to_p_exactly(page: Page, page_url, trace):
    page.goto(page_url)
    expect(page.locator(PICTURE)).to_be_visible()
    expect(page.locator(TABLE)).to_be_hidden()  # with scripting, the picture instead of the build's table
    where, y = lab_pick(page)
    assert (where, y) == (trace["lab"]["where"], trace["lab"]["token"])
    expect_picture(page, trace, where_words(trace, where), y, *shipped(trace, where))


WIDTHS = """row => {
  const w = c => { const e = row.querySelector(c); return e ? e.getBoundingClientRect().width : 0; };
  return [w('.identity-track'), w('.identity-min'), w('.identity-fix'), w('.identity-p')];
}"""


@pytest.mark.browser
@pytest.mark.parametrize("width", [1280, 360])
def test_every_part_is_as_wide_as_its_value_within_a_pixel(pages, page_url, trace, width):
    page = pages.open()
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(page_url)
    expect(page.locator(PICTURE)).to_be_visible()
    where, y = lab_pick(page)
    p, q = shipped(trace, where)
    expect(page.locator(MARKED)).to_have_attribute("data-identity-row", str(y))
    top = 1  # the rows' scale: 0 to 1, the α bar's
    rows = page.locator("[data-identity-row]")
    for z in range(len(p)):
        track, m, fix, outline = rows.nth(z).evaluate(WIDTHS)
        assert track > 0
        for got, value in ((m, min(p[z], q[z])), (fix, max(Fraction(0), p[z] - q[z])), (outline, p[z])):
            assert abs(got - float(value / top) * track) <= 1, (z, got, value)
        assert abs(m + fix - outline) <= 1
    want = exact(p, q, y)
    bar = page.locator("[data-identity-alpha-bar]")
    inner = bar.evaluate("e => e.clientWidth")
    shares = bar.evaluate("e => [...e.children].map(c => c.getBoundingClientRect().width)")
    assert all(abs(s - float(min(a, b)) * inner) <= 1 for s, a, b in zip(shares, p, q, strict=True))
    assert abs(sum(shares) - float(want["alpha"]) * inner) <= 1
    passing = page.locator("[data-identity-pass]").evaluate("e => e.getBoundingClientRect().width")
    accept_inner = page.locator("[data-identity-accept-bar]").evaluate("e => e.clientWidth")
    assert abs(passing - float(want["accept"] or 0) * accept_inner) <= 1
    assert page.evaluate("document.documentElement.scrollWidth") <= width  # no sideways scroll


def other_position(trace: dict, now: str) -> str:
    """Returns a shipped position other than `now`, preferring one where the draft can propose two or more tokens."""
    wheres = [f"{p['id']}/{k + 1}" for p in trace["profiles"] for k in range(len(p["positions"]))]
    proposable = lambda w: sum(a is not None for a in at(trace, w)[0]["positions"][at(trace, w)[1]]["accept"])  # noqa: E731
    others = sorted((w for w in wheres if w != now), key=lambda w: proposable(w) < 2)
    if not others:
        pytest.skip("this data file has one position, so the lab has no other to pick")
    return others[0]


@pytest.mark.browser
def test_picking_another_position_or_token_in_the_lab_moves_the_picture(page: Page, page_url, trace):
    page.goto(page_url)
    expect(page.locator(PICTURE)).to_be_visible()
    where = other_position(trace, lab_pick(page)[0])
    lab(page).get_by_label("Position", exact=True).select_option(where)
    prof, k = at(trace, where)
    y = prof["positions"][k]["proposal"]  # a shipped position opens on the data file's own proposal there
    expect(lab(page).get_by_role("group", name="Proposed token").get_by_role("radio", checked=True)).to_have_value(str(y))
    expect_picture(page, trace, where_words(trace, where), y, *shipped(trace, where))
    accept = prof["positions"][k]["accept"]
    others = [z for z, a in enumerate(accept) if a is not None and z != y]
    if not others:
        pytest.skip("the draft proposes one token at every position of this data file")
    lab(page).get_by_role("group", name="Proposed token").get_by_role("radio", name=trace["vocabulary"][others[0]],
                                                                       exact=True).check()
    expect_picture(page, trace, where_words(trace, where), others[0], *shipped(trace, where))


def own_link(size: int) -> tuple[str, list[int], list[int]]:
    """Returns a link to the reader's own position with p = 5/8, 3/8 and q = 3/8, 5/8 on the first two tokens: the
    first token is split both ways, the second only by acceptance (with one token, p = q = 1)."""
    p, q = ([5, 3] + [0] * (size - 2), [3, 5] + [0] * (size - 2)) if size > 1 else ([8], [8])
    return f"#lab/p={'.'.join(map(str, p))}/q={'.'.join(map(str, q))}", p, q


@pytest.mark.browser
def test_the_picture_follows_the_readers_own_position_and_its_edits(pages, page_url, trace):
    vocab = trace["vocabulary"]
    link, p, q = own_link(len(vocab))
    page = pages.open(page_url + link)
    expect(page.locator(PICTURE)).to_be_visible()
    eighths = lambda d: [Fraction(v, 8) for v in d]  # noqa: E731
    for y in range(min(2, len(vocab))):
        lab(page).get_by_role("group", name="Proposed token").get_by_role("radio", name=vocab[y], exact=True).check()
        expect_picture(page, trace, W["own"], y, eighths(p), eighths(q))
    if len(vocab) < 2:
        pytest.skip("with one token the reader's own position cannot change and still sum to 8/8")
    inputs = [lab(page).get_by_role("spinbutton", name=f"q({tok}) in eighths", exact=True) for tok in vocab[:2]]
    inputs[0].fill("4")  # q sums to 9/8: the lab shows no pick, and the picture keeps the last one
    expect(lab(page).locator("[data-lab-off]")).to_be_visible()
    expect(page.locator(MARKED)).to_have_attribute("data-identity-row", "1")
    inputs[1].fill("4")
    q = [4, 4] + [0] * (len(vocab) - 2)
    expect_picture(page, trace, W["own"], 1, eighths(p), eighths(q))


@pytest.mark.browser
def test_without_the_labs_script_the_picture_opens_on_its_own_position(page, tmp_path, monkeypatch, trace):
    from speculative import pipeline
    from speculative.figures.lab import Lab

    monkeypatch.setattr(render, "SCRIPTS", tuple(n for n in render.SCRIPTS if n not in Lab.SCRIPTS))
    (tmp_path / "index.html").write_bytes(pipeline.build_files(DATA, ROOT / "content", ROOT / "templates")["index.html"])
    page.goto((tmp_path / "index.html").as_uri())
    expect(page.locator(PICTURE)).to_be_visible()
    page_trace = json.loads(page.locator("#trace").text_content() or "{}")
    where, y = page_trace["identity"]["where"], page_trace["identity"]["token"]
    expect_picture(page, page_trace, where_words(page_trace, where), y, *shipped(page_trace, where))


@pytest.mark.browser
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_nothing_in_the_picture(page: Page, page_url, scheme):
    page.emulate_media(color_scheme=scheme)
    page.goto(page_url)
    expect(page.locator(PICTURE)).to_be_visible()
    assert axe_violations(page, "#identity") == []


@pytest.mark.browser
def test_print_and_no_script_show_the_table_for_the_builds_position(pages, page_url, browser, trace):
    page = pages.open(page_url, "window.__playerDebug = true")
    page.wait_for_function("() => window.__player")  # every figure has started
    expect(page.locator(PICTURE)).to_be_visible()
    page.emulate_media(media="print")
    expect(page.locator(TABLE)).to_be_visible()
    expect(page.locator(PICTURE)).to_be_hidden()
    prof, k = at(trace, trace["identity"]["where"])
    caption = f"{prof['name']}, position {k + 1}: what each token"
    expect(page.locator(f"{TABLE} caption")).to_contain_text(re.compile(re.escape(caption), re.I))
    context = browser.new_context(java_script_enabled=False)
    bare = context.new_page()
    bare.goto(page_url)
    expect(bare.locator(TABLE)).to_be_visible()
    expect(bare.locator(PICTURE)).to_be_hidden()
    expect(bare.get_by_text("Here is that sum at position")).to_be_visible()
    context.close()

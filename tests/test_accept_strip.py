"""The accept strip (issue 43, item 2): one picture of a check wherever one happens. One macro
(templates/accept_strip.html.j2) writes its markup and one function (core.js's acceptStrip) draws it, in the lab, in
every check of the round player and in the generator's row of the last round's checks: 0 to 1, the region where u
keeps the proposal, a tick at u, and words that say the same ("u = 0.306 < 5/6: kept").

The positions are read from the page's boxes and compared with the trace's own numbers (or, in the generator, the
numbers its strips' words print), so every test but the one marked `shipped` holds for any valid data file."""

from __future__ import annotations

import re
from fractions import Fraction
from html import unescape

import pytest
from playwright.sync_api import Page, expect

from speculative import figures, strings
from speculative.figures.common import accept_words

from .conftest import ROOT

TEMPLATES = ROOT / "templates"
HOSTS = {"lab": "[data-lab-strip]", "lab residual": "[data-lab-segments]", "player": "[data-walkthrough-bar]",
         "player draw": "[data-walkthrough-dist-draw]"}
CELLS = "#generator [data-generator-cells]"

# Each strip's skeleton: its elements' tags and classes (the state classes is-… aside), the segments a draw adds left out.
SKELETON_JS = """e => { const walk = n => n.tagName + '.' + [...n.classList].filter(c => !c.startsWith('is-')).sort().join('.')
    + '(' + [...n.children].filter(c => !c.classList.contains('fig-accept-seg')).map(walk).join(',') + ')';
  return walk(e); }"""

# Where a strip draws its region and its tick, as shares of the inside of its track: [left, right] of the region,
# the tick's centre, and the label's and the track's edges in px.
GEOMETRY_JS = """e => { const track = e.querySelector('.fig-accept-track'), t = track.getBoundingClientRect();
  const inner = t.left + track.clientLeft, w = track.clientWidth, at = x => (x - inner) / w;
  const yes = e.querySelector('.fig-accept-yes').getBoundingClientRect(), tick = e.querySelector('.fig-accept-tick').getBoundingClientRect();
  const shown = getComputedStyle(e.querySelector('.fig-accept-yes')).display !== 'none';
  return { left: shown ? at(yes.left) : null, right: shown ? at(yes.right) : null, tick: at(tick.left + tick.width / 2), px: w,
           live: e.classList.contains('is-live'), kept: e.classList.contains('is-kept'), rejected: e.classList.contains('is-rejected'),
           text: e.querySelector('[data-accept-text]').textContent }; }"""


def inside(g: dict) -> bool:
    """Returns whether the tick's centre lies in the region the strip draws."""
    return g["left"] is not None and g["left"] <= g["tick"] < g["right"]


def near(a: float, b: float, g: dict) -> bool:
    """Two shares of the track that are the same to within 1.5 px."""
    return abs(a - b) * g["px"] <= 1.5


# --- without a browser --------------------------------------------------------------------------------------


@pytest.mark.data_independent
def test_each_figure_that_shows_a_check_draws_it_with_the_one_macro_and_the_one_function():
    """No figure keeps strip markup or drawing of its own: the templates call the macro, the scripts (every file of a
    figure's) call acceptStrip, and only core.js sets a strip's region and tick."""
    for name in ("lab", "walkthrough", "generator"):
        source = (TEMPLATES / f"{name}.html.j2").read_text(encoding="utf-8")
        assert '{% from "accept_strip.html.j2" import accept_strip %}' in source and "accept_strip(" in source, name
        assert not re.search(r"u-strip|r-strip|accept-bar|accept-track|u-mark|r-seg", source), name
        files = next(f for f in figures.FIGURES if figures.name(f) == name).SCRIPTS  # the figure's script, every file
        script = "".join((TEMPLATES / file).read_text(encoding="utf-8") for file in files)
        assert "acceptStrip(" in script and "'--u'" not in script and "'--accept'" not in script, name
    assert "function acceptStrip(" in (TEMPLATES / "js" / "core.js").read_text(encoding="utf-8")


@pytest.mark.data_independent
def test_the_words_say_u_the_bound_and_the_verdict_with_the_pages_fractions():
    assert accept_words("0.306", "5/6", True, True) == "u = 0.306 < 5/6: kept"
    assert accept_words("0.7104", "1/2", False, False) == "u = 0.7104 ≥ 1/2: rejected"
    assert accept_words("0.3061", "0.8333", True, True, "the") == "“the”: u = 0.3061 < 0.8333: kept"
    assert accept_words("0.9", "0.2", False, True) == "u = 0.9 ≥ 0.2: kept"  # a broken sampler that keeps u ≥ its bound


# --- in the browser -----------------------------------------------------------------------------------------


def frame(page: Page, p: dict, n: int) -> None:
    """Opens frame n of profile p's authored round and waits for it."""
    page.evaluate("h => { location.hash = h; }", f"#walkthrough/{p['id']}/{n}")
    expect(page.locator("[data-walkthrough-counter]")).to_have_text(f"Frame {n} of {len(p['walk']['frames'])}")


def checks(trace: dict, p: dict) -> list[dict]:
    """Returns each check of p's authored round: its frame, position, draw u as shown, exact accept probability and
    verdict, from the trace."""
    out = []
    for n, f in enumerate(p["walk"]["frames"], start=1):
        if f["kind"] == "verify":
            x = p["walk"]["proposals"][f["pos"] - 1]
            pos = p["positions"][f["pos"] - 1]
            out.append({"frame": n, "pos": f["pos"], "u": f["u"], "accept": pos["accept"][x], "a": Fraction(pos["accept"][x]),
                        "kept": f["slots"][f["pos"] - 1] == "accepted"})
    return out


@pytest.mark.browser
def test_the_strip_is_the_same_markup_in_the_lab_the_player_and_the_generator(page: Page, page_url):
    page.goto(page_url)
    expect(page.locator(f"{CELLS} .fig-accept.is-live").first).to_be_visible()  # the generator has drawn its row
    shapes = {name: page.locator(selector).evaluate(SKELETON_JS) for name, selector in HOSTS.items()}
    cells = page.locator(f"{CELLS} [data-accept]")
    shapes |= {f"generator {i}": cells.nth(i).evaluate(SKELETON_JS) for i in range(cells.count())}
    shapes["generator's template"] = page.locator("[data-generator-cell-at]").evaluate(
        f"t => ({SKELETON_JS})(t.content.querySelector('[data-accept]'))")
    assert cells.count() >= 1
    assert len(set(shapes.values())) == 1, shapes
    # each is a picture (hidden from screen readers) with its words beside it
    for selector in [*HOSTS.values(), f"{CELLS} [data-accept]"]:
        strip = page.locator(selector).first
        expect(strip.locator(".fig-accept-track")).to_have_attribute("aria-hidden", "true")
        expect(strip.locator(".fig-accept-scale")).to_have_attribute("aria-hidden", "true")
        assert strip.locator("[data-accept-text]").evaluate("e => !e.closest('[aria-hidden]')")


@pytest.mark.browser
def test_every_check_of_the_opening_round_draws_u_against_its_accept_region(page: Page, page_url, trace):
    """In every verify frame of the authored round the player opens on, the strip's region is [0, min(1, p/q)), its
    tick is at the frame's u, the tick lies inside the region exactly when the check kept the proposal, and its words
    say so; a rejection draws its replacement on the same strip."""
    page.emulate_media(reduced_motion="reduce")  # no transitions: the boxes are where they end
    p = trace["profiles"][trace["walkthrough"]["profile"]]
    page.goto(page_url)
    strip = page.locator("[data-walkthrough-bar]")
    for c in checks(trace, p):
        frame(page, p, c["frame"])
        verdict = "kept" if c["kept"] else "rejected"
        expect(strip.locator("[data-accept-text]")).to_have_text(accept_words(c["u"], c["accept"], c["kept"], c["kept"]))
        expect(strip.locator("[data-accept-u]")).to_have_text(f"u = {c['u']}")
        g = strip.evaluate(GEOMETRY_JS)
        assert g["live"] and g[verdict] and not g["kept" if verdict == "rejected" else "rejected"], c
        assert near(g["tick"], float(c["u"]), g), (c, g)
        if c["a"] == 0:
            assert g["left"] is None, c  # no region at all, not a sliver
        else:
            assert near(g["left"], 0, g) and near(g["right"], float(c["a"]), g), (c, g)
        if abs(float(c["u"]) - float(c["a"])) * g["px"] > 2:  # clear of the region's edge by more than the rounding
            assert inside(g) is c["kept"], (c, g)
        draw = page.locator("[data-walkthrough-dist-draw]")
        if c["kept"]:
            expect(draw).to_be_hidden()
        else:
            expect(draw).to_be_visible()
            expect(draw).to_have_class(re.compile(r"\bis-residual\b"))
            rnd = p["walk"]["fields"]
            expect(draw.locator("[data-accept-text]")).to_have_text(
                f"r = {rnd['rep_u']} in [{rnd['rep_lo']}, {rnd['rep_hi']}): “{trace['labels'][p['walk']['replacement']]}”")


@pytest.mark.browser
@pytest.mark.shipped
def test_the_overconfident_rounds_strip_shows_u_inside_the_accept_region_once_and_outside_once(page: Page, page_url, trace):
    """The third profile, the one the player opens on: of its authored round's checks that chance decides, the strip
    draws u inside the accept region once (kept) and outside it once (rejected)."""
    page.emulate_media(reduced_motion="reduce")
    p = trace["profiles"][trace["walkthrough"]["profile"]]
    assert p["id"] == "overconfident" and trace["profiles"].index(p) == 2
    page.goto(page_url)
    sides = []
    for c in checks(trace, p):
        if 0 < c["a"] < 1:
            frame(page, p, c["frame"])
            expect(page.locator("[data-walkthrough-bar] [data-accept-u]")).to_have_text(f"u = {c['u']}")
            sides.append(inside(page.locator("[data-walkthrough-bar]").evaluate(GEOMETRY_JS)))
    assert sorted(sides) == [False, True]


def cell_numbers(text: str) -> tuple[float, float, bool]:
    """Returns (u, bound, kept) from a generator strip's words: "“the”: u = 0.3630 < 0.8333: kept"."""
    m = re.fullmatch(r"“.*”: u = ([\d.]+) ([<≥]) ([\d.]+): (kept|rejected)", text)
    assert m, text
    return float(m.group(1)), float(m.group(3)), m.group(4) == "kept"


def lane_checks(page: Page) -> tuple[int, int]:
    """Returns (checks, rejections) of a race's one round, from the speculative lane's tokens: every accepted token
    passed a check, and a replacement followed the one that failed."""
    lane = page.locator("#generator [data-generator-spec]")
    replaced = lane.locator(".generator-tok.is-replaced").count()
    return lane.locator(".generator-tok.is-accepted").count() + replaced, replaced


@pytest.mark.browser
def test_one_step_of_the_generator_shows_its_checks_as_a_row_of_strips_without_a_click_on_a_token(page: Page, page_url):
    page.add_init_script("window.__generateRace = 60; window.__generateSeed = 11;")  # a race of its own: it starts empty
    page.goto(page_url)
    g = page.locator("#generator")
    expect(g.get_by_role("button", name="Step one round")).to_be_enabled()
    g.get_by_role("button", name="Step one round").click()
    expect(g.locator("[data-generator-spec-stats]")).to_contain_text("· 1 target pass ·")
    expect(g.locator("[data-generator-checks-title]")).to_contain_text("Round 1’s checks")
    n, rejected = lane_checks(page)
    k = int(g.get_by_label("Tokens drafted per round").input_value())
    strips = g.locator("[data-generator-cells] .generator-cell:not(.is-residual) [data-accept]")
    expect(strips).to_have_count(n)
    expect(g.locator("[data-generator-cells] .is-residual [data-accept]")).to_have_count(rejected)
    expect(g.locator("[data-generator-cells] [data-accept].is-rejected")).to_have_count(rejected)
    expect(g.locator("[data-generator-cells] .generator-cell.is-dropped")).to_have_count(k - n if rejected else 0)
    for i in range(n):
        geometry = strips.nth(i).evaluate(GEOMETRY_JS)
        u, bound, kept = cell_numbers(geometry["text"])
        assert geometry["live"] and geometry["kept"] is kept
        assert kept is (i < n - rejected)  # only the last check of a round can fail
        assert near(geometry["tick"], u, geometry), geometry
        if bound > 0:
            assert near(geometry["right"], min(bound, 1), geometry), geometry
        if abs(u - bound) * geometry["px"] > 2:
            assert inside(geometry) is kept, geometry
    expect(g.locator("[data-generator-check-text]")).to_have_text(strings.GENERATOR["pick"])  # no token was chosen
    if rejected:
        residual_strip_holds_its_draw(page)


# The residual strip's drawn segment and tick, as shares of its track, and its words.
RESIDUAL_JS = """e => { const track = e.querySelector('.fig-accept-track'), t = track.getBoundingClientRect();
  const at = x => (x - t.left - track.clientLeft) / track.clientWidth;
  const seg = e.querySelector('.fig-accept-seg.is-drawn').getBoundingClientRect(), tick = e.querySelector('.fig-accept-tick').getBoundingClientRect();
  return { lo: at(seg.left), hi: at(seg.right), tick: at(tick.left + tick.width / 2), px: track.clientWidth,
           text: e.querySelector('[data-accept-text]').textContent }; }"""


FRAME_PX = 6  # the drawn segment's border, both sides together (templates/figures.css, .fig-accept-seg.is-drawn)


def residual_strip_holds_its_draw(page: Page) -> None:
    """After a rejection the row draws the residual strip: r in the replacement's segment [lo, hi), in its words and
    in its picture, and the token it names is the lane's replacement."""
    g = page.locator("#generator")
    got = g.locator("[data-generator-cells] .is-residual [data-accept]").evaluate(RESIDUAL_JS)
    m = re.fullmatch(r"r = ([\d.]+) in \[([\d.]+), ([\d.]+)\): “(.*)”", got["text"])
    assert m, got["text"]
    r, lo, hi = (float(m.group(i)) for i in (1, 2, 3))
    assert lo <= r <= hi and lo < hi, got
    # the drawn segment is never thinner than its frame (a 3 px double border each side), so a tiny share stays seen
    assert abs(got["lo"] - lo) * got["px"] <= 1.5 and abs(got["hi"] - max(hi, lo + FRAME_PX / got["px"])) * got["px"] <= 1.5, got
    assert abs(got["tick"] - r) * got["px"] <= 1.5, got
    expect(g.locator("[data-generator-spec] .generator-tok.is-replaced").last).to_contain_text(m.group(4).strip())


ROUND_SHOWN = """() => Number((document.querySelector('#generator [data-generator-checks-title]').textContent
  .match(/Round (\\d+)/) || [])[1])"""
# true once the fresh race shows round 3 or later: window.__roundsSeen starts with the round shown before Play, and the
# fresh race shows itself by a round below the one before it, or by round 1 or 2
PLAYED_PAST_TWO = """() => {
  const round = (""" + ROUND_SHOWN + """)(), seen = window.__roundsSeen;
  seen.push(round);
  return round >= 3 && seen.some((r, i) => i > 0 && (r < seen[i - 1] || r <= 2));
}"""


@pytest.mark.browser
def test_playing_the_generator_keeps_the_row_on_the_latest_round(page: Page, page_url):
    page.add_init_script("window.__generateRace = 40; window.__generateSeed = 4;")
    page.goto(page_url)
    g = page.locator("#generator")
    expect(g.get_by_role("button", name="Play")).to_be_enabled()
    page.evaluate(f"window.__roundsSeen = [({ROUND_SHOWN})()]")
    g.get_by_role("button", name="Play").click()
    # the race starts again from round 1 and plays on; waited for on every frame, since at full speed a round's title
    # may show for less than a poll's interval: the title's round falls once (the fresh race), then reaches 3
    page.wait_for_function(PLAYED_PAST_TWO, polling="raf", timeout=10_000)
    g.get_by_role("button", name="Pause").click()
    shown = int(re.search(r"Round (\d+)", g.locator("[data-generator-checks-title]").inner_text()).group(1))
    expect(g.locator("[data-generator-spec-stats]")).to_contain_text(f"· {shown} target passes ·")
    expect(g.locator("[data-generator-cells] [data-accept].is-live").first).to_be_visible()


@pytest.mark.browser
def test_the_generators_row_opens_with_the_words_the_build_wrote_for_the_seeded_race(page: Page, page_url, built_site):
    """The build writes the seeded race's last round into the row, so the row takes its place from the first paint;
    the script, running the same race, draws the same words (common.accept_words against core.js's acceptWords)."""
    html = (built_site / "index.html").read_text(encoding="utf-8")
    row = html[html.index("data-generator-cells>"):]
    row = row[:row.index("</ol>")]
    built = [unescape(a or b) for a, b in re.findall(r'data-accept-text>([^<]*)</p>|is-dropped">([^<]*)</li>', row)]
    page.goto(page_url)
    expect(page.locator(f"{CELLS} .fig-accept.is-live").first).to_be_visible()
    shown = page.locator(f"{CELLS} [data-accept-text], {CELLS} .is-dropped").all_text_contents()
    assert built and shown == built


@pytest.mark.browser
def test_dragging_the_labs_u_slider_moves_the_tick_and_flips_the_verdict(pages, page_url, trace):
    """On a position of the reader's own (p = 4/8, 4/8; q = 2/8, 6/8: the second token passes with 2/3), dragging u
    from the left of the slider to its right carries the tick with it and turns kept into rejected at 2/3."""
    size = len(trace["vocabulary"])
    p, q = [4, 4] + [0] * (size - 2), [2, 6] + [0] * (size - 2)
    page = pages.open(f"{page_url}#lab/p={'.'.join(map(str, p))}/q={'.'.join(map(str, q))}")
    lab = page.locator("#lab")
    lab.get_by_role("group", name="Proposed token").get_by_role("radio", name=trace["vocabulary"][1], exact=True).check()
    strip, slider, verdict = lab.locator("[data-lab-strip]"), lab.get_by_label("Uniform draw u"), lab.locator("[data-lab-verdict] strong")
    slider.scroll_into_view_if_needed()
    box = slider.bounding_box()
    y = box["y"] + box["height"] / 2
    seen = []
    page.mouse.move(box["x"] + 0.05 * box["width"], y)
    page.mouse.down()
    for share in (0.05, 0.35, 0.95):
        page.mouse.move(box["x"] + share * box["width"], y, steps=5)
        u = f"{float(slider.input_value()):.3f}"  # as the strip writes it: 0.71 as 0.710
        kept = Fraction(u) < Fraction(2, 3)
        expect(strip.locator("[data-accept-u]")).to_have_text(f"u = {u}")
        expect(strip.locator("[data-accept-text]")).to_have_text(accept_words(u, "2/3", kept, kept))
        expect(verdict).to_have_text("Accepted" if kept else "Rejected")
        g = strip.evaluate(GEOMETRY_JS)
        assert near(g["tick"], float(u), g) and near(g["right"], 2 / 3, g), (u, g)
        assert inside(g) is kept
        seen.append((g["tick"], kept))
    page.mouse.up()
    assert seen[0][0] < seen[1][0] < seen[2][0] and [k for _, k in seen] == [True, True, False]
    expect(lab.locator("[data-lab-residual]")).to_be_visible()  # the rejection's replacement, on the same strip
    expect(lab.locator("[data-lab-segments]")).to_have_class(re.compile(r"\bis-residual\b"))


@pytest.mark.browser
@pytest.mark.parametrize("width", [360, 390, 1280])
def test_the_strips_fit_every_width_with_no_sideways_scroll_and_no_clipped_words(page: Page, page_url, trace, width):
    page.set_viewport_size({"width": width, "height": 800})
    page.emulate_media(reduced_motion="reduce")
    p = trace["profiles"][trace["walkthrough"]["profile"]]
    page.goto(page_url)
    expect(page.locator(f"{CELLS} .fig-accept.is-live").first).to_be_visible()
    for c in checks(trace, p):
        frame(page, p, c["frame"])
        assert page.evaluate("document.documentElement.scrollWidth") <= width, (width, c)
        labels = page.locator("[data-walkthrough] [data-accept-u]:visible")
        for i in range(labels.count()):  # the tick's label stays inside its strip's width
            assert labels.nth(i).evaluate("""e => { const b = e.getBoundingClientRect(), s = e.parentElement.getBoundingClientRect();
              return b.left >= s.left - 0.5 && b.right <= s.right + 0.5; }"""), (width, c)
    words = page.locator(f"{CELLS} [data-accept-text]")
    for i in range(words.count()):
        assert words.nth(i).evaluate("e => e.scrollWidth <= e.clientWidth + 1 && e.getBoundingClientRect().width > 0"), width
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.browser
def test_in_forced_colours_the_regions_keep_their_patterns(page: Page, page_url):
    """With two system colours, the accept region keeps its solid underline and the rest its strike-through line;
    the glyphs ✓ and ✗ say which is which."""
    page.emulate_media(forced_colors="active")
    page.goto(page_url)
    strip = page.locator("#lab [data-lab-strip]")
    expect(strip).to_have_class(re.compile(r"\bis-live\b"))
    looks = strip.evaluate("""e => { const t = getComputedStyle(e.querySelector('.fig-accept-track')),
        y = getComputedStyle(e.querySelector('.fig-accept-yes')), no = getComputedStyle(e.querySelector('.fig-accept-track'), '::after');
      return { adjust: t.forcedColorAdjust, strike: t.backgroundImage, under: parseFloat(y.borderBottomWidth),
               yes: getComputedStyle(e.querySelector('.fig-accept-yes'), '::before').content, no: no.content }; }""")
    assert looks["adjust"] == "none" and "gradient" in looks["strike"] and looks["under"] >= 3, looks
    assert "✓" in looks["yes"] and "✗" in looks["no"], looks


@pytest.mark.browser
def test_without_scripting_every_check_of_the_walkthrough_says_its_verdict(browser, page_url, trace):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(page_url)
    for p in trace["profiles"]:
        for c in checks(trace, p):
            caption = page.locator(f'li.frame[id="walkthrough/{p["id"]}/{c["frame"]}"] .frame-caption')
            said = "accepted" if c["kept"] else "ejected"  # "Rejected." or "rejected"
            expect(caption).to_contain_text(said)
            if 0 < c["a"] < 1:
                expect(caption).to_contain_text(f"u = {c['u']} is {'below' if c['kept'] else 'not below'} {c['accept']}")
    context.close()


@pytest.mark.browser
def test_after_a_rejection_the_generators_row_draws_the_residual_strip_with_r(page: Page, page_url):
    """Step until a round ends in a replacement: the row then holds, after the rejected check, the residual strip
    with the draw r inside the replacement's segment; a round without a rejection has none."""
    page.add_init_script("window.__generateRace = 200; window.__generateSeed = 5;")
    page.goto(page_url)
    g = page.locator("#generator")
    step, replaced = g.get_by_role("button", name="Step one round"), g.locator("[data-generator-spec] .generator-tok.is-replaced")
    expect(step).to_be_enabled()
    for rounds in range(1, 41):
        step.click()
        expect(g.locator("[data-generator-checks-title]")).to_contain_text(f"Round {rounds}’s checks")
        if g.locator("[data-generator-cells] .generator-cell:not(.is-residual) [data-accept].is-rejected").count():
            residual_strip_holds_its_draw(page)
            return
        expect(g.locator("[data-generator-cells] .is-residual")).to_have_count(0)
    pytest.fail(f"no rejection in 40 rounds ({replaced.count()} replacements)")


# Where the u label sits against each end number of a strip's scale: "hidden" when the number is not shown, "clear"
# when they do not meet, "covered" when the label lies over all of it, "clipped" when they overlap only in part.
ENDS_JS = """e => { const u = e.querySelector('[data-accept-u]').getBoundingClientRect();
  const scale = e.querySelector('.fig-accept-scale');
  return [scale.firstElementChild, scale.lastElementChild].map(n => { const b = n.getBoundingClientRect();
    if (getComputedStyle(n).visibility !== 'visible') return 'hidden';
    if (u.right <= b.left + 0.5 || u.left >= b.right - 0.5) return 'clear';
    return u.left <= b.left + 0.5 && u.right >= b.right - 0.5 ? 'covered' : 'clipped'; }); }"""


@pytest.mark.browser
@pytest.mark.parametrize("width", [360, 1280])
def test_the_scales_end_numbers_stay_unless_the_u_label_covers_them_whole(pages, page_url, width):
    """The u label never clips an end's 0 or 1: away from the ends both numbers show clear of it, and near an end
    (u below 0.2 or above 0.8) the label sits on u's inner side and that end's number is hidden, never cut in part."""
    page = pages.open(page_url, "window.__playerDebug = true")
    page.set_viewport_size({"width": width, "height": 800})
    page.wait_for_function("() => window.__player")
    strip = page.locator("#lab [data-lab-strip]")
    for u in (0, 0.003, 0.01, 0.05, 0.15, 0.5, 0.85, 0.961, 0.99, 0.996, 0.999):
        page.evaluate("u => window.__player.figures.lab.update({ u })", u)
        expect(strip.locator("[data-accept-u]")).to_have_text(f"u = {u:.3f}")
        ends = strip.evaluate(ENDS_JS)
        assert "clipped" not in ends, (u, ends)
        if 0.2 <= u <= 0.8:
            assert ends == ["clear", "clear"], (u, ends)
    page.close()

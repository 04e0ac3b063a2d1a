"""The page's boxes hold what they show, in a real Chromium from file://: the round player's frame grows with its
content (no inner scroll, nothing clipped) with its step controls in reach; every chart is there at load, without
scrolling and in print; the generator keeps every token's kind however long the run; and a scrolled lane shows
whole lines."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect
from tracekit import caption_of

pytestmark = pytest.mark.browser

WIDTHS = [(390, 844), (1280, 800)]

# Elements inside `root` whose own box clips what they hold vertically (an inner scroll or hidden overflow), as
# [tag.class, scrollHeight, clientHeight]; empty when everything is shown at its full height.
CLIPPED_JS = """root => [root, ...root.querySelectorAll('*')].filter(e => {
  const y = getComputedStyle(e).overflowY;
  return y !== 'visible' && e.clientHeight > 1 && e.scrollHeight > e.clientHeight + 1;  // a 1 px visually hidden label is no box
}).map(e => [e.tagName + '.' + e.className, e.scrollHeight, e.clientHeight])"""


def frame_steps(page: Page) -> list[str]:
    """Every frame link of the authored walkthroughs on the page, as '#profile/frame'."""
    return page.evaluate("""() => [...document.querySelectorAll('[data-walkthrough-profile]')].flatMap(r => {
        r.click(); const n = Number(document.querySelector('[data-walkthrough-scrubber]').max);
        return [...Array(n)].map((_, i) => '#' + r.value + '/' + (i + 1)); })""")


@pytest.mark.parametrize("width,height", WIDTHS)
def test_the_players_frame_grows_with_its_content_and_clips_nothing(page: Page, page_url, width, height):
    """A reader at 390 px saw 676 of the frame's 1,923 px in a box that scrolled inside the page and stopped
    mid-sentence. Every frame of every walkthrough is now shown whole: no part of the player scrolls or clips."""
    page.set_viewport_size({"width": width, "height": height})
    page.goto(page_url)
    player = page.locator("[data-walkthrough]")
    expect(player).to_be_visible()
    stage = player.locator("[data-walkthrough-stage]")
    for where in frame_steps(page):
        page.evaluate("h => { location.hash = h; }", where)
        expect(player.locator("[data-walkthrough-counter]")).to_contain_text(f"Frame {where.split('/')[1]} of")
        assert stage.evaluate("s => s.scrollHeight - s.clientHeight") == 0, where
        assert player.evaluate(CLIPPED_JS) == [], where
        top, bottom = stage.evaluate("""s => { const a = s.getBoundingClientRect(),
            c = s.querySelector('[data-walkthrough-caption]').getBoundingClientRect(); return [c.top - a.top, a.bottom - c.bottom]; }""")
        assert top >= 0 and bottom >= -0.5, (where, top, bottom)  # the caption, last line too, inside the frame


def longest_caption(trace: dict) -> tuple[str, int, int]:
    """Returns (profile id, frame number, frame count) of the authored walkthroughs' frame with the longest caption
    (a rejection's, on the shipped data), leaving out each walk's last frame so that Next has a frame to go to."""
    found = [(len(caption_of(p, trace["vocabulary"], p["walk"], f)), p["id"], i, len(p["walk"]["frames"]))
             for p in trace["profiles"] for i, f in enumerate(p["walk"]["frames"][:-1], start=1)]
    _, pid, i, n = max(found, key=lambda t: t[0])  # the first of the longest
    return pid, i, n


@pytest.mark.parametrize("width,height", WIDTHS)
def test_the_captions_last_line_can_be_read_with_the_step_controls_in_view(page: Page, page_url, trace, width, height):
    """The step controls sit above the frame and stick to the top of the screen: scrolled to the end of the longest
    caption (a rejection's), its last line is on screen, under no control, with Next in view."""
    pid, i, n = longest_caption(trace)
    page.set_viewport_size({"width": width, "height": height})
    page.goto(page_url + f"#{pid}/{i}")
    player = page.locator("[data-walkthrough]")
    expect(player.locator("[data-walkthrough-counter]")).to_have_text(f"Frame {i} of {n}")
    caption = player.locator("[data-walkthrough-caption]")
    caption.evaluate("c => c.scrollIntoView({block: 'end'})")
    last_line = caption.evaluate("""c => { const r = document.createRange(); r.selectNodeContents(c);
        const lines = r.getClientRects(), b = lines[lines.length - 1];
        const hit = document.elementFromPoint(b.left + 2, b.top + b.height / 2);
        return {top: b.top, bottom: b.bottom, seen: c.contains(hit)}; }""")
    assert last_line["top"] >= 0 and last_line["bottom"] <= height, last_line
    assert last_line["seen"], "the caption's last line is covered"
    nxt = page.get_by_role("button", name="Next step")
    expect(nxt).to_be_in_viewport()
    nxt.click()
    expect(player.locator("[data-walkthrough-counter]")).to_have_text(f"Frame {i + 1} of {n}")


@pytest.mark.parametrize("media", ["screen", "print"])
def test_every_chart_is_on_the_page_at_load_without_scrolling(page: Page, page_url, media):
    """Charts once waited in a <noscript data-near> or for an observer until the reader scrolled near, and so were
    missing from a full-page capture. They join the page in tasks of their own after the first paint, the scroll left
    at the top, on screen and in print; the convergence histograms are built as their figures start."""
    page.emulate_media(media=media)
    page.goto(page_url)
    assert page.evaluate("scrollY") == 0
    expect(page.locator("noscript[data-near]")).to_have_count(0)
    for section in page.locator(".positions-profile").all():
        expect(section.locator(".chart-fold svg")).to_have_count(1)
        expect(section.locator(".chart-fold .chart-key")).to_have_count(1)
    for root in page.locator("[data-convergence]").all():
        expect(root.locator("[data-convergence-hist] .hist-row").first).to_be_attached()
        expect(root.locator("[data-convergence-lengths] .hist-row").first).to_be_attached()
    assert page.evaluate("scrollY") == 0


def test_a_printed_page_shows_every_drawn_chart(page: Page, page_url):
    """Print opens every fold: each draft's drawing of p against q is on paper (the convergence figures print their
    static tables instead of the live part)."""
    page.goto(page_url)
    page.emulate_media(media="print")
    charts = page.locator(".chart-fold svg")
    expect(charts).to_have_count(page.locator(".positions-profile").count())
    for chart in charts.all():
        expect(chart).to_be_visible()


# Steps until the speculative lane has written n tokens, by its own count, in a race opted in to 100,000 tokens
# (LONG, set before the page loads: the page's own race ends at its goal, and a step after the finish starts again),
# and gives up after 20 steps a token, so a race that never gets there fails the test instead of filling the memory.
LONG = "window.__generateRace = 100000;"
STEP_TO_JS = """n => { const fig = document.querySelector('[data-generator]'), step = fig.querySelector('[data-generator-step]');
  const written = () => Number(fig.querySelector('[data-generator-spec-stats]').textContent.split(' ')[0].replace(/,/g, ''));
  for (let i = 0; written() < n && i < 20 * n; i++) step.click(); return written(); }"""


def test_after_1000_tokens_the_earliest_tokens_keep_their_kind(page: Page, page_url):
    """The generator once joined its older tokens into grey text to cap its elements. Every token keeps its own
    element and its kind (kept, replaced, bonus), and only one of them is in the tab order."""
    page.add_init_script("window.__generateSeed = 9;" + LONG)
    page.goto(page_url)
    g = page.locator("#generator")
    expect(g.get_by_role("button", name="Step one round")).to_be_enabled()
    assert page.evaluate(STEP_TO_JS, 1000) >= 1000
    tokens = g.locator("[data-generator-spec] [role=button]")
    kinds = tokens.evaluate_all("ts => ts.map(t => t.className)")
    assert len(kinds) >= 1000
    assert all(k.split()[0] == "generator-tok" and k.split()[1] in ("is-accepted", "is-replaced", "is-bonus")
               for k in kinds), kinds[:40]
    assert {"is-accepted", "is-replaced", "is-bonus"} <= {k.split()[1] for k in kinds[:60]}
    expect(g.locator(".generator-older")).to_have_count(0)
    assert g.locator("[data-generator-spec]").evaluate("""l => [...l.childNodes].filter(n => n.nodeType === 3)
        .every(n => !n.textContent.trim())"""), "a token left as plain text"
    expect(g.locator('[data-generator-spec] [tabindex="0"]')).to_have_count(1)
    first = tokens.first
    first.click()
    expect(first).to_have_attribute("aria-pressed", "true")
    expect(g.locator("[data-generator-check-text]")).to_contain_text("Round 1, position 1")
    expect(g.locator('[data-generator-spec] [aria-pressed="true"]')).to_have_count(1)


def test_the_lane_tokens_are_one_tab_stop_and_arrows_move_between_them(page: Page, page_url):
    page.goto(page_url)
    g = page.locator("#generator")
    expect(g.get_by_role("button", name="Step one round")).to_be_enabled()
    tokens = g.locator("[data-generator-spec] [role=button]")
    tokens.first.focus()
    page.keyboard.press("ArrowRight")
    expect(tokens.nth(1)).to_be_focused()
    page.keyboard.press("Enter")
    expect(tokens.nth(1)).to_have_attribute("aria-pressed", "true")
    expect(tokens.nth(1)).to_have_attribute("tabindex", "0")
    expect(tokens.first).to_have_attribute("tabindex", "-1")
    page.keyboard.press("End")
    expect(tokens.last).to_be_focused()


@pytest.mark.parametrize("width,height", WIDTHS)
def test_a_scrolled_lane_shows_whole_lines(page: Page, page_url, width, height):
    """The speculative lane cut its top line in half when it followed the newest text: it scrolls by whole lines."""
    page.set_viewport_size({"width": width, "height": height})
    page.add_init_script(LONG)
    page.goto(page_url)
    g = page.locator("#generator")
    expect(g.get_by_role("button", name="Step one round")).to_be_enabled()
    assert page.evaluate(STEP_TO_JS, 300) >= 300
    lane = g.locator("[data-generator-spec]")
    cut = lane.evaluate("""l => { const top = l.getBoundingClientRect().top + l.clientTop, range = document.createRange();
        range.selectNodeContents(l);
        const out = [...range.getClientRects()].filter(r => r.top < top - 0.5 && r.bottom > top + 0.5).map(r => [r.top, r.bottom, top]);
        return [l.scrollTop > 0, out]; }""")
    assert cut == [True, []], cut

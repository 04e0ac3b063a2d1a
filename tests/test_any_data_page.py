"""The page of every valid data file works in Chromium: data/profiles.v1.json's and each file tests/valid_data.py
generates (vocabularies from 2 to 10 tokens, non-ASCII labels, denominators other than 8, one to eight positions,
one to four drafts). No script error, nothing scrolls sideways, each draft's round plays to its last frame, and
every table fits at 1280 px (and at 360 px while the vocabulary has at most six tokens)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

pytestmark = [pytest.mark.browser, pytest.mark.every_file]

SCROLLS = """() => ({
    page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    tables: [...document.querySelectorAll('.table-scroll')].filter(e => e.offsetParent !== null)
        .map(e => [e.getAttribute('aria-labelledby') || e.className, e.scrollWidth - e.clientWidth])
        .filter(([, over]) => over > 0),
})"""


def test_the_page_plays_every_draft_and_nothing_scrolls_sideways(pages, page_url, trace):
    """At a phone's width, where the page plays every draft; then, in the same document, at a laptop's."""
    errors: list[str] = []
    page: Page = pages.open()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_viewport_size({"width": 360, "height": 900})
    page.goto(page_url)
    player = page.locator("[data-walkthrough]")
    expect(player).to_be_visible()
    for p in trace["profiles"]:
        n = len(p["walk"]["frames"])
        player.get_by_role("radio", name=p["name"], exact=True).check()
        player.get_by_role("button", name="Last step").click()
        expect(player.locator("[data-walkthrough-counter]")).to_have_text(f"Frame {n} of {n}")
    for width in (360, 1280):
        page.set_viewport_size({"width": width, "height": 900})
        found = page.evaluate(SCROLLS)
        assert found["page"] == 0, f"the page scrolls sideways by {found['page']} px at {width} px"
        if width >= 1280 or len(trace["vocabulary"]) <= 6:
            assert found["tables"] == [], f"tables scroll sideways at {width} px: {found['tables']}"
    assert errors == []


def test_each_broken_samplers_key_fits_a_phone(pages, page_url):
    """The key under a broken sampler's bars (templates/variant_key.html.j2) names each swatch in a sentence; at 360 px
    its words wrap instead of pushing the page sideways, in the lab and in the generator."""
    page: Page = pages.open()
    page.set_viewport_size({"width": 360, "height": 900})
    page.goto(page_url)
    for fig in ("#lab", "#generator"):
        chooser = page.locator(fig).get_by_label("Sampler", exact=True)
        expect(chooser).to_be_enabled(timeout=60_000)
        chooser.select_option("1")
        key = page.locator(fig).locator(".fig-key .swatch-committed")
        expect(key).to_be_visible()
        over = page.evaluate("() => document.documentElement.scrollWidth - innerWidth")
        assert over <= 0, f"with a broken sampler chosen in {fig}, the page scrolls sideways by {over} px at 360 px"

"""No sideways scroll at phone and desktop widths with every figure moved away from its default state, in a real
Chromium from file://. bench/page_budget.py measures the budgets a reader feels (bytes, requests, timings, layout
shift at load) and reports the DOM size, which has no budget: a count of elements is not something a reader feels,
and the cap it had bred grey generated text and charts held back until scrolled near."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

WIDTHS = (360, 1280)


def open_ready(page: Page, url: str) -> None:
    """Opens the page and waits until its script has filled the player and the lab."""
    page.goto(url)
    expect(page.locator("[data-walkthrough]")).to_be_visible()
    expect(page.locator("#lab [data-lab-verdict]")).to_contain_text("Rejected")


def sideways(page: Page) -> tuple[int, int]:
    """Returns the root's (scrollWidth, clientWidth): equal when nothing scrolls sideways."""
    return tuple(page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]"))


def change_every_figure(page: Page) -> None:
    """Moves the lab's u to accept, the first convergence figure to its first checkpoint, and the explorer's cost."""
    page.locator("#lab").get_by_label("Uniform draw u").fill("0.010")
    expect(page.locator("#lab [data-lab-verdict]")).to_contain_text("Accepted")
    conv = page.locator('[data-convergence="0"]')
    conv.get_by_label("Rounds").fill("0")
    expect(conv.locator("[data-convergence-readout]")).to_contain_text("After 10 rounds")
    cost = page.locator("[data-explorer]").get_by_label("Draft step cost")
    other = "0" if cost.input_value() != "0" else str(cost.locator("option").count() - 1)
    cost.select_option(other)
    expect(cost).to_have_value(other)


@pytest.mark.parametrize("width", WIDTHS)
def test_nothing_scrolls_sideways_by_default_or_with_every_figure_changed(page: Page, page_url, width):
    page.set_viewport_size({"width": width, "height": 900})
    open_ready(page, page_url)
    default = sideways(page)
    change_every_figure(page)
    changed = sideways(page)
    assert default[0] == default[1], f"at {width} px, by default: scrollWidth {default[0]} != clientWidth {default[1]}"
    assert changed[0] == changed[1], f"at {width} px, figures changed: scrollWidth {changed[0]} != clientWidth {changed[1]}"

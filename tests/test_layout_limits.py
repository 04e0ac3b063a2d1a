"""The layout holds under every edit the loader accepts: the most tokens, positions and profiles, the longest labels
in several scripts, and proposals in the last column. Built from generated data files, checked in Chromium."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, expect

from speculative.limits import MAX_LABEL, MAX_NAME, MAX_POSITIONS, MAX_PROFILES, MAX_TOKENS

from .conftest import DATA

pytestmark = pytest.mark.browser

LABELS = ["w" * MAX_LABEL, "القطةالقطةال"[:MAX_LABEL], "<b>x</b>&amp", "猫" * MAX_LABEL, "👩‍👩‍👧👍🏽🇫🇷",
          "WWWWWWWWWWWW"[:MAX_LABEL], "e\u0301" * (MAX_LABEL // 2), "ÅÄÖ-ÅÄÖ-ÅÄÖ-"[:MAX_LABEL], "0123456789ab", "z"]


def row(hot: int, size: int) -> list[str]:
    """Returns a distribution in eighths over `size` tokens that gives token `hot` 3/8 and spreads the rest."""
    out = ["0"] * size
    out[hot] = "3/8"
    for i in range(5):
        j = (hot + 1 + i) % size
        out[j] = "1/8"
    return out


def limits_data() -> dict:
    """Returns a valid data file at every limit the loader allows, proposals in the last column."""
    raw = json.loads(DATA.read_text(encoding="utf-8"))
    v, k = MAX_TOKENS, MAX_POSITIONS
    vocab = [label[:MAX_LABEL] for label in LABELS[:v]]
    raw.update(vocabulary=vocab, target=[row(i % v, v) for i in range(k)], bonus_target=row(v - 1, v))
    raw["profiles"] = [{"id": f"draft-{n}", "name": (f"draft number {n} " + "x" * MAX_NAME)[:MAX_NAME],
                        "proposals": [vocab[-1]] * k, "draft": [row((i + n) % v, v) for i in range(k)]}
                       for n in range(MAX_PROFILES)]
    for p in raw["profiles"]:  # the last token must be proposable everywhere
        p["draft"] = [d if d[-1] != "0" else row(v - 1, v) for d in p["draft"]]
    raw["monte_carlo"]["rounds"] = 3000
    return raw


@pytest.fixture(scope="session")  # built once per worker, however the tests of this module are spread
def limits_url(tmp_path_factory) -> str:
    from speculative import checkout, pipeline, publish

    folder = tmp_path_factory.mktemp("limits")
    data = folder / "limits.json"
    data.write_text(json.dumps(limits_data(), ensure_ascii=False), encoding="utf-8")
    publish.write_atomic(folder / "site", pipeline.build_files(data, checkout.ROOT / "content", checkout.ROOT / "templates"))
    return (folder / "site" / "index.html").as_uri()


def overflow(page: Page) -> int:
    return page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")


@pytest.mark.parametrize("width", [360, 1280])
def test_nothing_scrolls_sideways_at_the_limits(page: Page, limits_url, width):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(limits_url)
    expect(page.locator("[data-walkthrough]")).to_be_visible()
    assert overflow(page) == 0
    player = page.locator("[data-walkthrough]")
    for i in range(MAX_PROFILES):
        player.get_by_role("radio", name=f"draft number {i}", exact=False).check()
        player.get_by_role("button", name="Last step").click()
        assert overflow(page) == 0, (width, i)
        player.get_by_role("button", name="Draw another round").click()
        assert overflow(page) == 0, (width, i, "drawn")
    page.locator("#lab").get_by_label("Uniform draw u").fill("0.999")
    page.get_by_label("Draft step cost").select_option("0")
    assert overflow(page) == 0


def test_a_right_to_left_label_stays_isolated_in_sentences(page: Page, limits_url):
    page.goto(limits_url)
    caption = page.locator("[data-walkthrough] [data-walkthrough-caption]").inner_text()
    arabic = LABELS[1][:MAX_LABEL]
    assert f"\u2068{arabic}\u2069" in caption or arabic not in caption

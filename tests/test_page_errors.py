"""The page reports no errors, and one figure that fails to start stops no other.

boot.js starts every figure's roots one by one, each inside its own try/catch: a start that throws is logged with
console.error under the figure's name, and the figures after it still start. The `pages` fixture (conftest.Pages)
records every uncaught exception and console error of the pages it lends and fails a test that saw any; the tests
here that provoke one on purpose are marked `allow_page_errors` and read what it recorded (page.pool_errors).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from labkit import draw
from playwright.sync_api import Page, expect

from speculative import render

from .conftest import DATA, ROOT

TEMPLATES = ROOT / "templates"

# Each figure's live part, which its script shows once it has started.
LIVE = {"generator": "[data-generator]", "lab": "[data-lab]", "walkthrough": "[data-walkthrough]",
        "convergence": "[data-convergence]", "explorer": "[data-explorer]"}

_STARTS = re.compile(r"^starts\('(\w+)', '([^']*)', (\w+)", re.M)


def starters() -> dict[str, tuple[str, str, str]]:
    """Returns each name a script registers with starts(...): (its file in templates/, its roots' selector, its start
    function's name)."""
    found = {}
    for name in render.SCRIPTS:
        for figure, selector, start in _STARTS.findall((TEMPLATES / name).read_text(encoding="utf-8")):
            found[figure] = (name, selector, start)
    return found


STARTERS = starters()


def test_every_live_figure_registers_a_start():
    assert set(LIVE) <= set(STARTERS)


def page_with_a_throwing_start(tmp_path: Path, figure: str) -> Path:
    """Builds the page from a copy of templates/ whose `figure` start function throws as soon as it is called, and
    returns the page's path."""
    from speculative import pipeline

    name, _, start = STARTERS[figure]
    templates = Path(shutil.copytree(TEMPLATES, tmp_path / "templates"))
    source = (templates / name).read_text(encoding="utf-8")
    planted, n = re.subn(rf"^(function {start}\([^)]*\) \{{)", rf"\1 throw new Error('planted in {start}');", source,
                         flags=re.M)
    assert n == 1, f"templates/{name}: no one line that opens function {start}"
    (templates / name).write_text(planted, encoding="utf-8")
    files = pipeline.build_files(DATA, ROOT / "content", templates)
    assert f"throw new Error('planted in {start}')" in files["index.html"].decode("utf-8")
    (tmp_path / "index.html").write_bytes(files["index.html"])
    return tmp_path / "index.html"


def walkthrough_steps(page: Page) -> None:
    counter = page.locator("[data-walkthrough] [data-walkthrough-counter]")
    expect(counter).to_have_text(re.compile(r"^Frame 1 of \d+$"))
    page.locator("[data-walkthrough]").get_by_role("button", name="Next step").click()
    expect(counter).to_have_text(re.compile(r"^Frame 2 of \d+$"))


@pytest.mark.browser
@pytest.mark.allow_page_errors
@pytest.mark.parametrize("broken", sorted(STARTERS))
def test_a_figure_whose_start_throws_is_logged_by_name_and_every_other_figure_works(pages, tmp_path, broken):
    _, roots, start = STARTERS[broken]
    page = pages.open(page_with_a_throwing_start(tmp_path, broken).as_uri(), "window.__playerDebug = true")
    page.wait_for_function("() => window.__player")  # set once boot.js has gone through every figure
    for other, selector in LIVE.items():
        live = expect(page.locator(selector).first)
        if other == broken:
            live.to_be_hidden()
        else:
            live.to_be_visible()
    if broken != "walkthrough":
        walkthrough_steps(page)
    if broken != "lab":
        draw(page, 1)
    logged = re.compile(rf"console\.error at \S+: {broken}: Error: planted in {start}\b")
    assert len(page.pool_errors) == page.locator(roots).count() > 0, page.pool_errors  # once for each of its roots
    assert all(logged.match(e) for e in page.pool_errors), page.pool_errors


def charts_are_there(page: Page) -> None:
    """Every chart joins the page soon after load without scrolling: none waits for the reader to come near."""
    expect(page.locator("noscript[data-near]")).to_have_count(0)
    for root in page.locator("[data-convergence]").all():
        expect(root.locator(".hist-row").first).to_be_attached()


@pytest.mark.browser
@pytest.mark.parametrize("width", [360, 1280])
def test_the_page_loads_and_runs_every_figure_without_a_page_error_or_console_error(pages, page_url, width):
    page = pages.open()
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(page_url)
    for selector in LIVE.values():
        expect(page.locator(selector).first).to_be_visible()
    charts_are_there(page)
    walkthrough_steps(page)
    draw(page, 1)
    page.evaluate("window.scrollTo(0, 0)")
    assert page.pool_errors == []


@pytest.mark.browser
@pytest.mark.allow_page_errors
def test_the_pages_fixture_records_an_uncaught_error_and_a_console_error(pages, tmp_path):
    (tmp_path / "bad.html").write_text(
        "<!doctype html><title>bad</title><script>console.error('logged'); throw new TypeError('thrown');</script>",
        encoding="utf-8")
    page = pages.open()
    with page.expect_event("pageerror"):
        page.goto((tmp_path / "bad.html").as_uri())
    assert len(page.pool_errors) == 2, page.pool_errors
    assert page.pool_errors[0].startswith("console.error at file://") and page.pool_errors[0].endswith(": logged")
    assert page.pool_errors[1] == "uncaught TypeError: thrown"
    assert pages.give_back() == page.pool_errors  # what the pages fixture fails a test on, unless marked as this one is


@pytest.mark.browser
@pytest.mark.allow_page_errors
def test_a_script_file_whose_top_level_code_throws_is_logged_by_name_and_the_other_figures_work(pages, tmp_path):
    """render.joined_source puts each file in a try block of its own: lab.js throwing as it is read leaves the lab
    unstarted and logged under its file, and the walkthrough, read after it, still starts and steps."""
    from speculative import pipeline

    templates = Path(shutil.copytree(TEMPLATES, tmp_path / "templates"))
    lab = templates / "js" / "lab.js"
    lab.write_text("throw new Error('planted at the top of lab.js');\n" + lab.read_text(encoding="utf-8"), encoding="utf-8")
    files = pipeline.build_files(DATA, ROOT / "content", templates)
    (tmp_path / "index.html").write_bytes(files["index.html"])
    page = pages.open((tmp_path / "index.html").as_uri(), "window.__playerDebug = true")
    page.wait_for_function("() => window.__player")
    expect(page.locator(LIVE["lab"]).first).to_be_hidden()
    for other in ("walkthrough", "generator", "explorer"):
        expect(page.locator(LIVE[other]).first).to_be_visible()
    walkthrough_steps(page)
    assert any(re.match(r"console\.error at \S+: js/lab\.js: Error: planted at the top of lab\.js", e)
               for e in page.pool_errors), page.pool_errors

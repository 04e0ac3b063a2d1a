"""Live reload under --watch --serve: an open tab reloads after each good build where it was, and shows a failed
build's problems; the script is in the server's answers only, never in the output folder's files."""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import shutil
import threading
import time
import urllib.request

import pytest

from speculative import serve

from .conftest import OVERFULL, overfull
from .test_serve import serving
from .test_watch import TIMEOUT, Running, args_for

pytestmark = pytest.mark.data_independent

STILL = "() => { const h = document.documentElement.scrollHeight, same = h === window.__h; window.__h = h; return same; }"
CSP = re.compile(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">')


def policy(page: str) -> dict[str, str]:
    (found,) = CSP.findall(page)
    return {d.split()[0]: d for d in (p.strip() for p in html.unescape(found).split(";")) if d}


def fetched(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.read().decode("utf-8")


def test_the_served_page_carries_the_script_and_the_file_stays_as_built(tmp_path, built_site):
    site = tmp_path / "site"
    shutil.copytree(built_site, site)
    built = (site / "index.html").read_bytes()
    news = serve.LiveReload()
    news.report(0, [])
    with serving(site, news) as url:
        page = fetched(url)
        assert fetched(url + "trace.json") == (site / "trace.json").read_text(encoding="utf-8")
    assert (site / "index.html").read_bytes() == built, "the file in the output folder is never touched"
    tag = f'<script data-epoch="1">{serve.LIVE_SCRIPT}</script>'
    assert page.count(tag) == 1 and tag + "</body>" in page, "one script, the last thing in the body"
    mine, theirs = policy(page), policy(built.decode("utf-8"))
    digest = "'sha256-" + base64.b64encode(hashlib.sha256(serve.LIVE_SCRIPT.encode()).digest()).decode() + "'"
    assert mine.pop("script-src") == theirs.pop("script-src") + " " + digest
    assert mine.pop("connect-src") == "connect-src 'self'" and "connect-src" not in theirs
    assert mine == theirs, "every other directive stays as strict as the built page's"
    theirs_meta, mine_meta = CSP.findall(built.decode("utf-8"))[0], CSP.findall(page)[0]
    assert page.replace(tag, "") == built.decode("utf-8").replace(theirs_meta, mine_meta), "nothing else differs"


def test_news_waits_for_the_next_build_and_carries_its_problems():
    news = serve.LiveReload()
    assert news.news(-1, 0) == {"epoch": 0, "version": 0, "problems": []}
    start = time.monotonic()
    assert news.news(0, 0.2)["version"] == 0 and time.monotonic() - start >= 0.2, "no build: it waits, then no news"
    threading.Timer(0.1, news.report, (1, ["data/profiles.v1.json: found a problem"])).start()
    assert news.news(0, 10) == {"epoch": 0, "version": 1, "problems": ["data/profiles.v1.json: found a problem"]}
    news.report(0, [])
    assert news.news(1, 10) == {"epoch": 1, "version": 2, "problems": []}


@pytest.mark.slow  # a fresh process or many connections: the full run has it, the fast tier not
@pytest.mark.browser
def test_an_open_tab_reloads_where_it_was_and_shows_a_failed_build(project, page):
    from playwright.sync_api import expect

    data = project / "data" / "profiles.v1.json"
    raw = json.loads(data.read_text())
    run = Running(*args_for(project), "--watch", "--serve", "0", cwd=project)
    try:
        url = [line for line in run.wait_for("watching ") if line.startswith("serving ")][0].split(" at ")[1]
        violations: list[str] = []
        page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
        address = f"{url}#walkthrough/{raw['profiles'][0]['id']}/3"
        page.add_init_script("window.__playerDebug = true")  # boot.js sets window.__player once every figure started
        page.goto(address)
        page.wait_for_function("() => window.__player")  # the walkthrough's own scroll to the address is done
        page.evaluate("window.scrollTo(0, 1500)")
        expect(page.locator("body")).not_to_contain_text("A sentence saved while the tab was open.")
        # The charts join in tasks of their own after the first paint, and scroll anchoring may move the page as they
        # do: the position the tab keeps is read once every figure has started and the page's height has kept still.
        expect(page.locator("html[data-started]")).to_have_count(1)
        page.wait_for_function(STILL, polling=1500, timeout=TIMEOUT * 1000)
        scrolled = page.evaluate("window.scrollY")
        assert scrolled > 1000
        prose = project / "content" / "01-what.md"
        prose.write_text(prose.read_text() + "\nA sentence saved while the tab was open.\n")
        expect(page.locator("body")).to_contain_text("A sentence saved while the tab was open.", timeout=TIMEOUT * 1000)
        assert page.url == address, "the address, with the player's frame, is kept"
        page.wait_for_function("y => Math.abs(window.scrollY - y) <= 2", arg=scrolled, timeout=TIMEOUT * 1000)

        epoch = page.locator("script[data-epoch]").get_attribute("data-epoch")  # the good build the tab shows
        data.write_text(json.dumps(overfull(json.loads(json.dumps(raw)))))
        banner = page.locator("#live-reload-problems")
        expect(banner).to_contain_text(OVERFULL, timeout=TIMEOUT * 1000)
        expect(banner).to_contain_text("The last build failed")
        data.write_text(json.dumps(raw))  # fixed: the next good build reloads the tab, and the banner is gone
        expect(page.locator("script[data-epoch]")).not_to_have_attribute("data-epoch", str(epoch), timeout=TIMEOUT * 1000)
        expect(banner).to_have_count(0)
        expect(page.locator("body")).to_contain_text("A sentence saved while the tab was open.")
        assert violations == []
    finally:
        run.stop()

"""Save the README's screenshot of the built page: python scripts/screenshot.py [OUT_DIR] (default docs/).

Uses the same browser as the tests: CHROMIUM_PATH, a system chromium, or Playwright's own download.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent


def launch_options() -> dict:
    """Returns Playwright launch options that prefer a system Chromium when there is one."""
    path = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or shutil.which("chromium-browser")
    return {"executable_path": path} if path else {}


def shoot(out: Path, page_path: Path = ROOT / "site" / "index.html") -> list[Path]:
    """Returns the screenshot written: what a reader meets first, the top of the page on a laptop screen."""
    out.mkdir(parents=True, exist_ok=True)
    target = out / "screenshot.png"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(**launch_options())
        page = browser.new_page(viewport={"width": 1280, "height": 900}, reduced_motion="reduce")
        page.goto(page_path.as_uri())
        page.locator("[data-walkthrough]").wait_for()
        page.screenshot(path=str(target))
        browser.close()
    return [target]


if __name__ == "__main__":
    for path in shoot(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs"):
        print(f"wrote {path}")

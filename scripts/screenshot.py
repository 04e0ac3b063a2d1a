"""Save screenshots of the built page: python scripts/screenshot.py [OUT_DIR] (default docs/).

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
    """Returns the screenshots written: the top of the page at desktop width, and the full page at 360 px."""
    out.mkdir(parents=True, exist_ok=True)
    shots = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(**launch_options())
        for name, width, height, full, scheme in (("page-desktop.png", 1100, 1400, False, "light"),
                                                  ("page-360-full.png", 360, 800, True, "light"),
                                                  ("page-desktop-full-dark.png", 1100, 900, True, "dark")):
            page = browser.new_page(viewport={"width": width, "height": height}, color_scheme=scheme)
            page.goto(page_path.as_uri() + "#walkthrough-section")
            page.goto(page_path.as_uri())
            page.screenshot(path=str(out / name), full_page=full)
            shots.append(out / name)
            page.close()
        browser.close()
    return shots


if __name__ == "__main__":
    for path in shoot(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs"):
        print(f"wrote {path}")

"""Print how fast the round player is in headless Chromium: ms per frame step, and its script's own run at load.

Builds nothing: open site/ as build.py left it (run `python build.py` first).
Targets: a step within one 60 Hz frame (16 ms), the script's run at load within 20 ms.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

from browserkit import init_times, launch, missing
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "site" / "index.html"
LOADS = 15
STEPS = 100

# Steps through every frame of every profile in turn; reading offsetHeight makes the browser
# recompute style and layout for each step, so the figure is what a reader waits for, not only the script.
STEP_JS = """([steps, layout]) => {
  const p = window.__player, radios = document.querySelectorAll('[data-walkthrough] [data-walkthrough-profile]');
  const counts = [...radios].map((r, i) => { p.update({profile: i, frame: 1}); return Number(document.querySelector('[data-walkthrough-scrubber]').max); });
  p.update({profile: 0, frame: 1});
  document.body.offsetHeight;
  let profile = 0, frame = 1;
  const start = performance.now();
  for (let i = 0; i < steps; i++) {
    if (frame < counts[profile]) { frame += 1; p.update({frame}); }
    else { profile = (profile + 1) % counts.length; frame = 1; p.update({profile, frame}); }
    if (layout) document.body.offsetHeight;
  }
  return (performance.now() - start) / steps;
}"""


def main() -> int:
    if missing(PAGE):
        return 1
    url = PAGE.as_uri()
    with sync_playwright() as pw:
        browser = launch(pw)
        inits = init_times(browser, url, LOADS)
        page = browser.new_page()
        page.add_init_script("window.__playerDebug = true")
        page.goto(url)
        page.wait_for_function("() => window.__player")
        script_only = page.evaluate(STEP_JS, [STEPS, False])
        with_layout = page.evaluate(STEP_JS, [STEPS, True])
        browser.close()
    print(f"frame step:   {with_layout:.2f} ms per step with style and layout "
          f"({script_only:.2f} ms script only), mean of {STEPS} steps; target <= 16 ms")
    print(f"script init:  {statistics.median(inits):.2f} ms median, {max(inits):.2f} ms worst "
          f"of {LOADS} loads; target <= 20 ms")
    return 0 if with_layout <= 16 and statistics.median(inits) <= 20 else 2


if __name__ == "__main__":
    sys.exit(main())

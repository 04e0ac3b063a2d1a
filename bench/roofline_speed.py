"""Print how fast the roofline figure answers its controls in headless Chromium: for each control, ms from its input to
a frame ready to paint (the script's render of both charts and sentences, then style and layout), median and worst
over a sweep of all its values, there and back, five times. A frame waits for the display's next tick besides; that
wait is the display's, not the figure's, so it is not counted (as in bench/page_budget.py).

Builds nothing: open site/ as build.py left it (run `python build.py` first).
Target: each control within one 60 Hz frame (16 ms, bench/budgets.py's respond_ms).
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

from browserkit import launch, missing, report
from budgets import BUDGETS
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "site" / "index.html"
SWEEPS = 5  # each control goes through all its values this many times

# (row name, the control's hook): every control of the figure
CONTROLS = [
    ("roofline, Hardware", "[data-roofline-hardware]"),
    ("roofline, Model pair", "[data-roofline-pair]"),
    ("roofline, Draft", "[data-roofline-profile]"),
    ("roofline, Positions drafted k", "[data-roofline-k]"),
    ("roofline, Candidates per position m", "[data-roofline-m]"),
    ("roofline, Batch size", "[data-roofline-batch]"),
]

# Sets one control to each of its values in turn (every option of a select, every step of a range, there and back),
# fires what a reader's move fires, and reads offsetHeight so that the browser recomputes style and layout inside the
# timed span: what stands between the input and the next frame's paint.
SWEEP_JS = """([selector, sweeps]) => {
  const el = document.querySelector(`[data-roofline] ${selector}`);
  const values = el.tagName === 'SELECT' ? [...el.options].map(o => o.value) : [];
  for (let v = Number(el.min); el.tagName !== 'SELECT' && v <= Number(el.max); v += Number(el.step || 1)) values.push(String(v));
  const order = [...values, ...values.slice(0, -1).reverse()], times = [];
  for (let s = 0; s < sweeps; s++) {
    for (const value of order) {
      document.body.offsetHeight;
      const start = performance.now();
      el.value = value;
      el.dispatchEvent(new Event('input', { bubbles: true }));
      el.dispatchEvent(new Event('change', { bubbles: true }));
      document.body.offsetHeight;
      times.push(performance.now() - start);
    }
  }
  return times;
}"""

def measure() -> dict[str, list[float]]:
    """Returns each control's times in ms (its render, with style and layout), keyed by row name."""
    out = {}
    with sync_playwright() as pw:
        browser = launch(pw)
        page = browser.new_page()
        page.goto(PAGE.as_uri())
        page.wait_for_selector("[data-roofline] [data-roofline-words]:not(:empty)")
        for name, selector in CONTROLS:
            out[name] = page.evaluate(SWEEP_JS, [selector, SWEEPS])
        browser.close()
    return out


def main() -> int:
    if missing(PAGE):
        return 1
    budget, rows = BUDGETS["respond_ms"], []
    for name, times in measure().items():
        median, worst = statistics.median(times), max(times)
        rows.append((f"{name}, response with style and layout",
                     f"{median:.2f} ms median, {worst:.2f} ms worst of {len(times)}",
                     f"<= {budget} ms", median <= budget))
    return report(rows)


if __name__ == "__main__":
    sys.exit(main())

"""Print how long site/index.html reads in headless Chromium: the main flow's words with every fold closed, the
words inside folds, the page's height in screens with folds closed, and each section's paragraphs before its
first figure or table.

Usage: .venv/bin/python bench/reading.py   (builds nothing: run `python build.py` first)
Each line reads `name: measured; target …`. Exits 2 when a target is missed, 1 when there is no page.

Words are counted as a reader sees them: text in <main> that is rendered (the page's own `hidden` and its no-script
notes are not), outside figures, tables, figure keys and navigation, and, for the main flow, outside closed
<details> folds (a fold's summary counts: it is on show). A word is a run of letters or digits, with inner
apostrophes, hyphens, dots and commas (so "p/q" is two words, "0.0095" one).
"""

from __future__ import annotations

import sys
from pathlib import Path

from browserkit import launch, missing, report
from budgets import BUDGETS
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "site" / "index.html"
# Issue 33's targets: at most 3,000 words and 15 screens at 1280×800 in the main flow with every fold closed; each
# section (sources, limits and colophon aside) leads with its figure or table, before its second paragraph.
MAIN_WORDS, SCREENS, BEFORE_FIGURE = BUDGETS["main_words"], BUDGETS["screens"], BUDGETS["before_figure"]
ASIDE = ("limits", "sources", "colophon")
SIZES = ((1280, 800), (390, 844))

COUNT_JS = r"""() => {
  const main = document.querySelector('main');
  const outside = 'figure, table, nav, svg, script, style, template, noscript, .fig-key';
  const word = /[\p{L}\p{N}](?:[\p{L}\p{N}]|['’.,-](?=[\p{L}\p{N}]))*/gu;
  const closedFold = el => {
    for (let d = el.closest('details'); d; d = d.parentElement && d.parentElement.closest('details')) {
      const summary = d.querySelector(':scope > summary');
      if (!d.open && !(summary && summary.contains(el))) return true;
    }
    return false;
  };
  const inFold = el => {
    const d = el.closest('details');
    return !!d && !d.querySelector(':scope > summary').contains(el);
  };
  let flow = 0, folded = 0, folds = 0;
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (el.closest(outside)) continue;
    const words = (n.data.match(word) || []).length;
    if (!words) continue;
    if (inFold(el)) folded += words;
    if (closedFold(el)) continue;
    // closed folds aside, what is not rendered (no-script notes, the hidden attribute) is not read
    if (!el.checkVisibility()) continue;
    flow += words;
  }
  main.querySelectorAll('details').forEach(d => { if (!d.closest(outside)) folds += 1; });
  const sections = [...main.querySelectorAll(':scope > section')].map(s => {
    let before = 0, found = false;
    for (const child of s.children) {
      if (child.matches('figure, table, .fig, svg') || child.querySelector('figure, table, svg.chart')) {
        found = true;
        break;
      }
      if (child.matches('p, ul, ol, blockquote, dl') && child.checkVisibility()) before += 1;
    }
    return [s.id, found ? before : null];
  });
  return {flow, folded, folds, sections};
}"""


SCROLL_JS = """async () => {
  const frame = () => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
  for (let y = 0; y < document.documentElement.scrollHeight; y += innerHeight / 2) {
    scrollTo(0, y);
    await frame();
  }
  scrollTo(0, 0);
  await frame();
}"""


def measure() -> dict:
    out: dict = {"height": {}}
    with sync_playwright() as pw:
        browser = launch(pw)
        for width, height in SIZES:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(PAGE.as_uri())
            page.wait_for_selector("[data-walkthrough]", state="visible")
            page.evaluate(SCROLL_JS)  # charts far below the fold join the page only when they come near
            if width == SIZES[0][0]:
                out.update(page.evaluate(COUNT_JS))
            out["height"][(width, height)] = page.evaluate("document.documentElement.scrollHeight")
            page.close()
        browser.close()
    return out


def rows(m: dict) -> list[tuple[str, str, str, bool]]:
    out = [("main-flow words, folds closed", f"{m['flow']:,}", f"≤ {MAIN_WORDS:,}", m["flow"] <= MAIN_WORDS),
           ("words in folds", f"{m['folded']:,} in {m['folds']} folds", "no target", True)]
    for (width, height), px in m["height"].items():
        screens = px / height
        target = f"≤ {SCREENS}" if width == SIZES[0][0] else "no target"
        out.append((f"height at {width}×{height}, folds closed", f"{px:,} px, {screens:.1f} screens", target,
                    screens <= SCREENS or width != SIZES[0][0]))
    for sid, before in m["sections"]:
        aside = sid in ASIDE
        value = "no figure" if before is None else f"{before} paragraph{'s' * (before != 1)}"
        ok = aside or (before is not None and before <= BEFORE_FIGURE)
        out.append((f"section {sid}, before its first figure", value,
                    "no target (aside)" if aside else f"≤ {BEFORE_FIGURE}", ok))
    return out


def main() -> int:
    if missing(PAGE):
        return 1
    return report(rows(measure()))


if __name__ == "__main__":
    sys.exit(main())

"""Print the layout shift while stepping every frame of every round of the player, and whether each frame fits.

Usage: .venv/bin/python bench/layout_shift.py [page]   (builds nothing: run `python build.py` first)
At each viewport, for every profile and every round (the walkthrough, then each drawn round), the player is
scrolled to the top of the screen, set to its first frame, and stepped to its last with synthetic clicks on
Next step. Synthetic clicks carry no hadRecentInput, so every layout-shift entry Chromium reports counts.
"Fits" means the step controls and the frame area are on one screen: from the top of the controls to the
bottom of the stage's last visible panel, or of the stage itself where a taller frame scrolls inside it, is at most
the viewport's height.
Each line reads `name: measured; target ...`. Every row is reported with no budget: a shift that follows the reader's
click is not layout shift as browsers measure it (Chromium marks it hadRecentInput), and holding every frame to one
height is what put the player in a fixed box that cut its text. bench/page_budget.py budgets the shift at load.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

from browserkit import launch, missing, report
from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "site" / "index.html"
VIEWPORTS = ((360, 740), (412, 823), (1280, 800))  # a small phone, Lighthouse's mobile, a laptop

OBSERVE_JS = """() => {
  window.__shifts = [];
  new PerformanceObserver(list => { for (const e of list.getEntries()) window.__shifts.push(e); })
    .observe({type: 'layout-shift', buffered: true});
}"""

# Steps one round from its first frame to its last; returns per step the shift it caused, the stage's height,
# and the height from the top of the controls to the bottom of the last visible panel of the stage.
STEP_JS = """async () => {
  const paint = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const player = document.querySelector('[data-walkthrough]'), stage = player.querySelector('.walkthrough-stage');
  const controls = player.querySelector('.walkthrough-controls'), scrubber = player.querySelector('[data-walkthrough-scrubber]');
  const next = player.querySelector('[data-walkthrough-action="next"]');
  player.querySelector('[data-walkthrough-action="first"]').click();
  window.scrollTo(0, window.scrollY + player.getBoundingClientRect().top);
  await paint(); await paint();
  const measure = () => {
    const bottom = Math.min(stage.getBoundingClientRect().bottom, Math.max(...[...stage.children]
      .filter(e => e.offsetParent !== null).map(e => e.getBoundingClientRect().bottom)));
    return {stage: stage.getBoundingClientRect().height, span: bottom - controls.getBoundingClientRect().top};
  };
  const steps = [measure()];
  for (let i = 1; i < Number(scrubber.max); i++) {
    const seen = window.__shifts.length;
    next.click();
    await paint();
    const shifts = window.__shifts.slice(seen).map(e => ({value: e.value,
      nodes: (e.sources || []).map(s => s.node ? (s.node.className || s.node.nodeName) + '' : '?')}));
    steps.push({...measure(), shift: shifts.reduce((a, e) => Math.max(a, e.value), 0),
                sum: shifts.reduce((a, e) => a + e.value, 0), sources: shifts.flatMap(e => e.nodes)});
  }
  return steps;
}"""


def rounds(page: Page) -> Iterator[tuple[str, str]]:
    """Yields (profile id, round name) for every round, after selecting it in the player."""
    for profile in page.eval_on_selector_all("[data-walkthrough-profile]", "els => els.map(e => e.value)"):
        page.click(f"[data-walkthrough-profile][value='{profile}']")
        page.click("[data-walkthrough-round][value='walk']")
        yield profile, "walkthrough"
        page.click("[data-walkthrough-round][value='drawn']")
        count = page.evaluate("id => window.__trace.profiles.find(p => p.id === id).drawn.length", profile)
        for i in range(1, count + 1):
            if i > 1:
                page.click("[data-walkthrough-action='draw']")
            yield profile, f"drawn {i}"


def viewport_figures(browser, url: str, width: int, height: int) -> dict:
    """Returns the largest and total shift while stepping, the rounds whose frames differ in height, and the worst span."""
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(url)
    page.wait_for_selector("[data-walkthrough]", state="visible")
    page.evaluate("window.__trace = JSON.parse(document.getElementById('trace').textContent)")
    page.evaluate(OBSERVE_JS)
    worst = {"shift": 0.0, "sum": 0.0, "span": 0.0, "uneven": 0, "rounds": 0, "frames": 0, "where": "", "sources": []}
    for profile, name in rounds(page):
        steps = page.evaluate(STEP_JS)
        worst["rounds"] += 1
        worst["frames"] += len(steps)
        worst["uneven"] += len({round(s["stage"]) for s in steps}) > 1
        worst["span"] = max(worst["span"], *(s["span"] for s in steps))
        for i, s in enumerate(steps[1:], start=2):
            worst["sum"] += s["sum"]
            if s["shift"] > worst["shift"]:
                worst.update(shift=s["shift"], where=f"{profile}, {name}, frame {i}", sources=s["sources"])
    page.close()
    return {**worst, "height": height}


def measure(page_path: Path = PAGE) -> dict[tuple[int, int], dict]:
    """Returns each viewport's figures."""
    with sync_playwright() as pw:
        browser = launch(pw)
        out = {(w, h): viewport_figures(browser, page_path.as_uri(), w, h) for w, h in VIEWPORTS}
        browser.close()
    return out


def rows(m: dict[tuple[int, int], dict]) -> list[tuple[str, str, str, bool]]:
    """Returns (name, measured, target, met) rows: the largest shift and the frame fit at each viewport."""
    out = []
    for (w, h), f in m.items():
        where = f" (at {f['where']}: {', '.join(sorted(set(f['sources'])))[:120]})" if f["shift"] else ""
        out.append((f"largest layout shift stepping the player at {w}×{h}",
                    f"{f['shift']:.3f}, {f['sum']:.3f} in all over {f['frames']} frames{where}",
                    "reported, no budget", True))
        out.append((f"rounds whose frames differ in height at {w}×{h}", f"{f['uneven']} of {f['rounds']}",
                    "reported, no budget", True))
        out.append((f"tallest frame with caption and controls at {w}×{h}", f"{f['span']:.0f} px",
                    "reported, no budget", True))
    return out


def main(argv: list[str]) -> int:
    page = Path(argv[0]) if argv else PAGE
    if missing(page):
        return 1
    return report(rows(measure(page)))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

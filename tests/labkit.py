"""Drives the accept-test lab's draws and reads its tally, for the browser tests of the lab and the figures.

The chi-square compares the tally's (token, route) counts with the exact chance of each route, worked out here from
p and q: under the accept test a token is committed by acceptance with chance min(p, q) and as a replacement with
chance max(0, p − q) (Leviathan et al. 2023, arXiv:2211.17192, Theorem 3.5)."""

from __future__ import annotations

from fractions import Fraction

from playwright.sync_api import Page, expect

from speculative import strings


def lab(page: Page):
    return page.locator("#lab")


def seeded(pages, page_url: str, hash_: str = "", seed: int | None = 2024) -> Page:
    """Returns a page on the built file, lent by the `pages` fixture; with a seed, the lab draws from a seeded stream
    (the explicit test opt-in), which every new document starts again."""
    init = None if seed is None else f"window.__playerDebug = true; window.__labSeed = {seed}"
    page = pages.open(page_url + hash_, init)
    if seed is not None:
        page.wait_for_function("() => window.__player")  # the debug opt-in's handle, set once every figure has started
    return page


def route_shares(pos: dict, rule: str = "accept-test") -> list[Fraction]:
    """Returns the exact chance of each (token, route) a rule (by id) commits, routes (accepted, replaced), from p
    and q."""
    p, q = [Fraction(x) for x in pos["target"]], [Fraction(x) for x in pos["draft"]]
    x = q.index(max(q))
    by_rule = {"accept-test": lambda y: (min(p[y], q[y]), max(Fraction(0), p[y] - q[y])),
               "greedy-draft": lambda y: (p[y], Fraction(0)) if y == x else (Fraction(0), p[y]),
               "exact-match": lambda y: (p[y] * q[y], p[y] * (1 - q[y]))}
    shares = [s for y in range(len(p)) for s in by_rule[rule](y)]
    assert sum(shares) == 1
    return shares


def chi_square_p(counts: list[tuple[int, int]], shares: list[Fraction]) -> float:
    """Returns the chi-square p-value of the tally's counts against the exact shares; a draw where a share is 0 fails."""
    from scipy.stats import chisquare

    seen = [c for pair_ in counts for c in pair_]
    assert all(c == 0 for c, s in zip(seen, shares, strict=True) if s == 0), "a draw landed where the rule gives probability 0"
    kept = [(c, s) for c, s in zip(seen, shares, strict=True) if s > 0]
    n = sum(seen)
    return float(chisquare([c for c, _ in kept], [float(s) * n for _, s in kept]).pvalue) if len(kept) > 1 else 1.0


def tally_columns(page: Page, *names: str) -> list[tuple[int, ...]]:
    """Returns each token's counts in the tally's columns headed `names` ("proposed", "accepted", "replaced")."""
    rows = page.locator("[data-lab-tally] table").evaluate(
        """(t, names) => {
          const heads = [...t.tHead.rows[0].cells].map(c => c.textContent.trim());
          const at = names.map(n => heads.indexOf(n));
          if (at.some(i => i < 0)) throw new Error('no column named ' + names + ' in ' + heads);
          return [...t.tBodies[0].rows].map(r => at.map(i => Number(r.cells[i].textContent.replace(/,/g, ''))));
        }""", list(names))
    return [tuple(r) for r in rows]


def tally_counts(page: Page) -> list[tuple[int, int]]:
    """Returns each token's (accepted, replaced) counts as the tally's table shows them: with several candidates per
    position, its columns "kept" and "last draw" (strings.TREES["heads"])."""
    kept, last = strings.TREES["heads"][1], strings.TREES["heads"][3]
    several = last in page.locator("[data-lab-tally] table thead th").all_text_contents()
    return [(a, r) for a, r in tally_columns(page, *((kept, last) if several else ("accepted", "replaced")))]


def draw(page: Page, times: int) -> None:
    """Presses "Draw 10,000 times" `times` times in one go (found by its accessible name), then waits for the count."""
    button, readout = lab(page).get_by_role("button", name="Draw 10,000 times"), lab(page).locator("[data-lab-tally-readout]")
    before = readout.text_content() or ""
    start = 0 if "No draws yet" in before else int(before.split(" draws")[0].replace(",", "").split()[-1])
    button.evaluate("(b, n) => { for (let i = 0; i < n; i++) b.click(); }", times)
    expect(readout).to_contain_text(f"{start + times * 10_000:,} draws")


def accepted_rate(page: Page) -> float:
    return sum(a for a, _ in tally_counts(page)) / sum(a + r for a, r in tally_counts(page))

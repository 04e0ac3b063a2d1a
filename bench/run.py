"""Gather every benchmark figure in one command and print them as a Markdown table.

Usage: .venv/bin/python bench/run.py   (builds site/ first; needs a Chromium for the page and player figures, and
installs MkDocs-Material into .cache/mkdocs-venv once, for the warm build's comparison)
Exits 1, naming each figure that missed its target on standard error, when any did.
"""

from __future__ import annotations

import os
import platform
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import build_and_watch  # noqa: E402
import compare  # noqa: E402
import sampler_throughput  # noqa: E402
from budgets import BUDGETS  # noqa: E402

FAST, TIMES = BUDGETS["sampler_checks_per_s"], BUDGETS["vectorised_vs_loop"]


def machine() -> str:
    """Returns a one-line description of this machine."""
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").exists() else platform.processor()
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}"


def met(value: str, target: str) -> bool:
    """Returns whether a measured value meets its target ("≤ 16 ms", "≥ 40×", "= 360 px", "0"), comparing the
    first number of each; a figure that could not be measured, or has no number, misses it."""
    numbers = [re.search(r"-?\d[\d,]*(?:\.\d+)?", text) for text in (value, target)]
    if not all(numbers):
        return False
    measured, bound = (float(n.group().replace(",", "")) for n in numbers)
    comparator = target.strip()[:1]
    return measured <= bound if comparator == "≤" else measured >= bound if comparator == "≥" else measured == bound


def browser_rows(script: str, prefix: str = "") -> list[tuple[str, str, str, bool]]:
    """Returns the rows a bench script (a browser bench, or refusal_speed.py) printed as `name: measured; target budget` lines, or why it could not run.

    Exit 2 means a budget was missed: its rows still count, and the table shows the miss.
    """
    out = subprocess.run([sys.executable, str(HERE / script)], capture_output=True, text=True)
    if out.returncode not in (0, 2):
        return [(f"{prefix}{script}", f"(failed: {out.stderr.strip()[:200]})", "runs", False)]
    rows = []
    for line in out.stdout.strip().splitlines():
        name, _, rest = line.partition(":")
        value, _, target = rest.partition("; target")
        target = target.replace("<=", "≤").strip()
        rows.append((f"{prefix}{name.strip()}", value.strip(), target, met(value, target)))
    return rows


def sampler_rows(t: dict[str, float]) -> list[tuple[str, str, str, bool]]:
    """Returns the sampler's rows: vectorised and plain-loop checks per second, and its shares of numpy's speed."""
    rows = [
        ("sampler, vectorised", f"{t['vectorised'] / 1e6:.1f} M checks/s", f"≥ {FAST / 1e6:g} M checks/s", t["vectorised"] >= FAST),
        ("sampler, plain loop", f"{t['loop'] / 1e6:.2f} M checks/s (vectorised is {t['vectorised'] / t['loop']:.0f}×)",
         f"≥ {TIMES:g}×", t["vectorised"] / t["loop"] >= TIMES),
    ]
    if "uniform" in t and "sampler_uniforms" in t:
        rows += [
            ("sampler checks/s, share of numpy's uniforms/s", f"{t['vectorised'] / t['uniform']:.1%} "
             f"(numpy: {t['uniform'] / 1e6:.0f} M uniforms/s)", "—", True),
            ("sampler's own uniforms/s, share of numpy's", f"{t['sampler_uniforms'] / t['uniform']:.1%}", "—", True),
        ]
    return rows


def warm_row(t: dict[str, float]) -> tuple[str, str, str, bool]:
    """Returns the warm build's row: its median time against MkDocs-Material's second build of the same prose."""
    name, goal = "warm build / MkDocs-Material's", f"≤ {compare.GOALS['warm_vs_mkdocs']}×"
    if "mk_warm" not in t:
        return (name, "(failed: MkDocs-Material could not be installed)", goal, False)
    ratio = t["warm"] / t["mk_warm"]
    return (name, f"{t['warm']:.2f} s / {t['mk_warm']:.2f} s = {ratio:.2f}×", goal, ratio <= compare.GOALS["warm_vs_mkdocs"])


def table() -> list[tuple[str, str, str, bool]]:
    """Returns every figure as (name, measured, target, met), measured in one run."""
    subprocess.run([sys.executable, str(HERE.parent / "build.py")], check=True, capture_output=True)
    w = build_and_watch.watch_latency()
    page = browser_rows("page_budget.py")  # the gzipped size first, then DOM, requests, script start, controls, scroll
    return [
        warm_row(compare.warm_build()),
        page[0],
        *sampler_rows(sampler_throughput.measure()),
        ("--watch, save to rewritten page", f"{w['median_ms']:.0f} ms median, {w['worst_ms']:.0f} ms worst",
         f"≤ {build_and_watch.WATCH_MS} ms", w["median_ms"] <= build_and_watch.WATCH_MS),
        *browser_rows("refusal_speed.py"),  # not a browser: the same `name: measured; target` lines
        *page[1:],
        # page_budget.py's script start is the same figure as player_speed.py's script init: show it once
        *(r for r in browser_rows("player_speed.py", prefix="player, ") if r[0] != "player, script init"),
        *browser_rows("generator.py"),
    ]


def main() -> int:
    """Prints the table; returns 1, naming each figure that missed its target, if any did, else 0."""
    rows = table()
    print(f"Machine: {machine()}\n")
    print("| figure | measured | target |\n|---|---|---|")
    for name, value, target, _ in rows:
        print(f"| {name} | {value} | {target} |")
    missed = [(name, value, target) for name, value, target, ok in rows if not ok]
    for name, value, target in missed:
        print(f"missed: {name}: measured {value}; target {target}", file=sys.stderr)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())

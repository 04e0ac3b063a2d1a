"""Gather every benchmark figure in one command and print them as a Markdown table.

Usage: .venv/bin/python bench/run.py   (builds site/ first; needs a Chromium for the page and player figures)
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import build_and_watch  # noqa: E402
import sampler_throughput  # noqa: E402


def machine() -> str:
    """Returns a one-line description of this machine."""
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").exists() else platform.processor()
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}"


def browser_rows(script: str, prefix: str = "") -> list[tuple[str, str, str]]:
    """Returns the rows a browser bench printed as `name: measured; target budget` lines, or why it could not run.

    Exit 2 means a budget was missed: its rows still count, and the table shows the miss.
    """
    out = subprocess.run([sys.executable, str(HERE / script)], capture_output=True, text=True)
    if out.returncode not in (0, 2):
        return [(f"{prefix}{script}", f"(failed: {out.stderr.strip()[:200]})", "")]
    rows = []
    for line in out.stdout.strip().splitlines():
        name, _, rest = line.partition(":")
        value, _, target = rest.partition("; target")
        rows.append((f"{prefix}{name.strip()}", value.strip(), target.replace("<=", "≤").strip()))
    return rows


def main() -> int:
    subprocess.run([sys.executable, str(HERE.parent / "build.py")], check=True, capture_output=True)
    b = build_and_watch.build_ratio()
    w = build_and_watch.watch_latency()
    t = sampler_throughput.measure()
    page = browser_rows("page_budget.py")  # sizes first, then DOM, requests, script start, controls, scroll
    rows = [
        ("full build / import floor", f"{b['build_s']:.2f} s / {b['floor_s']:.2f} s = {b['ratio']:.2f}×", "≤ 2×"),
        *page[:2],
        ("sampler, vectorised", f"{t['vectorised'] / 1e6:.1f} M checks/s", "≥ 20 M checks/s"),
        ("sampler, plain loop", f"{t['loop'] / 1e6:.2f} M checks/s (vectorised is {t['vectorised'] / t['loop']:.0f}×)", "≥ 40×"),
    ]
    if "uniform" in t and "sampler_uniforms" in t:
        rows += [
            ("sampler checks/s, share of numpy's uniforms/s", f"{t['vectorised'] / t['uniform']:.1%} "
             f"(numpy: {t['uniform'] / 1e6:.0f} M uniforms/s)", "—"),
            ("sampler's own uniforms/s, share of numpy's", f"{t['sampler_uniforms'] / t['uniform']:.1%}", "—"),
        ]
    rows += [
        ("--watch, save to rewritten page", f"{w['median_ms']:.0f} ms median, {w['worst_ms']:.0f} ms worst", "≤ 150 ms"),
        *page[2:],
        # page_budget.py's script start is the same figure as player_speed.py's script init: show it once
        *(r for r in browser_rows("player_speed.py", prefix="player, ") if r[0] != "player, script init"),
    ]
    print(f"Machine: {machine()}\n")
    print("| figure | measured | target |\n|---|---|---|")
    for name, value, target in rows:
        print(f"| {name} | {value} | {target} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

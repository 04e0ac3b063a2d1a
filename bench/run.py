"""Gather every benchmark figure in one command and print them as a Markdown table.

Usage: .venv/bin/python bench/run.py   (builds site/ first; needs a Chromium for the player figures)
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


def player_lines() -> list[str]:
    """Returns what bench/player_speed.py printed, or why it could not run."""
    out = subprocess.run([sys.executable, str(HERE / "player_speed.py")], capture_output=True, text=True)
    return out.stdout.strip().splitlines() if out.returncode == 0 else [f"(player bench failed: {out.stderr.strip()[:200]})"]


def main() -> int:
    subprocess.run([sys.executable, str(HERE.parent / "build.py")], check=True, capture_output=True)
    b = build_and_watch.build_ratio()
    s = build_and_watch.page_size()
    w = build_and_watch.watch_latency()
    t = sampler_throughput.measure()
    rows = [
        ("full build / import floor", f"{b['build_s']:.2f} s / {b['floor_s']:.2f} s = {b['ratio']:.2f}×", "≤ 2×"),
        ("page size, raw", f"{s['raw'] / 1024:.1f} KB", "≤ 130 KB"),
        ("page size, gzipped", f"{s['gzip'] / 1024:.1f} KB", "≤ 30 KB"),
        ("sampler, vectorised", f"{t['vectorised'] / 1e6:.1f} M checks/s", "≥ 20 M checks/s"),
        ("sampler, plain loop", f"{t['loop'] / 1e6:.2f} M checks/s (vectorised is {t['vectorised'] / t['loop']:.0f}×)", "≥ 40×"),
        ("--watch, save to rewritten page", f"{w['median_ms']:.0f} ms median, {w['worst_ms']:.0f} ms worst", "≤ 150 ms"),
    ]
    print(f"Machine: {machine()}\n")
    print("| figure | measured | target |\n|---|---|---|")
    for name, value, target in rows:
        print(f"| {name} | {value} | {target} |")
    for line in player_lines():
        name, _, rest = line.partition(":")
        value, _, target = rest.partition("; target")
        print(f"| player, {name.strip()} | {value.strip()} | {target.replace('<=', '≤').strip()} |" if target else line)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Print the --watch loop's time from saving a probability in the data file to the rewritten page (budget: bench/budgets.py).

Usage: .venv/bin/python bench/build_and_watch.py   (bench/compare.py times the warm build against MkDocs-Material)
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from budgets import BUDGETS

ROOT = Path(__file__).resolve().parent.parent
FLOOR = "import numpy, jinja2, markdown_it, yaml"  # bench/compare.py's import floor, for scale
WATCH_MS = BUDGETS["watch_ms"]  # the median save-to-page time


def timed(cmd: list[str], cwd: Path = ROOT) -> float:
    """Returns the wall time of one command, which must succeed, run with Python's default bytecode cache:
    PYTHONDONTWRITEBYTECODE, which some sandboxes set, would make our build compile its own modules on every run
    while the import floor and MkDocs, installed by pip, read compiled files."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, env=env)
    return time.perf_counter() - start


def watch_latency(edits: int = 8) -> dict[str, float]:
    """Returns the median and worst time from saving a probability in the data file to the rewritten page."""
    work = Path(tempfile.mkdtemp())
    for name in ("data", "content", "templates"):
        shutil.copytree(ROOT / name, work / name)
    data, page = work / "data" / "profiles.v1.json", work / "site" / "index.html"
    proc = subprocess.Popen([sys.executable, "-u", str(ROOT / "build.py"), "--watch", "--data", str(data),
                             "--out", str(work / "site"), "--content", str(work / "content"),
                             "--templates", str(work / "templates")],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        while not proc.stdout.readline().startswith("watching"):
            pass
        raw, times = json.loads(data.read_text()), []
        rows = (["3/8", "1/8", "1/8", "1/8", "1/8", "1/8"], ["3/8", "1/8", "1/8", "1/8", "2/8", "0"])
        for i in range(edits):
            raw["profiles"][0]["draft"][0] = rows[(i + 1) % 2]  # a real probability edit: α, E, frames and the Monte Carlo change
            before = page.stat().st_ino
            start = time.perf_counter()
            data.write_text(json.dumps(raw))
            while not page.exists() or page.stat().st_ino == before:  # the build swaps in a new file
                time.sleep(0.001)
            times.append(time.perf_counter() - start)
            proc.stdout.readline()
            time.sleep(0.3)  # let the watcher settle before the next save
    finally:
        proc.terminate()
        proc.wait()
        shutil.rmtree(work, ignore_errors=True)
    return {"median_ms": statistics.median(times) * 1000, "worst_ms": max(times) * 1000}


if __name__ == "__main__":
    w = watch_latency()
    print(f"--watch, save to rewritten page: {w['median_ms']:.0f} ms median, {w['worst_ms']:.0f} ms worst; "
          f"target ≤ {WATCH_MS} ms")

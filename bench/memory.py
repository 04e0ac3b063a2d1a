"""Print the analysis' peak memory (resident set) and time at 10^5 and 10^7 Monte Carlo rounds.

Usage: .venv/bin/python bench/memory.py
Each figure is one fresh Python process that loads the shipped profiles, sets `monte_carlo.rounds`, and runs
the whole analysis (`explain`, every profile's Monte Carlo included); its peak RSS is read from the kernel
(`wait4`'s ru_maxrss), so the interpreter and numpy count too. An import-only process gives the floor.
Each line reads `name: measured; target ≤ budget`. Exits 2 when a budget is missed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from budgets import BUDGETS

ROOT = Path(__file__).resolve().parent.parent
PEAK_MB = BUDGETS["peak_mb"]  # at 10^7 rounds
LINEAR = BUDGETS["linear"]  # time per round from 10^6 to 10^7 at most this many times that from 10^5 to 10^6 (fixed costs cancel)

CHILD = """
import dataclasses, sys
sys.path.insert(0, {root!r})
from speculative import analysis, profiles
data = profiles.load({data!r})
rounds = {rounds}
if rounds:
    data = dataclasses.replace(data, monte_carlo=dataclasses.replace(data.monte_carlo, rounds=rounds))
    analysis.explain(data)
"""


def run_child(rounds: int) -> tuple[float, float]:
    """Returns (peak RSS in MB, wall seconds) of one process running the analysis at `rounds` (0: imports only)."""
    code = CHILD.format(root=str(ROOT), data=str(ROOT / "data" / "profiles.v1.json"), rounds=rounds)
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code])
    _, status, usage = os.wait4(proc.pid, 0)
    took = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"the analysis at {rounds:,} rounds exited with status {proc.returncode}")
    return usage.ru_maxrss / 1024, took  # ru_maxrss is in KB on Linux


def measure() -> dict[str, float]:
    """Returns peak MB and seconds of the import floor and of the analysis at 10^5, 10^6 and 10^7 rounds."""
    floor_mb, _ = run_child(0)
    small_mb, small_s = run_child(10**5)
    _, mid_s = run_child(10**6)
    big_mb, big_s = run_child(10**7)
    per_low = max(mid_s - small_s, 1e-9) / (10**6 - 10**5)  # seconds per round, fixed costs subtracted
    per_high = max(big_s - mid_s, 1e-9) / (10**7 - 10**6)
    return {"floor_mb": floor_mb, "small_mb": small_mb, "big_mb": big_mb, "small_s": small_s, "big_s": big_s,
            "linearity": per_high / per_low}


def rows(m: dict[str, float]) -> list[tuple[str, str, str, bool]]:
    """Returns (name, measured, target, met) rows for the figures `measure` returned."""
    return [
        ("peak memory, analysis at 10^5 rounds", f"{m['small_mb']:.0f} MB (imports alone {m['floor_mb']:.0f} MB)", "—", True),
        ("peak memory, analysis at 10^7 rounds", f"{m['big_mb']:.0f} MB", f"≤ {PEAK_MB} MB", m["big_mb"] <= PEAK_MB),
        ("time, analysis at 10^5 / 10^7 rounds", f"{m['small_s']:.2f} s / {m['big_s']:.2f} s "
         f"(per added round, 10^6→10^7 is {m['linearity']:.2f}× 10^5→10^6)", f"≤ {LINEAR}× per round (linear)", m["linearity"] <= LINEAR),
    ]


def main() -> int:
    table = rows(measure())
    for name, value, target, _ in table:
        print(f"{name}: {value}; target {target}")
    return 0 if all(met for *_, met in table) else 2


if __name__ == "__main__":
    sys.exit(main())

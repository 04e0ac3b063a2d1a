"""Time how long the loader takes to refuse each broken data file of the test corpus (tests/test_broken_data.py).

Usage: .venv/bin/python bench/refusal_speed.py
Prints the slowest refusal as `name: measured; target budget` and exits 2 when it misses the budget: a hostile file
(deep nesting, huge numbers, millions of problems) must be refused as quickly as a simple one.
"""

from __future__ import annotations

import contextlib
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from budgets import BUDGETS  # noqa: E402

from speculative.errors import Problems  # noqa: E402
from tests.test_broken_data import BROKEN_FILES, load_bytes  # noqa: E402

BUDGET_S = BUDGETS["refusal_s"]


def slowest() -> tuple[str, float]:
    """Returns the broken file refused most slowly, and how long that took in seconds."""
    times = {}
    for name, blob in BROKEN_FILES.items():
        start = time.perf_counter()
        with contextlib.suppress(Problems):
            load_bytes(blob)
        times[name] = time.perf_counter() - start
    name = max(times, key=times.get)
    return name, times[name]


def main() -> int:
    name, took = slowest()
    print(f"slowest refusal of {len(BROKEN_FILES)} broken data files: {took:.2f} s ({name}); target <= {BUDGET_S:g} s")
    return 0 if took <= BUDGET_S else 2


if __name__ == "__main__":
    sys.exit(main())

"""What the benches that open the built page share: the Chromium they launch, the refusal when there is no page, and
the `name: measured; target budget` lines bench/run.py reads."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def launch(pw: Any) -> Any:
    """Returns a Chromium browser: $CHROMIUM_PATH, else a chromium on PATH, else Playwright's own."""
    path = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or shutil.which("chromium-browser")
    return pw.chromium.launch(**({"executable_path": path} if path else {}))


def init_times(browser: Any, url: str, loads: int) -> list[float]:
    """Returns the script's start in ms (window.__player.initMs, set once every figure has started) over `loads`
    fresh loads of url."""
    out = []
    for _ in range(loads):
        page = browser.new_page()
        page.add_init_script("window.__playerDebug = true")
        page.goto(url)
        page.wait_for_function("() => window.__player")
        out.append(page.evaluate("window.__player.initMs"))
        page.close()
    return out


def missing(page: Path) -> bool:
    """Returns True, having said so on stderr, when the built page is not there: these benches build nothing."""
    if page.exists():
        return False
    shown = page.relative_to(ROOT) if page.is_relative_to(ROOT) else page
    print(f"{shown} not found.\n\nRun `python build.py` first; this script builds nothing.", file=sys.stderr)
    return True


def report(table: Sequence[tuple[str, str, str, bool]]) -> int:
    """Prints each row as `name: measured; target budget`, and the missed ones on stderr; returns the exit status:
    2 when a row missed its target, else 0."""
    for name, value, target, _ in table:
        print(f"{name}: {value}; target {target}")
    missed = [name for name, _, _, ok in table if not ok]
    if missed:
        print(f"\nmissed targets: {', '.join(missed)}", file=sys.stderr)
    return 2 if missed else 0

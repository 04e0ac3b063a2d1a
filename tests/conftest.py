"""Shared fixtures: the shipped data, exact random distributions, and the browser set-up."""

from __future__ import annotations

import json
import os
import shutil
from fractions import Fraction
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

from speculative.analysis import Explained, explain
from speculative.profiles import Dataset, parse

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data" / "profiles.v1.json"

# The shipped data's figures, worked out by hand from data/profiles.v1.json (docs/figures.md shows the working):
# alpha per position, E = 1 + a1 + a1*a2 + ... (Leviathan et al. 2023, eq. 1), the speedup E / (k*c + 1)
# under the assumed cost c = 1/10 of a target step per draft step, and the player's frame count
# (1 propose + one verify per checked position + 1 bonus if all pass + 1 done).
FIGURES = {
    "aligned": {"alphas": "3/4 7/8 7/8 7/8 7/8", "expected": "3.92", "speedup": "2.62", "frames": 8},
    "divergent": {"alphas": "3/4 1/2 5/8 3/4 1/2", "expected": "2.62", "speedup": "1.75", "frames": 5},
}


@pytest.fixture(scope="session")
def shipped() -> Dataset:
    return parse(DATA.read_text(encoding="utf-8"), str(DATA))


@pytest.fixture(scope="session")
def explained(shipped) -> Explained:
    """Returns the analysis of the shipped data, computed once per session."""
    return explain(shipped)


def edited_data(folder: Path, edit: Callable[[dict], None], name: str = "edited.json") -> Path:
    """Returns the path of a copy of the shipped data file after `edit(raw_json)` changed it in place."""
    raw = json.loads(DATA.read_text(encoding="utf-8"))
    edit(raw)
    path = folder / name
    path.write_text(json.dumps(raw, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.fixture
def run_build(capsys):
    """Returns a function that runs build.main(argv) in this process and gives (exit code, stdout, stderr)."""
    import build

    def run(*argv: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = build.main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err
    return run


def random_dist(rng: np.random.Generator, size: int, zeros: bool = True) -> tuple[Fraction, ...]:
    """Returns an exact random distribution over `size` tokens, with a random denominator and some zeros."""
    denom = int(rng.integers(2, 64))
    weights = rng.dirichlet(np.full(size, 0.7))
    if zeros and size > 1:
        weights[rng.random(size) < 0.2] = 0
        if weights.sum() == 0:
            weights[rng.integers(size)] = 1
    counts = rng.multinomial(denom, weights / weights.sum())
    return tuple(Fraction(int(c), denom) for c in counts)


def agreement_profile(rng: np.random.Generator, size: int, k: int) -> tuple[list, list, tuple]:
    """Returns (target [k][V], draft [k][V], bonus [V]) in exact fractions, with agreement varying by position."""
    target = [random_dist(rng, size) for _ in range(k)]
    draft = []
    for p in target:
        w = Fraction(int(rng.integers(0, 9)), 8)  # 1 = the draft copies the target, 0 = unrelated
        r = random_dist(rng, size)
        draft.append(tuple(w * a + (1 - w) * b for a, b in zip(p, r)))
    return target, draft, random_dist(rng, size)


def as_float(rows) -> np.ndarray:
    return np.array([[float(x) for x in row] for row in rows])


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Use CHROMIUM_PATH, or a system chromium, when there is one; else Playwright's own download."""
    path = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or shutil.which("chromium-browser")
    args = dict(browser_type_launch_args)
    if path:
        args["executable_path"] = path
    args["args"] = [*args.get("args", []), "--disable-background-networking", "--disable-component-update",
                    "--no-first-run", "--disable-sync"]
    return args


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """Builds the shipped data into a fresh folder once per test session and returns that folder."""
    import build

    out = tmp_path_factory.mktemp("site") / "site"
    build.write_atomic(out, build.build_files(DATA, ROOT / "content", ROOT / "templates"))
    return out


@pytest.fixture(scope="session")
def page_text(built_site) -> str:
    """Returns the built page's text as a reader without scripting reads it: tags gone, spaces collapsed."""
    import re
    from html import unescape

    html = (built_site / "index.html").read_text(encoding="utf-8")
    html = re.sub(r"<script.*?</script>|<style>.*?</style>", "", html, flags=re.S)
    return " ".join(unescape(re.sub(r"<[^>]+>", "", html)).split())


@pytest.fixture(scope="session")
def page_url(built_site) -> str:
    """Returns the file:// address of the built page."""
    return (built_site / "index.html").as_uri()

"""Shared fixtures: the shipped data, exact random distributions, and the browser set-up."""

from __future__ import annotations

import os
import shutil
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from speculative.profiles import Dataset, load

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data" / "profiles.v1.json"


@pytest.fixture(scope="session")
def shipped() -> Dataset:
    return load(str(DATA))


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
def page_url(built_site) -> str:
    """Returns the file:// address of the built page."""
    return (built_site / "index.html").as_uri()

"""The author's check: python -m speculative check [--rounds N] [--texts N] [--data FILE].

Runs the suite's per-position and tokens-per-round checks on every profile of the file, and the sequence
check on the built-in context-dependent toy (checks.TOY): the profiles file has no previous-token axis,
so its own texts cannot be checked as sequences. Prints one table row per check, exits 1 on a failure.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Callable, TextIO

import numpy as np

from . import checks
from .profiles import DataError, load
from .analysis import arrays

HEADER = f"{'check':<34} {'n':>11} {'p-value':>9} {'TV':>8} {'bound':>8} {'detectable':>10}  result"


def progress_bar(total: int, stream: TextIO) -> Callable[[int], None]:
    """Returns a callback that advances a one-line progress bar on `stream` by the work it is told of."""
    done = [0]

    def advance(step: int) -> None:
        done[0] += step
        filled = int(30 * done[0] / total)
        stream.write(f"\r[{'#' * filled}{' ' * (30 - filled)}] {done[0] / total:4.0%}")
        stream.write("\n" if done[0] >= total else "")
        stream.flush()

    return advance


def row(c: checks.Check, categories: int) -> str:
    """Returns one table line: the check, its size, p-value, TV, bound and the TV it could detect."""
    if c.n == 0:
        verdict = "ok: the rule never reaches it" if c.ok else "FAIL: never reached"
        return f"{c.name:<34} {0:>11,} {'-':>9} {'-':>8} {'-':>8} {'-':>10}  {verdict}"
    seen = checks.detectable_tv(c.n, categories) if categories > 1 else float("nan")
    verdict = "ok" if c.ok else "FAIL"
    return f"{c.name:<34} {c.n:>11,} {c.p_value:>9.2e} {c.tv:>8.5f} {c.bound:>8.5f} {seen:>10.5f}  {verdict}"


def run(path: str, rounds: int, texts: int, out: TextIO, err: TextIO) -> bool:
    """Prints the checks of every profile in `path` and of the toy's sequences; returns whether all passed."""
    data = load(path)
    rng = np.random.default_rng(checks.SEED)
    advance = progress_bar(rounds * len(data.profiles) + texts, err) if err.isatty() else None
    print(f"{path}: {len(data.profiles)} profile(s), {rounds:,} rounds each; a check fails below "
          f"p = {checks.P_MIN:g} or above its TV bound. 'detectable' is the TV error caught with "
          f"probability {checks.POWER:.0%}.\n", file=out)
    print(HEADER, file=out)
    found = []
    for profile in data.profiles:
        t, d, b = arrays(data, profile)
        results = checks.profile_checks(t, d, b, rounds, rng, name=profile.id, progress=advance)
        for c in results:
            print(row(c, len(b) if "position" in c.name else len(t) + 1), file=out)
        found += results
    start = time.perf_counter()
    seq = checks.sequence_check(checks.TOY, texts, rng)
    if advance:
        advance(texts)
    print(row(seq, len(checks.TOY.vocabulary) ** checks.SEQUENCE_LENGTH), file=out)
    print(f"\n(the last row: the built-in context-dependent toy, {len(checks.TOY.vocabulary)} tokens, "
          f"{texts:,} texts in {time.perf_counter() - start:.1f} s)", file=out)
    failed = checks.problems(found + [seq])
    for problem in failed:
        print(f"failed: {problem}", file=out)
    return not failed


def main(argv: list[str], out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    """Runs the check from command-line arguments; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m speculative check", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=checks.ROUNDS, help="rounds per profile")
    parser.add_argument("--texts", type=int, default=checks.SEQUENCE_TEXTS, help="texts for the sequence check")
    parser.add_argument("--data", default="data/profiles.v1.json", help="the profiles file")
    args = parser.parse_args(argv)
    try:
        return 0 if run(args.data, args.rounds, args.texts, out, err) else 1
    except DataError as error:
        print("\n".join(error.lines()), file=err)
        return 1

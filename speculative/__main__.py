"""Owns the command line of the package: python -m speculative [path/to/profiles.v1.json] prints each profile's exact statistics."""

from __future__ import annotations

import sys

from .profiles import DataError, load
from .analysis import explain
from .text import decimal_str


def report(path: str) -> str:
    """Returns the statistics of every profile in `path` as plain text."""
    ex = explain(load(path))
    cost = ex.data.cost
    lines = [f"{path}: {len(ex.data.vocabulary)} tokens, k = {ex.data.k} positions; "
             f"assumed cost: draft step {cost.draft_step}, verification {cost.verify_round} target step(s)"]
    for r in ex.results:
        s = r.stats
        lines += [
            "",
            f"{r.profile.id} ({r.profile.name})",
            f"  alpha_i          {'  '.join(str(a) for a in s.alphas)}",
            f"  P(N=n), n=1..{ex.data.k + 1}  {'  '.join(str(p) for p in s.distribution)}",
            f"  E tokens/round   {s.expected} = {decimal_str(s.expected)} (from P(N=n): {s.expected_from_distribution})",
            f"  speedup          {s.expected} / {s.round_cost} = {decimal_str(s.speedup)}x",
            f"  frames           {len(r.frames)}",
        ]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if argv[:1] == ["check"]:  # python -m speculative check [--rounds N] [--data FILE]
        from .check import main as check_main
        return check_main(argv[1:])
    path = argv[0] if argv else "data/profiles.v1.json"
    try:
        print(report(path))
    except DataError as err:
        print("\n".join(err.lines()), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Plants mutants in speculative/trees.py, one at a time, in a copy of HEAD, and prints whether the fast tests of the
trees (tests/test_trees.py, test_peel.py, test_explorer_trees.py, test_lab_trees.py, browser tests left out) catch each.

Usage: .venv/bin/python bench/mutants_trees.py   (about 3 minutes; exits 1 when a mutant is missed)
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MUTANTS = {
  "kept chance not weighted by the draft (exact)": ("        own[x] += qx * keep\n", "        own[x] += keep\n"),
  "rejection weight without (1 - keep) (exact)": ("w = qx * (1 - keep)", "w = qx"),
  "residual of r without renormalising": ("return normalised([max(ZERO, a - b) for a, b in zip(r, q, strict=True)])",
                                          "return tuple(max(ZERO, a - b) for a, b in zip(r, q, strict=True))"),
  "check against p, not r (exact)": ("keep = min(Fraction(1), (p if spec.against_p else r)[x] / check[x])", "keep = min(Fraction(1), p[x] / check[x])"),
  "without replacement removes nothing (exact)": ("state(nxt or r, removed if spec.replace else removed | {x}, j + 1)", "state(nxt or r, removed, j + 1)"),
  "last draw from p, not r (exact)": ("end = (list((shrunk(p, q) or r) if spec.against_p and j else r), ZERO)", "end = (list(p), ZERO)"),
  "one candidate fewer (exact)": ("for committed, kept in state(p, frozenset(), 0)[1:])", "for committed, kept in state(p, frozenset(), 0)[:-1])"),
  "sampler: residual not updated": ("r = np.where(live[:, None], _rows(np.maximum(0.0, r - check), r), r)", "r = r"),
  "sampler: accept ratio inverted": (
      "keep = live & (rng.random(n) < np.minimum(1.0, against / np.where(check[at, x] > 0, check[at, x], 1.0)))",
      "keep = live & (rng.random(n) < np.minimum(1.0, np.where(check[at, x] > 0, check[at, x], 1.0) / np.maximum(against, 1e-12)))"),
  "sampler: without replacement removes nothing": ("removed[at, x] = True", "pass"),
  "peel: alpha from p, not r": ("alpha = overlap(r, q)", "alpha = overlap(p, q)"),
  "typical: threshold uses max": ("return min(eps, delta * math.exp(-entropy))", "return max(eps, delta * math.exp(-entropy))"),
}
TESTS = ["tests/test_trees.py", "tests/test_peel.py", "tests/test_explorer_trees.py", "tests/test_lab_trees.py"]


def main() -> int:
    missed = 0
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        subprocess.run(f"git -C {ROOT} archive HEAD | tar -x -C {root}", shell=True, check=True)
        f = root / "speculative" / "trees.py"
        orig = f.read_text()
        for name, (a, b) in MUTANTS.items():
            if orig.count(a) != 1:
                print(f"STALE: {name}: its line is no longer in trees.py")
                missed += 1
                continue
            f.write_text(orig.replace(a, b))
            r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-m", "not browser",
                                "-k", "data-file or not generated", *TESTS], cwd=root, capture_output=True, text=True,
                               env={**os.environ, "PYTHONPATH": str(root), "TEST_TIER": "fast"})
            last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else r.stderr[-200:]
            print(f"{'caught' if r.returncode else 'MISSED'}: {name}: {last}")
            missed += not r.returncode
        f.write_text(orig)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())

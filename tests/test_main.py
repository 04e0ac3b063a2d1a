"""python -m speculative prints each profile's figures, computed from the file."""

from __future__ import annotations

import subprocess
import sys

from .conftest import DATA, ROOT


def test_prints_alpha_expected_speedup_and_frames():
    out = subprocess.run([sys.executable, "-m", "speculative", str(DATA)], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "aligned (a closely aligned draft)" in out.stdout
    assert "3/4  7/8  7/8  7/8  7/8" in out.stdout
    assert "= 3.92 (from P(N=n): 64267/16384)" in out.stdout
    assert "= 1.75x" in out.stdout and "frames           5" in out.stdout


def test_bad_file_prints_problems_without_traceback(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(DATA.read_text().replace('"4/8", "1/8", "0",   "0",   "2/8", "1/8"', '"5/8", "1/8", "0",   "0",   "2/8", "1/8"'))
    out = subprocess.run([sys.executable, "-m", "speculative", str(bad)], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 1
    assert out.stderr == f"{bad}: target[0]: sums to 9/8; each distribution must sum to 1\n"

"""python -m speculative check: a table of every check on the author's file, exit 1 on a failure."""

from __future__ import annotations

import io
import re
import subprocess
import sys

import pytest

from speculative import check, checks

from .conftest import DATA, ROOT


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return check.main(list(args), out, err), out.getvalue(), err.getvalue()


def test_prints_a_row_per_position_per_profile_and_the_sequence_check():
    status, out, _ = run("--rounds", "50000", "--texts", "50000", "--data", str(DATA))
    assert status == 0, out
    rows = [line for line in out.splitlines() if line.endswith("  ok")]
    assert len(rows) == 2 * (6 + 1) + 1
    assert re.search(r"^divergent position 6 +\d[\d,]* +\d\.\d\de[-+]\d\d +0\.\d{5} +0\.\d{5} +0\.\d{5}  ok$", out, re.M)
    assert "first 4 tokens of 50,000 texts" in out


def test_exits_one_and_names_the_failure_when_a_check_fails(monkeypatch):
    monkeypatch.setattr(checks, "P_MIN", 1.1)  # every p-value is below it
    status, out, _ = run("--rounds", "2000", "--texts", "2000", "--data", str(DATA))
    assert status == 1
    assert "failed: aligned position 1: chi-square p = " in out


def test_bad_file_prints_problems_without_traceback(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(DATA.read_text().replace('"4/8", "1/8", "0",   "0",   "2/8", "1/8"', '"5/8", "1/8", "0",   "0",   "2/8", "1/8"'))
    status, out, err = run("--data", str(bad))
    assert (status, out) == (1, "")
    assert err == f"{bad}: target[0]: sums to 9/8; each distribution must sum to 1\n"


def test_progress_bar_reaches_the_whole_and_ends_the_line():
    stream = io.StringIO()
    advance = check.progress_bar(4, stream)
    advance(1)
    advance(3)
    assert stream.getvalue().endswith("] 100%\n") and "#" * 30 in stream.getvalue()


def test_unreached_position_is_a_failed_row():
    row = check.row(checks.Check("p 2", 0, float("nan"), float("nan"), float("nan"), "p 2: no round reached it"), 6)
    assert row.endswith("FAIL: never reached")


def test_runs_as_a_module_subcommand():
    out = subprocess.run([sys.executable, "-m", "speculative", "check", "--rounds", "1000", "--texts", "1000"],
                         cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.startswith("data/profiles.v1.json: 2 profile(s), 1,000 rounds each")


def test_readme_states_the_default_rounds():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"every profile, {checks.ROUNDS:,} rounds each" in readme
    assert f"{checks.POWER:.0%} of the time" in readme


@pytest.mark.parametrize("module", ["build", "speculative.analysis", "speculative.view"])
def test_the_build_never_imports_scipy(module):
    code = f"import sys; sys.path.insert(0, '.'); import {module}; print('scipy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr

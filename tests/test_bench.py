"""bench/run.py: the table of figures, and an exit status that fails, naming the figure, when one misses its target."""

from __future__ import annotations

import importlib.util

import pytest

from .conftest import ROOT


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_run", ROOT / "bench" / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("value, target, ok", [
    ("176.6 KB", "≤ 180 KB", True),
    ("180.1 KB", "≤ 180 KB", False),
    ("1,391", "≤ 1,400", True),
    ("1,401", "≤ 1,400", False),
    ("6.00 ms median, 10.40 ms worst of 15 loads", "≤ 20 ms", True),
    ("20.01 ms median, 1.00 ms worst of 15 loads", "≤ 20 ms", False),
    ("51.5 M checks/s", "≥ 20 M checks/s", True),
    ("19.9 M checks/s", "≥ 20 M checks/s", False),
    ("0", "0", True),
    ("1", "0", False),
    ("360 px", "= 360 px", True),
    ("361 px", "= 360 px", False),
    ("(failed: no browser)", "runs", False),
])
def test_a_figure_meets_its_target_by_its_first_number(bench, value, target, ok):
    assert bench.met(value, target) is ok


def test_exits_one_and_names_each_figure_that_missed(bench, monkeypatch, capsys):
    monkeypatch.setattr(bench, "table", lambda: [("page size, gzipped", "71.0 KB", "≤ 70 KB", False),
                                                 ("DOM elements after scripts run", "1,391", "≤ 1,400", True),
                                                 ("sampler, vectorised", "19.0 M checks/s", "≥ 20 M checks/s", False)])
    assert bench.main() == 1
    out, err = capsys.readouterr()
    assert "| page size, gzipped | 71.0 KB | ≤ 70 KB |\n" in out
    assert err == ("missed: page size, gzipped: measured 71.0 KB; target ≤ 70 KB\n"
                   "missed: sampler, vectorised: measured 19.0 M checks/s; target ≥ 20 M checks/s\n")


def test_exits_zero_when_every_figure_meets_its_target(bench, monkeypatch, capsys):
    monkeypatch.setattr(bench, "table", lambda: [("page size, gzipped", "68.5 KB", "≤ 70 KB", True)])
    assert bench.main() == 0
    assert capsys.readouterr().err == ""


def test_the_sampler_rows_judge_their_own_targets(bench):
    rows = bench.sampler_rows({"vectorised": 50e6, "loop": 2e6})  # vectorised is only 25× the loop
    assert [(name, ok) for name, _, _, ok in rows] == [("sampler, vectorised", True), ("sampler, plain loop", False)]


def test_the_warm_build_is_judged_against_mkdocs_materials(bench):
    assert bench.warm_row({"warm": 0.19, "mk_warm": 0.40})[1:] == ("0.19 s / 0.40 s = 0.47×", "≤ 0.5×", True)
    assert bench.warm_row({"warm": 0.26, "mk_warm": 0.40})[1:] == ("0.26 s / 0.40 s = 0.65×", "≤ 0.5×", False)
    assert bench.warm_row({"warm": 0.19})[1:] == ("(failed: MkDocs-Material could not be installed)", "≤ 0.5×", False)


def test_the_judged_targets_are_read_from_the_one_table_of_budgets(bench):
    """bench/budgets.py holds every budget; the rows print their targets from it."""
    import budgets  # bench/ is on the path once bench/run.py is loaded

    b = budgets.BUDGETS
    rows = bench.sampler_rows({"vectorised": 30e6, "loop": 0.5e6})
    assert [r[2] for r in rows] == [f"≥ {b['sampler_checks_per_s'] / 1e6:g} M checks/s", f"≥ {b['vectorised_vs_loop']:g}×"]
    assert bench.warm_row({"warm": 0.19, "mk_warm": 0.40})[2] == f"≤ {b['warm_vs_mkdocs']}×"

"""The command line: `speculative check` exits 1 when any row it prints fails, every command has --help and
--version, arguments are checked with one line each, and `stats` prints each profile's exact figures."""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
import threading

import numpy as np
import pytest

from speculative import checkout, checks, cli, pipeline, sampler, variants
from speculative.analysis import arrays
from speculative.commands import check as check_command
from speculative.errors import Problems
from speculative.profiles import load

from .conftest import DATA, FIXTURE, ROOT, unlined

BAD_TARGET = ('"4/8", "1/8", "0",   "0",   "2/8", "1/8"', '"5/8", "1/8", "0",   "0",   "2/8", "1/8"')
SMALL = ["--rounds", "20000", "--texts", "20000", "--generations", "0", "--data", str(DATA)]  # enough for every broken sampler to fail
SEQUENCE_ROW = "first 4 tokens of 20,000 texts"
TIMEOUT = 30


def run(*args: str, rule=None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return cli.main(list(args), out, err, rule=rule), out.getvalue(), err.getvalue()


def failed_rows(out: str) -> list[str]:
    """Returns the check name of every row printed as FAIL."""
    return [re.split(r" {2,}", line)[0] for line in out.splitlines() if re.search(r"  FAIL([: ].*)?$", line)]


def test_check_prints_a_row_per_position_per_profile_and_the_sequence_check():
    status, out, _ = run("check", *SMALL)
    assert status == 0, out
    rows = [line for line in out.splitlines() if line.endswith("  ok")]
    data = load(str(DATA))
    # each position, the bonus, tokens per round; the toy; then each position with 2 and 3 candidates, both ways
    trees_rows = len(data.profiles) * data.k * len(checks.TREE_WIDTHS) * 2
    assert len(rows) == len(data.profiles) * (data.k + 1 + 1) + 1 + trees_rows
    assert re.search(rf"^{last_id(data)} m=3 without pos {data.k} +\d", out, re.M)
    last = data.profiles[-1].id
    assert re.search(rf"^{last} position {data.k + 1} +" r"\d[\d,]* +\d\.\d\de[-+]\d\d +0\.\d{5} +0\.\d{5} +0\.\d{5}  ok$", out, re.M)
    assert SEQUENCE_ROW in out


def last_id(data) -> str:
    return data.profiles[-1].id


@pytest.mark.parametrize("name", checks.BROKEN)
def test_check_exits_one_on_each_broken_sampler_and_names_a_failing_position_row(name):
    status, out, _ = run("check", *SMALL, rule=checks.BROKEN[name])
    assert status == 1, out
    failing = failed_rows(out)
    assert any(re.fullmatch(r"(aligned|divergent) (position \d|tokens per round)", row) for row in failing), out
    for row in failing:
        assert f"failed: {row}: " in out


@pytest.mark.parametrize("name", checks.SEQUENCE_BROKEN)
def test_check_exits_one_on_each_sequence_broken_sampler_and_names_the_sequence_row(name):
    status, out, _ = run("check", *SMALL, rule=checks.SEQUENCE_BROKEN[name])
    assert status == 1, out
    assert SEQUENCE_ROW in failed_rows(out)
    assert f"failed: {SEQUENCE_ROW}: " in out


def test_a_failing_sequence_row_alone_makes_the_exit_status_one():
    rule = checks.SEQUENCE_BROKEN["next round continued from the rejected token"]  # no per-position row sees it
    status, out, _ = run("check", *SMALL, rule=rule)
    assert (status, failed_rows(out)) == (1, [SEQUENCE_ROW])


@pytest.mark.parametrize("name", checks.HARMLESS)
def test_check_exits_zero_on_a_harmless_change(name):
    status, out, _ = run("check", *SMALL, rule=checks.HARMLESS[name])
    assert (status, failed_rows(out)) == (0, []), out


def test_check_exits_one_and_names_the_failure_when_a_p_value_is_too_small(monkeypatch):
    monkeypatch.setattr(checks, "P_MIN", 1.1)  # every p-value is below it
    status, out, _ = run("check", "--rounds", "2000", "--texts", "2000", "--generations", "0", "--data", str(DATA))
    assert status == 1
    assert "failed: aligned position 1: chi-square p = " in out


def test_an_unreached_position_is_a_failed_row():
    row = check_command.row(checks.Check("p 2", 0, float("nan"), float("nan"), float("nan"), "p 2: no round reached it"), 6)
    assert row.endswith("FAIL unreached")
    assert failed_rows(row) == ["p 2"]


def test_a_one_token_row_says_no_error_is_detectable_rather_than_nan():
    row = check_command.row(checks.Check("p 1", 5_000, 1.0, 0.0, 0.01, None), 1)
    assert "nan" not in row and row.split()[-2:] == ["-", "ok"]
    assert check_command.row(checks.Check("p 1", 5_000, 1.0, 0.0, 0.01, None), 2).split()[-2] != "-"


@pytest.mark.parametrize("args, message", [
    (["--rounds", "0"], "argument --rounds: found '0'; expected a whole number from 1,000 to 100,000,000"),
    (["--rounds", "999"], "argument --rounds: found '999'; expected a whole number from 1,000 to 100,000,000"),
    (["--rounds", "1000000000000"],
     "argument --rounds: found '1000000000000'; expected a whole number from 1,000 to 100,000,000"),
    (["--rounds", "lots"], "argument --rounds: found 'lots'; expected a whole number from 1,000 to 100,000,000"),
    (["--texts", "-5"], "argument --texts: found '-5'; expected a whole number from 1,000 to 100,000,000"),
    (["--texts", "100_000_001"],
     "argument --texts: found '100_000_001'; expected a whole number from 1,000 to 100,000,000"),
])
def test_check_refuses_a_count_out_of_range_in_one_line(capsys, args, message):
    with pytest.raises(SystemExit) as stop:
        cli.main(["check", *args])
    assert stop.value.code == 2
    assert capsys.readouterr() == ("", f"speculative check: {message}\n")


def test_counts_may_be_written_with_separators():
    parse = cli.count(1_000, 100_000_000)
    assert [parse("1000"), parse("1_000_000"), parse("6,400,000"), parse("100000000")] == [1000, 10**6, 6_400_000, 10**8]


def test_serve_refuses_a_port_out_of_range(capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(["serve", "--port", "70000"])
    assert stop.value.code == 2
    assert capsys.readouterr().err == ('speculative serve: argument --port: found "70000"; expected a port number from 0 '
                                       'to 65535 (0 picks a free one)\n')


def test_check_of_a_bad_file_prints_its_problems_without_traceback(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(FIXTURE.read_text().replace(*BAD_TARGET))
    status, out, err = run("check", "--data", str(bad))
    assert (status, out) == (1, "")
    assert unlined([err]) == [f"{bad}: target[0] (the target, position 1): sums to 9/8; each distribution must sum to 1\n"]


def test_progress_bar_reaches_the_whole_and_is_wiped_before_a_row():
    stream = Terminal()  # a terminal: on a file or a pipe the bar draws nothing
    assert check_command.Progress(4, io.StringIO()).live is False
    bar = check_command.Progress(4, stream)
    bar.advance(1)
    assert stream.getvalue() == "\r[" + "#" * 7 + " " * 23 + "]  25%"
    bar.clear()
    assert stream.getvalue().endswith("\r\x1b[K")  # back to the start of the line, erased to its end
    bar.clear()  # nothing drawn since: nothing to wipe
    assert stream.getvalue().count("\x1b[K") == 1
    bar.advance(3)
    assert stream.getvalue().endswith("\r[" + "#" * 30 + "] 100%")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_check_commands_progress_bar_counts_every_round_and_text_once():
    out, err = io.StringIO(), Terminal()
    assert check_command.run_checks(str(DATA), 2000, 3000, out, err)
    shown = err.getvalue()
    percents = [int(p) for p in re.findall(r"(\d+)%", shown)]
    assert shown.endswith("] 100%\r\x1b[K") and "\n" not in shown, "the bar is wiped at the end and leaves no line"
    assert percents == sorted(percents) and percents[-1] == 100


def test_the_check_command_runs_the_rounds_asked_and_reproduces_the_suites_seeded_run():
    """--rounds sets the rounds and --texts the texts (each row's n says which), from the suite's seed."""
    data = load(str(DATA))
    t, d, b = arrays(data, data.profiles[0])
    first = checks.profile_checks(t, d, b, 2000, np.random.default_rng(checks.SEED), sampler.RULE,
                                  name=data.profiles[0].id)[0]
    _, out, _ = run("check", "--rounds", "2000", "--texts", "3000", "--generations", "0", "--data", str(DATA))
    assert first.n == 2000 and check_command.row(first, len(b)) in out.splitlines()
    toy = next(line for line in out.splitlines() if line.startswith("first "))  # "first 4 tokens of 3,000 texts"
    assert toy.split()[6] == "3,000"  # its n: one text per draw of the toy


# --- stats ----------------------------------------------------------------------------------------------------

@pytest.mark.shipped
def test_stats_prints_alpha_expected_speedup_and_frames():
    status, out, err = run("stats", "--data", str(DATA))
    assert (status, err) == (0, "")
    assert out.splitlines()[0] == (f"{DATA}: 6 tokens, k = 5 positions; assumed cost: draft step 1/10, "
                                   "verification 1 target pass(es)")
    block = out.split("\n\n")[2].splitlines()
    assert block == [
        "divergent (a divergent draft)",
        "  alpha_i         3/4  1/2  5/8  3/4  1/2",
        "  P(N=n), n=1..6  1/4  3/8  9/64  15/256  45/512  45/512",  # 1 - α1, α1(1 - α2), ..., α1⋯α5
        "  E tokens/round  1343/512 = 2.62 (from P(N=n): 1343/512)",  # 1 + 3/4 + 3/8 + 15/64 + 45/256 + 45/512
        "  speedup         (1343/512) / (3/2) = 1.75x",  # round cost 5 × 1/10 + 1 = 3/2 target passes
        "  frames          5",
    ]
    assert "aligned (a closely aligned draft)" in out and "3/4  7/8  7/8  7/8  7/8" in out


def test_no_command_is_stats_of_the_shipped_file(monkeypatch):
    monkeypatch.chdir(ROOT)
    assert run() == run("stats")


def test_stats_of_a_bad_file_prints_its_problems_without_traceback(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(FIXTURE.read_text().replace(*BAD_TARGET))
    status, out, err = run("stats", "--data", str(bad))
    assert (status, out, *unlined([err])) == (1, "", f"{bad}: target[0] (the target, position 1): sums to 9/8; each distribution must sum to 1\n")


@pytest.mark.parametrize("pid", ["main", "rule"])  # one of a figure's ids, and a section's (content/04-rule.md)
def test_stats_and_check_refuse_a_profile_id_the_page_uses_as_the_build_does(tmp_path, pid):
    bad = tmp_path / "bad.json"
    bad.write_text(FIXTURE.read_text().replace('"id": "aligned"', f'"id": "{pid}"'))
    with pytest.raises(Problems) as built:
        pipeline.parse_inputs(bad, ROOT / "content", ROOT / "templates")
    assert len(built.value.lines) == 1 and f'found "{pid}"' in built.value.lines[0]
    for command in (["stats"], ["check", *SMALL[:-2]]):
        status, out, err = run(*command, "--data", str(bad), "--content", str(ROOT / "content"))
        assert (status, out, err) == (1, "", built.value.lines[0] + "\n"), command


# --- build and serve ----------------------------------------------------------------------------------------

def test_build_runs_the_build_command_with_the_options_given(tmp_path, capsys):
    out = tmp_path / "site"
    assert cli.main(["build", "--data", str(DATA), "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == [".speculative-site", "index.html", "trace.json"]
    assert capsys.readouterr().out.startswith(f"built {out}/index.html (")


def test_serve_watches_and_serves_on_the_port_and_build_py_means_speculative_build(monkeypatch):
    from pathlib import Path

    from speculative.commands import build as command

    seen = []
    monkeypatch.setattr(command, "main", lambda paths, watching, port: seen.append((paths, watching, port)) or 0)
    assert cli.main(["serve", "--port", "8123", "--out", "x"]) == 0
    assert cli.main(["build", "--watch"]) == 0
    assert cli.build_py(["--watch", "--serve", "--data", "d.json"]) == 0
    assert cli.build_py(["--serve", "0"]) == 0
    default = checkout.Paths.default()
    assert seen == [(checkout.Paths(default.data, default.content, default.templates, Path("x")), True, 8123),
                    (default, True, None), (checkout.Paths(Path("d.json"), *[default.content, default.templates,
                                                                             default.out]), True, 8000),
                    (default, False, 0)]


# --- help, version, and running without the set-up --------------------------------------------------------

@pytest.mark.parametrize("command", [[], ["build"], ["serve"], ["check"], ["stats"]])
def test_every_command_has_help_and_version(capsys, command):
    for flag, start in [("--help", f"usage: {' '.join(['speculative', *command])} "), ("--version", "speculative ")]:
        with pytest.raises(SystemExit) as stop:
            cli.main([*command, flag])
        assert stop.value.code == 0
        printed = capsys.readouterr().out
        assert printed.startswith(start), printed
    assert printed == f"speculative {cli.version()}\n"
    assert re.fullmatch(r"\d+\.\d+\.\d+", cli.version())


def test_top_level_help_lists_every_command(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    for name in ("build", "serve", "check", "stats"):
        assert re.search(rf"^    {name} +\w", out, re.M), name


def test_a_missing_dependency_names_the_set_up_command(tmp_path):
    code = "import sys; sys.modules['numpy'] = None; from speculative.cli import main; sys.exit(main(['stats']))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert (out.returncode, out.stdout) == (1, "")
    assert out.stderr == ("speculative: found no module named 'numpy'; run `bash scripts/build.sh` first (it makes "
                          ".venv and installs the project), then `.venv/bin/speculative`\n")


def test_build_py_without_its_dependencies_names_the_set_up_command(tmp_path):
    code = ("import sys; sys.modules['jinja2'] = None; sys.argv = ['build.py']; "
            f"import runpy; runpy.run_path({str(ROOT / 'build.py')!r}, run_name='__main__')")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert (out.returncode, out.stdout) == (1, "")
    assert out.stderr == ("build.py: found no module named 'jinja2'; run `bash scripts/build.sh` first (it makes "
                          ".venv and installs the project), then `.venv/bin/python build.py`\n")


def test_python_dash_m_runs_the_same_main():
    shim = (ROOT / "speculative" / "__main__.py").read_text(encoding="utf-8")
    assert "from speculative.cli import main" in shim and len([line for line in shim.splitlines() if line]) <= 3


def test_the_commands_reference_states_the_default_rounds():
    readme = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    assert f"every profile, {checks.ROUNDS:,} rounds each" in readme
    assert f"{checks.POWER:.0%} of the time" in readme


@pytest.mark.slow  # starts fresh Python processes: the full run only
@pytest.mark.parametrize("module", ["build", "speculative.analysis", "speculative.view"])
def test_the_build_never_imports_scipy(module):
    code = f"import sys; sys.path.insert(0, '.'); import {module}; print('scipy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr


# --- each printed figure in its own column, from the right inputs ----------------------------------------------

def columns(line: str) -> dict[str, str]:
    """Returns a check row's cells by the header's names (the name is the first 34 characters)."""
    cells = line[35:].split()
    return dict(zip(["n", "p", "tv", "bound", "detectable", "result"], cells, strict=True))


def test_a_rows_tv_and_bound_stand_in_their_own_columns():
    cells = columns(check_command.row(checks.Check("p 1", 5_000, 0.5, 0.01234, 0.05678, None), 6))
    assert (cells["tv"], cells["bound"], cells["p"]) == ("0.01234", "0.05678", "5.00e-01")
    assert cells["detectable"] == f"{checks.detectable_tv(5_000, 6):.5f}"


def test_every_rows_detectable_error_counts_its_own_categories(tmp_path):
    """A seventh token makes the positions' categories (7) differ from the tokens-per-round rows' (k + 1 = 6); the
    sequence row's categories are the toy's texts, 3 tokens to the 4th power = 81."""
    import json

    raw = json.loads(FIXTURE.read_text(encoding="utf-8"))  # a known file of 6 tokens, whatever the data file holds
    raw["vocabulary"].append("dog")
    for row in [*raw["target"], raw["bonus_target"], *(r for p in raw["profiles"] for r in p["draft"])]:
        row.append("0")
    data = tmp_path / "seven.json"
    data.write_text(json.dumps(raw), encoding="utf-8")
    status, out, err = run("check", "--data", str(data), "--rounds", "1000", "--texts", "1000", "--generations", "0")
    rows = [line for line in out.splitlines() if re.match(r"(aligned|divergent|first) ", line)]
    assert len(rows) == 2 * 7 + 1 + 2 * 5 * 2 * 2  # and each position's tree rows: widths 2 and 3, both ways
    for line in rows:
        cells = columns(line)
        categories = 6 if "tokens per round" in line else 81 if line.startswith("first") else 7
        assert cells["detectable"] == f"{checks.detectable_tv(int(cells['n'].replace(',', '')), categories):.5f}", line


@pytest.mark.shipped
def test_stats_prints_each_profiles_own_figures_and_the_second_computation_of_e(monkeypatch):
    from dataclasses import replace
    from fractions import Fraction

    from speculative.commands import check as command
    from speculative.profiles import load

    ex = command.explain(load(str(DATA)))
    # a second computation that disagreed would show: the report prints the one it was given, not E again
    odd = replace(ex.results[0].stats, expected_from_distribution=Fraction(1, 3))
    fake = replace(ex, results=(replace(ex.results[0], stats=odd), *ex.results[1:]))
    monkeypatch.setattr(command, "explain", lambda data: fake)
    status, out, err = run("stats", "--data", str(DATA))
    aligned = out.split("\n\n")[1].splitlines()
    assert aligned == [
        "aligned (a closely aligned draft)",
        "  alpha_i         3/4  7/8  7/8  7/8  7/8",
        "  P(N=n), n=1..6  1/4  3/32  21/256  147/2048  1029/16384  7203/16384",
        "  E tokens/round  64267/16384 = 3.92 (from P(N=n): 1/3)",
        "  speedup         (64267/16384) / (3/2) = 2.62x",
        "  frames          8",  # the aligned walkthrough: 1 + 5 + 1 + 1
    ]


class ClosedPipe(io.StringIO):
    """An output whose reader has gone, as `speculative stats | head -1` leaves stdout once head exits."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")


def test_a_reader_that_stops_reading_ends_the_command_quietly(capsys):
    assert cli.main(["stats"], out=ClosedPipe()) == 1
    assert capsys.readouterr().err == ""  # no traceback, no message: the reader asked for no more


@pytest.mark.slow  # a fresh process: the full run has it, the fast tier not
def test_stats_into_a_pipe_closed_at_once_leaves_no_traceback():
    proc = subprocess.Popen([sys.executable, "-m", "speculative", "stats"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.close()  # before the process has imported anything, so its first write meets a closed pipe
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 1 and "Traceback" not in err, err


def test_one_failed_row_alone_decides_the_exit_status_whichever_row_it_is(monkeypatch):
    """The first row, a TV-only failure: it prints FAIL (not ok beside a 'failed:' line), and the status is 1."""
    real = checks.profile_checks

    def first_row_past_its_bound(*args, **kwargs):
        rows = real(*args, **kwargs)
        c = rows[0]
        return [checks.Check(c.name, c.n, c.p_value, c.tv, c.bound, f"{c.name}: TV above its bound"), *rows[1:]]
    monkeypatch.setattr(checks, "profile_checks", first_row_past_its_bound)
    status, out, _ = run("check", "--rounds", "2000", "--texts", "2000", "--generations", "0", "--data", str(DATA))
    assert status == 1 and failed_rows(out)[:1] == ["aligned position 1"] and out.count("  FAIL") == len(failed_rows(out))
    assert "failed: aligned position 1: TV above its bound" in out


def test_the_check_commands_first_and_last_lines_state_its_own_figures():
    status, out, _ = run("check", "--rounds", "2000", "--texts", "3000", "--generations", "0", "--data", str(DATA))
    assert out.startswith(f"{DATA}: {len(load(str(DATA)).profiles)} profile(s), 2,000 rounds each; a check fails below p = {checks.P_MIN:g} or "
                          f"above its TV bound. 'detectable' is the TV error caught with probability {checks.POWER:.0%}; "
                          "'unreached': the rule never reaches that position.")
    assert f"(that row: the built-in context-dependent toy, a vocabulary of {len(checks.TOY.vocabulary)}, 3,000 texts in " in out


# --- the n-gram pair's rows -------------------------------------------------------------------------------------

LM_ARGS = ["--model", "--rounds", "1000", "--texts", "1000", "--generations", "60", "--data", str(DATA),
           "--content", str(ROOT / "content")]


@pytest.mark.slow  # about 20 s: 18 checks of the model pair
def test_check_prints_a_row_per_draft_rule_and_k_for_the_model_pair():
    args = [*LM_ARGS]
    args[args.index("--generations") + 1] = "20"  # what is printed, not the check's power: the fewest that pool
    status, out, _ = run("check", *args)
    rows = [line for line in out.splitlines() if line.startswith("lm ")]
    assert status == 0, out
    assert len(rows) == 3 * 3 * 2 and all(line.endswith("  ok") for line in rows)
    assert re.search(r"^lm 2-gram accept-test k=2 +400 ", out, re.M)  # 20 contexts x 20 generations
    assert "the first two tokens of 20 generations from each of the 20 most frequent contexts" in out


@pytest.mark.slow
def test_a_broken_rule_fails_the_model_pair_rows_too():
    status, out, _ = run("check", *LM_ARGS, rule=checks.BROKEN[variants.BY_ID["inverted"].name])
    assert status == 1
    assert any(row.startswith("lm ") for row in failed_rows(out)), out


def test_check_says_which_prose_folder_it_could_not_count_the_pair_from(tmp_path):
    (tmp_path / "a.md").write_text("---\ntitle: A\norder: 1\nid: a\n---\nToo short.\n", encoding="utf-8")
    status, out, err = run("check", "--model", "--rounds", "1000", "--texts", "1000", "--generations", "10",
                           "--data", str(DATA), "--content", str(tmp_path))
    assert status == 1
    assert err == (f"{tmp_path}: found 3 tokens of prose (3 distinct) once template syntax, HTML and markup are "
                   "removed; expected at least 20 tokens, 2 of them distinct, for the generator's models to be counted "
                   "from\n")


# --- from any folder: stats and check find the clone's data file and prose as build does -----------------------

def from_folder(folder, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "speculative", *args], cwd=folder, capture_output=True, text=True,
                          env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})


def test_stats_from_a_folder_outside_the_clone_reads_the_clones_data_file(tmp_path):
    inside, outside = from_folder(ROOT, "stats"), from_folder(tmp_path, "stats")
    assert inside.returncode == outside.returncode == 0, outside.stderr
    assert inside.stdout.startswith("data/profiles.v1.json: ")
    assert outside.stdout == inside.stdout.replace("data/profiles.v1.json: ", f"{DATA}: ", 1)


@pytest.mark.slow
def test_check_from_a_folder_outside_the_clone_prints_what_it_prints_inside(tmp_path):
    args = ("check", "--rounds", "1000", "--texts", "1000", "--generations", "0")
    inside, outside = from_folder(ROOT, *args), from_folder(tmp_path, *args)
    assert inside.returncode == outside.returncode == 0, outside.stdout + outside.stderr
    timing = re.compile(r"in \d+\.\d s\)")
    expected = timing.sub("in … s)", inside.stdout.replace("data/profiles.v1.json: ", f"{DATA}: ", 1))
    assert timing.sub("in … s)", outside.stdout) == expected
    assert "failed:" not in outside.stdout


def test_a_missing_data_file_is_named_without_a_json_path(tmp_path):
    code, _, err = run("stats", "--data", str(tmp_path / "nope.json"))
    assert code == 1
    assert err == f"{tmp_path / 'nope.json'}: found no such file; expected the path of an existing file\n"


def test_outside_a_clone_the_commands_say_which_folder_they_expected(tmp_path, monkeypatch):
    monkeypatch.setattr(checkout, "ROOT", tmp_path)  # as an installed wheel run outside a clone: no data/ to find
    monkeypatch.chdir(tmp_path)
    for command in ("build", "stats", "check"):
        code, _, err = run(command)
        assert (code, err) == (1, f"{tmp_path}: found no clone of the project here or in a folder above it; expected "
                                  "a folder that holds data/profiles.v1.json, content, templates (run the command "
                                  "from inside your clone)\n"), command
    assert not (tmp_path / "site").exists()


def test_a_clone_without_its_data_file_names_the_file_it_expected(tmp_path, monkeypatch):
    (tmp_path / "build.py").write_text("", encoding="utf-8")  # a clone, as the editable install finds it beside itself
    monkeypatch.setattr(checkout, "ROOT", tmp_path)
    code, _, err = run("stats")
    assert code == 1
    assert err.startswith(f"{tmp_path / 'data' / 'profiles.v1.json'}: found no such file; expected the clone")
    assert "--data" in err


# --- check in a terminal ------------------------------------------------------------------------------------

def in_a_terminal(*args: str, env: dict | None = None) -> str:
    """Runs the command under a pseudo-terminal (stdout and stderr both the terminal, as a reader's shell has
    them) and returns everything it wrote there, as the terminal received it."""
    import os
    import pty

    pid, fd = pty.fork()
    if pid == 0:  # the child: the command, from the clone, on the terminal
        os.chdir(ROOT)
        os.execve(sys.executable, [sys.executable, "-m", "speculative", *args], {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.waitpid(pid, 0)
    return b"".join(chunks).decode("utf-8", "replace")


def screen_lines(raw: str) -> list[str]:
    """Returns the lines a terminal shows: "\\r" returns to the line's start, "\\033[K" erases to its end."""
    lines, line = [], ""
    for part in re.split(r"(\r\n|\n|\r|\x1b\[K)", raw):
        if not part:
            continue
        if part in ("\r\n", "\n"):
            lines.append(line)
            line = ""
        elif part == "\r":
            line = "\0" + line  # the cursor is back at the start: what comes next overwrites
        elif part == "\x1b[K":
            line = line[: line.index("\0")] if "\0" in line else line
        elif "\0" in line:
            line = part + line[line.index("\0") + 1 + len(part):]
        else:
            line += part
    return [re.sub(r"\x1b\[\d+m", "", x.replace("\0", "")) for x in lines + [line] if x.replace("\0", "")]


@pytest.mark.slow
def test_check_in_a_terminal_never_leaves_the_bar_on_a_row_and_colours_only_the_verdicts():
    raw = in_a_terminal("check", "--rounds", "1000", "--texts", "1000", "--generations", "0")
    lines = screen_lines(raw)
    rows = [x for x in lines if re.search(r"  (ok|FAIL)", x)]
    assert rows, raw
    for line in lines:
        assert not ("[" in line and "%" in line and re.search(r"  (ok|FAIL)", line)), line  # bar and row in one line
        assert not re.fullmatch(r"\[#* *\] +\d+%", line), line  # no bar left standing
    assert all(len(x) <= 100 for x in rows)
    assert "\x1b[32mok\x1b[0m" in raw  # green verdicts in a terminal
    plain = in_a_terminal("check", "--rounds", "1000", "--texts", "1000", "--generations", "0", env={"NO_COLOR": "1"})
    assert "\x1b[32m" not in plain and "\x1b[31m" not in plain


@pytest.mark.parametrize("sig, code, word", [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "stopped")])
def test_a_signal_while_a_command_starts_exits_with_its_code_and_one_line(sig, code, word, monkeypatch, capsys):
    """Ctrl-C in the fifth of a second the build command takes to import printed Python's traceback (as it did during
    `speculative check`); SIGTERM then killed it without a word. Only the build's own run handled them."""
    def build(args: object) -> int:
        os.kill(os.getpid(), sig)
        threading.Event().wait(TIMEOUT)  # the handler raises here, in the main thread
        pytest.fail("the signal was not handled")
    monkeypatch.setattr(cli, "build", build)
    before = signal.getsignal(signal.SIGTERM)
    assert cli.build_py(["--out", "site"]) == code
    assert capsys.readouterr().err == f"build.py: {word} before it finished; it wrote nothing\n"
    assert signal.getsignal(signal.SIGTERM) is before, "the command's SIGTERM handler outlived it"

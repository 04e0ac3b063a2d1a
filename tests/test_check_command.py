"""The real commands, run as an author runs them: `speculative check` by default checks the author's data file (its
profiles and the sequence toy) and adds the n-gram model pair's rows only with --model; --rounds sets the rows'
sample size; and build, stats and check finish with their own status, without a traceback, when the shell closed
their standard output (`>&-`) or opened it for reading only."""

from __future__ import annotations

import io
import re
import shlex
import subprocess
import sys

import pytest

from speculative import cli, sizes

from .conftest import DATA, ROOT

PROFILE_ROW = re.compile(r"^\S+ (position \d+|tokens per round) +([\d,]+) ", re.M)
MODEL_ROW = re.compile(r"^lm (1-gram|2-gram|target) \S+ k=[12] +([\d,]+) .*  ok$", re.M)


def speculative(*args: str) -> subprocess.CompletedProcess:
    """Runs `python -m speculative ARGS` in the clone, as `.venv/bin/speculative ARGS` runs it."""
    return subprocess.run([sys.executable, "-m", "speculative", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def in_a_shell(command: str, redirect: str) -> subprocess.CompletedProcess:
    """Runs `command` with stdout redirected as `redirect` says (`>&-` closes it) through bash, in the clone."""
    return subprocess.run(["bash", "-c", f"{command} {redirect}"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def test_the_default_checks_the_authors_file_and_not_the_model_pair(monkeypatch):
    """In process, with the default sizes made small (the full-size run of the correct sampler is test_rules.py's)."""
    monkeypatch.setattr(sizes, "ROUNDS", 20_000)
    monkeypatch.setattr(sizes, "SEQUENCE_TEXTS", 5_000)
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["check"], out, err) == 0, out.getvalue() + err.getvalue()
    rows = PROFILE_ROW.findall(out.getvalue())
    assert rows and any(n == "20,000" for _, n in rows)  # every profile's first position: every round
    assert "first 4 tokens of 5,000 texts" in out.getvalue()
    assert not MODEL_ROW.search(out.getvalue()) and "n-gram pair counted from" not in out.getvalue()
    assert "is checked with --model" in out.getvalue()


@pytest.mark.slow  # 18 checks of the model pair
def test_model_adds_the_n_gram_pairs_rows_at_the_size_generations_gives():
    done = speculative("check", "--model", "--rounds", "1000", "--texts", "1000", "--generations", "10")
    assert done.returncode == 0, done.stdout + done.stderr
    rows = MODEL_ROW.findall(done.stdout)
    assert len(rows) == 3 * 3 * 2 and {n for _, n in rows} == {f"{10 * sizes.CONTEXTS:,}"}
    assert PROFILE_ROW.search(done.stdout) and "first 4 tokens of 1,000 texts" in done.stdout
    assert "is checked with --model" not in done.stdout


@pytest.mark.slow  # a fresh process
def test_generations_without_model_adds_nothing_and_zero_with_model_is_refused():
    alone = speculative("check", "--rounds", "1000", "--texts", "1000", "--generations", "20")
    assert alone.returncode == 0 and not MODEL_ROW.search(alone.stdout), alone.stdout + alone.stderr
    refused = speculative("check", "--model", "--generations", "0")
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == ("speculative check: argument --generations: found 0 with --model; expected a whole "
                              "number from 1 to 100,000 (or leave out --model)\n")


@pytest.mark.slow  # a fresh process
def test_a_smaller_rounds_is_the_rows_sample_size():
    done = speculative("check", "--rounds", "200000", "--texts", "5000")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith(f"{DATA.relative_to(ROOT)}: ") and ", 200,000 rounds each; " in done.stdout
    rows = PROFILE_ROW.findall(done.stdout)
    assert rows and max(int(n.replace(",", "")) for _, n in rows) == 200_000
    assert {n for kind, n in rows if kind == "tokens per round"} == {"200,000"}
    assert "first 4 tokens of 5,000 texts" in done.stdout


# --- a closed standard output: the command runs, and exits with its own status --------------------------------

PY = shlex.quote(sys.executable)
COMMANDS = {
    "build": f"{PY} build.py --out {{tmp}}/site",
    "stats": f"{PY} -m speculative stats",
    "check": f"{PY} -m speculative check --rounds 1000 --texts 1000",
}


@pytest.mark.slow  # fresh processes, a build among them
@pytest.mark.parametrize("redirect", [">&-", "1</dev/null"])  # closed; open for reading only (writes fail: EBADF)
@pytest.mark.parametrize("name", COMMANDS)
def test_a_successful_command_with_no_stdout_exits_zero_without_a_traceback(name, redirect, tmp_path):
    done = in_a_shell(COMMANDS[name].format(tmp=shlex.quote(str(tmp_path))), redirect)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    if name == "build":
        assert (tmp_path / "site" / "index.html").is_file()


@pytest.mark.slow  # a fresh process
@pytest.mark.parametrize("name", ["stats", "check"])
def test_a_failure_with_no_stdout_is_still_one_line_on_stderr(name, tmp_path):
    missing = tmp_path / "nope.json"
    done = in_a_shell(f"{PY} -m speculative {name} --data {shlex.quote(str(missing))}", ">&-")
    assert done.returncode == 1
    assert done.stderr == f"{missing}: found no such file; expected the path of an existing file\n"


@pytest.mark.slow  # a fresh process
def test_a_build_that_fails_with_no_stdout_says_so_on_stderr(tmp_path):
    broken = tmp_path / "profiles.v1.json"
    broken.write_text("{", encoding="utf-8")
    done = in_a_shell(f"{PY} build.py --data {shlex.quote(str(broken))} --out {shlex.quote(str(tmp_path / 'site'))}",
                      ">&-")
    assert done.returncode == 1 and done.stderr and "Traceback" not in done.stderr, done.stderr
    assert not (tmp_path / "site").exists()


def test_only_a_missing_closed_or_read_only_stream_counts_as_not_writable(tmp_path):
    readable = tmp_path / "in.txt"
    readable.write_text("", encoding="utf-8")
    closed = (tmp_path / "closed.txt").open("w", encoding="utf-8")
    closed.close()
    with readable.open(encoding="utf-8") as read_only, (tmp_path / "out.txt").open("w", encoding="utf-8") as file:
        assert [cli.writable(s) for s in (None, closed, read_only)] == [False, False, False]
        assert [cli.writable(s) for s in (io.StringIO(), file)] == [True, True]


def test_with_stdout_closed_a_command_prints_into_nothing_and_exits_zero(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdout", None)  # what Python sets when the shell closed descriptor 1
    try:
        assert cli.main(["stats"]) == 0
        assert sys.stdout is not None and sys.stdout.name == __import__("os").devnull
    finally:
        if sys.stdout is not None:
            sys.stdout.close()
    assert capsys.readouterr().err == ""

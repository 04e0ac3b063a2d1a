"""The README stays true: its commands are the ones CI runs, its example error is the real one, its layout exists."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from speculative import cli

from .conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = {name: (ROOT / name).read_text(encoding="utf-8") for name in
        ("docs/data.md", "docs/commands.md", "docs/page.md", "docs/architecture.md", "bench/README.md")}
ALL = "\n".join([README, *DOCS.values()])


def code_block(after: str, lang: str, text: str = README) -> str:
    """Returns the first ```lang block after the given text."""
    start = text.index(after)
    return re.search(rf"```{lang}\n(.*?)```", text[start:], re.S).group(1)


def test_the_readme_is_a_short_page_that_links_to_every_reference():
    assert len(README.splitlines()) <= 150
    for name in DOCS:
        assert f"]({name})" in README, name
    for link in re.findall(r"\]\(((?:docs|bench)/[^)#]+)", README):
        assert (ROOT / link).is_file(), link


def test_quick_start_has_exactly_two_commands_and_ci_runs_the_test_one():
    commands = [line.split("#")[0].strip() for line in code_block("## Quick start", "sh").splitlines()]
    assert commands == ["bash scripts/build.sh", "bash scripts/test.sh"]
    assert "bash scripts/test.sh" in (ROOT / ".ci" / "run").read_text()
    for command in commands:
        assert (ROOT / command.split()[1]).is_file()


def test_example_validator_output_is_what_the_build_prints(tmp_path):
    (tmp_path / "data").mkdir()
    text = (ROOT / "tests" / "fixtures" / "profiles.v1.json").read_text()  # the file the example edits, edited in place
    edited = text.replace('["4/8"', '["5/8"', 1).replace('"proposals": ["the", "mat"', '"proposals": ["dog", "mat"', 1)
    raw = json.loads(edited)
    assert raw["target"][0][0] == "5/8" and raw["profiles"][1]["proposals"][0] == "dog"
    (tmp_path / "data" / "profiles.v1.json").write_text(edited)
    out = subprocess.run([sys.executable, str(ROOT / "build.py"), "--data", "data/profiles.v1.json", "--out", "site"],
                         cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 1
    assert out.stderr == code_block("For example", "text")


def test_layout_lists_what_is_there():
    layout = code_block("# Where things are", "text", DOCS["docs/architecture.md"])
    for match in re.finditer(r"^\s*([\w./]+)\s", layout, re.M):
        name = match.group(1)
        if name in ("the", "check.py"):  # a heading line, and commands/check.py named beside commands/build.py
            continue
        path = ROOT / ("speculative/" + name if name.endswith(".py") and name != "build.py" else name)
        assert path.exists() or (ROOT / "speculative" / name).exists() or name == "site/", name
    modules = {p.name for p in (ROOT / "speculative").glob("*.py")} - {"__init__.py", "__main__.py"}
    assert modules <= set(re.findall(r"(\w+\.py)", layout))
    short = code_block("## Where things are", "text")
    assert {m.group(1) for m in re.finditer(r"^(\S+)\s", short, re.M)} == {
        "build.py", *(f"{p.name}/" for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith(".")
                      and p.name not in ("site", "__pycache__") and not p.name.endswith(".egg-info")), "site/"}


@pytest.mark.slow  # starts fresh Python processes: the full run only
def test_watch_and_serve_commands_exist():
    help_text = subprocess.run([sys.executable, str(ROOT / "build.py"), "--help"], capture_output=True, text=True).stdout
    flags = re.findall(r"build\.py (--\w+)", ALL)
    assert flags and all(flag in help_text for flag in flags)


def test_every_speculative_command_and_option_the_readme_names_exists(capsys):
    named = re.findall(r"speculative (build|serve|check|stats)((?: \[?--[\w-]+(?: \w+)?\]?)*)", ALL)
    assert {command for command, _ in named} == {"build", "serve", "check", "stats"}
    for command, options in named:
        with pytest.raises(SystemExit):
            cli.main([command, "--help"])
        help_text = capsys.readouterr().out
        for option in re.findall(r"--[\w-]+", options):
            assert option in help_text, (command, option)

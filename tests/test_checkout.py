"""checkout.py: the package finds the clone it reads beside itself, or (installed as a copy) in the current folder
or a folder above it, and says which folder it expected when there is none."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from speculative import checkout

from .conftest import ROOT


def clone_in(folder: Path) -> Path:
    """Makes `folder` look like a clone: the three inputs the commands read, as empty stand-ins."""
    (folder / "data").mkdir(parents=True)
    (folder / checkout.DATA).write_text("{}")
    (folder / "content").mkdir()
    (folder / "templates").mkdir()
    return folder


def test_a_clone_beside_the_package_is_the_root_from_any_folder(tmp_path):
    assert checkout.is_clone(ROOT) and checkout.PACKAGE == ROOT / "speculative"
    assert checkout.find_root(tmp_path) == ROOT == checkout.ROOT
    assert checkout.Paths.default() == checkout.Paths(ROOT / "data" / "profiles.v1.json", ROOT / "content",
                                                      ROOT / "templates", ROOT / "site")


def test_installed_as_a_copy_it_finds_the_clone_in_the_folder_or_above_it(tmp_path, monkeypatch):
    monkeypatch.setattr(checkout, "PACKAGE", tmp_path / "site-packages" / "speculative")  # no clone beside it
    clone = clone_in(tmp_path / "clone")
    (clone / "content" / "deep").mkdir()
    assert checkout.find_root(clone) == clone
    assert checkout.find_root(clone / "content" / "deep") == clone
    assert checkout.find_root(tmp_path) is None
    (clone / "templates").rmdir()  # one input missing: not a clone
    assert checkout.find_root(clone) is None


def test_without_a_clone_the_line_names_the_folder_and_what_it_expected(tmp_path):
    assert checkout.no_clone(tmp_path) == (f"{tmp_path}: found no clone of the project here or in a folder above it; "
                                           "expected a folder that holds data/profiles.v1.json, content, templates "
                                           "(run the command from inside your clone)")


def test_a_path_is_shown_relative_to_the_working_folder_when_inside_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert checkout.shown(tmp_path / "site") == "site"
    assert checkout.shown(Path("/")) == "/"


def test_every_subpackage_is_installed():
    import tomllib

    find = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"]["find"]
    packages = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "speculative").rglob("__init__.py")}
    assert packages >= {"speculative", "speculative.commands", "speculative.figures"}
    assert find["include"] == ["speculative*"] and all(p.startswith("speculative") for p in packages)


@pytest.mark.slow  # fresh Python processes and a whole build
def test_a_copy_of_the_package_builds_the_clone_it_runs_in_and_refuses_elsewhere(tmp_path):
    """As `pip install .` leaves it: the package alone in a folder of its own, the clone somewhere else."""
    lib = tmp_path / "lib"
    shutil.copytree(ROOT / "speculative", lib / "speculative", ignore=shutil.ignore_patterns("__pycache__"))
    clone = tmp_path / "clone"
    for name in ("data", "content", "templates"):
        shutil.copytree(ROOT / name, clone / name)
    (tmp_path / "elsewhere").mkdir()
    env = {"PYTHONPATH": str(lib), "PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"}
    inside = subprocess.run([sys.executable, "-m", "speculative", "build"], cwd=clone / "content", env=env,
                            capture_output=True, text=True)
    assert inside.returncode == 0, inside.stderr
    assert inside.stdout.startswith(f"built {clone}/site/index.html (")
    assert sorted(p.name for p in (clone / "site").iterdir()) == [".speculative-site", "index.html", "trace.json"]
    for command in ("build", "stats", "check"):  # every command that reads the clone says which folder it expected
        outside = subprocess.run([sys.executable, "-m", "speculative", command], cwd=tmp_path / "elsewhere", env=env,
                                 capture_output=True, text=True)
        assert (outside.returncode, outside.stdout) == (1, ""), command
        assert outside.stderr == checkout.no_clone(tmp_path / "elsewhere") + "\n", command
    assert list((tmp_path / "elsewhere").iterdir()) == []

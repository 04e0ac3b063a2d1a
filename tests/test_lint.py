"""ruff, configured in pyproject.toml, finds nothing in the repository, and finds what it is configured to find."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from .conftest import ROOT

RUFF = Path(sys.executable).parent / "ruff"


def ruff(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([str(RUFF), "check", "--no-cache", *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_the_repository_is_clean():
    result = ruff(".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_configuration_finds_an_unused_import_and_an_undefined_name(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n\n\ndef f():\n    return missing\n")
    result = ruff("--config", str(ROOT / "pyproject.toml"), str(bad), cwd=tmp_path)
    assert result.returncode == 1
    assert "F401" in result.stdout and "F821" in result.stdout

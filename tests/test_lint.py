"""ruff, configured in pyproject.toml, finds what it is configured to find, and its formatter leaves the tree alone.
Whether the repository is clean is not a test: the test command runs ruff before pytest (scripts/test.sh)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from .conftest import ROOT

RUFF = Path(sys.executable).parent / "ruff"


def ruff(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([str(RUFF), "check", "--no-cache", *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_the_configuration_finds_an_unused_import_and_an_undefined_name(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n\n\ndef f():\n    return missing\n")
    result = ruff("--config", str(ROOT / "pyproject.toml"), str(bad), cwd=tmp_path)
    assert result.returncode == 1
    assert "F401" in result.stdout and "F821" in result.stdout


def test_an_editors_format_on_save_leaves_the_tree_as_it_is():
    """The house formats by hand, so ruff's formatter is switched off in pyproject.toml, even for a file named on
    the command line (force-exclude), as an editor names the file it saves: formatting any file changes nothing."""
    for path in ("build.py", "speculative/cli.py", "tests/conftest.py"):
        before = (ROOT / path).read_bytes()
        result = subprocess.run([str(RUFF), "format", "--no-cache", "--diff", path], cwd=ROOT, capture_output=True,
                                text=True, timeout=120)
        assert result.returncode == 0 and "+++" not in result.stdout, result.stdout[:500]
        assert (ROOT / path).read_bytes() == before
    assert subprocess.run([str(RUFF), "format", "--no-cache", "--check", "."], cwd=ROOT, capture_output=True,
                          timeout=120).returncode == 0

"""An author's own data file: the suite follows it. The tests of the shipped file's hand-worked figures (marked
`shipped`) are skipped for any other file, with one line saying why; everything that must hold for any valid file
runs on it. Here the README's fast test command runs on copies of the project, one for each of five valid edits
(tests/data_edits.py), and must pass in each."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from speculative.analysis import explain
from speculative.profiles import load

from .conftest import DATA, FIGURES, FIXTURE, NOT_SHIPPED, ROOT, SHIPPED_SHA256, canonical_sha256, data_is_shipped
from .data_edits import EDITS, write_edited

LEFT_OUT = {".venv", ".cache", "site", ".git", "__pycache__", ".pytest_cache", "test-results", ".coverage"}


def copy_project(to: Path) -> Path:
    """Copies the project's working tree (the files a clone holds, without its environment and outputs) to `to`."""
    shutil.copytree(ROOT, to, ignore=lambda folder, names: [n for n in names if n in LEFT_OUT or n.endswith(".egg-info")])
    return to


def test_the_shipped_file_is_recognised_by_its_content_not_its_layout(tmp_path):
    copy = tmp_path / "profiles.v1.json"
    copy.write_text(json.dumps(json.loads(FIXTURE.read_text(encoding="utf-8")), indent=7) + "\n", encoding="utf-8")
    assert canonical_sha256(copy) == canonical_sha256(FIXTURE)  # re-indented: the same content
    write_edited(copy, "nudged")
    assert canonical_sha256(copy) != canonical_sha256(FIXTURE)


def test_the_recorded_hash_is_the_shipped_files_own():
    """The hash goes stale only if the shipped file is changed on purpose and the hash is not: then the shipped tests
    would skip on the shipped file itself. A file whose hand-worked figures (conftest.FIGURES) all still hold is the
    shipped one, so its hash must be the recorded one."""
    stats = {r.profile.id: r.stats for r in explain(load(str(DATA))).results}
    figures_hold = set(stats) == set(FIGURES) and all(
        " ".join(str(a) for a in stats[pid].alphas) == f["alphas"] and f"{float(stats[pid].expected):.2f}" == f["expected"]
        for pid, f in FIGURES.items())
    if data_is_shipped():
        assert figures_hold, "the recorded hash names a file whose hand-worked figures do not hold"
    else:
        assert not figures_hold, (f"data/profiles.v1.json still has the shipped figures, but its hash is "
                                  f"{canonical_sha256(DATA)}, not {SHIPPED_SHA256}: update SHIPPED_SHA256 in tests/conftest.py")


def test_the_skip_line_says_why():
    assert "not the file this project ships" in NOT_SHIPPED and "docs/figures.md" in NOT_SHIPPED


@pytest.mark.slow
@pytest.mark.parametrize("edit", list(EDITS))
def test_the_fast_test_command_passes_on_an_authors_valid_edit(tmp_path, edit):
    project = copy_project(tmp_path / "project")
    data = project / "data" / "profiles.v1.json"
    shutil.copyfile(FIXTURE, data)  # each edit names places in the known file, whatever this clone's data holds
    write_edited(data, edit)
    # the copy shares this project's environment (scripts/setup.sh takes VENV), so it installs nothing
    env = {**os.environ, "VENV": str(ROOT / ".venv"), "TEST_WORKERS": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTEST_XDIST_WORKER", None)
    env.pop("PYTEST_CURRENT_TEST", None)
    done = subprocess.run(["bash", "scripts/test.sh", "--fast", "-p", "no:cacheprovider", "-rs"], cwd=project, env=env,
                          capture_output=True, text=True, timeout=1500)
    said = done.stdout + done.stderr
    assert done.returncode == 0, "\n".join(said.splitlines()[-30:])
    assert NOT_SHIPPED[:40] in said  # the shipped file's own figures were skipped, each saying why

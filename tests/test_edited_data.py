"""An author's own data file: the suite follows it. The tests of the shipped file's hand-worked figures (marked
`shipped`) are skipped for any other file, with one line saying why; everything that must hold for any valid file
runs on it, and on the valid files tests/valid_data.py generates (conftest.py parametrises the data fixtures over
them, in process). Here: how the shipped file is recognised, and that the generated files vary what they promise."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from speculative.analysis import explain
from speculative.profiles import load, parse

from . import valid_data
from .conftest import DATA, FIGURES, FIXTURE, NOT_SHIPPED, ROOT, SHIPPED_SHA256, canonical_sha256, data_is_shipped

LEFT_OUT = {".venv", ".cache", "site", ".git", "__pycache__", ".pytest_cache", "test-results", ".coverage"}


def copy_project(to: Path) -> Path:
    """Copies the project's working tree (the files a clone holds, without its environment and outputs) to `to`."""
    shutil.copytree(ROOT, to, ignore=lambda folder, names: [n for n in names if n in LEFT_OUT or n.endswith(".egg-info")])
    return to


def test_the_shipped_file_is_recognised_by_its_content_not_its_layout(tmp_path):
    copy = tmp_path / "profiles.v1.json"
    copy.write_text(json.dumps(json.loads(FIXTURE.read_text(encoding="utf-8")), indent=7) + "\n", encoding="utf-8")
    assert canonical_sha256(copy) == canonical_sha256(FIXTURE)  # re-indented: the same content
    valid_data.write_variant("moved-eighth", FIXTURE, copy)
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


def test_the_generated_files_vary_what_an_author_can_vary():
    """Between them: 2 tokens to the limit, non-ASCII labels, denominators other than 8 (mixed within a file),
    1 position to the limit, 1 profile to the limit, proposals of every kind, different seeds."""
    from fractions import Fraction

    from speculative.limits import MAX_POSITIONS, MAX_PROFILES, MAX_TOKENS

    files = [parse(valid_data.written(valid_data.variant(n, FIXTURE)), n) for n in valid_data.NAMES_OF_FILES]
    assert len(files) >= 8
    assert {len(d.vocabulary) for d in files} >= {2, MAX_TOKENS} and {d.k for d in files} >= {1, MAX_POSITIONS}
    assert {len(d.profiles) for d in files} >= {1, MAX_PROFILES}
    assert any(not t.isascii() for d in files for t in d.vocabulary)
    denominators = [{x.denominator for row in (*d.target, d.bonus_target, *(r for p in d.profiles for r in p.draft))
                     for x in row} - {1} for d in files]
    assert any(len(ds - {2, 4, 8}) >= 2 for ds in denominators)  # other denominators, mixed within one file
    kinds = {valid_data.kind_of(d.target[i][x], p.draft[i][x]) for d in files for p in d.profiles
             for i, x in enumerate(p.proposals)}
    assert kinds == set(valid_data.KINDS)
    assert len({d.walkthrough_seed for d in files}) > 2
    bonus_rows = {d.bonus_target for d in files}
    assert len(bonus_rows) > 2 and all(sum(row) == Fraction(1) for row in bonus_rows)

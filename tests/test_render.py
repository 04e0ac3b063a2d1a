"""Rendering: content files get clear errors, and the prose survives data that differs from the shipped file."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from speculative.render import ContentError, parse_section

from .conftest import DATA, ROOT


@pytest.mark.parametrize("text, message", [
    ("no front matter here", "no front matter; expected the file to start with ---, then title, order and id, then ---"),
    ("---\ntitle: x\n---\nbody", "front matter is missing order, id"),
    ("---\ntitle: [x\n---\nbody", "front matter is not valid YAML (ParserError)"),
])
def test_content_file_problems_are_named(text, message):
    with pytest.raises(ContentError) as caught:
        parse_section("content/x.md", text)
    assert str(caught.value) == f"content/x.md: {message}"


def test_front_matter_gives_title_order_and_id():
    section = parse_section("content/x.md", "---\ntitle: Hello\norder: 3\nid: hello\n---\nBody {{ k }}\n")
    assert (section.title, section.order, section.id, section.body) == ("Hello", 3, "hello", "Body {{ k }}\n")


def build(tmp_path, *args):
    return subprocess.run([sys.executable, str(ROOT / "build.py"), "--out", str(tmp_path / "site"), *args],
                          cwd=ROOT, capture_output=True, text=True)


def test_undefined_name_in_prose_is_a_clear_error(tmp_path):
    content = tmp_path / "content"
    shutil.copytree(ROOT / "content", content)
    (content / "99-bad.md").write_text("---\ntitle: Bad\norder: 99\nid: bad\n---\nE is {{ p.nonexistent.expected }}.\n")
    out = build(tmp_path, "--content", str(content))
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert out.stderr.startswith(f"{content / '99-bad.md'}: template error: ")
    assert "nonexistent" in out.stderr
    assert not (tmp_path / "site").exists()


def edited(tmp_path, edit) -> str:
    raw = json.loads(DATA.read_text())
    edit(raw)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(raw))
    out = build(tmp_path, "--data", str(path))
    assert out.returncode == 0, out.stderr
    return (tmp_path / "site" / "index.html").read_text(encoding="utf-8")


def test_one_profile_still_builds_and_says_which_points_no_frame_shows(tmp_path):
    html = edited(tmp_path, lambda raw: raw.update(profiles=raw["profiles"][:1]))
    assert html.count("No frame in the current data shows this.") == 3  # zero, drop and residual need a rejection
    assert "where the walkthrough saw a rejection" not in html


def test_renamed_profiles_keep_every_sentence(tmp_path):
    def rename(raw):
        raw["profiles"][0]["id"], raw["profiles"][1]["id"] = "fast", "slow"
    html = edited(tmp_path, rename)
    assert 'href="#slow/4"' in html and 'id="fast/8"' in html

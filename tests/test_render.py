"""Rendering: content files get clear errors, and the prose survives data that differs from the shipped file."""

from __future__ import annotations

import re
import shutil

import pytest

from speculative.content import ContentError, parse_section, parse_sections

from .conftest import ROOT, edited_data


@pytest.mark.parametrize("text, message", [
    ("no front matter here", "no front matter; expected the file to start with ---, then title, order and id, then ---"),
    ("---\ntitle: x\n---\nbody", "front matter is missing order, id"),
    ("---\ntitle: [x\n---\nbody", "front matter is not valid YAML at line 2; expected title, order and id, one per line"),
    ("---\ntitle: x\norder: first\nid: x\n---\nbody", "front matter order is 'first'; expected a whole number such as 3"),
    ("---\ntitle: x\norder: 1\nid: 2 words\n---\nbody",
     "front matter id is '2 words'; expected letters, digits, _ and -, starting with a letter"),
    ("---\n- a list\n---\nbody", "front matter is not a mapping; expected title, order and id, one per line"),
])
def test_content_file_problems_are_named(text, message):
    with pytest.raises(ContentError) as caught:
        parse_section("content/x.md", text)
    assert str(caught.value) == f"content/x.md: {message}"


def test_front_matter_gives_title_order_and_id():
    section = parse_section("content/x.md", "---\ntitle: Hello\norder: 3\nid: hello\n---\nBody {{ k }}\n")
    assert (section.title, section.order, section.id, section.body) == ("Hello", 3, "hello", "Body {{ k }}\n")


def test_every_bad_section_is_listed_and_ids_must_be_unique():
    texts = {"a.md": "nothing", "b.md": "---\ntitle: B\norder: 1\nid: same\n---\n",
             "c.md": "---\ntitle: C\norder: 2\nid: same\n---\n"}
    with pytest.raises(ContentError) as caught:
        parse_sections(texts, "content")
    assert caught.value.lines() == [
        "a.md: no front matter; expected the file to start with ---, then title, order and id, then ---",
        "b.md: id 'same' is used by another section too; expected every id to be unique",
        "c.md: id 'same' is used by another section too; expected every id to be unique",
    ]


def test_undefined_name_in_prose_is_a_clear_error(tmp_path, run_build):
    content = tmp_path / "content"
    shutil.copytree(ROOT / "content", content)
    (content / "99-bad.md").write_text("---\ntitle: Bad\norder: 99\nid: bad\n---\nE is {{ p.nonexistent.expected }}.\n")
    code, _, err = run_build("--content", str(content), "--out", str(tmp_path / "site"))
    assert code == 1
    assert err.startswith(f"{content / '99-bad.md'}: template error: ")
    assert "nonexistent" in err
    assert not (tmp_path / "site").exists()


@pytest.fixture
def edited(tmp_path, run_build):
    def build(edit) -> str:
        code, _, err = run_build("--data", str(edited_data(tmp_path, edit)), "--out", str(tmp_path / "site"))
        assert code == 0, err
        return (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    return build


def test_one_profile_still_builds_and_says_which_points_no_frame_shows(edited):
    html = edited(lambda raw: raw.update(profiles=raw["profiles"][:1]))
    assert html.count("No frame in the current data shows this.") == 3  # zero, drop and residual need a rejection
    assert "where the walkthrough below meets a rejection" not in html


def test_renamed_profiles_keep_every_sentence(edited):
    def rename(raw):
        raw["profiles"][0]["id"], raw["profiles"][1]["id"] = "fast", "slow"
    html = edited(rename)
    assert 'href="#slow/4"' in html and 'id="fast/8"' in html


def test_counts_agree_in_number_at_one_position(edited):
    def one(raw):
        raw["target"] = raw["target"][:1]
        for p in raw["profiles"]:
            p["draft"], p["proposals"] = p["draft"][:1], p["proposals"][:1]
    html = edited(one)
    text = " ".join(re.sub(r"<[^>]+>", " ", html.split('<script type="application/json"')[0]).split())
    assert "1 position where the draft proposes" in text
    assert not re.search(r"(?<!\+ )\b1 (positions|proposals|tokens|rounds)\b", text)  # "k + 1 tokens" is symbolic

"""Rendering: the prose survives data that differs from the shipped file (content checks: test_content_checks.py)."""

from __future__ import annotations

import re

import pytest

from speculative.sections import parse_section

from .conftest import edited_data


def test_front_matter_gives_title_order_and_id():
    section = parse_section("content/x.md", "---\ntitle: Hello\norder: 3\nid: hello\n---\nBody {{ k }}\n")
    assert (section.title, section.order, section.id, section.body) == ("Hello", 3, "hello", "Body {{ k }}\n")


@pytest.fixture
def edited(tmp_path, run_build):
    def build(edit) -> str:
        code, _, err = run_build("--data", str(edited_data(tmp_path, edit)), "--out", str(tmp_path / "site"))
        assert code == 0, err
        return (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    return build


def test_one_profile_still_builds_and_links_the_points_its_walkthrough_lacks_to_drawn_rounds(edited):
    html = edited(lambda raw: raw.update(profiles=raw["profiles"][:1]))
    # zero, drop and residual need a rejection: the aligned walkthrough has none, its drawn rounds have several
    assert "No frame in the current data shows this." not in html
    assert html.count('href="#walkthrough/aligned/r') == 3
    assert "where the walkthrough below meets a rejection" not in html


def test_renamed_profiles_keep_every_sentence(edited):
    def rename(raw):
        raw["profiles"][0]["id"], raw["profiles"][1]["id"] = "fast", "slow"
    html = edited(rename)
    assert 'href="#walkthrough/slow/4"' in html and 'id="walkthrough/fast/8"' in html


def test_counts_agree_in_number_at_one_position(edited):
    def one(raw):
        raw["target"] = raw["target"][:1]
        for p in raw["profiles"]:
            p["draft"], p["proposals"] = p["draft"][:1], p["proposals"][:1]
    html = edited(one)
    text = " ".join(re.sub(r"<[^>]+>", " ", html.split('<script type="application/json"')[0]).split())
    assert "1 position where the draft proposes" in text
    assert not re.search(r"(?<!\+ )\b1 (positions|proposals|tokens|rounds)\b", text)  # "k + 1 tokens" is symbolic


def in_one_process(project, file, edit: str, broken: str, refused: str) -> None:
    """--watch rebuilds in one process, where parsed sections, rendered prose and parsed templates are kept by their
    text: `edit` added to `file` must show at once, `broken` added instead must be refused (each time: a refusal is not
    remembered as a page), and undoing either must give the first page's bytes; then the edit shows again."""
    from speculative import pipeline
    from speculative.errors import Problems

    def page() -> bytes:
        return pipeline.build_files(project / "data" / "profiles.v1.json", project / "content", project / "templates")["index.html"]

    first, text = page(), file.read_text(encoding="utf-8")
    file.write_text(text + edit, encoding="utf-8")
    assert edit.strip().removeprefix("<p>").removesuffix("</p>").encode() in page()
    file.write_text(text + broken, encoding="utf-8")
    for _ in range(2):
        with pytest.raises(Problems, match=refused):
            page()
    file.write_text(text, encoding="utf-8")
    assert page() == first
    file.write_text(text + edit, encoding="utf-8")
    assert edit.strip().removeprefix("<p>").removesuffix("</p>").encode() in page()


def test_in_one_process_a_prose_edit_shows_at_once_and_undoing_it_gives_the_first_page_again(project):
    in_one_process(project, sorted((project / "content").glob("*.md"))[1], "\nA sentence written just now.\n",
                   "\n<script>x</script>\n", "found <script>")


def test_in_one_process_a_template_edit_shows_at_once_and_undoing_it_gives_the_first_page_again(project):
    """Each template is parsed once per build (render._Environment hands include_loops' tree to the compile)."""
    in_one_process(project, project / "templates" / "peel.html.j2", "<p>A template line written just now.</p>\n",
                   '{% include "peel.html.j2" %}\n', "leads back to itself")

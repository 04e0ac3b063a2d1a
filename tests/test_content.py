"""speculative/content.py: content/*.md into sections, every problem with its file and an exact message."""

from __future__ import annotations

import pytest

from speculative.content import ContentError, Section, parse_section, parse_sections


def page(title="What this is", order=1, id_="what", body="Hello {{ k }}.\n") -> str:
    return f"---\ntitle: {title}\norder: {order}\nid: {id_}\n---\n{body}"


def test_parses_front_matter_then_keeps_the_markdown_as_written():
    section = parse_section("content/01-what.md", page(body="Some *prose* with {{ p.aligned.expected }}.\n"))
    assert section == Section(id="what", title="What this is", order=1,
                              body="Some *prose* with {{ p.aligned.expected }}.\n", source="content/01-what.md")


def test_windows_line_endings_read_the_same():
    assert parse_section("a.md", page().replace("\n", "\r\n")) == parse_section("a.md", page())


@pytest.mark.parametrize("text, message", [
    ("no front matter at all\n", "no front matter; expected the file to start with ---, then title, order and id, then ---"),
    ("---\n: : :\n---\nbody", "front matter is not valid YAML at line 2; expected title, order and id, one per line"),
    ("---\n- a list\n---\nbody", "front matter is not a mapping; expected title, order and id, one per line"),
    ("---\ntitle: T\n---\nbody", "front matter is missing order, id"),
    (page(order="three"), "front matter order is 'three'; expected a whole number such as 3"),
    (page(order="true"), "front matter order is True; expected a whole number such as 3"),
    (page(order="2.5"), "front matter order is 2.5; expected a whole number such as 3"),
    (page(id_="9lives"), "front matter id is '9lives'; expected letters, digits, _ and -, starting with a letter"),
    (page(id_="a b"), "front matter id is 'a b'; expected letters, digits, _ and -, starting with a letter"),
])
def test_refuses_bad_front_matter_with_one_line_naming_the_file(text, message):
    with pytest.raises(ContentError) as caught:
        parse_section("content/x.md", text)
    assert caught.value.lines() == [f"content/x.md: {message}"]


def test_sections_come_in_page_order_then_by_file_name():
    texts = {"c.md": page(order=2, id_="c"), "b.md": page(order=1, id_="b"), "a.md": page(order=2, id_="a")}
    assert [s.id for s in parse_sections(texts, "content")] == ["b", "a", "c"]


def test_every_problem_of_every_file_is_listed_at_once():
    texts = {"a.md": "nothing", "b.md": page(id_="same"), "c.md": page(id_="same"), "d.md": page(order="x")}
    with pytest.raises(ContentError) as caught:
        parse_sections(texts, "content")
    assert caught.value.lines() == [
        "a.md: no front matter; expected the file to start with ---, then title, order and id, then ---",
        "d.md: front matter order is 'x'; expected a whole number such as 3",
        "b.md: id 'same' is used by another section too; expected every id to be unique",
        "c.md: id 'same' is used by another section too; expected every id to be unique",
    ]


def test_an_empty_folder_is_a_problem():
    with pytest.raises(ContentError) as caught:
        parse_sections({}, "content")
    assert caught.value.lines() == ["content: no *.md sections found; expected at least one"]

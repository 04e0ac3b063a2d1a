"""speculative/sections.py: content/*.md into sections in page order (its problems and their exact messages are
in test_content_checks.py)."""

from __future__ import annotations

from speculative.sections import parse_section, parse_sections


def page(title="What this is", order=1, id_="what", body="Hello {{ k }}.\n") -> str:
    return f"---\ntitle: {title}\norder: {order}\nid: {id_}\n---\n{body}"


def test_windows_line_endings_read_the_same():
    assert parse_section("a.md", page().replace("\n", "\r\n")) == parse_section("a.md", page())


def test_sections_come_in_page_order_then_by_file_name():
    texts = {"c.md": page(order=2, id_="c"), "b.md": page(order=1, id_="b"), "a.md": page(order=2, id_="a")}
    assert [s.id for s in parse_sections(texts, "content")] == ["b", "a", "c"]



def test_an_order_with_a_leading_zero_is_read_in_decimal():
    """YAML 1.1 reads 010 as octal 8; a section's order is what its digits say."""
    texts = {"a.md": page(order="010", id_="a"), "b.md": page(order=9, id_="b")}
    assert [(s.id, s.order) for s in parse_sections(texts, "content")] == [("b", 9), ("a", 10)]

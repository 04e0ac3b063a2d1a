"""speculative/errors.py: the one error type's lines, and how a message shows what an author typed."""

from __future__ import annotations

import pytest

from speculative.errors import MAX_PROBLEMS, Problems, char_name, decode, describe, visible


def test_lines_name_the_file_then_the_place_then_the_message():
    err = Problems.in_file("data/p.json", [("target[0]", "sums to 9/8; each distribution must sum to 1"), ("$", "x")])
    assert err.lines == ["data/p.json: target[0]: sums to 9/8; each distribution must sum to 1", "data/p.json: $: x"]
    assert str(err) == "\n".join(err.lines)


@pytest.mark.parametrize("count, last", [(MAX_PROBLEMS, "data/p.json: p50: m"),
                                         (MAX_PROBLEMS + 1, "data/p.json: … and 1 more problem"),
                                         (MAX_PROBLEMS + 7, "data/p.json: … and 7 more problems")])
def test_lists_at_most_the_limit_then_counts_the_rest(count, last):
    lines = Problems.in_file("data/p.json", [(f"p{i}", "m") for i in range(1, count + 1)]).lines
    assert len(lines) == min(count, MAX_PROBLEMS + 1) and lines[-1] == last


@pytest.mark.parametrize("ch, name", [
    ("\t", "U+0009 (tab)"), ("\x00", "U+0000 (null)"), ("\u202e", "U+202E (right-to-left override)"),
    ("\x07", "U+0007 (a control character)"), ("\ue000", "U+E000 (a private-use character)"),
    ("\u0378", "U+0378 (an unassigned code point)"), ("a", "U+0061 (latin small letter a)"),
])
def test_char_name_gives_the_code_point_and_a_name(ch, name):
    assert char_name(ch) == name


@pytest.mark.parametrize("typed, shown", [
    ("cat", "cat"), ("two words", "two words"), ("tab\there", "tab<U+0009>here"),
    ("\u202eevil", "<U+202E>evil"), ("nb\u00a0sp", "nb<U+00A0>sp"), ("zw\u200bj", "zw<U+200B>j"), ("قط", "قط"),
])
def test_visible_writes_what_cannot_be_seen_as_a_code_point(typed, shown):
    assert visible(typed) == shown


@pytest.mark.parametrize("value, shown", [
    (True, "true"), (False, "false"), (None, "null"), ({"a": 1}, "an object"), ([1, 2, 3], "a list of 3"),
    ("dog", '"dog"'), ('say "hi"', '"say \\"hi\\""'), ("a\\b", '"a\\\\b"'), ("x" * 40, '"' + "x" * 40 + '"'),
    ("x" * 41, '"' + "x" * 30 + '…" (41 characters)'), (3.5, "3.5"), (10**50, "1" + "0" * 29 + "… (51 characters)"),
])
def test_describe_renders_a_json_value_as_typed(value, shown):
    assert describe(value) == shown


def test_decode_drops_a_byte_order_mark_and_keeps_the_rest():
    assert decode("\ufeff{\"a\": 1}\n".encode(), "f.json") == '{"a": 1}\n'
    assert decode("é".encode(), "f.json") == "é"


@pytest.mark.parametrize("raw, where, found", [
    (b'{"a":\n "\xff"}', "line 2, column 3 (byte offset 8)", "found the byte 0xFF, which is not valid UTF-8 here"),
    ("é".encode() + b"\xc3", "line 1, column 2 (byte offset 2)", "found the byte 0xC3, which is not valid UTF-8 here"),
])
def test_decode_refuses_bytes_that_are_not_utf8_naming_the_place(raw, where, found):
    with pytest.raises(Problems) as caught:
        decode(raw, "f.json")
    assert caught.value.lines == [f"f.json: {where}: {found}; expected UTF-8 text (save the file as UTF-8)"]


@pytest.mark.parametrize("bom", [b"\xff\xfe", b"\xfe\xff"])
def test_decode_refuses_utf16_by_its_byte_order_mark(bom):
    with pytest.raises(Problems) as caught:
        decode(bom + "{}".encode("utf-16-le"), "f.json")
    assert caught.value.lines == ["f.json: line 1, column 1 (byte offset 0): found a UTF-16 byte-order mark; "
                                    "expected UTF-8 text (save the file as UTF-8)"]

"""A strict JSON reader that knows where it is: every key given twice is a problem with its JSON path and lines,
numbers are kept as typed when they are not small whole numbers, and nesting is bounded without recursion.

Python's json module silently keeps the last of two equal keys, accepts NaN, converts any number (so a 5,000-digit
one raises), and recurses (so deep nesting raises). This reader does none of that.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from .errors import char_name, describe, visible
from .limits import MAX_DEPTH, MAX_DIGITS


@dataclass(frozen=True)
class Number:
    """A JSON number that is not a small whole number, kept as typed: 1.0, 1e3 or a 40-digit integer."""
    text: str

    def __str__(self) -> str:
        return self.text


class JSONSyntax(Exception):
    def __init__(self, pos: int, message: str):
        self.pos, self.message = pos, message


class _Container:
    __slots__ = ("value", "close", "path", "key", "key_at", "seen")

    def __init__(self, value: list | dict, path: str):
        self.value, self.path = value, path
        self.close = "]" if isinstance(value, list) else "}"
        self.key, self.key_at = "", 0
        self.seen: dict[str, int] = {}

    def child(self) -> str:
        return f"{self.path}[{len(self.value)}]" if self.close == "]" else _join(self.path, self.key)


_WS = re.compile(r"[ \t\n\r]*")
_STRING_OPEN = re.compile(r'"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*')
_STRING = re.compile(_STRING_OPEN.pattern + '"')
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_WORD = re.compile(r"[A-Za-z0-9_.+-]{1,20}")
_KEY = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*\Z")
_OPENED = object()


def _always(match: re.Match[str] | None) -> re.Match[str]:
    """A match from a pattern that matches here by construction (it can match the empty string, or the text was
    already seen to start with what it matches)."""
    assert match is not None
    return match


def _join(path: str, key: str) -> str:
    if not _KEY.match(key):
        return f"{path}[{describe(key)}]"
    return key if path == "$" else f"{path}.{key}"


class _Reader:
    """Reads one JSON value iteratively, noting each duplicate key; raises JSONSyntax at the first mistake."""

    def __init__(self, text: str):
        self.text = text
        self.stack: list[_Container] = []
        self.duplicates: list[tuple[str, str, int, int]] = []  # (path, key, first offset, second offset)

    def read(self) -> Any:
        pos = self._skip(0)
        if pos == len(self.text):
            raise JSONSyntax(pos, "found an empty file; expected a JSON object")
        while True:
            value, pos = self._value(pos)
            if value is _OPENED:
                continue
            while self.stack:
                frame = self.stack[-1]
                self._add(frame, value)
                pos = self._skip(pos)
                if self.text.startswith(",", pos):
                    pos = self._skip(pos + 1)
                    pos = self._key(frame, pos) if frame.close == "}" else pos
                    break
                if not self.text.startswith(frame.close, pos):
                    raise self._error(pos, f'"," or "{frame.close}"')
                self.stack.pop()
                value, pos = frame.value, pos + 1
            else:
                return self._end(value, pos)

    def _skip(self, pos: int) -> int:
        return _always(_WS.match(self.text, pos)).end()

    def _value(self, pos: int) -> tuple[Any, int]:
        text = self.text
        ch = text[pos:pos + 1]
        if ch == '"':
            return self._string(pos)
        if ch in ("[", "{"):
            return self._open(ch, pos)
        number = _NUMBER.match(text, pos)
        if number and text[number.end():number.end() + 1] not in tuple("0123456789.eE"):
            return _number(number), number.end()
        if number:
            raise JSONSyntax(pos, f"found {_always(_WORD.match(text, pos)).group()}; expected a number such as 0, 12, 0.5 or 1e3 "
                               "(no leading zeros, and digits after any \".\" or \"e\")")
        for word, value in (("true", True), ("false", False), ("null", None)):
            if text.startswith(word, pos):
                return value, pos + len(word)
        raise self._error(pos, "a value: a string, number, object, list, true, false or null")

    def _open(self, ch: str, pos: int) -> tuple[Any, int]:
        if len(self.stack) >= MAX_DEPTH:
            raise JSONSyntax(pos, f"found lists and objects nested more than {MAX_DEPTH} deep; "
                               f"expected at most {MAX_DEPTH} levels")
        frame = _Container([] if ch == "[" else {}, self.stack[-1].child() if self.stack else "$")
        after = self._skip(pos + 1)
        if self.text.startswith(frame.close, after):
            return frame.value, after + 1
        self.stack.append(frame)
        return _OPENED, self._key(frame, after) if ch == "{" else after

    def _key(self, frame: _Container, pos: int) -> int:
        if not self.text.startswith('"', pos):
            raise self._error(pos, "a key in double quotes")
        frame.key, after = self._string(pos)
        frame.key_at = pos
        after = self._skip(after)
        if not self.text.startswith(":", after):
            raise self._error(after, '":" after the key')
        return self._skip(after + 1)

    def _add(self, frame: _Container, value: Any) -> None:
        if isinstance(frame.value, list):  # the same test as frame.close == "]"
            frame.value.append(value)
        elif frame.key in frame.seen:
            self.duplicates.append((frame.child(), frame.key, frame.seen[frame.key], frame.key_at))
        else:
            frame.value[frame.key] = value
            frame.seen[frame.key] = frame.key_at

    def _string(self, pos: int) -> tuple[str, int]:
        match = _STRING.match(self.text, pos)
        if match:
            token = match.group()
            return (json.loads(token) if "\\" in token else token[1:-1]), match.end()
        end = _always(_STRING_OPEN.match(self.text, pos)).end()
        if end == len(self.text):
            raise JSONSyntax(pos, "found a string that never ends; expected a closing double quote")
        if self.text[end] == "\\":
            escape = visible(_always(re.match(r"\\(u[0-9a-fA-F]{0,3}|.?)", self.text[end:end + 6], re.S)).group())
            raise JSONSyntax(end, f"found the escape {escape}; expected one of "
                               r'\" \\ \/ \b \f \n \r \t or \u and four hex digits')
        raise JSONSyntax(end, f"found {char_name(self.text[end])} inside a string; expected it written as an escape "
                           r"such as \n or \t")

    def _end(self, value: Any, pos: int) -> Any:
        pos = self._skip(pos)
        if pos < len(self.text):
            raise self._error(pos, "the end of the file after the top-level value")
        return value

    def _error(self, pos: int, expected: str) -> JSONSyntax:
        text = self.text
        if pos >= len(text):
            found = "the end of the file"
        elif text[pos] == "/":
            found, expected = '"/"', expected + " (JSON has no comments)"
        elif text[pos] == '"':
            string = _STRING.match(text, pos)
            found = f"the string {describe(json.loads(string.group()))}" if string else "a string"
        else:
            word = _WORD.match(text, pos)
            found = word.group() if word else f'"{visible(text[pos])}"'
        if expected.startswith('","') and found != "the end of the file":
            expected += " (is a comma missing before it?)"
        elif pos < len(text) and text[pos] in "]}" and text[:pos].rstrip(" \t\n\r").endswith(","):
            expected += " (JSON allows no comma before a closing bracket)"
        where = f" (inside {self.stack[-1].path})" if self.stack and self.stack[-1].path != "$" else ""
        return JSONSyntax(pos, f"found {found}; expected {expected}{where}")


def _number(match: re.Match) -> int | Number:
    token = match.group()
    whole = not match.group(1) and not match.group(2) and len(token.lstrip("-")) <= MAX_DIGITS
    return int(token) if whole else Number(token)


def line_col(text: str, pos: int) -> str:
    return f"line {text.count(chr(10), 0, pos) + 1}, column {pos - text.rfind(chr(10), 0, pos)}"


def read_json(text: str) -> tuple[Any, list[tuple[str, str]]]:
    """Returns the JSON value in text and a problem per key given twice in one object; raises JSONSyntax."""
    reader = _Reader(text)
    value = reader.read()
    return value, [(path, f"found the key {describe(key)} twice in one object ({line_col(text, first)} and "
                          f"{line_col(text, second)}); expected each key once")
                   for path, key, first, second in reader.duplicates]

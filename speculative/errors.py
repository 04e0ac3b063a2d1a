"""The one error type for bad input (Problems: every problem a command found, one printable line each), and pure
helpers that show what an author typed."""

from __future__ import annotations

import unicodedata
from typing import Any

MAX_INPUT_BYTES = 1_000_000  # the size limit for every input file; build.py refuses a larger file before reading it
MAX_PROBLEMS = 50  # lines listed before "… and N more problems"

# Message endings more than one checker uses, written once.
PLAIN = "without control characters, line breaks or bidi controls"
OWN_ID = "expected an id of its own"
GONE = "(was its section removed or renamed?)"
IN_ORDER = "expected elements closed in the order they were opened"  # a section's raw HTML, a figure's template


def own_end(tag: str, opened: str) -> str:
    """Returns the refusal of an end tag that would close one of the page's own elements (</section>, </main>)."""
    return f"found </{tag}>, which would close one of the page's own elements; expected only the end tags of elements {opened}"
SETUP = "run `bash scripts/build.sh` first (it makes .venv and installs the project), then {then}"

_BOM = "\ufeff"
# Invisible in a terminal or able to reorder the text around them, so an error message names them instead.
_HIDDEN = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"}
_CONTROL_NAMES = {"\t": "tab", "\n": "line feed", "\r": "carriage return", "\x00": "null"}


class Problems(Exception):
    """Every input problem found before a command gave up, one printable line each: the file, the place in it when
    there is one (a JSON path, a line), then what was found and what was expected. The one error type for bad input:
    the data file, content/, templates/, the output folder and the port all report through it."""

    def __init__(self, lines: list[str], count: int | None = None):
        self.lines = [visible(line) for line in lines]  # a name with a line break (content/a\nb.md) stays on its line
        self.count = len(lines) if count is None else count  # problems found; one file's lines stop at MAX_PROBLEMS
        super().__init__("\n".join(lines))

    @classmethod
    def in_file(cls, source: str, problems: list[tuple[str, str]]) -> Problems:
        """Returns the problems of one file, each (place, message), at most MAX_PROBLEMS lines and then a count; a
        problem of the whole file (no such file, a folder) has no place in it: ""."""
        shown = [f"{source}: {place}: {message}" if place else f"{source}: {message}"
                 for place, message in problems[:MAX_PROBLEMS]]
        rest = len(problems) - MAX_PROBLEMS
        if rest > 0:
            shown.append(f"{source}: … and {rest} more problem{'s' if rest > 1 else ''}")
        return cls(shown, len(problems))

    @classmethod
    def in_files(cls, problems: list[tuple[str, str]]) -> Problems:
        """Returns problems across files, each (file, message)."""
        return cls(lines_of(problems))


class Refused(Exception):
    """A value of the data file whose problem the checker has recorded: parsing it stops there, and the caller
    carries on with the rest (checker.Checker.attempt); parse then raises Problems listing every one."""


def lines_of(problems: list[tuple[str, str]]) -> list[str]:
    """Returns one printable line per (file, message) problem."""
    return [f"{source}: {message}" for source, message in problems]


def char_name(ch: str) -> str:
    """Returns a character's code point and name, such as "U+202E (right-to-left override)"."""
    name = _CONTROL_NAMES.get(ch) or unicodedata.name(ch, "").lower() or _category_name(ch)
    return f"U+{ord(ch):04X} ({name})"


def _category_name(ch: str) -> str:
    cat = unicodedata.category(ch)
    return {"Cc": "a control character", "Cs": "half of a surrogate pair", "Co": "a private-use character",
            "Cn": "an unassigned code point"}.get(cat, "an invisible character")


def visible(text: str) -> str:
    """Returns text as typed, with invisible, control and bidi characters written as <U+XXXX>."""
    return "".join(f"<U+{ord(c):04X}>" if c != " " and unicodedata.category(c) in _HIDDEN else c for c in text)


def short(text: str, ends: int = 40) -> str:
    """Returns text (a path) as a one-line message shows it: whole when short, else its first and last `ends`
    characters around an ellipsis, so a path the system refuses as too long still fits the line."""
    return text if len(text) <= 2 * ends + 1 else f"{text[:ends]}…{text[-ends:]}"


def as_folder(text: str) -> str:
    """Returns a folder's shown name ending in one slash, as messages write folders: site/, and / for the root."""
    return text if text.endswith("/") else text + "/"


def describe(value: Any, most: int = 40) -> str:
    """Returns a short rendering of a JSON value for an error message, as the author would have typed it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, str):
        cut = value if len(value) <= most else value[:most - 10] + "…"
        quoted = '"' + visible(cut.replace("\\", "\\\\").replace('"', '\\"')) + '"'
        return quoted if cut is value else f"{quoted} ({len(value)} characters)"
    text = str(value)
    return text if len(text) <= most else f"{text[:most - 10]}… ({len(text)} characters)"


def decode(raw: bytes, source: str) -> str:
    """Returns the UTF-8 text of a file's bytes, without a leading byte-order mark; raises Problems if not UTF-8."""
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise Problems.in_file(source, [("line 1, column 1 (byte offset 0)", "found a UTF-16 byte-order mark; expected UTF-8 text "
                                   "(save the file as UTF-8)")])
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise Problems.in_file(source, [(_where(raw, err.start), f"found the byte 0x{raw[err.start]:02X}, "
                                   "which is not valid UTF-8 here; expected UTF-8 text (save the file as UTF-8)")]) from None
    return text[1:] if text.startswith(_BOM) else text


def _where(raw: bytes, offset: int) -> str:
    line_start = raw.rfind(b"\n", 0, offset) + 1
    column = len(raw[line_start:offset].decode("utf-8", "replace")) + 1
    line = raw.count(b"\n", 0, offset) + 1
    return f"line {line}, column {column} (byte offset {offset})"


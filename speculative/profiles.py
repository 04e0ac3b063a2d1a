"""Load data/profiles.v1.json into frozen dataclasses of exact fractions, checking everything first.

Python's json reads the file: numbers kept as typed, NaN and Infinity kept as values no type of the schema allows,
nesting bounded before Python's recursion limit, and a key given twice named with both lines. checker.py then finds
every problem; they are listed at once, in the file's order."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

from . import lm_settings, roofline
from .checker import Found, Path_, path_text, problems
from .dataset import CostModel, Dataset, MonteCarlo, Profile
from .errors import MAX_INPUT_BYTES, Problems, char_name, decode, describe, visible
from .limits import MAX_DEPTH
from .reading import read_bytes


class Number:
    """A JSON number kept as typed where it is not a small whole number (1.0, 1e3, NaN, 5,000 digits): the schema's
    types then refuse it, as written."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text


def _int(text: str) -> int | Number:
    return int(text) if len(text) <= 100 else Number(text)


def _first(twice: list[str], pairs: list[tuple[str, Any]]) -> dict:
    """Returns an object with the first value of each key, noting in `twice` each key given again."""
    obj: dict = {}
    for key, value in pairs:
        if key in obj:
            twice.append(key)
        obj.setdefault(key, value)
    return obj


def line_col(text: str, pos: int) -> str:
    return f"line {text.count(chr(10), 0, pos) + 1}, column {pos - text.rfind(chr(10), 0, pos)}"


_BRACKETS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _nesting(text: str, end: int) -> tuple[str, int | None]:
    """Returns the brackets still open at `end`, and where nesting first goes deeper than the schema's maxDepth."""
    open_: list[str] = []
    for match in _BRACKETS.finditer(text, 0, end):
        if match.group() in ("[", "{"):
            open_.append(match.group())
            if len(open_) > MAX_DEPTH:
                return "".join(open_), match.start()
        elif match.group() in ("]", "}") and open_:
            open_.pop()
    return "".join(open_), None


_EXPECTING = {"Expecting value": "a value: a string, number, object, list, true, false or null",
              "Expecting property name enclosed in double quotes": "a key in double quotes",
              "Expecting ':' delimiter": '":" after the key',
              "Extra data": "the end of the file after the top-level value"}
_WORD = re.compile(r"[A-Za-z0-9_.+-]{1,20}")


def _syntax(text: str, msg: str, pos: int) -> tuple[int, str]:
    """Returns where json's syntax error is and what it says, as found and expected."""
    if msg.startswith("Unterminated string"):
        return pos, "found a string that never ends; expected a closing double quote"
    if msg.startswith("Invalid control character"):
        return pos, f"found {char_name(text[pos])} inside a string; expected it written as an escape such as \\n or \\t"
    if msg.startswith("Invalid \\"):
        pos = text.rfind("\\", 0, pos + 1)
        escape = visible(re.match(r"\\(u[0-9a-fA-F]{0,3}|.?)", text[pos:pos + 6], re.S).group())  # type: ignore[union-attr]
        return pos, rf'found the escape {escape}; expected one of \" \\ \/ \b \f \n \r \t or \u and four hex digits'
    if 0 < pos < len(text) and text[pos - 1].isdigit() and text[pos] in "0123456789.eE":
        start = len(text[:pos].rstrip("0123456789.eE+-"))
        return start, (f"found {_WORD.match(text, start).group()}; expected a number such as 0, 12, 0.5 or 1e3 "  # type: ignore[union-attr]
                       '(no leading zeros, and digits after any "." or "e")')
    close = "]" if _nesting(text, pos)[0].endswith("[") else "}"
    expected = _EXPECTING.get(msg, f'"," or "{close}"')
    if pos >= len(text):
        return pos, f"found the end of the file; expected {expected}"
    if text[pos] == "/":
        expected += " (JSON has no comments)"
    elif expected.startswith('","'):
        expected += " (is a comma missing before it?)"
    elif text[pos] in "]}" and text[:pos].rstrip(" \t\n\r").endswith(","):
        expected += " (JSON allows no comma before a closing bracket)"
    string = re.compile(r'"(?:[^"\\\x00-\x1f]|\\.)*"').match(text, pos)
    word = _WORD.match(text, pos)
    found = (f"the string {describe(json.loads(string.group()))}" if string else word.group() if word
             else f'"{visible(text[pos])}"')
    return pos, f"found {found}; expected {expected}"


def _read(text: str, source: str) -> tuple[Any, bool]:
    """Returns the JSON value in text and whether a key is given twice in one object; raises Problems if it is not
    JSON, or nests deeper than the schema allows (before Python's own recursion limit)."""
    if not text.strip():
        raise Problems.in_file(source, [(line_col(text, len(text)), "found an empty file; expected a JSON object")])
    deep = _nesting(text, len(text))[1]
    if deep is not None:
        raise Problems.in_file(source, [(line_col(text, deep), f"found lists and objects nested more than {MAX_DEPTH} "
                                                               f"deep; expected at most {MAX_DEPTH} levels")])
    twice: list[str] = []
    try:
        raw = json.loads(text, object_pairs_hook=lambda pairs: _first(twice, pairs), parse_float=Number,
                         parse_int=_int, parse_constant=Number)
    except json.JSONDecodeError as err:
        pos, message = _syntax(text, err.msg, err.pos)
        raise Problems.in_file(source, [(line_col(text, pos), message)]) from None
    return raw, bool(twice)


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{},]|[^\s,:\[\]{}"]+')


def _positions(text: str) -> tuple[dict[Path_, int], Found]:
    """Returns where each value of a JSON text starts, by its path, and a problem per key given twice in one object."""
    where: dict[Path_, int] = {}
    twice: Found = []
    frames: list[list] = []  # per open list or object: its path, the index or key of its next value, the keys seen
    for match in _TOKEN.finditer(text):
        token, top = match.group(), (frames[-1] if frames else None)
        if token in ("]", "}"):
            frames.pop()
        elif token == "," and top is not None:
            top[1] = top[1] + 1 if isinstance(top[1], int) else None
        elif top is not None and top[1] is None:  # a key
            top[1] = key = json.loads(token)
            if key in top[2]:
                twice.append(((*top[0], key), f"found the key {describe(key)} twice in one object "
                                              f"({line_col(text, top[2][key])} and {line_col(text, match.start())}); "
                                              "expected each key once"))
            top[2].setdefault(key, match.start())
        else:
            path = () if top is None else (*top[0], top[1])
            where.setdefault(path, match.start())
            if token in ("[", "{"):
                frames.append([path, 0 if token == "[" else None, {}])
    return where, twice


def _dataset(raw: dict) -> Dataset:
    """Returns the Dataset of a file with no problems."""
    def dist(row: list) -> tuple[Fraction, ...]:
        return tuple(Fraction(x) for x in row)
    vocab, cost, mc = tuple(raw["vocabulary"]), raw["cost_model"], raw["monte_carlo"]
    profiles = tuple(Profile(id=p["id"], name=p["name"], proposals=tuple(vocab.index(t) for t in p["proposals"]),
                             draft=tuple(map(dist, p["draft"]))) for p in raw["profiles"])
    costs = CostModel(draft_step=Fraction(cost["draft_step"]), verify_round=Fraction(cost["verify_round"]),
                      compare_draft_steps=dist(cost["compare_draft_steps"]),
                      verify_costs=dist(cost.get("verify_costs", [0])))
    return Dataset(vocabulary=vocab, target=tuple(map(dist, raw["target"])), bonus_target=dist(raw["bonus_target"]),
                   profiles=profiles, walkthrough_seed=raw["walkthrough_seed"], drawn_rounds=raw["drawn_rounds"],
                   cost=costs, monte_carlo=MonteCarlo(rounds=mc["rounds"], seed=mc["seed"]),
                   language_model=lm_settings.settings(raw.get("language_model", {})),
                   roofline=roofline.settings(raw.get("roofline", {})))


def parse(text: str, source: str, reserved: frozenset[str] = frozenset(),
          owners: Mapping[str, str] | None = None) -> Dataset:
    """Returns the Dataset in `text`, or raises Problems listing every problem found, in the file's order.

    reserved: the element ids and id prefixes the page uses, which no profile id may take; owners: those of them
    that a content file gives (id -> the file, named in the message)."""
    text = text[1:] if text.startswith("\ufeff") else text
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_INPUT_BYTES:
        raise Problems.in_file(source, [("", f"found {size:,} bytes; expected at most {MAX_INPUT_BYTES:,} bytes "
                                       "for an input file")])
    raw, twice = _read(text, source)
    found = problems(raw, reserved, owners or {})
    if not found and not twice:
        return _dataset(raw)
    where, duplicates = _positions(text)
    found = sorted(found + duplicates, key=lambda problem: where.get(problem[0], 0))
    raise Problems.in_file(source, [(_line(text, where.get(path)) + glossed(path_text(path), raw), message)
                                    for path, message in found])


def _line(text: str, at: int | None) -> str:
    """Returns "line N: " for the value that starts at offset `at`, or "" for a value the file does not hold."""
    return "" if at is None else f"line {text.count(chr(10), 0, at) + 1}: "


_ROW = re.compile(r"(?:target|profiles\[(\d+)\]\.(?:draft|proposals))\[(\d+)\]")


def glossed(path: str, raw: Any) -> str:
    """Returns a JSON path with, after it, what a reader of the page calls the place it names: "target[0][2] (the
    target, position 1)", "profiles[0].draft[0] (a closely aligned draft, position 1)". A profile whose name is not
    a usable string is named by its place alone."""
    found = _ROW.match(path)
    if path.startswith("bonus_target"):
        return f"{path} (the target, bonus position)"
    if not found:
        return path
    position = int(found.group(2)) + 1
    if found.group(1) is None:
        return f"{path} (the target, position {position})"
    try:
        name = raw["profiles"][int(found.group(1))]["name"]
    except (KeyError, IndexError, TypeError):
        name = None
    named = visible(name.strip()) if isinstance(name, str) and name.strip() and len(name) <= 80 else None
    return f"{path} ({named}, position {position})" if named else path


def load(path: str, source: str | None = None, reserved: frozenset[str] = frozenset(),
         owners: Mapping[str, str] | None = None) -> Dataset:
    """Returns the Dataset read from `path` by the build's own reader; raises Problems (named `source`) on any problem.

    reserved and owners as for parse. For the package's commands (commands/check.py's page_data gives them the page's
    ids, as the build does) and the tests; build.py reads every input through the same reader."""
    name = source or str(path)
    try:
        raw = read_bytes(Path(path))
    except ValueError as err:
        raise Problems.in_file(name, [("", str(err))]) from None
    return parse(decode(raw, name), name, reserved, owners)

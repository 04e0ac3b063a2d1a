"""Load data/profiles.v1.json into frozen dataclasses of exact fractions, checking everything first."""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Mapping

from .lm_settings import DEFAULT as LM_DEFAULT, LanguageModel, settings as lm_settings
from .errors import MAX_INPUT_BYTES, PLAIN, InputError, char_name, decode, describe, visible
from .reading import read_bytes

Dist = tuple[Fraction, ...]

# --- limits the page can show (README "Edit the profiles" and the JSON Schema state them too) ----------------
MAX_TOKENS = 10  # vocabulary size: one table column and one chart bar per token
MAX_POSITIONS = 8  # target rows, so a round has at most 8 + 3 frames
MAX_PROFILES = 4  # draft profiles the reader can switch between
MAX_LABEL = 12  # characters (Unicode code points, as JSON Schema's maxLength counts them) in a token label
MAX_NAME = 40  # characters in a profile name
MAX_ID = 20  # characters in a profile id
MAX_COSTS = 10  # entries of cost_model.compare_draft_steps, and of cost_model.verify_costs
MAX_DRAWN = 100  # drawn rounds per profile that the page carries
MAX_DENOMINATOR = 1000  # of a probability or cost once reduced, so the page can print it
MAX_DEPTH = 64  # nested lists and objects, far below Python's recursion limit
MAX_DIGITS = 30  # in a JSON number or either side of a fraction, far below Python's int-conversion limit

_FRACTION = re.compile(r"^(0|[1-9][0-9]*)(/([1-9][0-9]*))?$")
_NEAR_FRACTION = re.compile(r"(-?)([0-9]+)(?:/(-?[0-9]+))?")  # what an author may have meant as a fraction
_DECIMAL = re.compile(r"-?[0-9]*\.[0-9]+")
_PROFILE_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_TOP_KEYS = {"$schema", "version", "about", "vocabulary", "target", "bonus_target",
             "profiles", "walkthrough_seed", "drawn_rounds", "cost_model", "monte_carlo", "language_model"}
_TOP_REQUIRED = _TOP_KEYS - {"$schema", "about", "language_model"}
_PROFILE_KEYS = {"id", "name", "proposals", "draft"}
_COST_KEYS = {"draft_step", "verify_round", "compare_draft_steps", "verify_costs"}
_COST_REQUIRED = _COST_KEYS - {"verify_costs"}  # files from before verification costs build unchanged
_MC_KEYS = {"rounds", "seed"}
# Characters a label or name may not hold: they are invisible, break lines, or reorder the text around them.
_BIDI = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
_ALLOWED_FORMAT = {"\u200c", "\u200d"}  # zero-width (non-)joiners: part of emoji and of Persian and Indic words



def _fraction_expected(value: Any) -> str:
    """Returns what a value that is not a fraction should have been, saying what is wrong with a near miss: a minus
    sign, a zero denominator, leading zeros, or a decimal."""
    near = _NEAR_FRACTION.fullmatch(value) if isinstance(value, str) else None
    if near is None:
        if isinstance(value, str) and _DECIMAL.fullmatch(value):
            return 'expected an exact fraction rather than a decimal, such as "1/2" for 0.5'
        return 'expected an exact fraction as a string, such as "3/8"'
    sign, _, bottom = near.groups()
    if sign or (bottom or "").startswith("-"):
        return 'expected a fraction of 0 or more, with no minus sign, such as "3/8"'
    if bottom is not None and int(bottom) == 0:
        return 'expected a denominator above 0, such as the 8 of "3/8"'
    return 'expected whole numbers without leading zeros, such as "4/8"'


@dataclass(frozen=True)
class Profile:
    id: str
    name: str
    proposals: tuple[int, ...]  # [k] vocabulary indices
    draft: tuple[Dist, ...]  # [k][V]


@dataclass(frozen=True)
class CostModel:
    draft_step: Fraction  # cost of one draft step, in target steps
    verify_round: Fraction  # cost of verifying all k positions at once, in target steps
    compare_draft_steps: tuple[Fraction, ...]
    verify_costs: tuple[Fraction, ...] = (Fraction(0),)  # cost of verifying one drafted position, in target steps


@dataclass(frozen=True)
class MonteCarlo:
    rounds: int
    seed: int


@dataclass(frozen=True)
class Dataset:
    vocabulary: tuple[str, ...]
    target: tuple[Dist, ...]  # [k][V]
    bonus_target: Dist  # [V]
    profiles: tuple[Profile, ...]
    walkthrough_seed: int
    drawn_rounds: int  # how many rounds with proposals drawn from the draft the player offers, per profile
    cost: CostModel
    monte_carlo: MonteCarlo
    language_model: LanguageModel = LM_DEFAULT  # the generator's settings

    @property
    def k(self) -> int:
        """Returns the number of positions a round proposes."""
        return len(self.target)


# --- strict JSON ----------------------------------------------------------------------------------------------
# Python's json module silently keeps the last of two equal keys, accepts NaN, converts any number (so a 5,000-digit
# one raises), and recurses (so deep nesting raises). This reader does none of that and knows where it is.

@dataclass(frozen=True)
class Number:
    """A JSON number that is not a small whole number, kept as typed: 1.0, 1e3 or a 40-digit integer."""
    text: str

    def __str__(self) -> str:
        return self.text


class _Syntax(Exception):
    def __init__(self, pos: int, message: str):
        self.pos, self.message = pos, message


class _Container:
    __slots__ = ("value", "close", "path", "key", "key_at", "seen")

    def __init__(self, value: list | dict, path: str):
        self.value, self.path = value, path
        self.close = "]" if isinstance(value, list) else "}"
        self.key, self.key_at, self.seen = "", 0, {}

    def child(self) -> str:
        return f"{self.path}[{len(self.value)}]" if self.close == "]" else _join(self.path, self.key)


_WS = re.compile(r"[ \t\n\r]*")
_STRING_OPEN = re.compile(r'"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*')
_STRING = re.compile(_STRING_OPEN.pattern + '"')
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_WORD = re.compile(r"[A-Za-z0-9_.+-]{1,20}")
_KEY = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*\Z")
_OPENED = object()


def _join(path: str, key: str) -> str:
    if not _KEY.match(key):
        return f"{path}[{describe(key)}]"
    return key if path == "$" else f"{path}.{key}"


class _Reader:
    """Reads one JSON value iteratively, noting each duplicate key; raises _Syntax at the first mistake."""

    def __init__(self, text: str):
        self.text, self.stack, self.duplicates = text, [], []

    def read(self) -> Any:
        pos = self._skip(0)
        if pos == len(self.text):
            raise _Syntax(pos, "found an empty file; expected a JSON object")
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
        return _WS.match(self.text, pos).end()

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
            raise _Syntax(pos, f"found {_WORD.match(text, pos).group()}; expected a number such as 0, 12, 0.5 or 1e3 "
                               "(no leading zeros, and digits after any \".\" or \"e\")")
        for word, value in (("true", True), ("false", False), ("null", None)):
            if text.startswith(word, pos):
                return value, pos + len(word)
        raise self._error(pos, "a value: a string, number, object, list, true, false or null")

    def _open(self, ch: str, pos: int) -> tuple[Any, int]:
        if len(self.stack) >= MAX_DEPTH:
            raise _Syntax(pos, f"found lists and objects nested more than {MAX_DEPTH} deep; "
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
        if frame.close == "]":
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
        end = _STRING_OPEN.match(self.text, pos).end()
        if end == len(self.text):
            raise _Syntax(pos, "found a string that never ends; expected a closing double quote")
        if self.text[end] == "\\":
            escape = visible(re.match(r"\\(u[0-9a-fA-F]{0,3}|.?)", self.text[end:end + 6], re.S).group())
            raise _Syntax(end, f"found the escape {escape}; expected one of "
                               r'\" \\ \/ \b \f \n \r \t or \u and four hex digits')
        raise _Syntax(end, f"found {char_name(self.text[end])} inside a string; expected it written as an escape "
                           r"such as \n or \t")

    def _end(self, value: Any, pos: int) -> Any:
        pos = self._skip(pos)
        if pos < len(self.text):
            raise self._error(pos, "the end of the file after the top-level value")
        return value

    def _error(self, pos: int, expected: str) -> _Syntax:
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
        return _Syntax(pos, f"found {found}; expected {expected}{where}")


def _number(match: re.Match) -> int | Number:
    token = match.group()
    whole = not match.group(1) and not match.group(2) and len(token.lstrip("-")) <= MAX_DIGITS
    return int(token) if whole else Number(token)


def _line_col(text: str, pos: int) -> str:
    return f"line {text.count(chr(10), 0, pos) + 1}, column {pos - text.rfind(chr(10), 0, pos)}"


def read_json(text: str) -> tuple[Any, list[tuple[str, str]]]:
    """Returns the JSON value in text and a problem per key given twice in one object; raises _Syntax."""
    reader = _Reader(text)
    value = reader.read()
    return value, [(path, f"found the key {describe(key)} twice in one object ({_line_col(text, first)} and "
                          f"{_line_col(text, second)}); expected each key once")
                   for path, key, first, second in reader.duplicates]


# --- checking ---------------------------------------------------------------------------------------------------

def _forbidden(ch: str) -> bool:
    cat = unicodedata.category(ch)
    if cat == "Cf":
        return ch not in _ALLOWED_FORMAT and not 0xE0020 <= ord(ch) <= 0xE007F  # tags spell subdivision flags
    return cat in ("Cc", "Cs", "Zl", "Zp") or ch in _BIDI


# Letters that fonts draw as nothing at all (Hangul fillers, the blank Braille pattern).
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def _visible(ch: str) -> bool:
    """Returns whether ch draws something on its own: not a space, a format character or a mark that needs a base."""
    return unicodedata.category(ch) not in ("Cf", "Mn", "Me", "Zs", "Cc") and ch not in _BLANK_LETTERS


def _sized(text: str) -> str:
    """Returns the quoted text with its length, once."""
    shown = describe(text)
    return shown if shown.endswith(" characters)") else f"{shown} ({len(text)} characters)"


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


class _Checker:
    """Walks the parsed JSON, collecting problems instead of stopping at the first."""

    def __init__(self, problems: list[tuple[str, str]], reserved: frozenset[str] = frozenset(),
                 owners: Mapping[str, str] | None = None) -> None:
        self.problems = problems
        self.reserved = reserved  # the page's element ids and prefixes
        self.owners = owners or {}  # of those, the ids a file the author edits gives an element, and that file
        self.too_many_tokens = -1  # the vocabulary's length when it is over the limit, already reported there

    def fail(self, path: str, message: str) -> None:
        self.problems.append((path, message))

    def keys(self, obj: Any, path: str, allowed: set[str], required: set[str]) -> bool:
        if not isinstance(obj, dict):
            self.fail(path, f"found {describe(obj)}; expected an object")
            return False
        for key in sorted(required - obj.keys()):
            self.fail(path, f'missing key "{key}"')
        for key in sorted(obj.keys() - allowed):
            self.fail(path, f'found unknown key {describe(key)}; expected one of: {", ".join(sorted(allowed))}')
        return True

    def fraction(self, value: Any, path: str, probability: bool = True) -> Fraction | None:
        if isinstance(value, int) and not isinstance(value, bool) and value in (0, 1):
            return Fraction(value)
        match = _FRACTION.fullmatch(value) if isinstance(value, str) else None
        if match is None:
            if isinstance(value, str) and _FRACTION.fullmatch(value.strip()):
                self.fail(path, f'found {describe(value)}; expected a fraction with no spaces or line breaks '
                                'around it, such as "3/8"')
            else:
                self.fail(path, f"found {describe(value)}; {_fraction_expected(value)}")
            return None
        top, bottom = match.group(1), match.group(3) or "1"
        if max(len(top), len(bottom)) > MAX_DIGITS:
            self.fail(path, f'found {describe(value)}; expected at most {MAX_DIGITS} digits on each side of the "/"')
            return None
        frac = Fraction(int(top), int(bottom))
        if probability and frac > 1:
            self.fail(path, f"found {value}; expected a probability between 0 and 1")
            return None
        if frac.denominator > MAX_DENOMINATOR:
            self.fail(path, f"found {describe(value)}, which is {frac}; expected a denominator of at most "
                            f"{MAX_DENOMINATOR}, so the page can print it")
            return None
        return frac

    def distribution(self, value: Any, path: str, size: int | None) -> Dist | None:
        if size is not None and not (isinstance(value, list) and len(value) == size):
            self.fail(path, f"found {describe(value)}; expected a list of {size} probabilities, one per vocabulary token")
            return None
        if not isinstance(value, list) or not 0 < len(value) <= MAX_TOKENS and len(value) != self.too_many_tokens:
            self.fail(path, f"found {describe(value)}; expected a list of 1 to {MAX_TOKENS} probabilities, "
                            "one per vocabulary token")
            return None
        entries = [self.fraction(item, f"{path}[{i}]") for i, item in enumerate(value)]
        if any(e is None for e in entries):
            return None
        total = sum(entries, Fraction(0))
        if total != 1:
            self.fail(path, f"sums to {total}; each distribution must sum to 1")
            return None
        return tuple(entries)

    def distributions(self, value: Any, path: str, size: int | None, k: int | None) -> tuple[Dist, ...] | None:
        if not self.positions(value, path, k, "row", "a list of distributions, one per position"):
            return None
        rows = [self.distribution(row, f"{path}[{i}]", size) for i, row in enumerate(value)]
        return None if any(r is None for r in rows) else tuple(rows)

    def positions(self, value: Any, path: str, k: int | None, noun: str, want: str) -> bool:
        """Returns whether value is a list with one entry per position, saying what is wrong if not."""
        if not isinstance(value, list) or not value:
            self.fail(path, f"found {describe(value)}; expected {want}")
        elif len(value) > MAX_POSITIONS:
            self.fail(path, f"found {_plural(len(value), noun)}; expected at most {MAX_POSITIONS} positions, "
                            "so the page fits a phone screen")
        elif k is not None and len(value) != k:
            self.fail(path, f"found {_plural(len(value), noun)}; expected {k}, one per position, "
                            "as many as target has")
        else:
            return True
        return False

    def integer(self, value: Any, path: str, low: int, high: int) -> int | None:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            self.fail(path, f"found {describe(value)}; expected a whole number from {low} to {high}")
            return None
        return value

    def label(self, value: Any, path: str, most: int, what: str) -> bool:
        """Returns whether value is a short, visible, one-line string, saying what is wrong if not."""
        if not isinstance(value, str) or not value.strip():
            self.fail(path, f"found {describe(value)}; expected a non-empty string")
            return False
        bad = next(((i, ch) for i, ch in enumerate(value) if _forbidden(ch)), None)
        if bad is not None:
            self.fail(path, f"found {describe(value)}, which has {char_name(bad[1])} at character {bad[0] + 1}; "
                            f"expected {what} {PLAIN}")
        elif value != value.strip():
            end, ch = ("starts", value[0]) if value[0].isspace() else ("ends", value[-1])
            self.fail(path, f"found {describe(value)}, which {end} with {'a space' if ch == ' ' else char_name(ch)}; "
                            f"expected {what} with no spaces at either end")
        elif len(value) > most:
            self.fail(path, f"found {_sized(value)}; expected {what} of at most {most} characters, "
                            "so it fits the page on a phone")
        elif not any(_visible(ch) for ch in value):
            names = ", ".join(char_name(ch) for ch in value[:3]) + (", …" if len(value) > 3 else "")
            self.fail(path, f"found {describe(value)}, which has only {names}, none of which can be seen; "
                            f"expected {what} with at least one visible character")
        else:
            return True
        return False

    def unique(self, values: list[tuple[int, str]], path: str, what: str) -> None:
        """Reports each (index, text) whose text, once normalised, an earlier one already had."""
        seen: dict[str, tuple[int, str]] = {}
        for i, text in values:
            key = unicodedata.normalize("NFC", text)
            if key not in seen:
                seen[key] = (i, text)
            elif seen[key][1] == text:
                self.fail(path.format(i), f"found {describe(text)} again; expected every {what} to be unique")
            else:
                self.fail(path.format(i), f"found {describe(text)}, which looks the same as {path.format(seen[key][0])} "
                                          "(the same letters in other Unicode code points); "
                                          f"expected every {what} to be unique")


def _vocabulary(check: _Checker, value: Any) -> tuple[str, ...] | None:
    if not isinstance(value, list) or not value:
        check.fail("vocabulary", f"found {describe(value)}; expected a non-empty list of token strings")
        return None
    if len(value) > MAX_TOKENS:
        check.too_many_tokens = len(value)
        check.fail("vocabulary", f"found {len(value)} tokens; expected at most {MAX_TOKENS}, "
                                 "so the page's tables and charts fit a phone screen")
        return None
    for i, token in enumerate(value):
        check.label(token, f"vocabulary[{i}]", MAX_LABEL, "a token")
    check.unique([(i, t) for i, t in enumerate(value) if isinstance(t, str)], "vocabulary[{}]", "token")
    return tuple(value) if all(isinstance(t, str) for t in value) else None


def _lists(value: Any, most: int) -> list:
    """Returns value if it is a list of at most `most` entries, else an empty list: what the shape checks look at."""
    return value if isinstance(value, list) and len(value) <= most else []


def _profile_dicts(raw: dict) -> list[dict]:
    return [p for p in _lists(raw.get("profiles"), MAX_PROFILES) if isinstance(p, dict)]


def _positions_count(check: _Checker, raw: dict) -> int | None:
    """Returns k, the number of positions: the target's row count, unless every draft and proposal list agrees on
    another, when the target is the one to blame."""
    target = raw.get("target")
    rows = len(target) if isinstance(target, list) and 0 < len(target) <= MAX_POSITIONS else None
    others = [len(v) for p in _profile_dicts(raw) for v in (p.get("draft"), p.get("proposals"))
              if isinstance(v, list) and 0 < len(v) <= MAX_POSITIONS]
    if len(others) >= 2 and len(set(others)) == 1 and others[0] != rows:
        if rows is not None:
            check.fail("target", f"found {_plural(rows, 'row')}; expected {others[0]}, one per position, "
                                 f"as every draft and proposal list has {others[0]}")
        return others[0]
    return rows


def _vocabulary_size(check: _Checker, raw: dict, vocab: tuple[str, ...] | None) -> int | None:
    """Returns the length every distribution must have: the vocabulary's, unless every distribution agrees on
    another, when the vocabulary is the one to blame."""
    if vocab is None:
        return None
    dists = [*_lists(raw.get("target"), MAX_POSITIONS), raw.get("bonus_target"),
             *(row for p in _profile_dicts(raw) for row in _lists(p.get("draft"), MAX_POSITIONS))]
    sizes = {len(d) for d in dists if isinstance(d, list)}
    (size,) = sizes if len(sizes) == 1 else (None,)
    if sum(isinstance(d, list) for d in dists) >= 2 and size is not None and 0 < size <= MAX_TOKENS and size != len(vocab):
        check.fail("vocabulary", f"found {_plural(len(vocab), 'token')}; expected {size}, "
                                 f"as every distribution has {size} entries")
        return size
    return len(vocab)


def _profiles(check: _Checker, value: Any, vocab: tuple[str, ...] | None, size: int | None,
              k: int | None) -> tuple[Profile, ...] | None:
    if not isinstance(value, list) or not value:
        check.fail("profiles", f"found {describe(value)}; expected a non-empty list of draft profiles")
        return None
    if len(value) > MAX_PROFILES:
        check.fail("profiles", f"found {len(value)} profiles; expected at most {MAX_PROFILES}, "
                               "so the page's profile switch fits a phone screen")
        return None
    parsed = [_profile(check, raw, f"profiles[{i}]", vocab, size, k) for i, raw in enumerate(value)]
    names = [(i, p.get("name")) for i, p in enumerate(value) if isinstance(p, dict)]
    check.unique([(i, n) for i, n in names if isinstance(n, str)], "profiles[{}].name", "profile name")
    _ids(check, [(i, p.get("id")) for i, p in enumerate(value) if isinstance(p, dict)])
    return None if any(p is None for p in parsed) else tuple(parsed)


def _ids(check: _Checker, ids: list[tuple[int, Any]]) -> None:
    """Reports ids that repeat an earlier one, or that begin with an earlier one and a dash: the page builds element
    ids such as "pos-<id>-cap" from each, so "aligned" and "aligned-cap" would both own "pos-aligned-cap"."""
    seen: list[tuple[int, str]] = []
    for i, pid in ids:
        if not isinstance(pid, str) or not _PROFILE_ID.fullmatch(pid):
            continue
        for j, other in seen:
            if pid == other:
                check.fail(f"profiles[{i}].id", f"found {describe(pid)} again; expected every profile id to be unique")
            elif pid.startswith(other + "-") or other.startswith(pid + "-"):
                short = min(pid, other, key=len)
                clash = (f"begins with {describe(short + '-')}, the id of profiles[{j}]" if short == other else
                         f"is how profiles[{j}].id {describe(other)} begins")
                check.fail(f"profiles[{i}].id", f"found {describe(pid)}, which {clash}; expected ids where none is "
                           "another followed by a dash, because the page names elements by id and suffix "
                           f"(pos-{short}-cap), so two profiles could name the same element")
            else:
                continue
            break
        seen.append((i, pid))


def _profile(check: _Checker, raw: Any, path: str, vocab: tuple[str, ...] | None, size: int | None,
             k: int | None) -> Profile | None:
    if not check.keys(raw, path, _PROFILE_KEYS, _PROFILE_KEYS):
        return None
    pid, name = raw.get("id"), raw.get("name")
    ok = _profile_id(check, pid, f"{path}.id") if "id" in raw else False
    ok = (check.label(name, f"{path}.name", MAX_NAME, "a name") if "name" in raw else False) and ok
    draft = check.distributions(raw["draft"], f"{path}.draft", size, k) if "draft" in raw else None
    proposals = _proposals(check, raw["proposals"], f"{path}.proposals", vocab, k, draft) if "proposals" in raw else None
    if not ok or draft is None or proposals is None:
        return None
    return Profile(id=pid, name=name, proposals=proposals, draft=draft)


def _profile_id(check: _Checker, pid: Any, path: str) -> bool:
    if not isinstance(pid, str) or not _PROFILE_ID.fullmatch(pid):
        check.fail(path, f"found {describe(pid)}; expected lower-case letters and digits, with single dashes "
                         'between them, such as "aligned"')
    elif len(pid) > MAX_ID:
        check.fail(path, f"found {_sized(pid)}; expected an id of at most {MAX_ID} characters")
    elif pid in check.owners:
        check.fail(path, f"found {describe(pid)}, which {check.owners[pid]} already gives an element on the page; "
                         "expected another id (or change that one)")
    elif pid in check.reserved:
        check.fail(path, f"found {describe(pid)}, which the page already uses for its own elements; "
                         "expected another id")
    else:
        return True
    return False


def _proposals(check: _Checker, value: Any, path: str, vocab: tuple[str, ...] | None, k: int | None,
               draft: tuple[Dist, ...] | None) -> tuple[int, ...] | None:
    if not check.positions(value, path, k, "proposal", "a list of proposed tokens, one per position"):
        return None
    if vocab is None:
        return None
    indices: list[int] = []
    for i, token in enumerate(value):
        if not isinstance(token, str) or token not in vocab:
            check.fail(f"{path}[{i}]", f"found {describe(token)}; expected a token from the vocabulary")
            continue
        idx = vocab.index(token)
        if draft is not None and i < len(draft) and draft[i][idx] == 0:
            check.fail(f"{path}[{i}]", f"found {describe(token)}, which the draft gives probability 0 at position {i + 1}; "
                                       "expected a token the draft could propose")
            continue
        indices.append(idx)
    return tuple(indices) if len(indices) == len(value) else None


def _cost(check: _Checker, raw: Any) -> CostModel | None:
    if not check.keys(raw, "cost_model", _COST_KEYS, _COST_REQUIRED):
        return None
    # costs are in target steps, not probabilities, so they may exceed 1
    step = check.fraction(raw["draft_step"], "cost_model.draft_step", probability=False) if "draft_step" in raw else None
    verify = check.fraction(raw["verify_round"], "cost_model.verify_round", probability=False) if "verify_round" in raw else None
    if verify == 0:
        check.fail("cost_model.verify_round", "found 0; expected a positive cost")
        verify = None
    steps = _compare_steps(check, raw["compare_draft_steps"]) if "compare_draft_steps" in raw else None
    per_position = _verify_costs(check, raw["verify_costs"]) if "verify_costs" in raw else (Fraction(0),)
    if step is None or verify is None or steps is None or per_position is None:
        return None
    return CostModel(draft_step=step, verify_round=verify, compare_draft_steps=steps, verify_costs=per_position)


def _compare_steps(check: _Checker, value: Any) -> tuple[Fraction, ...] | None:
    path = "cost_model.compare_draft_steps"
    if not isinstance(value, list) or not value:
        check.fail(path, f"found {describe(value)}; expected a non-empty list of draft-step costs")
        return None
    if len(value) > MAX_COSTS:
        check.fail(path, f"found {len(value)} costs; expected at most {MAX_COSTS}, so the speedup table fits the page")
        return None
    steps = [check.fraction(c, f"{path}[{i}]", probability=False) for i, c in enumerate(value)]
    return _distinct_costs(check, value, steps, path, "draft-step cost")


def _verify_costs(check: _Checker, value: Any) -> tuple[Fraction, ...] | None:
    path = "cost_model.verify_costs"
    if not isinstance(value, list) or not value:
        check.fail(path, f"found {describe(value)}; expected a non-empty list of verification costs per drafted position")
        return None
    if len(value) > MAX_COSTS:
        check.fail(path, f"found {len(value)} costs; expected at most {MAX_COSTS}, so the speedup explorer's choices "
                         "fit the page")
        return None
    costs = [check.fraction(c, f"{path}[{i}]", probability=False) for i, c in enumerate(value)]
    return _distinct_costs(check, value, costs, path, "verification cost")


def _distinct_costs(check: _Checker, value: list, costs: list[Fraction | None], path: str,
                    what: str) -> tuple[Fraction, ...] | None:
    """Returns the costs, or None after naming each one equal to an earlier one (a table row or a choice twice)."""
    first: dict[Fraction, int] = {}
    for i, cost in enumerate(costs):
        if cost is not None and cost in first:
            j = first[cost]
            seen = " again" if value[i] == value[j] else f", which is {cost}, as {path}[{j}] is"
            check.fail(f"{path}[{i}]", f"found {describe(value[i])}{seen}; expected every {what} to be unique")
            costs[i] = None
        elif cost is not None:
            first[cost] = i
    return None if any(c is None for c in costs) else tuple(costs)


def _monte_carlo(check: _Checker, raw: Any) -> MonteCarlo | None:
    if not check.keys(raw, "monte_carlo", _MC_KEYS, _MC_KEYS):
        return None
    rounds = check.integer(raw["rounds"], "monte_carlo.rounds", 1, 10_000_000) if "rounds" in raw else None
    seed = check.integer(raw["seed"], "monte_carlo.seed", 0, 2**32 - 1) if "seed" in raw else None
    return None if rounds is None or seed is None else MonteCarlo(rounds=rounds, seed=seed)


def _header(check: _Checker, raw: dict) -> None:
    version = raw.get("version", 1)
    if isinstance(version, bool) or not isinstance(version, int) or version != 1:
        check.fail("version", f"found {describe(version)}; expected 1 for profiles.v1.json")
    for key in ("$schema", "about"):
        if key in raw and not isinstance(raw[key], str):
            check.fail(key, f"found {describe(raw[key])}; expected a string")


def _dataset(check: _Checker, raw: Any) -> Dataset | None:
    if not check.keys(raw, "$", _TOP_KEYS, _TOP_REQUIRED):
        return None
    _header(check, raw)
    vocab = _vocabulary(check, raw["vocabulary"]) if "vocabulary" in raw else None
    size = _vocabulary_size(check, raw, vocab)
    k = _positions_count(check, raw)
    target = check.distributions(raw["target"], "target", size, None) if "target" in raw else None
    bonus = check.distribution(raw["bonus_target"], "bonus_target", size) if "bonus_target" in raw else None
    profiles = _profiles(check, raw["profiles"], vocab, size, k) if "profiles" in raw else None
    seed = check.integer(raw["walkthrough_seed"], "walkthrough_seed", 0, 2**32 - 1) if "walkthrough_seed" in raw else None
    drawn = check.integer(raw["drawn_rounds"], "drawn_rounds", 1, MAX_DRAWN) if "drawn_rounds" in raw else None
    cost = _cost(check, raw["cost_model"]) if "cost_model" in raw else None
    mc = _monte_carlo(check, raw["monte_carlo"]) if "monte_carlo" in raw else None
    lm = lm_settings(check, raw["language_model"]) if "language_model" in raw else LM_DEFAULT
    if check.problems:
        return None
    return Dataset(vocabulary=vocab, target=target, bonus_target=bonus, profiles=profiles,
                   walkthrough_seed=seed, drawn_rounds=drawn, cost=cost, monte_carlo=mc, language_model=lm)


def parse(text: str, source: str, reserved: frozenset[str] = frozenset(),
          owners: Mapping[str, str] | None = None) -> Dataset:
    """Returns the Dataset in `text`, or raises InputError listing every problem found.

    reserved: the element ids and id prefixes the page uses, which no profile id may take; owners: those of them
    that a content file gives (id -> the file, named in the message)."""
    text = text[1:] if text.startswith("\ufeff") else text
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_INPUT_BYTES:
        raise InputError(source, [("", f"found {size:,} bytes; expected at most {MAX_INPUT_BYTES:,} bytes "
                                       "for an input file")])
    try:
        raw, duplicates = read_json(text)
    except _Syntax as err:
        raise InputError(source, [(_line_col(text, err.pos), err.message)]) from None
    check = _Checker(duplicates, reserved, owners)
    dataset = _dataset(check, raw)
    if dataset is None:
        raise InputError(source, [(glossed(path, raw), message) for path, message in check.problems])
    return dataset


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


def load(path: str, source: str | None = None) -> Dataset:
    """Returns the Dataset read from `path` by the build's own reader; raises InputError (named `source`) on any problem.

    For the package's commands and the tests; build.py reads every input through the same reader."""
    name = source or str(path)
    try:
        raw = read_bytes(Path(path))
    except ValueError as err:
        raise InputError(name, [("", str(err))]) from None
    return parse(decode(raw, name), name)

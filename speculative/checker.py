"""The checks every object in the data file shares, each recording a problem with its JSON path rather than
stopping at the first: keys, whole numbers, exact fractions, labels and names, ids.

A check that cannot return its value raises Refused once the problem is recorded; the caller that carries on with
the rest (the next entry, the next key) catches it with Checker.attempt, so every problem is still gathered."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any, TypeVar

from .dataset import Dist
from .errors import PLAIN, Refused, char_name, describe
from .limits import ALLOWED_FORMAT, BIDI, DECIMAL, FRACTION, MAX_DENOMINATOR, MAX_DIGITS, MAX_POSITIONS, MAX_TOKENS, NEAR_FRACTION

T = TypeVar("T")


def known(value: T | None) -> T:
    """Returns a checked value once the checker has reported no problems: every check then returned its value."""
    assert value is not None
    return value


def fraction_expected(value: Any) -> str:
    """Returns what a value that is not a fraction should have been, saying what is wrong with a near miss: a minus
    sign, a zero denominator, leading zeros, or a decimal."""
    near = NEAR_FRACTION.fullmatch(value) if isinstance(value, str) else None
    if near is None:
        if isinstance(value, str) and DECIMAL.fullmatch(value):
            return 'expected an exact fraction rather than a decimal, such as "1/2" for 0.5'
        return 'expected an exact fraction as a string, such as "3/8"'
    sign, _, bottom = near.groups()
    if sign or (bottom or "").startswith("-"):
        return 'expected a fraction of 0 or more, with no minus sign, such as "3/8"'
    if bottom is not None and int(bottom) == 0:
        return 'expected a denominator above 0, such as the 8 of "3/8"'
    return 'expected whole numbers without leading zeros, such as "4/8"'


def forbidden(ch: str) -> bool:
    cat = unicodedata.category(ch)
    if cat == "Cf":
        return ch not in ALLOWED_FORMAT and not 0xE0020 <= ord(ch) <= 0xE007F  # tags spell subdivision flags
    return cat in ("Cc", "Cs", "Zl", "Zp") or ch in BIDI


# Letters that fonts draw as nothing at all (Hangul fillers, the blank Braille pattern).
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def visible_char(ch: str) -> bool:
    """Returns whether ch draws something on its own: not a space, a format character or a mark that needs a base."""
    return unicodedata.category(ch) not in ("Cf", "Mn", "Me", "Zs", "Cc") and ch not in _BLANK_LETTERS


def sized(text: str) -> str:
    """Returns the quoted text with its length, once."""
    shown = describe(text)
    return shown if shown.endswith(" characters)") else f"{shown} ({len(text)} characters)"


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


class Checker:
    """Walks the parsed JSON, collecting problems instead of stopping at the first."""

    def __init__(self, problems: list[tuple[str, str]], reserved: frozenset[str] = frozenset(),
                 owners: Mapping[str, str] | None = None) -> None:
        self.problems = problems
        self.reserved = reserved  # the page's element ids and prefixes
        self.owners = owners or {}  # of those, the ids a file the author edits gives an element, and that file
        self.too_many_tokens = -1  # the vocabulary's length when it is over the limit, already reported there

    def fail(self, path: str, message: str) -> None:
        self.problems.append((path, message))

    def refuse(self, path: str, message: str) -> Refused:
        """Records the problem and returns Refused, for the caller to raise."""
        self.fail(path, message)
        return Refused(path)

    def attempt(self, parse: Callable[..., T], *args: Any, **kwargs: Any) -> T | None:
        """Returns parse(*args, **kwargs), or None when it was refused (its problems are recorded): where the caller
        carries on with the rest, so that every problem is found before the file is refused."""
        try:
            return parse(*args, **kwargs)
        except Refused:
            return None

    def keys(self, obj: Any, path: str, allowed: set[str], required: set[str]) -> bool:
        if not isinstance(obj, dict):
            self.fail(path, f"found {describe(obj)}; expected an object")
            return False
        for key in sorted(required - obj.keys()):
            self.fail(path, f'missing key "{key}"')
        for key in sorted(obj.keys() - allowed):
            self.fail(path, f'found unknown key {describe(key)}; expected one of: {", ".join(sorted(allowed))}')
        return True

    def fraction(self, value: Any, path: str, probability: bool = True) -> Fraction:
        if isinstance(value, int) and not isinstance(value, bool) and value in (0, 1):
            return Fraction(value)
        match = FRACTION.fullmatch(value) if isinstance(value, str) else None
        if match is None:
            if isinstance(value, str) and FRACTION.fullmatch(value.strip()):
                raise self.refuse(path, f'found {describe(value)}; expected a fraction with no spaces or line breaks '
                                        'around it, such as "3/8"')
            raise self.refuse(path, f"found {describe(value)}; {fraction_expected(value)}")
        top, bottom = match.group(1), match.group(3) or "1"
        if max(len(top), len(bottom)) > MAX_DIGITS:
            raise self.refuse(path, f'found {describe(value)}; expected at most {MAX_DIGITS} digits on each side of the "/"')
        frac = Fraction(int(top), int(bottom))
        if probability and frac > 1:
            raise self.refuse(path, f"found {value}; expected a probability between 0 and 1")
        if frac.denominator > MAX_DENOMINATOR:
            raise self.refuse(path, f"found {describe(value)}, which is {frac}; expected a denominator of at most "
                                    f"{MAX_DENOMINATOR}, so the page can print it")
        return frac

    def distribution(self, value: Any, path: str, size: int | None) -> Dist:
        if size is not None and not (isinstance(value, list) and len(value) == size):
            raise self.refuse(path, f"found {describe(value)}; expected a list of {size} probabilities, one per "
                                    "vocabulary token")
        if not isinstance(value, list) or not 0 < len(value) <= MAX_TOKENS and len(value) != self.too_many_tokens:
            raise self.refuse(path, f"found {describe(value)}; expected a list of 1 to {MAX_TOKENS} probabilities, "
                                    "one per vocabulary token")
        entries = self.each([self.attempt(self.fraction, item, f"{path}[{i}]") for i, item in enumerate(value)], path)
        total = sum(entries, Fraction(0))
        if total != 1:
            raise self.refuse(path, f"sums to {total}; each distribution must sum to 1")
        return tuple(entries)

    def distributions(self, value: Any, path: str, size: int | None, k: int | None) -> tuple[Dist, ...]:
        if not self.positions(value, path, k, "row", "a list of distributions, one per position"):
            raise Refused(path)
        return tuple(self.each([self.attempt(self.distribution, row, f"{path}[{i}]", size)
                                for i, row in enumerate(value)], path))

    @staticmethod
    def each(items: list[T | None], path: str) -> list[T]:
        """Returns the items when none was refused (None), else raises Refused: their problems are recorded."""
        kept = [item for item in items if item is not None]
        if len(kept) != len(items):
            raise Refused(path)
        return kept

    def positions(self, value: Any, path: str, k: int | None, noun: str, want: str) -> bool:
        """Returns whether value is a list with one entry per position, saying what is wrong if not."""
        if not isinstance(value, list) or not value:
            self.fail(path, f"found {describe(value)}; expected {want}")
        elif len(value) > MAX_POSITIONS:
            self.fail(path, f"found {plural(len(value), noun)}; expected at most {MAX_POSITIONS} positions, "
                            "so the page fits a phone screen")
        elif k is not None and len(value) != k:
            self.fail(path, f"found {plural(len(value), noun)}; expected {k}, one per position, "
                            "as many as target has")
        else:
            return True
        return False

    def integer(self, value: Any, path: str, low: int, high: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise self.refuse(path, f"found {describe(value)}; expected a whole number from {low} to {high}")
        return value

    def label(self, value: Any, path: str, most: int, what: str) -> bool:
        """Returns whether value is a short, visible, one-line string, saying what is wrong if not."""
        if not isinstance(value, str) or not value.strip():
            self.fail(path, f"found {describe(value)}; expected a non-empty string")
            return False
        bad = next(((i, ch) for i, ch in enumerate(value) if forbidden(ch)), None)
        if bad is not None:
            self.fail(path, f"found {describe(value)}, which has {char_name(bad[1])} at character {bad[0] + 1}; "
                            f"expected {what} {PLAIN}")
        elif value != value.strip():
            end, ch = ("starts", value[0]) if value[0].isspace() else ("ends", value[-1])
            self.fail(path, f"found {describe(value)}, which {end} with {'a space' if ch == ' ' else char_name(ch)}; "
                            f"expected {what} with no spaces at either end")
        elif len(value) > most:
            self.fail(path, f"found {sized(value)}; expected {what} of at most {most} characters, "
                            "so it fits the page on a phone")
        elif not any(visible_char(ch) for ch in value):
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


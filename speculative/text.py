"""Owns how the page writes numbers and words: fractions, decimals, percents, counts, lists, and the filling of a
sentence pattern's {name} fields (strings.py holds the patterns themselves)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from decimal import ROUND_HALF_UP, Context, Decimal, localcontext
from fractions import Fraction
from math import lcm, log10
from typing import Any

from .strings import OWN, WALKTHROUGH

# --- numbers --------------------------------------------------------------------


def denominator(*rows: Iterable[Fraction]) -> int:
    """Returns the least common denominator of every value in `rows`: one distribution's own (8 for a row in eighths),
    or a position's, whose p and q rows its derived values (min, residual, α) are built from."""
    return lcm(1, *(x.denominator for row in rows for x in row))


def prob_str(x: Fraction, denom: int = 1) -> str:
    """Returns x over the file's common denominator when exact ("4/8"), else "0", "1" or x reduced."""
    if x == 0 or x == 1 or denom > 32 or denom % x.denominator:
        return str(x)
    return f"{x.numerator * (denom // x.denominator)}/{denom}"


def decimal_str(x: Fraction | float, places: int = 2) -> str:
    """Returns x rounded half-up to `places` decimals, computed from the exact value when x is a Fraction."""
    whole = abs(int(x))  # the digits before the point, of a Fraction or a float alike
    with localcontext(Context(prec=len(str(whole)) + places + 30)):  # a cost of 10^26 passes has more digits than 28
        exact = Decimal(x.numerator) / Decimal(x.denominator) if isinstance(x, Fraction) else Decimal(repr(float(x)))
        return str(exact.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def percent_str(x: Fraction | float, places: int = 1) -> str:
    """Returns x as a percentage, rounded half-up from the exact value."""
    return decimal_str(x * 100, places) + "%"


def uniform_str(u: float, a: Fraction) -> str:
    """Returns u with enough decimals that the shown value compares with `a` the way u does."""
    for places in range(4, 17):
        text = f"{u:.{places}f}"
        if (Fraction(text) < a) == (Fraction(u) < a):
            return text
    return repr(u)


def ratio_text(p: str, q: str, ratio: Fraction, accept: Fraction) -> str:
    """Returns the accept probability worked out: "min(1, (4/8)/(3/8)) = min(1, 4/3) = 1"; a whole number needs no brackets."""
    top, bottom = (f"({x})" if "/" in x else x for x in (p, q))
    return fill(OWN["worked" if ratio <= 1 else "worked_capped"], {"top": top, "bottom": bottom, "ratio": ratio, "accept": accept})


def cost_phrase(cost: Fraction) -> str:
    """Returns a cost in words: "1/10 of a target pass", "1 target pass", "0 target passes" or "3/2 target passes"."""
    if 0 < cost < 1:
        return f"{cost} of a target pass"
    return count(int(cost), "target pass", "target passes") if cost.denominator == 1 else f"{cost} target passes"


# --- words ----------------------------------------------------------------------


def power_of_ten(x: float) -> str:
    """Returns 1e-6 as "10⁻⁶", in superscript characters that need no markup."""
    exponent = round(log10(x))
    sup = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
    return "10" + str(exponent).translate(sup)


def subscript(n: int) -> str:
    """Returns a whole number in Unicode subscript digits, for a symbol's index in plain text: 12 -> "₁₂"."""
    return str(n).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def isolated(label: str) -> str:
    """Returns a label wrapped in Unicode isolates (FSI ... PDI) when its direction could reorder the text around it.

    A label of left-to-right letters and digits, with spaces only between them ("position 1"), cannot, so it is
    returned as it is: invisible isolates there would only ride along when a reader copies the text.
    """
    kinds = [unicodedata.bidirectional(ch) for ch in label]
    plain = bool(kinds) and kinds[0] in ("L", "EN") and kinds[-1] in ("L", "EN") and set(kinds) <= {"L", "EN", "WS"}
    return label if plain else f"\u2068{label}\u2069"


def quoted(labels: Sequence[str]) -> str:
    """Returns labels as “a” “b” “c” for captions, each isolated where its direction could reorder the rest."""
    return " ".join(fill(WALKTHROUGH["quoted"], {"tok": isolated(t)}) for t in labels)


def and_list(items: Sequence[object]) -> str:
    """Returns "1", "1 and 2" or "1, 2 and 3"."""
    words = [str(i) for i in items]
    if not words:
        return ""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def count(n: int, one: str, many: str | None = None) -> str:
    """Returns "1 token" or "3 tokens" (thousands separated): a number with its noun in agreement."""
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


def some_of(k: int, n: int, noun: str, verb: str) -> str:
    """Returns how many of n things do something, the verb agreeing: "3 of the 24 drawn rounds contain", "1 of the 24
    drawn rounds contains", "none of the 24 drawn rounds contains", "all 24 drawn rounds contain", "the one drawn
    round contains", "the one drawn round does not contain"."""
    if n == 1:
        return f"the one {noun} {verb}s" if k else f"the one {noun} does not {verb}"
    if k == n:
        return f"all {count(n, noun)} {verb}"
    return f"{'none' if k == 0 else f'{k:,}'} of the {count(n, noun)} {verb + 's' if k <= 1 else verb}"


def token_count(n: int) -> str:
    """Returns "1 token" or "3 tokens" from WALKTHROUGH's patterns, which the player fills the same way."""
    return fill(WALKTHROUGH["token_one" if n == 1 else "tokens"], {"n": n})


def position_words(positions: Sequence[int]) -> str:
    """Returns "the one at position 3" or "the ones at positions 3 and 5"; "" for none."""
    if not positions:
        return ""
    return ("the one at position " if len(positions) == 1 else "the ones at positions ") + and_list(positions)


_FIELD = re.compile(r"\{(\w+)\}")


def fill(pattern: str, fields: Mapping[str, Any]) -> str:
    """Returns the pattern with each {name} replaced by its field; the player's fill() does the same."""
    return _FIELD.sub(lambda m: str(fields[m.group(1)]), pattern)

# A round whose first proposal is rejected, against plain decoding: "it is {which}", "so {so}".

"""What servers do instead: the three verification rules side by side at every position, E and the speedup under
each, where each stops paying once verification has a cost, and the temperature-0 case."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from .. import strings, text
from ..rules import NAMES
from ..text import decimal_str, prob_str
from .common import Figure

if TYPE_CHECKING:  # the types only: a cached build never imports the analysis (and numpy)
    from ..analysis import Explained, ProfileResult

def rule_rows(r: ProfileResult, d: int) -> list[dict[str, Any]]:
    """Returns one row per position: each rule's chance that the position's check passes."""
    rules = r.stats.rules
    return [{"position": i + 1, "cells": [prob_str(rs.acceptance[i], d) for rs in rules]}
            for i in range(len(r.stats.records))]


def rule_totals(r: ProfileResult) -> dict[str, Any]:
    """Returns E, the speedup (free verification) and the cost at which each rule stops paying, per rule."""
    rules = r.stats.rules
    return {"expected": [decimal_str(rs.expected) for rs in rules],
            "speedup": [decimal_str(rs.speedup) + "×" for rs in rules],
            "slow": [rs.speedup < 1 for rs in rules],
            "stops": [stops_text(rs.stops_paying) for rs in rules],
            "stops_exact": [str(rs.stops_paying) if rs.stops_paying is not None else "" for rs in rules],
            "stops_decimal": [decimal_str(rs.stops_paying, 3) if rs.stops_paying is not None else "" for rs in rules]}


def stops_text(v: Fraction | None) -> str:
    """Returns the verification cost per position at which a rule stops paying, as a table cell."""
    if v is None:
        return strings.SERVERS["never"]
    if v == 0:
        return strings.SERVERS["stops_now"]
    shown = decimal_str(v, 3)
    return text.fill(strings.SERVERS["stops" if Fraction(shown) != v else "stops_even"], {"cost": shown})


def stops_line(rules: Any) -> str:
    """Returns the sentence under a rule table that gives, as fractions, every cost the table rounds; "" when it
    rounds none. It is printed, not a hover title, so a touch screen shows it too."""
    items = [text.fill(strings.SERVERS["stops_item"], {"rule": strings.RULE_PHRASES[rs.rule], "exact": str(rs.stops_paying)})
             for rs in rules if rs.stops_paying and Fraction(decimal_str(rs.stops_paying, 3)) != rs.stops_paying]
    return text.fill(strings.SERVERS["stops_line"], {"list": text.and_list(items)}) if items else ""


def temperature_rows(ex: Explained, r: ProfileResult) -> list[dict[str, Any]]:
    """Returns each position at temperature 0: the target's and the draft's top tokens, and whether they agree."""
    vocab = ex.data.vocabulary
    return [{"position": t.position, "target": vocab[t.target], "draft": vocab[t.draft], "agree": t.agree,
             "text": text.fill(strings.SERVERS["yes" if t.agree else "no"], {"pos": t.position,
                               "target": text.quoted([vocab[t.target]]), "draft": text.quoted([vocab[t.draft]])})}
            for t in r.stats.temperature_zero.positions]


def profile_view(ex: Explained, r: ProfileResult) -> dict[str, Any]:
    """Returns one draft's rule table, its temperature-0 table and the figures the prose quotes."""
    t0 = r.stats.temperature_zero
    by_rule = {rs.rule: rs for rs in r.stats.rules}
    return {"id": r.profile.id, "name": r.profile.name, "rows": rule_rows(r, ex.position_denom(ex.results.index(r))),
            **rule_totals(r),
            "t0": temperature_rows(ex, r), "t0_expected": str(t0.expected),
            "t0_line": text.fill(strings.SERVERS["t0"], {"e": str(t0.expected),
                                                      "list": "; ".join(t["text"] for t in temperature_rows(ex, r))}),
            "t0_agree": sum(t.agree for t in t0.positions),
            "stops_line": stops_line(r.stats.rules),
            **slower_rules(r.stats.rules),
            "rule_speedup": decimal_str(by_rule["accept-test"].speedup)}


def slower_rules(rules: Any) -> dict[str, str]:
    """Returns the rules slower than plain decoding at the file's costs, in words with their speedups
    ("exact match (0.95×)"), and the verb that agrees with them; empty words when none is."""
    slow = [text.fill(strings.SERVERS["slow_rule"], {"rule": strings.RULE_PHRASES[rs.rule], "x": decimal_str(rs.speedup)})
            for rs in rules if rs.speedup < 1]
    return {"slower": text.and_list(slow), "slower_verb": "is" if len(slow) == 1 else "are"}


def ties(ex: Explained) -> bool:
    """Returns True when some draft distribution has two most likely tokens, so the tie rule matters."""
    return any(sum(x == max(q) for x in q) > 1 for r in ex.results for q in r.profile.draft)


class Servers(Figure):
    PREFIXES = frozenset({"servers-profile"})  # "servers-profile-<profile id>" and its "-cap"

    def context(self) -> dict[str, Any]:
        """Returns the rules' names and every draft's tables."""
        return {"servers_facts": {"names": list(NAMES.values()), "ties": ties(self.ex),
                                    "profiles": [profile_view(self.ex, r) for r in self.ex.results]}}


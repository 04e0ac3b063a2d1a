"""The accept-test lab: one position's accept test and replacement draw, which the reader drives."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dataclasses import dataclass
from typing import Any

from .. import text
from ..text import decimal_str
from .common import Facts, PositionFacts, none_mark

if TYPE_CHECKING:  # the types only: a cached build never imports the analysis (and numpy)
    from ..analysis import Explained

TRACE_KEY = "lab"  # where trace() goes in the trace
SCRIPTS: tuple[str, ...] = ('js/eighths.js', 'js/lab.js', 'js/tally.js')  # its files in templates/, in the order they join
COMPONENT = "lab"
IDS = frozenset({"lab", "lab-title", "lab-position", "lab-u", "lab-rep"})
PREFIXES = frozenset({"lab-cap"})  # "lab-cap-<profile id>"


@dataclass(frozen=True)
class Lab:
    ex: Explained
    facts: tuple[tuple[PositionFacts, ...], ...]  # [profiles][k]

    def default(self) -> dict[str, Any]:
        """Returns the opening state: the first proposal chance decides, with u on the rejecting side."""
        ex = self.ex
        if ex.chance:
            i, pos, token = ex.chance
            accept = ex.results[i].stats.records[pos - 1].tokens[token].accept
            u = decimal_str((accept + 1) / 2, 3)  # halfway between the threshold and 1: a rejection
        else:
            i, pos = 0, 1
            token = next(y for y, t in enumerate(ex.results[0].stats.records[0].tokens) if t.q > 0)
            u = "0.500"
        return {"profile": i, "where": f"{ex.results[i].profile.id}/{pos}", "pos": pos, "token": token, "u": u}

    def trace(self) -> dict[str, Any]:
        """Returns the script's part: the opening state."""
        return self.default()

    def context(self) -> dict[str, Any]:
        """Returns the position choices, the opening state and the no-JS accept tables."""
        ex = self.ex
        options = [{"value": f"{r.profile.id}/{rec.position}", "label": text.fill(text.LAB["option"], {
            "name": r.profile.name, "pos": rec.position})} for r in ex.results for rec in r.stats.records]
        tables = [{"id": r.profile.id, "name": r.profile.name,
                   "rows": [{"position": j + 1, "cells": [none_mark(a) for a in f.accept]} for j, f in enumerate(facts)]}
                  for r, facts in zip(ex.results, self.facts)]
        return {"lab": {"options": options, "tables": tables, "none": ex.chance is None, "none_text": text.LAB["none"],
                        "default": self.default(), "own": text.OWN["option"], "rules": list(text.RULE_NAMES.values()),
                        "back": text.LAB["back"]}}


def model(ex: Explained, facts: Facts) -> Lab:
    """Returns the lab's model."""
    return Lab(ex, facts)

"""The accept-test lab: one position's accept test and replacement draw, which the reader drives."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .. import strings, text, variants
from ..rules import NAMES
from ..text import decimal_str, prob_str
from .common import Figure, none_mark

SIGNS = {1: "+", -1: "-", 0: "="}  # a token's change from p under a broken sampler: gains, loses, keeps


@dataclass(frozen=True)
class Broken:
    """What one broken sampler commits at one shipped position with target p: exact, and as the page writes it."""

    p: tuple[Fraction, ...]  # [V]
    committed: tuple[Fraction, ...]  # [V]

    @property
    def tv(self) -> Fraction:
        return variants.total_variation(self.committed, self.p)

    def signs(self) -> str:
        """Returns one sign per token: + where the sampler commits more than p, - where less, = where the same."""
        return "".join(SIGNS[(c > p) - (c < p)] for c, p in zip(self.committed, self.p, strict=True))

    def json(self, d: int) -> list[Any]:
        """Returns [committed strings, TV as a fraction, TV to 3 decimals, signs] for the trace."""
        return [[prob_str(c, d) for c in self.committed], str(self.tv), decimal_str(self.tv, 3), self.signs()]


def broken_at(p: tuple[Fraction, ...], q: tuple[Fraction, ...]) -> list[Broken]:
    """Returns [broken variants] what each commits at a position with target p and draft q."""
    return [Broken(p, v.committed(p, q)) for v in variants.BROKEN]


U_MAX = Fraction(999, 1000)  # the u slider runs 0 to 0.999 in steps of 0.001


def _opening_u(accept: Fraction, drawn: float | None) -> str:
    """Returns the u the lab opens with at a check chance decides: the round's own rejecting draw, when the slider
    can show it still rejecting; else halfway between the threshold and 1 (at most the slider's end)."""
    if drawn is not None:
        shown = decimal_str(Fraction(drawn), 3)
        if accept <= Fraction(shown) <= U_MAX:
            return shown
    return decimal_str(min(Fraction(decimal_str((accept + 1) / 2, 3)), U_MAX), 3)


class Lab(Figure):
    SCRIPTS = ('js/eighths.js', 'js/tally.js', 'js/lab.js')
    WORDS = ("LAB", "OWN", "RULE_WORDS", "WALKTHROUGH", "CONVERGENCE", "ACCEPT")
    IDS = frozenset({"lab", "lab-title", "lab-position", "lab-sampler", "lab-u", "lab-rep", "lab-broken-cap"})
    PREFIXES = frozenset({"lab-cap"})  # "lab-cap-<profile id>"

    def _broken(self) -> dict[str, list[Broken]]:
        """Returns {"profile/position": [broken variants] what each commits there}, in page order."""
        return {f"{r.profile.id}/{rec.position}": broken_at(tuple(t.p for t in rec.tokens), tuple(t.q for t in rec.tokens))
                for r in self.ex.results for rec in r.stats.records}

    def _shows(self) -> list[str]:
        """Returns [broken variants] the shipped position where each moves furthest from p (the first on a tie):
        the one the lab names when the position shown cannot show the fault. It moves none of them when empty."""
        at = self._broken()
        return [max(at, key=lambda w: at[w][i].tv) if any(b[i].tv for b in at.values()) else ""
                for i in range(len(variants.BROKEN))]

    def _showcase(self) -> str:
        """Returns the shipped position that shows every broken sampler best: the largest smallest distance."""
        at = self._broken()
        return max(at, key=lambda w: (sum(b.tv > 0 for b in at[w]), min(b.tv for b in at[w])))

    def _default(self) -> dict[str, Any]:
        """Returns the opening state: in the authored round the player opens on (Explained.opening), the check chance
        decides (its rejection if chance decides one, with that round's own draw u); else the first proposal chance
        decides in the file, with u on the rejecting side; else the first profile's first proposable token."""
        ex = self.ex
        check = ex.results[ex.opening].walk_chance_check
        if check is not None:
            i, pos, token = ex.opening, check.position, check.token
            u = _opening_u(check.accept, check.u if check.verdict == "rejected" else None)
        elif ex.chance:
            i, pos, token = ex.chance
            accept = ex.results[i].stats.records[pos - 1].tokens[token].accept
            assert accept is not None  # chance decides its check: 0 < accept < 1
            u = _opening_u(accept, None)
        else:
            i, pos = 0, 1
            token = next(y for y, t in enumerate(ex.results[0].stats.records[0].tokens) if t.q > 0)
            u = "0.500"
        return {"profile": i, "where": f"{ex.results[i].profile.id}/{pos}", "pos": pos, "token": token, "u": u}

    def trace(self) -> dict[str, Any]:
        """Returns the script's part: the opening state, and what each broken sampler commits at each position."""
        return {**self._default(), "broken": {w: [b.json(self._denom_at(w)) for b in bs] for w, bs in self._broken().items()},
                "shows": self._shows()}

    def _denom_at(self, where: str) -> int:
        """Returns the denominator the committed distributions at "profile id/position" are written over."""
        pid = where.split("/")[0]
        return self.ex.position_denom(next(i for i, r in enumerate(self.ex.results) if r.profile.id == pid))

    def _broken_table(self) -> dict[str, Any]:
        """Returns the no-JS table: every sampler's exact committed distribution at the showcase position."""
        where = self._showcase()
        name, pos = where.split("/")
        r = next(r for r in self.ex.results if r.profile.id == name)
        rec = r.stats.records[int(pos) - 1]
        p = tuple(t.p for t in rec.tokens)
        marks, d = {"+": " ▲", "-": " ▼", "=": ""}, self._denom_at(where)
        rows = [{"name": variants.THE_RULE.name, "cells": [prob_str(a, d) for a in p], "tv": "0", "why": ""}]
        rows += [{"name": v.name, "cells": [prob_str(c, d) + marks[s] for c, s in zip(b.committed, b.signs(), strict=True)],
                  "tv": f"{b.tv} ≈ {decimal_str(b.tv, 3)}", "why": v.why}
                 for v, b in zip(variants.BROKEN, self._broken()[where], strict=True)]
        caption = text.fill(strings.LAB["broken_caption"], {"name": r.profile.name, "pos": rec.position})
        return {"caption": caption, "rows": rows}

    def context(self) -> dict[str, Any]:
        """Returns the position choices, the opening state and the no-JS accept tables."""
        ex = self.ex
        options = [{"value": f"{r.profile.id}/{rec.position}", "label": text.fill(strings.LAB["option"], {
            "name": r.profile.name, "pos": rec.position})} for r in ex.results for rec in r.stats.records]
        tables = [{"id": r.profile.id, "name": r.profile.name,
                   "rows": [{"position": j + 1, "cells": [none_mark(a) for a in f.accept]} for j, f in enumerate(facts)]}
                  for r, facts in zip(ex.results, self.facts, strict=True)]
        return {"lab": {"options": options, "tables": tables, "none": ex.chance is None, "none_text": strings.LAB["no_chance"],
                        "default": self._default(), "own": strings.OWN["option"],
                        "rules": [{"id": rule, "name": name} for rule, name in NAMES.items()],
                        "back": strings.LAB["back"], "samplers": [v.name for v in variants.VARIANTS],
                        "broken": self._broken_table(), "broken_why": strings.LAB["broken_why"]}}


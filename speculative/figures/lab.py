"""The accept-test lab: one position's accept test and replacement draw, which the reader drives."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .. import strings, text, trees, variants
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


Dist = tuple[Fraction, ...]


@dataclass(frozen=True)
class Trees:
    """What several candidates per position give at one shipped position, for m = 1 to trees.MAX_CANDIDATES: each
    correct way's acceptance A (both commit p), and what each broken way commits (m = 2 up; at m = 1 none is used)."""

    p: Dist
    a: tuple[tuple[Fraction, ...], ...]  # [ways][m - 1] A
    broken: tuple[tuple[Broken, ...], ...]  # [broken ways][m - 2]

    def a_at(self, m: int) -> list[Fraction]:
        """Returns A with m candidates, one per correct way."""
        return [a[m - 1] for a in self.a]

    def json(self, d: int) -> dict[str, Any]:
        """Returns {"a": {way id: [A per m]}, "broken": [[Broken.json per m from 2] per broken way]} for the trace."""
        return {"a": {s.id: [prob_str(x, d) for x in a] for s, a in zip(trees.SPECS, self.a, strict=True)},
                "broken": [[b.json(d) for b in bs] for bs in self.broken]}


def _trees_at(positions: dict[str, tuple[Dist, Dist]]) -> dict[str, Trees]:
    """Returns {"profile/position": Trees} from trees.position, every m, every way."""
    return {w: _tree_of(p, q) for w, (p, q) in positions.items()}


@functools.lru_cache(maxsize=256)  # a rebuild in the same process (the watcher's) reuses what an unchanged position gives
def _tree_of(p: Dist, q: Dist) -> Trees:
    ms = range(1, trees.MAX_CANDIDATES + 1)
    return Trees(p, tuple(tuple(trees.position(p, q, m, s).acceptance for m in ms) for s in trees.SPECS),
                 tuple(tuple(Broken(p, trees.position(p, q, m, s).committed) for m in ms[1:]) for s in trees.BROKEN))


def _tree_shows(at: dict[str, Trees]) -> list[list[str]]:
    """Returns [broken ways][m - 2] the shipped position where each moves furthest from p with m candidates ("" where
    none moves): the one the lab names when the position shown cannot show the fault."""
    wheres = list(at)
    return [[max(wheres, key=lambda w: at[w].broken[i][k].tv) if any(at[w].broken[i][k].tv for w in wheres) else ""
             for k in range(trees.MAX_CANDIDATES - 1)] for i in range(len(trees.BROKEN))]


def _way_json(spec: trees.Spec) -> dict[str, Any]:
    """Returns a way's switches as the script reads them (templates/js/lab_trees.js), and its name and why."""
    return {"id": spec.id, "name": spec.name, "replace": spec.replace, "against_p": spec.against_p,
            "plain_q": spec.plain_q, "typical": spec.typical, "why": strings.TREES["why"].get(spec.id, "")}


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
    SCRIPTS = ('js/eighths.js', 'js/lab_trees.js', 'js/tally.js', 'js/lab.js')
    WORDS = ("LAB", "OWN", "RULE_WORDS", "WALKTHROUGH", "CONVERGENCE", "ACCEPT", "TREES")
    IDS = frozenset({"lab", "lab-title", "lab-position", "lab-sampler", "lab-u", "lab-rep", "lab-broken-cap",
                     "lab-candidates", "lab-way", "lab-trees-cap"})
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
        """Returns the script's part: the opening state, what each broken sampler commits at each position, the
        same for several candidates per position (trees), and each profile's denominator, which the script writes a
        candidate's r and q over as the build writes p and q."""
        at = _trees_at(self._positions())
        return {**self._default(), "broken": {w: [b.json(self._denom_at(w)) for b in bs] for w, bs in self._broken().items()},
                "shows": self._shows(), "max_candidates": trees.MAX_CANDIDATES, "typical": list(trees.TYPICAL),
                "ways": [_way_json(s) for s in trees.SPECS], "tree_broken": [_way_json(s) for s in trees.BROKEN],
                "trees": {w: t.json(self._denom_at(w)) for w, t in at.items()}, "tree_shows": _tree_shows(at),
                "denoms": {r.profile.id: self.ex.position_denom(i) for i, r in enumerate(self.ex.results)}}

    def _positions(self) -> dict[str, tuple[Dist, Dist]]:
        """Returns {"profile/position": (p, q)} for every shipped position, in page order."""
        return {f"{r.profile.id}/{rec.position}": (tuple(t.p for t in rec.tokens), tuple(t.q for t in rec.tokens))
                for r in self.ex.results for rec in r.stats.records}

    def _trees_table(self) -> dict[str, Any]:
        """Returns the no-JS table of A for m = 1 to MAX_CANDIDATES, both ways, at the lab's opening position."""
        where = self._default()["where"]
        name, pos = where.split("/")
        r = next(r for r in self.ex.results if r.profile.id == name)
        t, d = _trees_at({where: self._positions()[where]})[where], self._denom_at(where)
        W = strings.TREES_STATIC
        rows = [{"m": m, "cells": [text.fill(W["approx"], {"a": prob_str(a, d), "f": decimal_str(a, 3)}) for a in t.a_at(m)]}
                for m in range(1, trees.MAX_CANDIDATES + 1)]
        return {"caption": text.fill(W["caption"], {"name": r.profile.name, "pos": pos}), "rule": W["rule"],
                "col_m": W["col_m"], "ways": [s.name for s in trees.SPECS], "rows": rows}

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
                        "broken": self._broken_table(), "broken_why": strings.LAB["broken_why"],
                        "trees": {**self._trees_table(), "ms": list(range(1, trees.MAX_CANDIDATES + 1)),
                                  "way_options": [{"id": s.id, "name": s.name} for s in trees.SPECS],
                                  "broken": [s.name for s in trees.BROKEN], "first": len(variants.VARIANTS)}}}


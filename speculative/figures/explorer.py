"""The speedup explorer: the speedup at every k, compared draft-step cost, verification rule and verification cost
per position, and the best k for each; under the accept test, a tree of width m (several candidates per position,
speculative/trees.py) and the best (k, m)."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from .. import strings, text
from ..dataset import CostModel, Dist
from ..rules import NAMES
from ..stats import best_k, round_cost, speedup_curve
from ..text import decimal_str
from .common import Figure

if TYPE_CHECKING:  # the types only: a cached build never imports the analysis (and numpy)
    from ..analysis import Explained, ProfileResult

TREE_RULE = "accept-test"  # the rule a tree's candidates are checked by, recursively (rules.RULES's first)
DEFAULT_WAY = "without"  # candidates drawn without replacement: never kept less often than with (trees.SPECS' ids)

def cells(r: ProfileResult) -> list[list[dict[str, Any]]]:
    """Returns the speedup table [cost][k] as cells: the value, ★ on each cost's best k, and whether it is below 1×;
    one row per cost, so that its five k fit a phone's width."""
    table = r.stats.speedup_table
    columns = [[row[c] for row in table] for c in range(len(table[0]))]  # [cost][k]
    return [[{"text": text + "×" + (" ★" if best_paying_k(column) == k else ""), "slow": v < 1}
             for k, (v, text) in enumerate(zip(column, column_texts(column), strict=True), start=1)]
            for column in columns]


def column_texts(column: Sequence[Fraction]) -> list[str]:
    """Returns one column's speedups [k] to 2 decimals, or to as many more (up to 4) as it takes for the best k to
    read differently from every other k, so a reader never sees the best tie with another at 1.81×."""
    k = best_k(column) - 1
    for places in (2, 3):
        texts = [decimal_str(x, places) for x in column]
        if texts.count(texts[k]) == 1:
            return texts
    return [decimal_str(x, 4) for x in column]


def best_paying_k(column: Sequence[Fraction]) -> int:
    """Returns the k (1-based) with the highest speedup in one column [k], the smallest on a tie; 0 if none beats 1×."""
    k = best_k(column)
    return k if column[k - 1] > 1 else 0


def shared_top(ex: Explained) -> Fraction:
    """Returns the highest speedup any profile's explorer can show, every tree width included, and at least 1×: every
    profile's chart is drawn to this one scale, so two drafts' (and two widths') bars and 1× lines compare by height."""
    cost, results = ex.data.cost, ex.results
    chains = [max(row) for r in results for rule in r.stats.rules for t in rule.speedup_tables for row in t]
    widths = [max(tree_speedups(acc, m, cost, c, v)) for r in results
              for by_m in tree_acceptance(ex.data.target, r.profile.draft).values()
              for m, acc in enumerate(by_m, start=1) for v in cost.verify_costs for c in cost.compare_draft_steps]
    return max([Fraction(1), *chains, *widths])


@functools.cache
def tree_acceptance(target: tuple[Dist, ...], draft: tuple[Dist, ...]) -> dict[str, tuple[tuple[Fraction, ...], ...]]:
    """Returns A, the chance one of m candidates is kept, at every position [m - 1][k] for each way the candidates
    are drawn (trees.SPECS' ids): recursive rejection sampling, whose m = 1 is the accept test's α."""
    from .. import trees  # with numpy: only a build that computes the analysis comes here

    return {spec.id: tuple(tuple(trees.position(p, q, m, spec).acceptance for p, q in zip(target, draft, strict=True))
                           for m in range(1, trees.MAX_CANDIDATES + 1)) for spec in trees.SPECS}


def tree_speedups(acceptance: Sequence[Fraction], m: int, cost: CostModel, c: Fraction, v: Fraction) -> list[Fraction]:
    """Returns a full tree of width m's speedup at every depth k = 1..K [K]: E_k over k·c + verify_round + v·nodes,
    nodes = m + m² + … + m^k (k draft passes, one target pass scoring every node); at m = 1 the chain's."""
    return list(speedup_curve(acceptance, cost, c, v, width=m))


@dataclass(frozen=True)
class BestTree:
    """The tree with the highest speedup at one draft cost and verification cost."""

    k: int
    m: int
    speedup: Fraction
    text: str  # as the bars of width m show it (column_texts)


def best_tree(by_m: Sequence[Sequence[Fraction]], cost: CostModel, c: Fraction, v: Fraction) -> BestTree:
    """Returns the (k, m) with the highest speedup, given A [m - 1][k]: on a tie the narrowest, then the shallowest."""
    cols = [tree_speedups(acc, m, cost, c, v) for m, acc in enumerate(by_m, start=1)]
    m, k = max(((m, k) for m in range(len(cols)) for k in range(len(cols[m]))),
               key=lambda mk: (cols[mk[0]][mk[1]], -mk[0], -mk[1]))
    return BestTree(k + 1, m + 1, cols[m][k], column_texts(cols[m])[k])


def tree_cell(best: BestTree) -> dict[str, Any]:
    """Returns the no-JS table's cell for one best tree: its k, m and speedup, and whether it beats 1×."""
    return {"k": best.k, "m": best.m, "value": best.text, "pays": best.speedup > 1}


def profile_trace(r: ProfileResult, top: Fraction) -> dict[str, Any]:
    """Returns one profile's speedups for the script, each {rule id}[verify cost][draft cost]: the displayed values at
    every k, whether each k is below 1×, and the best k (0: none beats 1×).
    The bars' heights are the displayed values over `top`, divided by the stylesheet, so the script does no sums."""
    cols = {rule.rule: [[[row[c] for row in t] for c in range(len(t[0]))] for t in rule.speedup_tables]
            for rule in r.stats.rules}
    return {"top": round(float(top), 4),
            "values": {rule: [[column_texts(col) for col in v] for v in t] for rule, t in cols.items()},
            "slow": {rule: [[[x < 1 for x in col] for col in v] for v in t] for rule, t in cols.items()},
            "best": {rule: [[best_paying_k(col) for col in v] for v in t] for rule, t in cols.items()}}


def verify_phrase(v: Fraction) -> str:
    """Returns a verification cost per position in words: "free", or "1/20 of a target pass"."""
    return strings.EXPLORER["free"] if v == 0 else text.cost_phrase(v)


class Explorer(Figure):
    SCRIPTS = ('js/explorer_tree.js', 'js/explorer.js')
    WORDS = ("EXPLORER", "EXPLORER_TREES")
    IDS = frozenset({"explorer-title", "explorer-k", "explorer-cost", "explorer-rule", "explorer-verify", "explorer-m",
                     "explorer-way", "explorer-trees"})
    PREFIXES = frozenset({"explorer-table"})  # "explorer-table-<profile id>"

    def _costs(self) -> dict[str, Any]:
        """Returns the compared draft-step costs, the verification costs per position and the rules, as phrases."""
        cost, rules = self.ex.data.cost, self.ex.results[0].stats.rules
        return {"costs": [str(c) for c in cost.compare_draft_steps],
                "cost_text": [text.cost_phrase(c) for c in cost.compare_draft_steps],
                "verify": [str(v) for v in cost.verify_costs], "verify_text": [verify_phrase(v) for v in cost.verify_costs],
                "rules": [{"id": r.rule, "name": NAMES[r.rule]} for r in rules]}

    def trace(self) -> dict[str, Any]:
        """Returns the script's part: the choices, and the round cost k·c + verify_round + k·v at every [v][c][k]."""
        cost, k = self.ex.data.cost, self.ex.data.k
        return {**self._costs(), "verify_round": str(cost.verify_round),
                "round_costs": [[[str(round_cost(j, cost, c, v)) for j in range(1, k + 1)]
                                 for c in cost.compare_draft_steps] for v in cost.verify_costs],
                **self._tree_choices()}

    def _tree_choices(self) -> dict[str, Any]:
        """Returns what the tree controls offer: the rule trees are checked by, the widest m, the ways' ids."""
        from .. import trees  # with numpy: only a build that computes the analysis comes here

        return {"tree_rule": TREE_RULE, "max_m": trees.MAX_CANDIDATES,
                "ways": [s.id for s in sorted(trees.SPECS, key=lambda s: s.replace)]}

    def _acceptance(self, i: int) -> dict[str, tuple[tuple[Fraction, ...], ...]]:
        """Returns profile i's A [way][m - 1][k]."""
        return tree_acceptance(self.ex.data.target, self.ex.data.profiles[i].draft)

    def profile_trace(self, i: int) -> dict[str, Any]:
        """Returns profile i's speedups for the script, and its A [way][m - 1][k] as exact strings, from which the
        script works a tree's speedups exactly as tree_speedups does."""
        tree = {way: [[str(a) for a in acc] for acc in by_m] for way, by_m in self._acceptance(i).items()}
        return {"explorer": {**profile_trace(self.ex.results[i], shared_top(self.ex)), "tree": tree}}

    def profile_context(self, i: int) -> dict[str, Any]:
        """Returns profile i's no-JS table."""
        return {"table": cells(self.ex.results[i])}

    def _trees(self) -> list[dict[str, Any]]:
        """Returns the no-JS table of the best tree per verification cost [v], each profile's cell, at the file's
        draft step with candidates drawn the default way."""
        cost = self.ex.data.cost
        by_m = [self._acceptance(i)[DEFAULT_WAY] for i in range(len(self.ex.results))]
        return [{"verify": verify_phrase(v), "cells": [tree_cell(best_tree(b, cost, cost.draft_step, v)) for b in by_m]}
                for v in cost.verify_costs]

    def _tree_words(self) -> dict[str, Any]:
        """Returns the tree controls' choices and the no-JS table of best trees, its draft cost and way."""
        from .. import trees  # with numpy: only a build that computes the analysis comes here

        E = strings.EXPLORER_TREES
        return {"max_m": trees.MAX_CANDIDATES, "default_way": DEFAULT_WAY, "trees": self._trees(),
                "ways": [{"id": s.id, "name": E["way_" + s.id]} for s in sorted(trees.SPECS, key=lambda s: s.replace)],
                "tree_cost": text.cost_phrase(self.ex.data.cost.draft_step), "tree_way": E["way_" + DEFAULT_WAY]}

    def context(self) -> dict[str, Any]:
        """Returns the explorer's choices and its default state (all k, the page's own draft cost, the accept test,
        free verification when the file offers it)."""
        verify = list(self.ex.data.cost.verify_costs)
        return {"explorer": {**self._costs(), **self._tree_words(), "default_cost": self.ex.cost_index or 0,
                             "k": self.ex.data.k, "default_verify": verify.index(Fraction(0)) if 0 in verify else 0}}


"""The speedup explorer: the speedup at every k, compared draft-step cost, verification rule and verification cost
per position, and the best k for each."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from .. import strings, text
from ..rules import NAMES
from ..stats import best_k, round_cost
from ..text import decimal_str
from .common import Figure

if TYPE_CHECKING:  # the types only: a cached build never imports the analysis (and numpy)
    from ..analysis import ProfileResult

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


def shared_top(results: Sequence[ProfileResult]) -> Fraction:
    """Returns the highest speedup any profile's explorer can show, and at least 1×: every profile's chart is drawn
    to this one scale, so two drafts' bars (and their 1× lines) compare by height."""
    return max([Fraction(1)] + [max(row) for r in results for rule in r.stats.rules for t in rule.speedup_tables
                                for row in t])


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
    SCRIPTS = ('js/explorer.js',)
    WORDS = ("EXPLORER",)
    IDS = frozenset({"explorer-title", "explorer-k", "explorer-cost", "explorer-rule", "explorer-verify"})
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
                                 for c in cost.compare_draft_steps] for v in cost.verify_costs]}

    def profile_trace(self, i: int) -> dict[str, Any]:
        """Returns profile i's speedups for the script."""
        return {"explorer": profile_trace(self.ex.results[i], shared_top(self.ex.results))}

    def profile_context(self, i: int) -> dict[str, Any]:
        """Returns profile i's no-JS table."""
        return {"table": cells(self.ex.results[i])}

    def context(self) -> dict[str, Any]:
        """Returns the explorer's choices and its default state (all k, the page's own draft cost, the accept test,
        free verification when the file offers it)."""
        verify = list(self.ex.data.cost.verify_costs)
        return {"explorer": {**self._costs(), "default_cost": self.ex.cost_index or 0, "k": self.ex.data.k,
                            "default_verify": verify.index(Fraction(0)) if 0 in verify else 0}}


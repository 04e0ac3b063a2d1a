"""The speedup explorer: the speedup at every k and every compared draft-step cost, and the best k for each."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dataclasses import dataclass
from typing import Any

from .. import text
from ..text import decimal_str

from .common import Facts

if TYPE_CHECKING:  # the types only: a cached build never imports the analysis (and numpy)
    from ..analysis import Explained, ProfileResult

TRACE_KEY = "explore"  # where trace() goes in the trace
COMPONENT = "speedup"
IDS = frozenset({"explore-title", "ex-k", "ex-cost"})
PREFIXES = frozenset({"spt"})  # "spt-<profile id>"


def cells(r: ProfileResult) -> list[list[dict[str, Any]]]:
    """Returns the speedup table [k][cost] as cells: the value, ★ on each cost's best k, and whether it is below 1×."""
    best = r.best_k
    return [[{"text": decimal_str(v) + "×" + ("\u00a0★" if best[c] == k and v > 1 else ""), "slow": v < 1}
             for c, v in enumerate(row)] for k, row in enumerate(r.stats.speedup_table, start=1)]


def profile_trace(r: ProfileResult) -> dict[str, Any]:
    """Returns one profile's speedup at every (cost, k): display strings, heights and the best k."""
    table = r.stats.speedup_table  # [k][cost]
    top = max(max(max(row) for row in table), 1)
    cols = range(len(table[0]))
    return {"values": [[decimal_str(row[c]) for row in table] for c in cols],
            "heights": [[round(float(row[c] / top), 4) for row in table] for c in cols],
            "slow": [[int(row[c] < 1) for row in table] for c in cols],
            "best": [k if table[k - 1][c] > 1 else 0 for c, k in enumerate(r.best_k)], "one": round(float(1 / top), 4)}


@dataclass(frozen=True)
class Explorer:
    ex: Explained

    def costs(self) -> dict[str, Any]:
        """Returns the compared draft-step costs as fractions and as phrases."""
        costs = self.ex.data.cost.compare_draft_steps
        return {"costs": [str(c) for c in costs], "cost_text": [text.cost_phrase(c) for c in costs]}

    def trace(self) -> dict[str, Any]:
        """Returns the script's part: the costs and each cost's round cost at every k."""
        return {**self.costs(), "round_costs": [[str(x) for x in row] for row in self.ex.round_costs]}

    def profile_trace(self, i: int) -> dict[str, Any]:
        """Returns profile i's speedups for the script."""
        return {"speedup": profile_trace(self.ex.results[i])}

    def profile_context(self, i: int) -> dict[str, Any]:
        """Returns profile i's no-JS table."""
        return {"table": cells(self.ex.results[i])}

    def context(self) -> dict[str, Any]:
        """Returns the explorer's choices and its default state (all k, the page's own draft cost)."""
        return {"explore": {**self.costs(), "default_cost": self.ex.cost_index or 0, "k": self.ex.data.k}}


def model(ex: Explained, facts: Facts) -> Explorer:
    """Returns the explorer's model."""
    return Explorer(ex)

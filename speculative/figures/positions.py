"""The positions figure: each profile's table of p and q per position, and its overlap chart."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dataclasses import dataclass
from typing import Any

from .. import charts
from ..text import prob_str
from .common import Facts, PositionFacts, none_mark

if TYPE_CHECKING:  # the types only: a cached build never imports the analysis (and numpy)
    from ..analysis import Explained

COMPONENT = "positions"
IDS = frozenset({"positions"})
PREFIXES = frozenset({"pos", "ov"})  # "pos-<profile id>", "pos-<profile id>-cap", the chart's "ov-<profile id>"


@dataclass(frozen=True)
class Positions:
    ex: Explained
    facts: tuple[tuple[PositionFacts, ...], ...]  # [profiles][k]

    def rows(self, i: int) -> list[dict[str, Any]]:
        """Returns profile i's table row groups: p, q, accept probabilities and the proposal's working."""
        out = []
        for rec, f in zip(self.ex.results[i].stats.records, self.facts[i]):
            x = f.proposal
            out.append({"position": rec.position, "proposal": x, "token": self.ex.data.vocabulary[x], "p": f.target,
                        "q": f.draft, "accept": [none_mark(a) for a in f.accept], "alpha": f.alpha,
                        "accept_text": f.worked[x]})
        return out

    def chart(self, i: int) -> str:
        """Returns profile i's overlap chart: min(p, q), the residual's share and q's excess, per position."""
        r, d = self.ex.results[i], self.ex.denom
        rows = [(rec.position, prob_str(rec.alpha, d), [t.p for t in rec.tokens], [t.q for t in rec.tokens], x)
                for rec, x in zip(r.stats.records, r.profile.proposals)]
        return charts.overlap_matrix(self.ex.data.vocabulary, rows, f"ov-{r.profile.id}", row_key=r.profile.id)

    def profile_context(self, i: int) -> dict[str, Any]:
        """Returns profile i's table rows and chart."""
        return {"positions": self.rows(i), "overlap_chart": self.chart(i)}


def model(ex: Explained, facts: Facts) -> Positions:
    """Returns the positions figure's model."""
    return Positions(ex, facts)

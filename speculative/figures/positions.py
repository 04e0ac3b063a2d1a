"""The positions figure: each profile's table of p and q per position, and its overlap chart."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from .. import charts
from ..text import decimal_str, prob_str
from .common import Figure, none_mark

# "positions-profile-<profile id>" and its "-cap", the chart's "positions-chart-<profile id>"
U_MAX = Fraction(999, 1000)  # the lab's u slider runs 0 to 0.999 in steps of 0.001


def lab_u(accept: Fraction) -> str:
    """Returns the u a "try it in the lab" link opens with: halfway between the threshold and 1, so the check rejects
    and the residual shows (as the lab's own opening state does); 0.500 when no u on the slider rejects."""
    u = Fraction(decimal_str((accept + 1) / 2, 3))
    u = min(u, U_MAX)
    return f"{float(u):.3f}" if accept <= u else "0.500"


def lab_link(profile_id: str, position: int, token: int, accept: Fraction | None) -> str:
    """Returns a link's lab state, "profile/position/token/u", the form data-lab-open holds; the token is one the
    draft proposes (q > 0), so it has an accept probability."""
    if accept is None:
        raise ValueError(f"{profile_id}/{position}/{token}: the draft never proposes this token; expected one it does")
    return f"{profile_id}/{position}/{token}/{lab_u(accept)}"


class Positions(Figure):
    IDS = frozenset({"positions"})
    PREFIXES = frozenset({"positions-profile", "positions-chart"})

    def _rows(self, i: int) -> list[dict[str, Any]]:
        """Returns profile i's table row groups: p, q, accept probabilities and the proposal's working."""
        out = []
        for rec, f in zip(self.ex.results[i].stats.records, self.facts[i], strict=True):
            x = f.proposal
            out.append({"position": rec.position, "proposal": x, "token": self.ex.data.vocabulary[x], "p": f.target,
                        "q": f.draft, "accept": [none_mark(a) for a in f.accept], "alpha": f.alpha,
                        "accept_text": f.worked[x],
                        "open": lab_link(self.ex.results[i].profile.id, rec.position, x, rec.tokens[x].accept)})
        return out

    def _chart(self, i: int) -> str:
        """Returns profile i's overlap chart: min(p, q), the residual's share and q's excess, per position."""
        r, d = self.ex.results[i], self.ex.position_denom(i)
        rows = [(rec.position, prob_str(rec.alpha, d), [t.p for t in rec.tokens], [t.q for t in rec.tokens], x)
                for rec, x in zip(r.stats.records, r.profile.proposals, strict=True)]
        return charts.overlap_matrix(self.ex.data.vocabulary, rows, f"positions-chart-{r.profile.id}", row_key=r.profile.id)

    def profile_context(self, i: int) -> dict[str, Any]:
        """Returns profile i's table rows and chart."""
        return {"positions": self._rows(i), "overlap_chart": self._chart(i)}


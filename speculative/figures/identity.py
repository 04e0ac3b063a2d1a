"""The identity check: min(p, q) + (1 − α)·residual = p, worked at one position and summed over all of them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import text
from ..analysis import Explained
from ..text import prob_str

COMPONENT = "checks_identity"
IDS = frozenset({"identity", "identity-cap"})
PREFIXES: frozenset[str] = frozenset()


def drafts_phrase(n: int) -> str:
    """Returns "the draft", "both drafts" or "all n drafts"."""
    return "the draft" if n == 1 else "both drafts" if n == 2 else f"all {n} drafts"


@dataclass(frozen=True)
class Identity:
    ex: Explained

    def context(self) -> dict[str, Any]:
        """Returns the worked check at the walkthrough's first rejection, and the count over every position."""
        ex = self.ex
        where = ex.points.get("residual")
        r = ex.results[where[0] if where else 0]
        i = r.frames[where[1] - 1].position - 1 if where else 0
        d, rec = ex.denom, r.stats.records[i]
        rows = [{"token": token, "min": prob_str(t.overlap, d), "fix": prob_str(t.replaced, d),
                 "total": prob_str(t.commit, d), "p": prob_str(t.p, d)} for token, t in zip(ex.data.vocabulary, rec.tokens)]
        scope = (f"at all {text.count(ex.identity_total, 'position')}" if ex.identity_equal == ex.identity_total
                 else f"at only {ex.identity_equal} of {text.count(ex.identity_total, 'position')}")
        summary = (f"The same sum, done in exact fractions for every token at every position of "
                   f"{drafts_phrase(len(ex.results))}, matches the target {scope}.")
        return {"identity": {"profile": r.profile.name, "position": i + 1, "rows": rows, "summary": summary,
                             "where": ", where the walkthrough below meets a rejection" if where else ""}}


def model(ex: Explained) -> Identity:
    """Returns the identity check's model."""
    return Identity(ex)

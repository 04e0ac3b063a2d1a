"""The identity check: min(p, q) + (1 − α)·residual = p, worked at one position and summed over all of them."""

from __future__ import annotations

from typing import Any

from .. import strings, text
from ..text import prob_str
from .common import Figure


def drafts_phrase(n: int) -> str:
    """Returns "the draft", "both drafts" or "all n drafts"."""
    return text.fill(strings.IDENTITY[f"drafts_{n}" if n <= 2 else "drafts_many"], {"n": n})


class Identity(Figure):
    IDS = frozenset({"identity", "identity-cap"})

    def context(self) -> dict[str, Any]:
        """Returns the worked check at the walkthrough's first rejection, and the count over every position."""
        ex = self.ex
        where = ex.points.get("residual")
        r = ex.results[where[0] if where else 0]
        i = 0
        if where:
            position = r.frames_of(where[2])[where[1] - 1].position
            assert position is not None  # the residual shows at a rejecting verify frame, which has a position
            i = position - 1
        d, rec = ex.position_denom(ex.results.index(r)), r.stats.records[i]
        rows = [{"token": token, "min": prob_str(t.overlap, d), "fix": prob_str(t.replaced, d),
                 "total": prob_str(t.commit, d), "p": prob_str(t.p, d)} for token, t in zip(ex.data.vocabulary, rec.tokens, strict=True)]
        n = text.count(ex.identity_total, "position")
        scope = text.fill(strings.IDENTITY["all" if ex.identity_equal == ex.identity_total else "only"],
                          {"n": n, "equal": ex.identity_equal})
        summary = text.fill(strings.IDENTITY["summary"], {"drafts": drafts_phrase(len(ex.results)), "scope": scope})
        return {"identity_facts": {"profile": r.profile.name, "position": i + 1, "rows": rows, "summary": summary,
                                   "where": strings.IDENTITY["where"] if where and not where[2] else ""}}  # authored only


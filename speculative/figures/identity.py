"""The identity min(p, q) + (1 − α)·residual = p: as stacked bars for the token picked in the lab (the script's),
worked as a table at one position (what readers without scripting, and print, see), and summed over all of them."""

from __future__ import annotations

from typing import Any

from .. import strings, text
from ..text import prob_str
from .common import Figure


def drafts_phrase(n: int) -> str:
    """Returns "the draft", "both drafts" or "all n drafts"."""
    return text.fill(strings.IDENTITY[f"drafts_{n}" if n <= 2 else "drafts_many"], {"n": n})


class Identity(Figure):
    SCRIPTS = ("js/identity.js",)
    WORDS = ("IDENTITY",)
    IDS = frozenset({"identity", "identity-cap"})

    def _worked(self) -> tuple[int, int]:
        """Returns (profile, position index) of the worked table: the walkthrough's first rejection, else the first
        profile's first position."""
        ex = self.ex
        where = ex.points.get("residual")
        if not where:
            return 0, 0
        position = ex.results[where[0]].frames_of(where[2])[where[1] - 1].position
        assert position is not None  # the residual shows at a rejecting verify frame, which has a position
        return where[0], position - 1

    def _rows(self, i: int, k: int) -> list[list[str]]:
        """Returns [V] [min(p, q), (1 − α)·residual, p] at profile i's position k + 1, over the position's denominator."""
        d = self.ex.position_denom(i)
        return [[prob_str(t.overlap, d), prob_str(t.replaced, d), prob_str(t.p, d)]
                for t in self.ex.results[i].stats.records[k].tokens]

    def trace(self) -> dict[str, Any]:
        """Returns the picture's opening where the lab announces none (a page without it): the worked table's position,
        at the proposal the data file makes there."""
        i, k = self._worked()
        r = self.ex.results[i]
        return {"where": f"{r.profile.id}/{k + 1}", "token": r.profile.proposals[k]}

    def profile_trace(self, i: int) -> dict[str, Any]:
        """Returns [positions][V] each token's [min(p, q), (1 − α)·residual, p], as the picture prints them."""
        return {"identity": [self._rows(i, k) for k in range(len(self.ex.results[i].stats.records))]}

    def context(self) -> dict[str, Any]:
        """Returns the worked check at the walkthrough's first rejection, the count over every position, and the
        picture's key."""
        ex, w = self.ex, strings.IDENTITY
        i, k = self._worked()
        r, d = ex.results[i], ex.position_denom(i)
        rows = [{"token": token, "min": prob_str(t.overlap, d), "fix": prob_str(t.replaced, d),
                 "total": prob_str(t.commit, d), "p": prob_str(t.p, d)}
                for token, t in zip(ex.data.vocabulary, r.stats.records[k].tokens, strict=True)]
        n = text.count(ex.identity_total, "position")
        scope = text.fill(w["scope_all" if ex.identity_equal == ex.identity_total else "scope_only"],
                          {"n": n, "equal": ex.identity_equal})
        summary = text.fill(w["check_summary"], {"drafts": drafts_phrase(len(ex.results)), "scope": scope})
        residual = ex.points.get("residual")
        authored = residual is not None and not residual[2]
        return {"identity_facts": {"profile": r.profile.name, "position": k + 1, "rows": rows, "summary": summary,
                                   "where": w["at_rejection"] if authored else "",
                                   "words": {key: w[key] for key in ("fig_title", "key_min", "key_fix", "key_p", "key_accept", "key_bars")}}}

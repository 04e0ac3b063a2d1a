"""The convergence figures: one Monte Carlo run per profile, scrubbed through its checkpoints, with its TV chart."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .. import charts, strings, text
from ..text import decimal_str
from .common import Figure

if TYPE_CHECKING:  # the types only: a cached build never imports the analysis (and numpy)
    from ..analysis import ProfileResult

def tv_text(x: float, n: int = 1) -> str:
    """Returns a total-variation distance or bound as the page prints it: 4 decimals, a bound capped at 1; the dash
    for "none" where no round reached the position (n = 0), so there is nothing to compare with the target."""
    return decimal_str(min(x, 1.0), 4) if n else strings.WALKTHROUGH["no_token"]


def shares(values: Any) -> list[float]:
    """Returns frequencies rounded to 3 decimals, as the histograms draw them."""
    return [float(decimal_str(f, 3)) for f in values]


def profile_trace(r: ProfileResult) -> dict[str, Any]:
    """Returns the run at every checkpoint: counts, TV and bound per position (as the page prints them, and whether
    the TV is within the bound and whether the bound is vacuous), observed frequencies, tokens per round. The exact
    P(N = n) is the profile's stats.tokens_per_round_distribution, which the script reads there."""
    cps = r.checkpoints
    return {"rounds": r.mc_rounds, "checkpoints": [c.rounds for c in cps],
            "within": [[bool(x.tv <= x.tv_bound) for x in c.checks] for c in cps],
            "vacuous": [[bool(x.tv_bound >= 1) for x in c.checks] for c in cps],
            "tv_text": [[tv_text(x.tv, x.n) for x in c.checks] for c in cps],
            "bound_text": [[tv_text(x.tv_bound, x.n) for x in c.checks] for c in cps],
            "freq": [[shares(x.freq) for x in c.checks] for c in cps],
            "lengths_freq": [shares(c.length_freq) for c in cps],
            "reached": [[x.n for x in c.checks] for c in cps]}  # the script groups the digits (strings.LAB's group)


def profile_view(r: ProfileResult, k: int) -> dict[str, Any]:
    """Returns one profile's figure at its default state (the whole run, position 1), and its TV table."""
    cps = r.checkpoints
    positions: list[dict[str, Any]] = [
        {"value": i, "label": text.fill(strings.CONVERGENCE["position" if i <= k else "bonus"], {"pos": i})}
        for i in range(1, k + 2)]
    rows = [{"position": c.position, "label": positions[c.position - 1]["label"], "n": f"{c.n:,}",
             "tv": tv_text(c.tv, c.n), "bound": tv_text(c.tv_bound, c.n),
             "ok": tv_text(0, c.n) if not c.n else strings.CONVERGENCE["few" if c.tv_bound >= 1 else "within" if c.tv <= c.tv_bound
                                                            else "above"]}
            for c in r.checks]
    labels = [p["label"] if p["value"] <= k else text.fill(strings.CONVERGENCE["short"], {"pos": p["value"]}) for p in positions]
    return {"id": r.profile.id, "name": r.profile.name, "last": len(cps) - 1, "positions": positions, "rows": rows,
            "chart": charts.tv_chart([c.rounds for c in cps], [[x.tv for x in c.checks] for c in cps],
                                     [[x.tv_bound for x in c.checks] for c in cps], labels, f"convergence-chart-{r.profile.id}",
                                     [[x.n for x in c.checks] for c in cps])}


class Convergence(Figure):
    SCRIPTS = ('js/convergence.js',)
    WORDS = ("CONVERGENCE", "LAB")
    PREFIXES = frozenset({"convergence-title", "convergence-rounds", "convergence-position", "convergence-chart",
                          "convergence-table"})  # each "<prefix>-<profile id>"

    def profile_trace(self, i: int) -> dict[str, Any]:
        """Returns profile i's run for the script."""
        return {"convergence": profile_trace(self.ex.results[i])}

    def context(self) -> dict[str, Any]:
        """Returns every profile's figure and the figure's words."""
        return {"convergence": [profile_view(r, self.ex.data.k) for r in self.ex.results], "convergence_words": strings.CONVERGENCE,
                "convergence_facts": run_facts(self.ex.results)}


def run_facts(results: Sequence[ProfileResult]) -> dict[str, bool]:
    """Returns what the prose may say of the runs: whether there are checkpoints enough to slide through and to draw
    the bound as a line (three or more), and whether every position's TV is smaller at the last checkpoint than
    at the first, for every draft ("the observed distances shrink overall")."""
    cps = results[0].checkpoints
    shrinks = all(last.tv < first.tv for r in results
                  for first, last in zip(r.checkpoints[0].checks, r.checkpoints[-1].checks, strict=True) if first.n)
    return {"many": len(cps) >= 3, "shrinks": len(cps) > 1 and shrinks}


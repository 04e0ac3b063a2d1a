"""The verification rules the page compares, the one home of each: its id, its name, its exact acceptance and
residual (fractions.Fraction), and the numpy Rule that samples it.

All three commit exactly p; they differ in how often a position's check passes:
- the accept test with a sampled draft (Leviathan et al. 2023): x ~ q, kept with chance min(1, p(x)/q(x)), else a
  draw from max(0, p - q) renormalised;
- a greedy draft, which proposes its most likely token x and is verified as q = one-hot at x: kept with chance p(x),
  else a draw from p without x, renormalised;
- exact match: x ~ q and the target's own y ~ p; x is kept when x = y, otherwise y is committed.

The exact pieces import nothing but fractions, so a build served from the cache never loads numpy; the sampling
Rules are made (and numpy imported) the first time one is asked for.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from .dataset import Dist

if TYPE_CHECKING:  # the type only: numpy is imported when a sampling Rule is first asked for
    from .sampler import Rule


def top_token(dist: Dist) -> int:
    """Returns the index of the most likely token, the first in vocabulary order on a tie."""
    return dist.index(max(dist))


def overlap(p: Dist, q: Dist) -> Fraction:
    """Returns alpha = sum_y min(p(y), q(y)): the chance the accept test passes a proposal drawn from q."""
    return sum((min(a, b) for a, b in zip(p, q, strict=True)), Fraction(0))


def greedy_acceptance(p: Dist, q: Dist) -> Fraction:
    """Returns p at the draft's top token: the chance the accept test passes a greedy draft (q one-hot there)."""
    return p[top_token(q)]


def match_acceptance(p: Dist, q: Dist) -> Fraction:
    """Returns sum_y p(y) q(y): the chance the target's own draw equals a proposal drawn from q."""
    return sum((a * b for a, b in zip(p, q, strict=True)), Fraction(0))


def accept_residual(p: Dist, q: Dist) -> Dist | None:
    """Returns max(0, p - q) renormalised [V]: what the accept test draws a replacement from; None when no proposal
    can be rejected (p = q)."""
    raw = [max(Fraction(0), a - b) for a, b in zip(p, q, strict=True)]
    total = sum(raw, Fraction(0))  # equals 1 - alpha: a test checks it
    return None if total == 0 else tuple(r / total for r in raw)


def greedy_residual(p: Dist, q: Dist) -> Dist | None:
    """Returns p without the draft's top token, renormalised [V]; None when p gives that token 1 (no rejection)."""
    x = top_token(q)
    rest = 1 - p[x]
    return None if rest == 0 else tuple(Fraction(0) if y == x else a / rest for y, a in enumerate(p))


def match_residual(p: Dist, q: Dist) -> Dist | None:
    """Returns p(y)(1 - q(y)) renormalised [V]: the target's own draw y over every mismatch (x ~ q, y ~ p, x != y);
    None when no mismatch can happen."""
    raw = [a * (1 - b) for a, b in zip(p, q, strict=True)]
    total = sum(raw, Fraction(0))  # equals 1 - sum_y p(y) q(y)
    return None if total == 0 else tuple(r / total for r in raw)


@functools.cache
def sampling_rules() -> dict[str, Rule]:
    """Returns each rule's numpy sampling Rule by id (imports numpy: only the analysis and the checks ask for it)."""
    from . import sampler

    return {"accept-test": sampler.RULE,
            "greedy-draft": sampler.Rule(draft_dist=sampler.greedy, verify_dist=sampler.greedy,
                                         acceptance=sampler.greedy_overlap),
            "exact-match": sampler.Rule(accept_prob=sampler.target_prob, verify=sampler.exact_match,
                                        acceptance=sampler.match_overlap)}


@dataclass(frozen=True)
class VerificationRule:
    """One verification rule: a proposal's check passes with chance acceptance(p, q); after a failed check the
    replacement is drawn from residual(p, q), so that acceptance-weighted proposals plus (1 - acceptance) x residual
    commit exactly p."""

    id: str  # what the trace and the script call it
    name: str  # what the page calls it
    acceptance: Callable[[Dist, Dist], Fraction]  # (p [V], q [V]) -> the chance a reached position's check passes
    residual: Callable[[Dist, Dist], Dist | None]  # (p, q) -> [V] the replacement's distribution; None: no rejection

    @property
    def sampling(self) -> Rule:
        """Returns the numpy Rule that samples this rule."""
        return sampling_rules()[self.id]


RULES: tuple[VerificationRule, ...] = (  # the page's order: the lab's radios, the tally and the explorer's columns
    VerificationRule("accept-test", "Accept test", overlap, accept_residual),
    VerificationRule("greedy-draft", "Greedy draft", greedy_acceptance, greedy_residual),
    VerificationRule("exact-match", "Exact match", match_acceptance, match_residual),
)
BY_ID = {r.id: r for r in RULES}
NAMES = {r.id: r.name for r in RULES}  # what the trace lists for the script, by id

"""Broken samplers as the reader may switch them on (issue 32's groundwork): each one wrong line of the rule, with the
exact distribution it commits at one position, in fractions, and the sampler.Rule that makes that mistake.

At one position with target p and draft q, the rule commits min(p, q) + (1 - alpha) residual = p. Each variant
changes one piece, so what it commits is a small fraction computation (one function each, below), and the suite's
Monte Carlo run of its Rule must land on it (tests/test_variants.py)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Callable, Sequence

import numpy as np

from . import checks, sampler

Dist = tuple[Fraction, ...]


def normalised(weights: Sequence[Fraction]) -> Dist:
    """Returns weights / their sum; all zeros when they sum to 0 (a residual that is never drawn)."""
    total = sum(weights, Fraction(0))
    return tuple(w / total if total else Fraction(0) for w in weights)


def residual(p: Dist, q: Dist) -> Dist:
    """Returns max(0, p - q) renormalised: the rule's replacement distribution."""
    return normalised([max(Fraction(0), a - b) for a, b in zip(p, q)])


def committed_with(p: Dist, q: Dist, accept: Sequence[Fraction], fix: Dist, propose: Dist | None = None) -> Dist:
    """Returns what one position commits: a proposal x ~ propose (q unless given) kept with chance accept[x], else a
    replacement drawn from fix."""
    propose = q if propose is None else propose
    kept = [x * a for x, a in zip(propose, accept)]
    rejected = 1 - sum(kept, Fraction(0))
    return tuple(k + rejected * f for k, f in zip(kept, fix))


def ratio(p: Dist, q: Dist) -> list[Fraction]:
    """Returns min(1, p/q) per token (1 where q = 0: never proposed)."""
    return [min(Fraction(1), a / b) if b else Fraction(1) for a, b in zip(p, q)]


def rule(p: Dist, q: Dist) -> Dist:
    return committed_with(p, q, ratio(p, q), residual(p, q))


def replacement_from_p(p: Dist, q: Dist) -> Dist:
    return committed_with(p, q, ratio(p, q), tuple(p))


def forgot_subtract(p: Dist, q: Dist) -> Dist:
    return committed_with(p, q, ratio(p, q), normalised([a if a > b else Fraction(0) for a, b in zip(p, q)]))


def ratio_inverted(p: Dist, q: Dist) -> Dist:
    return committed_with(p, q, ratio(q, p), residual(p, q))


def reversed_test(p: Dist, q: Dist) -> Dist:
    return committed_with(p, q, [1 - a for a in ratio(p, q)], residual(p, q))


def greedy_with_sampled_q(p: Dist, q: Dist) -> Dist:
    top = max(range(len(q)), key=lambda y: (q[y], -y))  # the draft's most likely token, the first on a tie
    return committed_with(p, q, ratio(p, q), residual(p, q), tuple(Fraction(int(y == top)) for y in range(len(q))))


@dataclass(frozen=True)
class Variant:
    """A sampler the reader may switch on: what it gets wrong, what it commits at a position, and its Rule."""

    id: str
    name: str  # what it gets wrong, as the page names it
    committed: Callable[[Dist, Dist], Dist]  # (p, q) -> the exact distribution committed at a position
    rule: sampler.Rule


R = sampler.RULE
# Where the suite's broken table (checks.BROKEN) already has the mistake, its Rule is the one used here.
VARIANTS: tuple[Variant, ...] = (
    Variant("rule", "The rule", rule, R),
    Variant("from-p", "the replacement drawn from p instead of the residual", replacement_from_p,
            replace(R, residual=lambda p, q: np.broadcast_to(p, np.broadcast_shapes(p.shape, q.shape)))),
    Variant("forgot-q", "the residual that forgets to subtract q", forgot_subtract, checks.BROKEN[checks.FORGOT_Q]),
    Variant("greedy", "a greedy proposal checked against the sampled q", greedy_with_sampled_q,
            checks.BROKEN[checks.GREEDY_PROPOSALS]),
    Variant("inverted", "the ratio inverted, min(1, q/p)", ratio_inverted,
            checks.BROKEN[checks.INVERTED]),
    Variant("reversed", "the accept test reversed, keeping x when u ≥ min(1, p/q)", reversed_test,
            replace(R, accepts=np.greater_equal)),
)


def total_variation(a: Dist, b: Dist) -> Fraction:
    """Returns half the L1 distance between two exact distributions."""
    return sum((abs(x - y) for x, y in zip(a, b)), Fraction(0)) / 2

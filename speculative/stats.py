"""Exact statistics of a profile, in fractions.Fraction from the file to the page."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Sequence

from .profiles import CostModel, Dataset, Dist, Profile


def overlap(p: Dist, q: Dist) -> Fraction:
    """Returns alpha = sum_y min(p(y), q(y)): the chance a proposal drawn from q is accepted."""
    return sum((min(a, b) for a, b in zip(p, q)), Fraction(0))


def accept_prob(p_x: Fraction, q_x: Fraction) -> Fraction:
    """Returns min(1, p/q) for one proposed token."""
    return min(Fraction(1), p_x / q_x)


def residual(p: Dist, q: Dist) -> Dist | None:
    """Returns max(0, p - q) renormalised, or None when p == q (no rejection can happen)."""
    raw = [max(Fraction(0), a - b) for a, b in zip(p, q)]
    total = sum(raw, Fraction(0))
    return None if total == 0 else tuple(r / total for r in raw)


def commit_chance(p: Dist, q: Dist) -> list[Fraction]:
    """Returns each token's total chance of being committed by the rule: min(p,q) + (1-α)·residual."""
    alpha, res = overlap(p, q), residual(p, q)
    return [min(a, b) + (1 - alpha) * (res[y] if res else 0) for y, (a, b) in enumerate(zip(p, q))]


def expected_tokens(alphas: Sequence[Fraction]) -> Fraction:
    """Returns E = 1 + a1 + a1*a2 + ... + a1*...*ak, bonus token included."""
    total, run = Fraction(1), Fraction(1)
    for a in alphas:
        run *= a
        total += run
    return total


def tokens_distribution(alphas: Sequence[Fraction]) -> tuple[Fraction, ...]:
    """Returns P(N = n) for n = 1..k+1: stop at the first failure, or all pass and add the bonus."""
    probs, reach = [], Fraction(1)
    for a in alphas:
        probs.append(reach * (1 - a))
        reach *= a
    return tuple(probs) + (reach,)


def mean_tokens(dist: Sequence[Fraction]) -> Fraction:
    """Returns sum n * P(N = n): E computed from the distribution instead of the prefix products."""
    return sum((n * p for n, p in enumerate(dist, start=1)), Fraction(0))


def round_cost(k: int, cost: CostModel, draft_step: Fraction | None = None) -> Fraction:
    """Returns the assumed cost of one round in target steps: k draft steps plus one verification."""
    step = cost.draft_step if draft_step is None else draft_step
    return k * step + cost.verify_round


def speedup_table(alphas: Sequence[Fraction], cost: CostModel) -> tuple[tuple[Fraction, ...], ...]:
    """Returns rows k = 1..K of E_k / round_cost, one column per compared draft-step cost."""
    return tuple(
        tuple(expected_tokens(alphas[:k]) / round_cost(k, cost, c) for c in cost.compare_draft_steps)
        for k in range(1, len(alphas) + 1)
    )


@dataclass(frozen=True)
class ProfileStats:
    alphas: tuple[Fraction, ...]  # [k]
    proposal_accept: tuple[Fraction, ...]  # [k] min(1, p/q) of the authored proposal
    residuals: tuple[Dist | None, ...]  # [k]
    expected: Fraction
    expected_from_distribution: Fraction
    distribution: tuple[Fraction, ...]  # [k+1]
    round_cost: Fraction
    speedup: Fraction
    speedup_table: tuple[tuple[Fraction, ...], ...]  # [k][len(compare_draft_steps)]
    frame_count: int


def frame_count(passed: Sequence[bool]) -> int:
    """Returns 1 propose + one verify per checked position + 1 bonus if all passed + 1 done."""
    checked = next((i + 1 for i, ok in enumerate(passed) if not ok), len(passed))
    return 1 + checked + (1 if all(passed) else 0) + 1


def profile_stats(data: Dataset, profile: Profile, passed: Sequence[bool]) -> ProfileStats:
    """Returns every exact statistic of one profile; `passed` is the walkthrough's verdict per position."""
    alphas = tuple(overlap(p, q) for p, q in zip(data.target, profile.draft))
    accept = tuple(accept_prob(p[x], q[x]) for p, q, x in zip(data.target, profile.draft, profile.proposals))
    dist = tokens_distribution(alphas)
    expected = expected_tokens(alphas)
    cost = round_cost(data.k, data.cost)
    return ProfileStats(
        alphas=alphas,
        proposal_accept=accept,
        residuals=tuple(residual(p, q) for p, q in zip(data.target, profile.draft)),
        expected=expected,
        expected_from_distribution=mean_tokens(dist),
        distribution=dist,
        round_cost=cost,
        speedup=expected / cost,
        speedup_table=speedup_table(alphas, data.cost),
        frame_count=frame_count(passed),
    )


def prob_str(x: Fraction, denom: int = 1) -> str:
    """Returns x over the file's common denominator when exact ("4/8"), else "0", "1" or x reduced."""
    if x == 0 or x == 1 or denom > 32 or denom % x.denominator:
        return str(x)
    return f"{x.numerator * (denom // x.denominator)}/{denom}"


def decimal_str(x: Fraction | float, places: int = 2) -> str:
    """Returns x rounded half-up to `places` decimals, computed from the exact value when x is a Fraction."""
    exact = Decimal(x.numerator) / Decimal(x.denominator) if isinstance(x, Fraction) else Decimal(repr(float(x)))
    return str(exact.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def percent_str(x: Fraction | float, places: int = 1) -> str:
    """Returns x as a percentage, rounded half-up from the exact value."""
    return decimal_str(x * 100, places) + "%"

"""Exact statistics of a profile, in fractions.Fraction from the file to the page.

Each of the verification rules (rules.RULES) is compared by its acceptance: all commit exactly p, and differ in how
often a position's check passes.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from .dataset import CostModel, Dataset, Dist, Profile
from .rules import BY_ID, RULES, accept_residual, overlap, top_token


def accept_prob(p_x: Fraction, q_x: Fraction) -> Fraction:
    """Returns min(1, p/q) for one proposed token."""
    return min(Fraction(1), p_x / q_x)


def commit_chance(p: Dist, q: Dist) -> list[Fraction]:
    """Returns each token's total chance of being committed by the rule: min(p,q) + (1-α)·residual."""
    return [t.commit for t in position_record(p, q, 0).tokens]


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


def round_cost(k: int, cost: CostModel, draft_step: Fraction | None = None,
               verify_cost: Fraction = Fraction(0), nodes: int | None = None) -> Fraction:
    """Returns the assumed cost of one round in target passes: k draft steps plus verifying k positions.

    Verifying N positions costs T_N = verify_round + N * verify_cost target passes. With verify_cost = 0 (the
    paper's assumption) checking N positions costs the same as checking one; with verify_cost > 0, T1 < TN, as
    measured in practice ("T1 < TN < N*T1", ggml-org/llama.cpp issue #3649). With verify_round = 1 a round costs
    k*c + 1 + k*v. A tree of depth k scores `nodes` positions in its one target pass (k draft passes, each depth
    drafted in one batch), so it costs k*c + verify_round + nodes*v; a chain's nodes are its k positions.
    """
    step = cost.draft_step if draft_step is None else draft_step
    return k * step + cost.verify_round + (k if nodes is None else nodes) * verify_cost


def best_k(speedups: Sequence[Fraction]) -> int:
    """Returns the k (1-based) with the highest speedup in speedups [k], the smallest k on a tie."""
    return max(range(len(speedups)), key=lambda i: (speedups[i], -i)) + 1


def speedup_curve(acceptance: Sequence[Fraction], cost: CostModel, draft_step: Fraction | None = None,
                  verify_cost: Fraction = Fraction(0), width: int = 1) -> tuple[Fraction, ...]:
    """speedup_curve_of, for any sequence of acceptances."""
    return speedup_curve_of(tuple(acceptance), cost, draft_step, verify_cost, width)


@functools.lru_cache(maxsize=4096)  # the explorer asks for each curve several times (its scale, its best tree, its bars)
def speedup_curve_of(acceptance: tuple[Fraction, ...], cost: CostModel, draft_step: Fraction | None,
                     verify_cost: Fraction, width: int) -> tuple[Fraction, ...]:
    """Returns the speedup E_k / round_cost(k) at every k = 1..K [K]: the one speedup, at one draft-step cost (the
    file's own when None) and one verification cost per scored position; with `width` m > 1, of a full tree whose
    pass scores m + m² + … + m^k nodes (acceptance then being each depth's A with m candidates)."""
    curve, expected, run, nodes = [], Fraction(1), Fraction(1), 0
    for k, a in enumerate(acceptance, start=1):  # E_k and the nodes grow by one depth each step
        run *= a
        expected += run
        nodes += width ** k
        curve.append(expected / round_cost(k, cost, draft_step, verify_cost, nodes))
    return tuple(curve)


def speedup_table(acceptance: Sequence[Fraction], cost: CostModel,
                  verify_cost: Fraction = Fraction(0)) -> tuple[tuple[Fraction, ...], ...]:
    """Returns rows k = 1..K of the speedup curve, one column per compared draft-step cost."""
    columns = [speedup_curve(acceptance, cost, c, verify_cost) for c in cost.compare_draft_steps]  # [c][k]
    return tuple(zip(*columns, strict=True))


def stops_paying(expected: Fraction, k: int, cost: CostModel) -> Fraction | None:
    """Returns the verification cost per position at which E / round cost falls to 1, at k drafted positions and
    the file's draft step; None when it is below 1 even with free verification (the draft never pays)."""
    v = (expected - k * cost.draft_step - cost.verify_round) / k  # solves E = k*c + verify_round + k*v
    return v if v >= 0 else None


@dataclass(frozen=True)
class RuleStats:
    """One verification rule on one profile: its acceptance at every position, E and speedups, exact."""

    rule: str  # an id of rules.RULES
    acceptance: tuple[Fraction, ...]  # [k] the chance each position's check passes, once reached
    expected: Fraction  # E = 1 + a1 + a1*a2 + ... + a1*...*ak, bonus included
    speedup: Fraction  # E / round cost at k, the file's draft step, and free verification per position
    speedups: tuple[Fraction, ...]  # [len(verify_costs)] the same at each verification cost per position
    speedup_tables: tuple[tuple[tuple[Fraction, ...], ...], ...]  # [len(verify_costs)][k][len(compare_draft_steps)]
    stops_paying: Fraction | None  # the verification cost per position at which the speedup at k is 1


def rule_stats(rule: str, target: Sequence[Dist], draft: Sequence[Dist], cost: CostModel) -> RuleStats:
    """Returns the exact figures of one verification rule for a draft [k][V] against the target [k][V]."""
    acceptance = tuple(BY_ID[rule].acceptance(p, q) for p, q in zip(target, draft, strict=True))
    expected, k = expected_tokens(acceptance), len(acceptance)
    return RuleStats(rule=rule, acceptance=acceptance, expected=expected,
                     speedup=speedup_curve(acceptance, cost)[-1],
                     speedups=tuple(speedup_curve(acceptance, cost, verify_cost=v)[-1] for v in cost.verify_costs),
                     speedup_tables=tuple(speedup_table(acceptance, cost, v) for v in cost.verify_costs),
                     stops_paying=stops_paying(expected, k, cost))


@dataclass(frozen=True)
class TopTokens:
    """One position at temperature 0, where p and q are one-hot at their most likely tokens."""

    position: int  # 1-based
    target: int  # the target's top token (first in vocabulary order on a tie)
    draft: int  # the draft's top token (first in vocabulary order on a tie)

    @property
    def agree(self) -> bool:
        """Returns whether the draft's top token is the target's: every rule then accepts it, else none does."""
        return self.target == self.draft


@dataclass(frozen=True)
class TemperatureZero:
    """Greedy decoding: every rule reduces to "accept if the draft's top token is the target's"."""

    positions: tuple[TopTokens, ...]  # [k]
    expected: Fraction  # E: 1 + the number of agreeing positions before the first disagreement


def temperature_zero(target: Sequence[Dist], draft: Sequence[Dist]) -> TemperatureZero:
    """Returns each position's top tokens at temperature 0, and E there."""
    positions = tuple(TopTokens(i, top_token(p), top_token(q)) for i, (p, q) in enumerate(zip(target, draft, strict=True), start=1))
    return TemperatureZero(positions=positions, expected=expected_tokens([Fraction(t.agree) for t in positions]))


@dataclass(frozen=True)
class TokenFacts:
    """One token at one position: everything the rule does with it, exact."""

    p: Fraction
    q: Fraction
    overlap: Fraction  # min(p, q): the chance it is proposed and accepted
    ratio: Fraction | None  # p / q, or None where the draft never proposes it
    accept: Fraction | None  # min(1, p / q), or None where q = 0
    residual_raw: Fraction  # max(0, p - q)
    residual: Fraction | None  # residual_raw / (1 - alpha), or None when no rejection can happen
    commit: Fraction  # min(p, q) + (1 - alpha) * residual: must equal p

    @property
    def by_chance(self) -> bool:
        """Returns True when a draw u decides this token's check: its accept probability is strictly in (0, 1)."""
        return self.accept is not None and 0 < self.accept < 1

    @property
    def replaced(self) -> Fraction:
        """Returns (1 - alpha) * residual: the chance this token is committed as a replacement after a rejection."""
        return self.commit - self.overlap


@dataclass(frozen=True)
class PositionRecord:
    """One position of one profile: the one home of alpha, ratios, accept probabilities and residuals."""

    position: int  # 1-based, as the reader sees it
    alpha: Fraction  # sum_y min(p(y), q(y))
    residual_total: Fraction  # sum_y max(0, p(y) - q(y)) = 1 - alpha
    tokens: tuple[TokenFacts, ...]  # [V]

    @property
    def residual_cuts(self) -> tuple[Fraction, ...]:
        """Returns the normalised residual's cumulative sums [V]: token y owns [cuts[y-1], cuts[y])."""
        return cumulative([t.residual or Fraction(0) for t in self.tokens])


def cumulative(dist: Sequence[Fraction]) -> tuple[Fraction, ...]:
    """Returns a distribution's cumulative sums [V]: token y owns [cuts[y-1], cuts[y])."""
    return tuple(itertools.accumulate(dist, initial=Fraction(0)))[1:]


def token_facts(a: Fraction, b: Fraction, alpha: Fraction, res: Fraction | None) -> TokenFacts:
    """Returns one token's facts from target p = a, draft q = b, the position's alpha and the token's normalised
    residual (None when no rejection can happen)."""
    raw = max(Fraction(0), a - b)
    return TokenFacts(p=a, q=b, overlap=min(a, b), ratio=a / b if b else None,
                      accept=accept_prob(a, b) if b else None, residual_raw=raw, residual=res,
                      commit=min(a, b) + (1 - alpha) * (res or 0))


def position_record(p: Dist, q: Dist, position: int) -> PositionRecord:
    """Returns the record of one position: target p [V] against draft q [V]."""
    alpha, residual = overlap(p, q), accept_residual(p, q)
    total = sum((max(Fraction(0), a - b) for a, b in zip(p, q, strict=True)), Fraction(0))  # 1 - alpha: a test checks it
    return PositionRecord(position=position, alpha=alpha, residual_total=total,
                          tokens=tuple(token_facts(a, b, alpha, None if residual is None else residual[y])
                                       for y, (a, b) in enumerate(zip(p, q, strict=True))))


@dataclass(frozen=True)
class ProfileStats:
    records: tuple[PositionRecord, ...]  # [k]
    expected: Fraction
    expected_from_distribution: Fraction
    distribution: tuple[Fraction, ...]  # [k+1]
    round_cost: Fraction
    speedup: Fraction
    speedup_table: tuple[tuple[Fraction, ...], ...]  # [k][len(compare_draft_steps)]
    rules: tuple[RuleStats, ...]  # one per verification rule, in rules.RULES's order
    temperature_zero: TemperatureZero

    @property
    def alphas(self) -> tuple[Fraction, ...]:
        """Returns alpha at every position [k]."""
        return tuple(r.alpha for r in self.records)

    @property
    def worst_speedup(self) -> Fraction:
        """Returns the speedup of a round whose first proposal is rejected: one token for a whole round's cost."""
        return 1 / self.round_cost


def profile_stats(data: Dataset, profile: Profile) -> ProfileStats:
    """Returns every exact statistic of one profile."""
    records = tuple(position_record(p, q, i) for i, (p, q) in enumerate(zip(data.target, profile.draft, strict=True), start=1))
    alphas = tuple(r.alpha for r in records)
    dist = tokens_distribution(alphas)
    expected = expected_tokens(alphas)
    cost = round_cost(data.k, data.cost)
    return ProfileStats(
        records=records,
        expected=expected,
        expected_from_distribution=mean_tokens(dist),
        distribution=dist,
        round_cost=cost,
        speedup=speedup_curve(alphas, data.cost)[-1],
        speedup_table=speedup_table(alphas, data.cost),
        rules=tuple(rule_stats(rule.id, data.target, profile.draft, data.cost) for rule in RULES),
        temperature_zero=temperature_zero(data.target, profile.draft),
    )

"""Speculative sampling, vectorised over many rounds. Imports nothing but numpy.

One implementation serves both uses: the walkthrough passes the authored proposals,
and the Monte Carlo check lets the sampler draw them from the draft.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np


def accept_prob(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Returns min(1, p/q) per token; where q = 0 the draft never proposes it, so the value is unused."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.minimum(1.0, np.where(q > 0, p / q, 1.0))  # [k, V]


def residual(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Returns max(0, p - q) renormalised per row; a row with p == q stays zero (it is never used)."""
    r = np.maximum(0.0, p - q)  # [k, V]
    total = r.sum(-1, keepdims=True)  # [k, 1]
    return np.divide(r, total, out=np.zeros_like(r), where=total > 0)


def bonus_dist(bonus_target: np.ndarray, draft: np.ndarray) -> np.ndarray:
    """Returns the distribution the bonus token is drawn from: the target's, at the bonus position."""
    return bonus_target  # [V]


@dataclass(frozen=True)
class Rule:
    """The pieces of the rule, named so the tests can swap in a wrong one and watch the checks fail."""

    accept_prob: Callable[[np.ndarray, np.ndarray], np.ndarray] = accept_prob
    residual: Callable[[np.ndarray, np.ndarray], np.ndarray] = residual
    bonus_dist: Callable[[np.ndarray, np.ndarray], np.ndarray] = bonus_dist
    drop_after_reject: bool = True


RULE = Rule()


@dataclass(frozen=True)
class Rounds:
    """What happened in n rounds of k positions, stored position-major ([k, n]); -1 marks "none"."""

    uniforms_pm: np.ndarray  # [k, n] the draw u each check compares with: accept when u < accept probability
    accept_table: np.ndarray  # [k, V] min(1, p/q) for every token the draft could propose
    proposals_pm: np.ndarray  # [k, n] token indices
    checked_pm: np.ndarray  # [k, n] bool, positions actually verified
    passed_pm: np.ndarray  # [k, n] bool, verified and accepted
    replacements_pm: np.ndarray  # [k, n] token drawn from the residual where a check failed, else -1
    committed_pm: np.ndarray  # [k+1, n] tokens committed at each position, -1 past the end

    proposals = property(lambda self: self.proposals_pm.T)  # [n, k]
    checked = property(lambda self: self.checked_pm.T)  # [n, k]
    passed = property(lambda self: self.passed_pm.T)  # [n, k]
    replacements = property(lambda self: self.replacements_pm.T)  # [n, k]
    committed = property(lambda self: self.committed_pm.T)  # [n, k+1]
    bonus = property(lambda self: self.committed_pm[-1])  # [n]

    uniforms = property(lambda self: self.uniforms_pm.T)  # [n, k]

    @property
    def accept_probs(self) -> np.ndarray:
        """Returns [n, k] min(1, p/q) of each proposal."""
        return self.accept_table[np.arange(len(self.accept_table))[:, None], self.proposals_pm].T

    @property
    def n_committed(self) -> np.ndarray:
        """Returns [n] the number of tokens each round committed, bonus included."""
        return (self.committed_pm >= 0).sum(0)

    @property
    def n_checked(self) -> np.ndarray:
        """Returns [n] the number of positions each round verified."""
        return self.checked_pm.sum(0)


def edges(probs: np.ndarray) -> list[float]:
    """Returns the inverse-CDF thresholds of a distribution [V]: one per token before the last possible one.

    The last token with nonzero probability takes whatever is left, so float rounding in the cumulative
    sum can never hand out a trailing token of probability 0.
    """
    possible = np.flatnonzero(probs > 0)
    return np.cumsum(probs)[: possible[-1] if possible.size else 0].tolist()


def categorical(thresholds: list[float], u: np.ndarray, dtype: type = np.int8) -> np.ndarray:
    """Returns tokens drawn by inverse CDF: thresholds from edges(), u [n] -> [n]."""
    x = np.zeros(u.shape, dtype)  # [n]
    for edge in thresholds:  # V is small: V-1 flat comparisons beat a search
        x += u >= edge
    return x


def sample_rounds(target: np.ndarray, draft: np.ndarray, bonus_target: np.ndarray, n: int,
                  rng: np.random.Generator, proposals: np.ndarray | None = None, rule: Rule = RULE,
                  chunk: int = 32768) -> Rounds:
    """Returns n independent rounds; proposals [k] are authored, or drawn from the draft when None."""
    k, size = target.shape  # [k, V]
    dtype = np.int8 if size < 127 else np.int32
    accept = rule.accept_prob(target, draft)  # [k, V]
    draft_edges = [edges(row) for row in draft]  # k lists of up to V-1 thresholds
    fix_edges = [edges(row) for row in rule.residual(target, draft)]
    bonus_edges = edges(rule.bonus_dist(bonus_target, draft))
    out = Rounds(np.empty((k, n)), accept, np.empty((k, n), dtype), np.empty((k, n), bool), np.empty((k, n), bool),
                 np.empty((k, n), dtype), np.empty((k + 1, n), dtype))
    scratch = np.empty(min(n, chunk))
    for lo in range(0, n, chunk):  # chunks small enough to stay in cache
        hi = min(n, lo + chunk)
        alive = np.ones(hi - lo, bool)  # [m] rounds with no rejection so far
        all_pass = np.ones(hi - lo, bool)  # [m]
        for i in range(k):  # the draft proposes at every position, checked or not
            u = rng.random(out=scratch[: hi - lo])  # [m]
            out.proposals_pm[i, lo:hi] = categorical(draft_edges[i], u, dtype) if proposals is None else proposals[i]
        for i in range(k):
            x = out.proposals_pm[i, lo:hi]  # [m]
            ok = rng.random(out=out.uniforms_pm[i, lo:hi]) < accept[i][x]  # [m]
            failed = alive & ~ok  # [m] the rounds whose first rejection is here
            y = np.full(hi - lo, -1, dtype)  # [m]
            y[failed] = categorical(fix_edges[i], rng.random(np.count_nonzero(failed)), dtype)
            out.checked_pm[i, lo:hi], out.passed_pm[i, lo:hi], out.replacements_pm[i, lo:hi] = alive, alive & ok, y
            out.committed_pm[i, lo:hi] = np.where(alive & ok, x, y)
            all_pass &= ok
            if rule.drop_after_reject:
                alive &= ok
        bonus = np.full(hi - lo, -1, dtype)  # [m]
        bonus[all_pass] = categorical(bonus_edges, rng.random(np.count_nonzero(all_pass)), dtype)
        out.committed_pm[k, lo:hi] = bonus
    return out


def position_counts(rounds: Rounds, vocab_size: int) -> np.ndarray:
    """Returns [k+1, V] how often each token was committed at each position, over the rounds that reached it."""
    c = rounds.committed_pm  # [k+1, n]
    return np.stack([np.bincount(row[row >= 0], minlength=vocab_size) for row in c])  # [k+1, V]


def length_counts(rounds: Rounds) -> np.ndarray:
    """Returns [k+1] how many rounds committed n = 1..k+1 tokens."""
    k1 = rounds.committed_pm.shape[0]
    return np.bincount(rounds.n_committed, minlength=k1 + 1)[1:]


def total_variation(counts: np.ndarray, probs: np.ndarray) -> float:
    """Returns half the L1 distance between the observed frequencies and probs ([V], [V] -> scalar)."""
    n = counts.sum()
    return 0.0 if n == 0 else float(0.5 * np.abs(counts / n - probs).sum())


def tv_bound(n: int, categories: int, delta: float = 1e-6) -> float:
    """Returns the TV distance that n honest draws exceed with probability below delta.

    From the Bretagnolle-Huber-Carol inequality: P(L1 >= e) <= 2^m exp(-n e^2 / 2).
    """
    return float(np.sqrt((categories * np.log(2) + np.log(1 / delta)) / (2 * max(n, 1))))

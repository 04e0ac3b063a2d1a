"""Speculative sampling, vectorised over many rounds. Imports nothing but numpy.

One implementation serves both uses: the walkthrough passes the authored proposals,
and the Monte Carlo check lets the sampler draw them from the draft.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np


def accept_prob(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Returns min(1, p/q); q > 0 wherever a proposal can land."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.minimum(1.0, np.where(q > 0, p / q, 1.0))


def residual(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Returns max(0, p - q) renormalised per row; a row with p == q stays zero (it is never used)."""
    r = np.maximum(0.0, p - q)  # [k, V]
    total = r.sum(-1, keepdims=True)  # [k, 1]
    return np.divide(r, total, out=np.zeros_like(r), where=total > 0)


def bonus_dist(bonus_target: np.ndarray, draft: np.ndarray) -> np.ndarray:
    """Returns the distribution the bonus token is drawn from: the target's, at the bonus position."""
    return bonus_target


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
    """What happened in n rounds of k positions; -1 marks "none"."""

    proposals: np.ndarray  # [n, k] token indices
    accept_probs: np.ndarray  # [n, k] min(1, p/q) of each proposal
    uniforms: np.ndarray  # [n, k] the draw u each check compares with: accept when u < accept_prob
    checked: np.ndarray  # [n, k] bool, positions actually verified
    passed: np.ndarray  # [n, k] bool, verified and accepted
    replacements: np.ndarray  # [n, k] token drawn from the residual where a check failed, else -1
    bonus: np.ndarray  # [n] bonus token when every position passed, else -1
    committed: np.ndarray  # [n, k+1] tokens committed at each position, -1 past the end

    @property
    def n_committed(self) -> np.ndarray:
        """Returns [n] the number of tokens each round committed, bonus included."""
        return (self.committed >= 0).sum(1)

    @property
    def n_checked(self) -> np.ndarray:
        """Returns [n] the number of positions each round verified."""
        return self.checked.sum(1)


def categorical(probs: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Returns indices drawn by inverse CDF: probs [..., V] broadcast against u [...] -> [...]."""
    cdf = np.cumsum(probs, -1)[..., :-1]  # [..., V-1]; the last bin takes whatever is left
    return (u[..., None] >= cdf).sum(-1)


def sample_rounds(target: np.ndarray, draft: np.ndarray, bonus_target: np.ndarray, n: int,
                  rng: np.random.Generator, proposals: np.ndarray | None = None, rule: Rule = RULE) -> Rounds:
    """Returns n independent rounds; proposals [k] are authored, or drawn from the draft when None."""
    k, _ = target.shape  # [k, V]
    u_propose, u_accept, u_replace = rng.random((3, n, k))  # each [n, k]
    u_bonus = rng.random(n)  # [n]
    if proposals is None:
        x = categorical(draft, u_propose)  # [k, V] x [n, k] -> [n, k]
    else:
        x = np.broadcast_to(np.asarray(proposals), (n, k))  # [k] -> [n, k]
    pos = np.arange(k)  # [k]
    a = rule.accept_prob(target[pos, x], draft[pos, x])  # [n, k]
    ok = u_accept < a  # [n, k]
    fixes = categorical(rule.residual(target, draft), u_replace)  # [k, V] x [n, k] -> [n, k]
    all_pass = ok.all(1)  # [n]
    if rule.drop_after_reject:
        first_fail = np.where(all_pass, k, np.argmin(ok, 1))  # [n]
        checked = pos <= first_fail[:, None]  # [n, k]
    else:
        checked = np.ones((n, k), dtype=bool)  # [n, k]
    tokens = np.where(ok, x, fixes)  # [n, k]
    bonus = np.where(all_pass, categorical(rule.bonus_dist(bonus_target, draft), u_bonus), -1)  # [n]
    committed = np.concatenate([np.where(checked, tokens, -1), bonus[:, None]], 1)  # [n, k+1]
    return Rounds(proposals=x, accept_probs=a, uniforms=u_accept, checked=checked, passed=checked & ok,
                  replacements=np.where(checked & ~ok, fixes, -1), bonus=bonus, committed=committed)


def position_counts(rounds: Rounds, vocab_size: int) -> np.ndarray:
    """Returns [k+1, V] how often each token was committed at each position, over the rounds that reached it."""
    c = rounds.committed  # [n, k+1]
    out = np.zeros((c.shape[1], vocab_size), dtype=np.int64)  # [k+1, V]
    for i in range(c.shape[1]):
        out[i] = np.bincount(c[:, i][c[:, i] >= 0], minlength=vocab_size)
    return out


def length_counts(rounds: Rounds) -> np.ndarray:
    """Returns [k+1] how many rounds committed n = 1..k+1 tokens."""
    k1 = rounds.committed.shape[1]
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

"""Speculative generation with a real (small) model pair: rounds drawn one at a time from n-gram models.

The six-token sampler (sampler.py) is vectorised over tables indexed by position; a trigram target has a context of
two tokens and hundreds of tokens, so its rows are computed per context here instead. The verification rule is the
same sampler.Rule, so the suite's broken variants plug in unchanged. Imports numpy and the package's numpy modules.

Uniforms are read from one iterator in a fixed order, which the page's script follows draw for draw: per round, k
draws that propose the tokens, then one per check, then one for the replacement (on a rejection) or the bonus.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from . import sampler
from .ngram import Model, tempered

ACCEPTED, REPLACED, BONUS = "a", "r", "b"  # how a committed token came about


@dataclass(frozen=True)
class GenRound:
    """One round of speculative generation: what the draft proposed, each check, and what was committed."""

    context: tuple[int, ...]  # the tokens the round continues from (the target's order - 1)
    proposals: tuple[int, ...]  # [k]
    accept: tuple[float, ...]  # [checked] min(1, p/q) of each checked proposal
    uniforms: tuple[float, ...]  # [checked] the draw u of each check
    committed: tuple[int, ...]  # [1..k+1]
    kinds: tuple[str, ...]  # [len(committed)] ACCEPTED, REPLACED or BONUS
    last_draw: float  # the draw r of the replacement or of the bonus

    @property
    def dropped(self) -> tuple[int, ...]:
        """Returns the proposals after a rejection, never checked."""
        return self.proposals[len(self.uniforms):]


def inverse_cdf(probs: np.ndarray, u: float) -> int:
    """Returns the token a uniform u draws from probs [V]: the first y with u < cumsum[y], where the last token of
    nonzero probability takes whatever rounding leaves (as sampler.edges)."""
    cum = np.cumsum(probs)  # [V], summed left to right
    last = int(np.flatnonzero(probs > 0)[-1])
    return min(int(np.searchsorted(cum, u, side="right")), last)


Rows = Callable[[tuple[int, ...]], np.ndarray]  # context -> a tempered distribution [V]


def rows(m: Model, temperature: float) -> Rows:
    """Returns the model's tempered rows, cached per context."""
    cache: dict[tuple[int, ...], np.ndarray] = {}

    def row(context: tuple[int, ...]) -> np.ndarray:
        if context not in cache:
            cache[context] = tempered(m.row(context), temperature)
        return cache[context]
    return row


def one_round(p: Rows, q: Rows, context: tuple[int, ...], k: int, u: Iterator[float],
              rule: sampler.Rule = sampler.RULE) -> GenRound:
    """Returns one round from `context`: k proposals drafted in turn, then checked in order by the rule; the first
    rejection commits a residual draw and drops the rest, and if every check passes a bonus comes from the target."""
    ctx, proposals = context, []
    for _ in range(k):
        x = inverse_cdf(rule.draft_dist(q(ctx)), next(u))
        proposals.append(x)
        ctx = (*ctx[1:], x)
    ctx, before, accept, us, committed, kinds, r = context, context, [], [], [], [], None
    for x in proposals:
        after = (*ctx[1:], x)  # the context the next position is scored in
        a, ui = float(rule.accept_prob(p(ctx), rule.verify_dist(q(ctx)))[x]), next(u)
        accept.append(a)
        us.append(ui)
        y, drawn = checked(p, q, rule, rule.residual_given(ctx, after), x, a, ui, u)
        committed.append(y)
        kinds.append(ACCEPTED if drawn is None else REPLACED)
        r = drawn if drawn is not None else r
        if drawn is not None and rule.drop_after_reject:
            break
        before, ctx = ctx, after
    if r is None:  # every check passed: the bonus
        r, where = next(u), rule.bonus_given(before, ctx)
        bonus = p(where) if rule.bonus_dist is sampler.bonus_dist else rule.bonus_dist(p(where), q(before)[None])
        committed.append(inverse_cdf(bonus, r))
        kinds.append(BONUS)
    return GenRound(context, tuple(proposals), tuple(accept), tuple(us), tuple(committed), tuple(kinds), r)


def checked(p: Rows, q: Rows, rule: sampler.Rule, at: tuple[int, ...], x: int, a: float, ui: float,
            u: Iterator[float]) -> tuple[int, float | None]:
    """Returns (the committed token, the draw of a replacement, or None when x is kept) for one check; `at` is the
    context the replacement is drawn in."""
    if rule.verify is sampler.exact_match:  # u draws the target's own token y; keep x only when x = y
        y = inverse_cdf(p(at), ui)
        return (x, None) if y == x else (int(rule.on_mismatch(np.array([x]), np.array([y]))[0]), ui)
    if rule.accepts(ui, a):
        return x, None
    r = next(u)
    return inverse_cdf(rule.residual(p(at), rule.verify_dist(q(at))), r), r


def generate(p: Rows, q: Rows, prompt: tuple[int, ...], k: int, u: Iterator[float], rounds: int,
             rule: sampler.Rule = sampler.RULE) -> list[GenRound]:
    """Returns `rounds` rounds, each continuing from the last len(prompt) tokens written (the target's order - 1)."""
    text, out, width = list(prompt), [], len(prompt)
    for _ in range(rounds):
        r = one_round(p, q, tuple(text[-width:]), k, u, rule)
        out.append(r)
        text += r.committed
    return out


def race(p: Rows, q: Rows, prompt: tuple[int, ...], k: int, u: Iterator[float], goal: int,
         rule: sampler.Rule = sampler.RULE) -> list[GenRound]:
    """Returns the rounds of a race to `goal` tokens: rounds as generate writes them, until they have committed at
    least `goal` tokens (the last round may commit more; the figure shows the first `goal`)."""
    text, out, width = list(prompt), [], len(prompt)
    while len(text) - width < goal:
        r = one_round(p, q, tuple(text[-width:]), k, u, rule)
        out.append(r)
        text += r.committed
    return out


def plain(p: Rows, prompt: tuple[int, ...], u: Iterator[float], n: int) -> list[int]:
    """Returns n tokens drawn one at a time from the target: plain decoding."""
    text, width = list(prompt), len(prompt)
    for _ in range(n):
        text.append(inverse_cdf(p(tuple(text[-width:])), next(u)))
    return text[len(prompt):]


def mulberry32(seed: int) -> Iterator[float]:
    """Yields uniforms in [0, 1) from mulberry32, a 32-bit generator small enough for the page's script to repeat
    draw for draw (templates/js/generator.js): the page's seeded run uses it, so both write the same text."""
    m, a = 0xFFFFFFFF, seed & 0xFFFFFFFF
    while True:
        a = (a + 0x6D2B79F5) & m
        t = ((a ^ (a >> 15)) * (a | 1)) & m
        t = ((t + (((t ^ (t >> 7)) * (t | 61)) & m)) & m) ^ t
        yield ((t ^ (t >> 14)) & m) / 4294967296


def uniforms(seed: int) -> Iterator[float]:
    """Yields uniform draws in [0, 1) from numpy's generator seeded with `seed`, in blocks."""
    rng = np.random.default_rng(seed)
    while True:
        yield from rng.random(256).tolist()

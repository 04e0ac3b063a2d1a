"""Speculative generation with a real (small) model pair: rounds drawn one at a time from n-gram models.

The six-token sampler (sampler.py) is vectorised over tables indexed by position; a trigram target has a context of
two tokens and hundreds of tokens, so its rows are computed per context here instead. The verification rule is the
same sampler.Rule, so the suite's broken variants plug in unchanged. Imports numpy and the package's numpy modules.

Uniforms are read from one iterator in a fixed order, which the page's script follows draw for draw: per round, k
draws that propose the tokens, then one per check, then one for the replacement (on a rejection) or the bonus.

The standard rule (sampler.RULE itself) takes a fast path, standard_round, that reads the same uniforms and draws
the same tokens: rows come through a Cached, which keeps each distinct row's cumulative sums, and a check computes
min(1, p/q) at its proposal alone. checks_passed, which the build's expected tokens per round read, goes further and
skips what no count reads. tests/test_language_speed.py holds both to the general path, draw for draw.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass

import numpy as np

from . import sampler, trees
from .ngram import Model, tempered

ACCEPTED, REPLACED, BONUS = "a", "r", "b"  # how a committed token came about
MULBERRY_BLOCK = 256  # mulberry32's draws worked out at once


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
    return pick(*cumulative(probs), u)


def cumulative(probs: np.ndarray) -> tuple[np.ndarray, int]:
    """Returns (cumsum [V], summed left to right; the last token of nonzero probability): what inverse_cdf reads."""
    last = len(probs) - 1 if probs[-1] > 0 else int(np.flatnonzero(probs > 0)[-1])  # a model row: every p > 0
    return np.cumsum(probs), last


def pick(cum: np.ndarray, last: int, u: float) -> int:
    """Returns the token u draws from a distribution's cumulative(): the first y with u < cum[y], at most last."""
    return min(int(cum.searchsorted(u, side="right")), last)


Rows = Callable[[tuple[int, ...]], np.ndarray]  # context -> a tempered distribution [V]


class Row:
    """One distribution [V] as the standard rule's rounds read it: its entries, and once a draw needs them its
    cumulative sums; the residuals of targets against it (as a draft's row), each computed once."""

    __slots__ = ("probs", "sums", "residuals")

    def __init__(self, probs: np.ndarray) -> None:
        self.probs = probs  # [V]
        self.sums: tuple[np.ndarray, int] | None = None  # cumulative(probs), when first drawn from
        self.residuals: dict[int, tuple[Row, Row]] = {}  # id(target row) -> (that row, its residual against this)

    def draw(self, u: float) -> int:
        """Returns inverse_cdf(probs, u), the sums computed on the first draw."""
        sums = self.sums
        if sums is None:
            sums = self.sums = cumulative(self.probs)
        return min(int(sums[0].searchsorted(u, side="right")), sums[1])  # pick(*sums, u), inline: the hot path

    def residual(self, target: Row) -> Row:
        """Returns the row of sampler.residual(target, this): what a rejection by the accept test draws from."""
        found = self.residuals.get(id(target))
        if found is None:
            found = self.residuals[id(target)] = (target, Row(sampler.residual(target.probs, self.probs)))
        return found[1]


class Cached:
    """Rows read through a cache: each context's Row, computed once. With `key`, contexts of one key share one Row
    and its sums, and the rows are asked for at the first context of each key only (an n-gram model's contexts
    unseen in its counts share its lower orders' rows). Rows must depend on the context alone (on its key, if any)."""

    def __init__(self, rows: Rows, key: Callable[[tuple[int, ...]], Hashable] | None = None) -> None:
        self.rows, self.key = rows, key
        self.by_key: dict[Hashable, Row] = {}

    def __call__(self, context: tuple[int, ...]) -> np.ndarray:
        return self.entry(context).probs

    def entry(self, context: tuple[int, ...]) -> Row:
        """Returns the context's Row."""
        key = context if self.key is None else self.key(context)
        found = self.by_key.get(key)
        if found is None:
            found = self.by_key[key] = Row(self.rows(context))
        return found


def cached(rows: Rows) -> Cached:
    """Returns rows read through a cache: rows itself when it is one already."""
    return rows if isinstance(rows, Cached) else Cached(rows)


def rows(m: Model, temperature: float) -> Cached:
    """Returns the model's tempered rows, each tempered once per distinct row of the model (ngram.Model.key)."""
    return Cached(lambda context: tempered(m.row(context), temperature), m.key)


def one_round(p: Rows, q: Rows, context: tuple[int, ...], k: int, u: Iterator[float],
              rule: sampler.Rule = sampler.RULE) -> GenRound:
    """Returns one round from `context`: k proposals drafted in turn, then checked in order by the rule; the first
    rejection commits a residual draw and drops the rest, and if every check passes a bonus comes from the target.
    sampler.RULE itself takes standard_round, its fast path; any other rule (an equal copy of RULE included) this
    general one."""
    if rule is sampler.RULE:
        return standard_round(cached(p), cached(q), context, k, u)
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


def standard_round(p: Cached, q: Cached, context: tuple[int, ...], k: int, u: Iterator[float]) -> GenRound:
    """Returns one_round(p, q, context, k, u) under sampler.RULE, the accept test with a sampled draft, draw for draw:
    the same uniforms read in the same order and the same tokens drawn, with each row's sums and each residual
    computed once, and min(1, p/q) computed at the proposal alone."""
    ctx, proposals = context, []
    for _ in range(k):
        x = q.entry(ctx).draw(next(u))
        proposals.append(x)
        ctx = (*ctx[1:], x)
    ctx, accept, us = context, [], []
    for i, x in enumerate(proposals):
        target, draft = p.entry(ctx), q.entry(ctx)
        a, ui = accept_at(target.probs, draft.probs, x), next(u)
        accept.append(a)
        us.append(ui)
        if not ui < a:  # rejected: a replacement from the residual at the proposal's own context; the rest dropped
            r = next(u)
            committed = (*proposals[:i], draft.residual(target).draw(r))
            return GenRound(context, tuple(proposals), tuple(accept), tuple(us), committed, (ACCEPTED,) * i + (REPLACED,), r)
        ctx = (*ctx[1:], x)
    r = next(u)  # every check passed: the bonus, from the target after the last proposal
    bonus = p.entry(ctx).draw(r)
    return GenRound(context, tuple(proposals), tuple(accept), tuple(us), (*proposals, bonus), (ACCEPTED,) * k + (BONUS,), r)


def checks_passed(p: Rows, q: Rows, prompt: tuple[int, ...], k: int, u: Iterator[float], rounds: int) -> list[int]:
    """Returns [rounds] how many of its k checks each round of generate(p, q, prompt, k, u, rounds) passed under
    sampler.RULE: the same rounds draw for draw, each continuing the text the last one wrote. What nothing here reads
    is not worked out: a proposal after a rejection is not drafted, though its uniform is read as one_round reads it."""
    p, q = cached(p), cached(q)
    text, width, out = list(prompt), len(prompt), []
    for _ in range(rounds):
        drafting = list(itertools.islice(u, k))  # the k proposals' draws come first, as in one_round
        ctx, passed = tuple(text[-width:]), 0
        for ud in drafting:
            target, draft = p.entry(ctx), q.entry(ctx)
            x = draft.draw(ud)
            if not next(u) < accept_at(target.probs, draft.probs, x):  # rejected: a replacement ends the round
                text.append(draft.residual(target).draw(next(u)))
                break
            text.append(x)
            passed, ctx = passed + 1, (*ctx[1:], x)
        else:  # every check passed: the bonus, from the target after the last proposal
            text.append(p.entry(ctx).draw(next(u)))
        out.append(passed)
    return out


def accept_at(p: np.ndarray, q: np.ndarray, x: int) -> float:
    """Returns sampler.accept_prob(p, q)[x] for the one token x: min(1, p(x)/q(x)), or 1 where q(x) = 0."""
    qx = q[x]
    return float(min(1.0, p[x] / qx)) if qx > 0 else 1.0


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
    p, q = (cached(p), cached(q)) if rule is sampler.RULE else (p, q)  # one cache for every round
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
    p, q = (cached(p), cached(q)) if rule is sampler.RULE else (p, q)  # one cache for every round
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
    draw for draw (templates/js/generator.js): the page's seeded run uses it, so both write the same text. Its state
    only counts up by a constant, so MULBERRY_BLOCK draws are worked at once, each exactly as one draw at a time:
    32-bit products in 64-bit integers."""
    m, a = np.uint64(0xFFFFFFFF), seed & 0xFFFFFFFF
    steps = np.arange(1, MULBERRY_BLOCK + 1, dtype=np.uint64) * np.uint64(0x6D2B79F5)  # [block]
    while True:
        s = (np.uint64(a) + steps) & m  # [block] the states after each draw
        t = ((s ^ (s >> 15)) * (s | 1)) & m
        t = ((t + (((t ^ (t >> 7)) * (t | 61)) & m)) & m) ^ t
        yield from (((t ^ (t >> 14)) & m) / 4294967296).tolist()
        a = int(s[-1])


def uniforms(seed: int) -> Iterator[float]:
    """Yields uniform draws in [0, 1) from numpy's generator seeded with `seed`, in blocks."""
    rng = np.random.default_rng(seed)
    while True:
        yield from rng.random(256).tolist()


# --- several candidates per position (speculative trees, speculative/trees.py), for the generator's n-gram pair -----
#
# The draw order, which templates/js/generator_tree.js follows draw for draw: per round, k * m draft draws first,
# depth by depth, m to a depth (a real tree drafts a whole layer in one batch; every node of a depth reads that
# depth's m draws, so the whole tree is fixed before any check); then, depth by depth from the prompt, the candidates
# drafted at the kept path's context are checked in order, one draw each, until one is kept; if all fail, one draw
# for the token from what is left of the target, which ends the round; after k kept depths, one draw for the bonus
# from the target. With m = 1 this is one_round's order, and the same tokens (the generator runs one_round there).
# Sums are taken left to right (np.cumsum), as the script takes them.

@dataclass(frozen=True)
class TreeDepth:
    """One depth of a tree round: the candidates drafted at the kept path's context and the checks tried in turn."""

    context: tuple[int, ...]  # the tokens the depth is scored after (the target's order - 1)
    candidates: tuple[int, ...]  # [<= m] in the order drafted (without replacement: fewer once q is used up)
    accept: tuple[float, ...]  # [tried] min(1, r(x_j) / q_j(x_j)) of each candidate tried
    uniforms: tuple[float, ...]  # [tried] the draw u of each check
    kept: bool  # the last candidate tried was kept (else every candidate failed)


@dataclass(frozen=True)
class TreeRound:
    """One round with m candidates per position: its depths, and what it committed."""

    context: tuple[int, ...]
    m: int
    replace: bool
    depths: tuple[TreeDepth, ...]  # [1..k] every depth reached: all kept, or the last with none kept
    committed: tuple[int, ...]  # [1..k+1]
    kinds: tuple[str, ...]  # [len(committed)] ACCEPTED, REPLACED (drawn from what was left of r) or BONUS
    last_draw: float  # the draw of the token from r after every candidate failed, or of the bonus


def spread(w: np.ndarray) -> np.ndarray | None:
    """Returns w renormalised by its sum taken left to right (as the script sums), or None when it sums to 0."""
    total = float(np.cumsum(w)[-1])
    return None if total <= 0 else w / total


def tree_candidates(q: np.ndarray, draws: list[float], replace: bool) -> tuple[list[int], list[np.ndarray]]:
    """Returns the candidates the draws pick in turn and the q_j each was drawn from: q itself with replacement,
    q without the earlier candidates, renormalised, without (stopping once nothing is left to draw)."""
    out: list[int] = []
    qjs: list[np.ndarray] = []
    removed = np.zeros(len(q), bool)
    for u in draws:
        qj = q if replace or not out else spread(np.where(removed, 0.0, q))
        if qj is None:
            break
        out.append(inverse_cdf(qj, u))
        qjs.append(qj)
        removed[out[-1]] = True
    return out, qjs


def tree_checks(p: np.ndarray, candidates: list[int], qjs: list[np.ndarray], u: Iterator[float],
                broken: tuple[np.ndarray, trees.Spec] | None = None) -> tuple[list[float], list[float], bool, np.ndarray]:
    """Returns (each tried candidate's min(1, r/q_j), its draw, whether the last tried was kept, the last r): r starts
    as p, and each rejection makes it max(0, r - q_j) renormalised (kept as it is if that is 0). `broken`, (q, a
    broken way of trees.BROKEN other than typical acceptance), makes that way's one mistake, for the check's tests:
    every candidate checked against p and the last draw from max(0, p - q), or the whole q checked and peeled."""
    q, spec = broken if broken else (None, trees.WITH)
    r, accept, us = p, [], []
    for x, qj in zip(candidates, qjs, strict=True):
        check = q if q is not None and spec.plain_q else qj
        a, ui = float(min(1.0, (p if spec.against_p else r)[x] / check[x])), next(u)
        accept.append(a)
        us.append(ui)
        if ui < a:
            return accept, us, True, r
        nxt = None if spec.against_p else spread(np.maximum(0.0, r - check))
        r = r if nxt is None else nxt
    if q is not None and spec.against_p and candidates:
        nxt = spread(np.maximum(0.0, p - q))
        r = r if nxt is None else nxt
    return accept, us, False, r


def tree_round(p: Rows, q: Rows, context: tuple[int, ...], k: int, m: int, replace: bool,
               u: Iterator[float], broken: trees.Spec | None = None) -> TreeRound:
    """Returns one round of depth k with m candidates per position, in the draw order above (`broken`: a broken way
    of trees.BROKEN, not typical acceptance, whose `replace` then stands for `replace`)."""
    drafts = list(itertools.islice(u, k * m))
    ctx, depths = context, []
    committed: list[int] = []
    replace = broken.replace if broken else replace
    for d in range(k):
        cands, qjs = tree_candidates(q(ctx), drafts[d * m:(d + 1) * m], replace)
        accept, us, kept, r = tree_checks(p(ctx), cands, qjs, u, (q(ctx), broken) if broken else None)
        depths.append(TreeDepth(ctx, tuple(cands), tuple(accept), tuple(us), kept))
        if not kept:  # every candidate failed: the token comes from what is left of the target, and the round ends
            last = next(u)
            return TreeRound(context, m, replace, tuple(depths), (*committed, inverse_cdf(r, last)),
                             (ACCEPTED,) * d + (REPLACED,), last)
        committed.append(cands[len(us) - 1])
        ctx = (*ctx[1:], committed[-1])
    last = next(u)  # every depth kept a candidate: the bonus, from the target after the path
    return TreeRound(context, m, replace, tuple(depths), (*committed, inverse_cdf(p(ctx), last)),
                     (ACCEPTED,) * k + (BONUS,), last)


def tree_race(p: Rows, q: Rows, prompt: tuple[int, ...], k: int, m: int, replace: bool, u: Iterator[float],
              goal: int) -> list[TreeRound]:
    """Returns the rounds of a race to `goal` tokens with m candidates per position, as race runs the chain."""
    p, q = cached(p), cached(q)
    text, out, width = list(prompt), [], len(prompt)
    while len(text) - width < goal:
        r = tree_round(p, q, tuple(text[-width:]), k, m, replace, u)
        out.append(r)
        text += r.committed
    return out

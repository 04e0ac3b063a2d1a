"""Speculative sampling, vectorised over many rounds. Imports nothing but numpy.

One implementation serves every use: the walkthrough passes the authored proposals, the Monte Carlo
check lets the sampler draw them from the draft, and whole texts are grown round after round.

Three verification rules share it (made in rules.py), each lossless: the accept test with a sampled draft (Leviathan et al.
2023), the accept test with a greedy draft, which proposes its most likely token and is verified as q = one-hot
at it, and exact match, which samples the target's own token y and keeps the proposal x only when x = y.

Distributions may depend on the previous token, as in a first-order Markov "model": a table then has
one row per previous token ([k, V, V]: position, previous token, next token; the bonus [V, V]). A table
without that axis ([k, V], bonus [V]) is the same at every previous token, and is sampled exactly as
before the axis existed, draw for draw.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, TypeVar

import numpy as np
from numpy.typing import ArrayLike

T = TypeVar("T")

CHUNK = 32768  # rounds drawn at once: small enough to stay in cache; the draws' order depends on it


def accept_prob(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Returns min(1, p/q) per token; where q = 0 the draft never proposes it, so the value is unused."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.minimum(1.0, np.where(q > 0, p / q, 1.0))  # [..., V]


def residual(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Returns max(0, p - q) renormalised per row; a row with p == q stays zero (it is never used)."""
    r = np.maximum(0.0, p - q)  # [..., V]
    total = r.sum(-1, keepdims=True)  # [..., 1]
    return np.divide(r, total, out=np.zeros_like(r), where=total > 0)


def bonus_dist(bonus_target: np.ndarray, draft: np.ndarray) -> np.ndarray:
    """Returns the distribution the bonus token is drawn from: the target's, at the bonus position."""
    return bonus_target  # [V] or [V, V]


def draft_dist(draft: np.ndarray) -> np.ndarray:
    """Returns the distribution proposals are drawn from: the draft's own."""
    return draft  # [k, V] or [k, V, V]


class Context(Protocol):
    """Picks a context from (what came before a proposal, the proposal): token arrays [m] here, and in generate.py
    the context tuples a round's positions are scored in."""

    def __call__(self, previous: T, proposal: T, /) -> T: ...


def before(previous: T, proposal: T) -> T:
    """Returns the token before the proposal: the context the proposal itself was drafted in."""
    return previous  # [m]


def at(previous: T, proposal: T) -> T:
    """Returns the proposal itself: the context for whatever comes after it."""
    return proposal  # [m]


def last_committed(rounds: Rounds) -> np.ndarray:
    """Returns [n] each round's last committed token: the context the next round continues from."""
    n = rounds.committed_pm.shape[1]
    return rounds.committed_pm[rounds.n_committed - 1, np.arange(n)]


def greedy(draft: np.ndarray) -> np.ndarray:
    """Returns the greedy draft: all its mass on its most likely token, the first in vocabulary order on a tie."""
    one_hot = np.zeros(draft.shape)  # [..., V]; not np.eye(V)[argmax], which builds V x V numbers for every call
    np.put_along_axis(one_hot, draft.argmax(-1)[..., None], 1.0, axis=-1)
    return one_hot


def target_prob(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Returns p per token: under exact match, the chance the target's own draw equals the proposal."""
    return np.broadcast_to(p, np.broadcast_shapes(p.shape, q.shape))  # [..., V]


def drawn(proposal: np.ndarray, target_draw: np.ndarray) -> np.ndarray:
    """Returns what exact match commits on a mismatch: the target's own draw y."""
    return target_draw  # [m]


def overlap(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Returns alpha = sum_y min(p(y), q(y)): the chance the accept test passes a proposal drawn from q."""
    return np.minimum(p, q).sum(-1)  # [..., V] -> [...]


def greedy_overlap(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Returns p at the draft's most likely token: the chance the accept test passes a greedy proposal."""
    return overlap(p, greedy(q))  # [..., V] -> [...]


def match_overlap(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Returns sum_y p(y) q(y): the chance the target's own draw equals a proposal drawn from q."""
    return (p * q).sum(-1)  # [..., V] -> [...]


@dataclass(frozen=True)
class Rounds:
    """What happened in n rounds of k positions, stored position-major ([k, n]); -1 marks "none"."""

    uniforms_pm: np.ndarray  # [k, n] each check's draw u: accept when u < accept probability (exact match: u draws y)
    accept_table: np.ndarray  # [k, V] the chance a proposed token is kept, min(1, p/q) ([k, V, V] given the previous)
    proposals_pm: np.ndarray  # [k, n] token indices
    checked_pm: np.ndarray  # [k, n] bool, positions actually verified
    passed_pm: np.ndarray  # [k, n] bool, verified and accepted
    replacements_pm: np.ndarray  # [k, n] token drawn from the residual where a check failed, else -1
    committed_pm: np.ndarray  # [k+1, n] tokens committed at each position, -1 past the end
    starts: np.ndarray | None = field(default=None)  # [n] the token each round continues from, if any
    rep_uniforms: np.ndarray | None = field(default=None)  # [n] the draw r the round's replacement was drawn by, else NaN
    bonus_uniforms: np.ndarray | None = field(default=None)  # [n] the draw r the bonus was drawn by, else NaN

    proposals = property(lambda self: self.proposals_pm.T)  # [n, k]
    checked = property(lambda self: self.checked_pm.T)  # [n, k]
    passed = property(lambda self: self.passed_pm.T)  # [n, k]
    replacements = property(lambda self: self.replacements_pm.T)  # [n, k]
    committed = property(lambda self: self.committed_pm.T)  # [n, k+1]
    bonus = property(lambda self: self.committed_pm[-1])  # [n]

    uniforms = property(lambda self: self.uniforms_pm.T)  # [n, k]

    @property
    def accept_probs(self) -> np.ndarray:
        """Returns [n, k] min(1, p/q) of each proposal, given the token before it."""
        positions = np.arange(len(self.accept_table))[:, None]  # [k, 1]
        if self.accept_table.ndim == 2:
            return self.accept_table[positions, self.proposals_pm].T
        assert self.starts is not None  # a table with a previous-token axis is only sampled with starts (prepare)
        previous = np.vstack([self.starts[None], self.proposals_pm[:-1]])  # [k, n]
        return self.accept_table[positions, previous, self.proposals_pm].T

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
    x: np.ndarray = np.zeros(u.shape, dtype)  # [n]
    for edge in thresholds:  # V is small: V-1 flat comparisons beat a search
        x += u >= edge
    return x


def edge_table(probs: np.ndarray) -> np.ndarray:
    """Returns [V-1, R] the edges() of each row of probs [R, V], padded with +inf past a row's last token."""
    table = np.full((probs.shape[-1] - 1, len(probs)), np.inf)  # [V-1, R]
    for r, row in enumerate(probs):
        thresholds = edges(row)
        table[: len(thresholds), r] = thresholds
    return table


def draw(table: np.ndarray, given: np.ndarray | None, u: np.ndarray, dtype: type) -> np.ndarray:
    """Returns tokens drawn by inverse CDF from row `given` [m] of an edge table [V-1, R]: u [m] -> [m]."""
    if table.shape[1] == 1:  # one row for every context: flat thresholds, the fast path
        return categorical(table[np.isfinite(table[:, 0]), 0].tolist(), u, dtype)
    x: np.ndarray = np.zeros(u.shape, dtype)  # [m]
    for column in table:  # [R] one threshold of every row
        x += u >= column[given]
    return x


def lookup(table: np.ndarray, given: np.ndarray | None, x: np.ndarray) -> np.ndarray:
    """Returns table[given, x] from a table [R, V], reading its only row when R = 1: [m]."""
    return table[0][x] if len(table) == 1 else table[given, x]


def conditional(probs: np.ndarray, axes: int) -> np.ndarray:
    """Returns probs with a previous-token axis: [k, V] -> [k, 1, V] (axes = 2), [V] -> [1, V] (axes = 1)."""
    return probs[..., None, :] if probs.ndim == axes else probs


def token_dtype(vocab_size: int) -> type:
    """Returns the integer type for token indices: int8 while every index and -1 fit, else int32."""
    return np.int8 if vocab_size < 127 else np.int32


@dataclass(frozen=True)
class Tables:
    """Everything a round reads, computed once per call; R is 1 (no context) or V (one row per previous token)."""

    accept: np.ndarray  # [k, R, V] min(1, p/q)
    propose: list[np.ndarray]  # k edge tables [V-1, R] of the distribution proposals come from
    fix: list[np.ndarray]  # k edge tables [V-1, R] of the residual
    bonus: np.ndarray  # [V-1, R] edge table of the bonus distribution
    target: list[np.ndarray]  # k edge tables [V-1, R] of the target, which exact match draws its own token from


def accept_test(t: Tables, i: int, given: np.ndarray | None, x: np.ndarray, u: np.ndarray, alive: np.ndarray,
                rule: Rule, rng: np.random.Generator, dtype: type) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Returns (accepted [m], replacement [m] or -1, the draws r of the replacements): accept when u < min(1, p/q),
    else draw the replacement from the residual by inverse CDF with a fresh uniform r."""
    ok = rule.accepts(u, lookup(t.accept[i], given, x))  # [m]
    failed = alive & ~ok  # [m] the rounds whose first rejection is here
    y: np.ndarray = np.full(len(x), -1, dtype)  # [m]
    fix_given = None if given is None else rule.residual_given(given, x)[failed]
    r = rng.random(np.count_nonzero(failed))  # [failed]
    y[failed] = draw(t.fix[i], fix_given, r, dtype)
    return ok, y, r


def exact_match(t: Tables, i: int, given: np.ndarray | None, x: np.ndarray, u: np.ndarray, alive: np.ndarray,
                rule: Rule, rng: np.random.Generator, dtype: type) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Returns (accepted [m], replacement [m] or -1, the draws of the replacements): u draws the target's own y;
    keep x if x = y, else commit y, so a replacement's draw is u itself."""
    y_drawn = draw(t.target[i], given, u, dtype)  # [m] y ~ p, given the token before x
    ok = y_drawn == x  # [m]
    failed = alive & ~ok  # [m]
    y: np.ndarray = np.full(len(x), -1, dtype)  # [m]
    y[failed] = rule.on_mismatch(x, y_drawn)[failed]
    return ok, y, u[failed]


@dataclass(frozen=True)
class Rule:
    """The pieces of a verification rule, named so the tests can swap in a wrong one and watch the checks fail."""

    accept_prob: Callable[[np.ndarray, np.ndarray], np.ndarray] = accept_prob
    residual: Callable[[np.ndarray, np.ndarray], np.ndarray] = residual
    bonus_dist: Callable[[np.ndarray, np.ndarray], np.ndarray] = bonus_dist
    drop_after_reject: bool = True
    draft_dist: Callable[[np.ndarray], np.ndarray] = draft_dist  # what proposals are drawn from
    accepts: Callable[[ArrayLike, ArrayLike], Any] = np.less  # (u, accept probability) -> accepted: arrays, or floats (generate.py)
    residual_given: Context = before  # the residual's context
    bonus_given: Context = at  # the bonus's context, from the last proposal
    next_context: Callable[[Rounds], np.ndarray] = last_committed  # where the next round of a text starts
    verify_dist: Callable[[np.ndarray], np.ndarray] = draft_dist  # the draft q the accept test and residual read
    verify: Callable[..., tuple[np.ndarray, ...]] = accept_test  # one position's check, replacements and their draws
    on_mismatch: Callable[[np.ndarray, np.ndarray], np.ndarray] = drawn  # (x, y) -> what exact match commits
    acceptance: Callable[[np.ndarray, np.ndarray], np.ndarray] = overlap  # (p, q) -> the chance a check passes


RULE = Rule()  # the accept test with a sampled draft; rules.py makes the other rules from the pieces above


def tables(target: np.ndarray, draft: np.ndarray, bonus_target: np.ndarray, rule: Rule) -> Tables:
    """Returns the rule's tables for target, draft [k, V] or [k, V, V] and bonus [V] or [V, V]."""
    p, q = conditional(target, 2), conditional(rule.verify_dist(draft), 2)  # [k, R, V]
    return Tables(accept=rule.accept_prob(p, q),
                  propose=[edge_table(rows) for rows in conditional(rule.draft_dist(draft), 2)],
                  fix=[edge_table(rows) for rows in np.broadcast_to(rule.residual(p, q), np.broadcast_shapes(p.shape, q.shape))],
                  bonus=edge_table(conditional(rule.bonus_dist(bonus_target, draft), 1)),
                  target=[edge_table(rows) for rows in p])


def sample_rounds(target: np.ndarray, draft: np.ndarray, bonus_target: np.ndarray, n: int,
                  rng: np.random.Generator, proposals: np.ndarray | None = None, rule: Rule = RULE,
                  chunk: int = CHUNK, start: np.ndarray | None = None) -> Rounds:
    """Returns n independent rounds; proposals [k] are authored, or drawn from the draft when None.

    start [n] is the token each round continues from; tables with a previous-token axis need it.
    """
    t, dtype, starts = prepare(target, draft, bonus_target, n, rule, start)
    out = empty_rounds(t, n, dtype, starts)
    scratch = np.empty(min(n, chunk))
    for lo in range(0, n, chunk):  # chunks small enough to stay in cache
        hi = min(n, lo + chunk)
        first = None if starts is None else starts[lo:hi]  # [m]
        propose(t, out, lo, hi, first, proposals, rng, scratch, dtype)
        verify(t, out, lo, hi, first, rule, rng, dtype)
    return out


def round_chunks(target: np.ndarray, draft: np.ndarray, bonus_target: np.ndarray, n: int,
                 rng: np.random.Generator, proposals: np.ndarray | None = None, rule: Rule = RULE,
                 chunk: int = CHUNK, start: np.ndarray | None = None) -> Iterator[Rounds]:
    """Yields the rounds sample_rounds returns, chunk rounds at a time, drawn in the same order from rng.

    Memory stays flat in n: every chunk reuses one set of buffers, so a chunk is valid until the next is drawn.
    """
    t, dtype, starts = prepare(target, draft, bonus_target, n, rule, start)
    buffer = empty_rounds(t, min(n, chunk), dtype, None, record=False)  # [k, chunk] each; counts need no draws r
    scratch = np.empty(min(n, chunk))
    for lo in range(0, n, chunk):
        m = min(n - lo, chunk)
        first = None if starts is None else starts[lo:lo + m]  # [m]
        part = window(buffer, m, first)
        propose(t, part, 0, m, first, proposals, rng, scratch, dtype)
        verify(t, part, 0, m, first, rule, rng, dtype)
        yield part


def prepare(target: np.ndarray, draft: np.ndarray, bonus_target: np.ndarray, n: int, rule: Rule,
            start: np.ndarray | None) -> tuple[Tables, type, np.ndarray | None]:
    """Returns the rule's tables, the token type and the start of every round ([n], or None without context)."""
    if start is None and (target.ndim == 3 or draft.ndim == 3 or bonus_target.ndim == 2):
        raise ValueError("tables with a previous-token axis need start: the token each round continues from")
    dtype = token_dtype(target.shape[-1])
    starts: np.ndarray | None = None if start is None else np.broadcast_to(np.asarray(start, dtype), (n,))
    return tables(target, draft, bonus_target, rule), dtype, starts


def empty_rounds(t: Tables, n: int, dtype: type, starts: np.ndarray | None, record: bool = True) -> Rounds:
    """Returns room for n rounds of the tables' k positions, not yet drawn; with record, for their draws r too."""
    k = len(t.accept)
    return Rounds(np.empty((k, n)), t.accept[:, 0] if t.accept.shape[1] == 1 else t.accept, np.empty((k, n), dtype),
                  np.empty((k, n), bool), np.empty((k, n), bool), np.empty((k, n), dtype), np.empty((k + 1, n), dtype),
                  starts, *((np.empty(n), np.empty(n)) if record else (None, None)))


def window(rounds: Rounds, m: int, starts: np.ndarray | None) -> Rounds:
    """Returns the first m rounds of a counting buffer (one without draws r), as views that write through to it."""
    if m == rounds.proposals_pm.shape[1] and starts is None:
        return rounds
    return Rounds(rounds.uniforms_pm[:, :m], rounds.accept_table, rounds.proposals_pm[:, :m], rounds.checked_pm[:, :m],
                  rounds.passed_pm[:, :m], rounds.replacements_pm[:, :m], rounds.committed_pm[:, :m], starts)  # [k, m]


def propose(t: Tables, out: Rounds, lo: int, hi: int, given: np.ndarray | None, proposals: np.ndarray | None,
            rng: np.random.Generator, scratch: np.ndarray, dtype: type) -> None:
    """Fills proposals_pm[:, lo:hi]: each drafted given the proposal before it, all before any is checked."""
    for i in range(len(t.propose)):
        u = rng.random(out=scratch[: hi - lo])  # [m]
        out.proposals_pm[i, lo:hi] = draw(t.propose[i], given, u, dtype) if proposals is None else proposals[i]
        given = out.proposals_pm[i, lo:hi]  # [m]


def verify(t: Tables, out: Rounds, lo: int, hi: int, given: np.ndarray | None, rule: Rule,
           rng: np.random.Generator, dtype: type) -> None:
    """Checks positions in order by the rule's check; the first rejection commits a replacement; if none, the bonus."""
    alive = np.ones(hi - lo, bool)  # [m] rounds with no rejection so far
    all_pass = np.ones(hi - lo, bool)  # [m]
    rep_draws, bonus_draws = out.rep_uniforms, out.bonus_uniforms  # the draws r, for the rounds a reader steps through
    if rep_draws is not None:
        rep_draws[lo:hi] = np.nan
    for i in range(len(t.accept)):
        x = out.proposals_pm[i, lo:hi]  # [m]
        u = rng.random(out=out.uniforms_pm[i, lo:hi])  # [m]
        ok, y, r = rule.verify(t, i, given, x, u, alive, rule, rng, dtype)  # [m], [m] replacement or -1, [replaced]
        if rep_draws is not None:
            rep_draws[lo:hi][alive & ~ok] = r  # where the rule drew a replacement: the rounds failing here
        out.checked_pm[i, lo:hi], out.passed_pm[i, lo:hi], out.replacements_pm[i, lo:hi] = alive, alive & ok, y
        out.committed_pm[i, lo:hi] = np.where(alive & ok, x, y)
        all_pass &= ok
        if rule.drop_after_reject:
            alive &= ok
        given, last_given = (None if given is None else x), given
    bonus: np.ndarray = np.full(hi - lo, -1, dtype)  # [m]
    bonus_given = None
    if given is not None:
        assert last_given is not None  # given was not None from the start, so neither was the one before the last
        bonus_given = rule.bonus_given(last_given, given)[all_pass]
    r = rng.random(np.count_nonzero(all_pass))  # [passed] the bonus's draw
    bonus[all_pass] = draw(t.bonus, bonus_given, r, dtype)
    if rep_draws is not None:
        assert bonus_draws is not None  # empty_rounds makes room for both draws r or for neither
        bonus_draws[lo:hi] = np.nan
        bonus_draws[lo:hi][all_pass] = r
    out.committed_pm[len(t.accept), lo:hi] = bonus


def sample_texts(target: np.ndarray, draft: np.ndarray, bonus_target: np.ndarray, n: int, length: int,
                 rng: np.random.Generator, start: int, rule: Rule = RULE) -> np.ndarray:
    """Returns [n, length] the first tokens of n independent texts, each grown by rounds from its last token."""
    texts: np.ndarray = np.full((n, length), -1, token_dtype(target.shape[-1]))  # [n, L]
    filled = np.zeros(n, np.int64)  # [n] tokens written so far
    context = np.full(n, start, texts.dtype)  # [n]
    while (todo := np.flatnonzero(filled < length)).size:
        rounds = sample_rounds(target, draft, bonus_target, todo.size, rng, rule=rule, start=context[todo])
        for j, tokens in enumerate(rounds.committed_pm):  # [m] the j-th token of each round
            column = filled[todo] + j  # [m]
            write = (tokens >= 0) & (column < length)  # [m]
            texts[todo[write], column[write]] = tokens[write]
        filled[todo] += rounds.n_committed
        context[todo] = rule.next_context(rounds)
    return texts


def position_counts(rounds: Rounds, vocab_size: int) -> np.ndarray:
    """Returns [k+1, V] how often each token was committed at each position, over the rounds that reached it."""
    c = rounds.committed_pm  # [k+1, n], negative where a round did not reach the position (as n_committed reads it)
    if c.size and c.max() >= vocab_size:
        raise ValueError(f"a committed token {int(c.max())} is outside the vocabulary 0..{vocab_size - 1}")
    counts = np.zeros((len(c), vocab_size), np.int64)  # [k+1, V]
    for i, row in enumerate(c):  # a row at a time: a chunk's copies stay one row long
        counts[i] = np.bincount(row[row >= 0], minlength=vocab_size)  # [n] -> [V]
    return counts


def length_counts(rounds: Rounds) -> np.ndarray:
    """Returns [k+1] how many rounds committed n = 1..k+1 tokens."""
    k1 = rounds.committed_pm.shape[0]
    return np.bincount(rounds.n_committed, minlength=k1 + 1)[1:]


def prefix_counts(target: np.ndarray, draft: np.ndarray, bonus_target: np.ndarray, sizes: Sequence[int],
                  rng: np.random.Generator, rule: Rule = RULE, progress: Callable[[int], None] | None = None
                  ) -> list[tuple[np.ndarray, np.ndarray]]:
    """Returns, after the first sizes[i] rounds of one run (sizes rising, the whole run last), committed-token counts
    [k+1, V] and tokens-per-round counts [k+1]: the rounds sample_rounds would draw, in the same order, counted chunk
    by chunk as round_chunks draws them, so memory stays flat however many rounds there are."""
    positions = np.zeros((len(target) + 1, target.shape[-1]), np.int64)  # [k+1, V] counted so far
    lengths = np.zeros(len(target) + 1, np.int64)  # [k+1]
    out, done = [], 0
    for part in round_chunks(target, draft, bonus_target, sizes[-1], rng, rule=rule):
        m, lo = part.committed_pm.shape[1], 0
        for hi in sorted({s - done for s in sizes if done < s < done + m} | {m}):  # pieces end at checkpoints
            piece = replace(part, committed_pm=part.committed_pm[:, lo:hi])  # [k+1, hi - lo]
            positions += position_counts(piece, target.shape[-1])
            lengths += length_counts(piece)
            if done + hi in sizes:
                out.append((positions.copy(), lengths.copy()))
            lo = hi
        done += m
        if progress:
            progress(m)
    return out


def total_variation(counts: np.ndarray, probs: np.ndarray) -> float:
    """Returns half the L1 distance between the observed frequencies and probs ([V], [V] -> scalar)."""
    n = counts.sum()
    return 0.0 if n == 0 else float(0.5 * np.abs(counts / n - probs).sum())


def tv_bound(n: int, categories: int, delta: float = 1e-6) -> float:
    """Returns the TV distance that n honest draws exceed with probability below delta.

    From the Bretagnolle-Huber-Carol inequality: P(L1 >= e) <= 2^m exp(-n e^2 / 2).
    """
    return float(np.sqrt((categories * np.log(2) + np.log(1 / delta)) / (2 * max(n, 1))))

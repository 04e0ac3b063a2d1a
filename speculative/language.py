"""Owns the generator's analysis: the model pair counted from the prose, its accept rates, and one seeded run."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from . import generate, ngram
from .dataset import CostModel
from .generate import GenRound
from .lm_settings import LanguageModel
from .prose import corpus_problem
from .sizes import PROFILE_K, PROFILE_ROUNDS
from .stats import round_cost

RACE_TOKENS = 60  # the race's length: both lanes stop once they have written this many tokens after the prompt
Z95 = 1.96  # a 95% normal interval's half-width, in standard errors
ALPHA_CHUNK = 256  # contexts mean_alphas tempers at once: [256, V] blocks, so no [contexts, V] matrix is tempered whole


class CorpusError(ValueError):
    """The prose is too short to count a model from."""


@dataclass(frozen=True)
class LanguageRun:
    """The model pair and everything the generator figure states about it."""

    settings: LanguageModel
    vocab: tuple[str, ...]  # [V] most frequent first, then in order of first appearance (ngram.vocabulary)
    ids: tuple[int, ...]  # [N] the corpus as token ids
    target: ngram.Model
    drafts: tuple[ngram.Model, ...]  # [D] one per draft order, then the target itself
    alphas: tuple[tuple[float, ...], ...]  # [D][temperatures] the mean accept probability over the prose's contexts
    passes: tuple[tuple[tuple[float, ...], ...], ...]  # [D][temperatures][PROFILE_K] P(the first i checks all pass)
    # [D][temperatures][PROFILE_K] the 95% half-width of tokens_per_round at k = 1..PROFILE_K, from the same rounds;
    # None for the target as its own draft, whose figures are exact
    spreads: tuple[tuple[tuple[float, ...] | None, ...], ...]
    run: tuple[GenRound, ...]  # the seeded race at the default settings: rounds until RACE_TOKENS are written
    plain: tuple[int, ...]  # plain decoding's RACE_TOKENS tokens, from the same seed's next draws
    goal: int  # RACE_TOKENS: the race's length, which the figure states and its script runs to
    round_cost: Fraction  # k draft steps and one target pass, in target steps
    top_contexts: tuple[tuple[int, ...], ...]  # the most frequent contexts, most frequent first

    @property
    def prompt(self) -> tuple[int, ...]:
        """Returns the tokens every run starts after: the prose's first target_order - 1 tokens."""
        return self.ids[:self.settings.target_order - 1]

    def draft_index(self, order: int) -> int:
        """Returns the index in drafts of the draft of this order (target_order: the target itself)."""
        orders = (*self.settings.draft_orders, self.settings.target_order)
        return orders.index(order)


def contexts(ids: tuple[int, ...], width: int) -> Counter:
    """Returns how often each context of `width` tokens is followed by a token in the stream."""
    return Counter(tuple(ids[i - width:i]) for i in range(width, len(ids)))


def mean_alphas(target: ngram.Model, drafts: tuple[ngram.Model, ...], seen: Counter,
                temperatures: tuple) -> tuple[tuple[float, ...], ...]:
    """Returns [drafts][temperatures] the mean of alpha = sum_y min(p(y), q(y)) over the prose's contexts, weighted
    by how often each occurs; the perfect draft (the target itself) passes every check. At each temperature, each
    draft's distinct rows are tempered once and the target's ALPHA_CHUNK contexts at a time, all in arrays made once:
    fresh memory is slow to touch."""
    contexts = list(seen)
    weight = np.array([seen[c] for c in contexts], float) / sum(seen.values())  # [C]
    rows, at = target.rows_of(contexts)  # [U, V], [C]
    in_order = np.array_equal(at, np.arange(len(at)))  # the prose's contexts in the order of the target's own table
    others = [(i, *d.rows_of(contexts)) for i, d in enumerate(drafts) if d is not target]  # (i, [U', V], [C])
    alpha = np.zeros((len(drafts), len(temperatures), len(contexts)))  # [D, T, C] each context's alpha
    room = [np.empty_like(q) for _, q, _ in others]  # [drafts] [U', V] each draft's rows tempered, one T at a time
    p_block, q_block = np.empty((2, min(ALPHA_CHUNK, len(contexts)), rows.shape[1]))  # [B, V] each
    for j, t in enumerate(float(t) for t in temperatures):
        if t == 0:  # greedy rows are one-hot at their first top token: two overlap, exactly 1, where those agree
            top = rows.argmax(-1)[at]  # [C]
            for i, q, index in others:
                alpha[i, j] = top == q.argmax(-1)[index]
            continue
        tables = [ngram.tempered(q, t, out=r) for (_, q, _), r in zip(others, room, strict=True)]  # [U', V] each
        for lo in range(0, len(contexts), ALPHA_CHUNK):
            part, n = slice(lo, lo + ALPHA_CHUNK), len(at[lo:lo + ALPHA_CHUNK])
            here = rows[part] if in_order else np.take(rows, at[part], axis=0, out=p_block[:n])  # [n, V]
            p = ngram.tempered(here, t, out=p_block[:n])  # [n, V]
            for (i, _, index), table in zip(others, tables, strict=True):
                q = table if len(table) == 1 else np.take(table, index[part], axis=0, out=q_block[:n])  # [n or 1, V]
                alpha[i, j, part] = np.minimum(p, q, out=q_block[:n]).sum(-1)  # sampler.overlap, in place
    means = (alpha * weight).sum(-1)  # [D, T] summed by numpy, not BLAS, whose threads spin on a shared machine
    return tuple((1.0,) * len(temperatures) if d is target else tuple(float(a) for a in row)  # the target: exactly 1
                 for d, row in zip(drafts, means, strict=True))


def tokens_per_round(passes: Sequence[float], k: int) -> float:
    """Returns E = 1 + P(the first check passes) + ... + P(the first k pass): tokens per round, bonus included."""
    return 1 + sum(passes[:k])


def passed_counts(p: generate.Rows, q: generate.Rows, prompt: tuple[int, ...], seed: int) -> np.ndarray:
    """Returns [PROFILE_ROUNDS] how many checks each of PROFILE_ROUNDS rounds passed before its end, each round
    drafting PROFILE_K tokens and continuing the text: a round of any k <= PROFILE_K passes its first i checks
    exactly when this one does."""
    return np.array(generate.checks_passed(p, q, prompt, PROFILE_K, generate.mulberry32(seed), PROFILE_ROUNDS))


def all_passed_counts(target: ngram.Model, drafts: tuple[ngram.Model, ...], temperatures: tuple,
                      prompt: tuple[int, ...], seed: int) -> list[list[np.ndarray | None]]:
    """Returns [drafts][temperatures] passed_counts of each draft against the target at each temperature, None for
    the target as its own draft; the target's tempered rows are shared by every draft at a temperature."""
    out: list[list[np.ndarray | None]] = [[] for _ in drafts]
    for t in temperatures:
        p = generate.rows(target, float(t))
        for row, q in zip(out, drafts, strict=True):
            row.append(None if q is target else passed_counts(p, generate.rows(q, float(t)), prompt, seed))
    return out


def profile_of(passed: np.ndarray) -> tuple[float, ...]:
    """Returns [PROFILE_K] the share of the rounds whose first i checks all passed, i = 1..PROFILE_K."""
    return tuple(round(float(np.mean(passed >= i)), 4) for i in range(1, PROFILE_K + 1))


def pass_profile(p: generate.Rows, q: generate.Rows, prompt: tuple[int, ...], seed: int) -> tuple[float, ...]:
    """Returns [PROFILE_K] the share of PROFILE_ROUNDS rounds whose first i checks all passed (passed_counts)."""
    return profile_of(passed_counts(p, q, prompt, seed))


def half_width(passed: Sequence[int] | np.ndarray, k: int) -> float:
    """Returns the 95% half-width (Z95 standard errors) of tokens_per_round at k estimated from rounds that passed
    `passed` checks each: a round of k commits 1 + min(passed, k) tokens, and the estimate is their mean."""
    tokens = 1 + np.minimum(np.asarray(passed), k)  # [rounds]
    if len(tokens) < 2:
        return float("inf")  # one round says nothing about its spread
    return Z95 * float(np.std(tokens, ddof=1)) / float(np.sqrt(len(tokens)))


def spread_of(passed: np.ndarray) -> tuple[float, ...]:
    """Returns [PROFILE_K] half_width at k = 1..PROFILE_K, to 4 places."""
    return tuple(round(half_width(passed, k), 4) for k in range(1, PROFILE_K + 1))


Rates = tuple[tuple, tuple, tuple]  # (alphas, passes, spreads) as LanguageRun holds them


def rates_of(target: ngram.Model, drafts: tuple[ngram.Model, ...], seen: Counter, s: LanguageModel,
             prompt: tuple[int, ...]) -> Rates:
    """Returns the pair's (alphas, passes, spreads): most of the analysis's time, and a function of the tokens and
    the settings alone, so the build keeps them apart (.cache/language/) and a profile edit does not redo them."""
    alphas = mean_alphas(target, drafts, seen, s.temperatures)
    counted = all_passed_counts(target, drafts, s.temperatures, prompt, s.seed + 2)
    passes = tuple(tuple((1.0,) * PROFILE_K if c is None else profile_of(c) for c in row) for row in counted)
    spreads = tuple(tuple(None if c is None else spread_of(c) for c in row) for row in counted)
    return alphas, passes, spreads


@functools.lru_cache(maxsize=4)
def explain(tokens: tuple[str, ...], s: LanguageModel, cost: CostModel, rates: Rates | None = None) -> LanguageRun:
    """Returns the model pair counted from the tokens, its accept rates and the page's seeded run; rates: the
    pair's rates_of(), when a cache holds them for these tokens and settings."""
    problem = corpus_problem(tokens)
    if problem:
        raise CorpusError(problem)
    vocab = ngram.vocabulary(tokens)
    index = {t: i for i, t in enumerate(vocab)}
    ids = tuple(index[t] for t in tokens)
    d = float(s.discount)
    target = ngram.model(ids, len(vocab), s.target_order, d)
    drafts = (*(ngram.model(ids, len(vocab), m, d) for m in s.draft_orders), target)
    seen = contexts(ids, s.target_order - 1)
    prompt = ids[:s.target_order - 1]
    alphas, passes, spreads = rates or rates_of(target, drafts, seen, s, prompt)
    t = float(s.default_temperature)
    p, q = generate.rows(target, t), generate.rows(drafts[(*s.draft_orders, s.target_order).index(s.default_draft)], t)
    run = tuple(generate.race(p, q, prompt, s.k, generate.mulberry32(s.seed), RACE_TOKENS))
    plain = generate.plain(p, prompt, generate.mulberry32(s.seed + 1), RACE_TOKENS)
    top = tuple(c for c, _ in sorted(seen.items(), key=lambda kv: -kv[1])[:20])
    return LanguageRun(settings=s, vocab=vocab, ids=ids, target=target, drafts=drafts, alphas=alphas, passes=passes,
                       spreads=spreads, run=run, plain=tuple(plain), goal=RACE_TOKENS, round_cost=round_cost(s.k, cost), top_contexts=top)

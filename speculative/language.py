"""Owns the generator's analysis: the model pair counted from the prose, its accept rates, and one seeded run."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from . import generate, ngram, sampler
from .dataset import CostModel
from .generate import GenRound
from .lm_settings import LanguageModel
from .prose import corpus_problem
from .sizes import PROFILE_K, PROFILE_ROUNDS
from .stats import round_cost

PAGE_ROUNDS = 12  # rounds in the precomputed run that readers without scripting see (at least 12)


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
    run: tuple[GenRound, ...]  # the seeded run at the default settings
    plain: tuple[int, ...]  # plain decoding's tokens in the same time, from the same seed's next draws
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
    by how often each occurs; the perfect draft (the target itself) passes every check."""
    contexts = list(seen)
    weight = np.array([seen[c] for c in contexts], float) / sum(seen.values())  # [C]
    rows = np.stack([target.row(c) for c in contexts])  # [C, V]
    p = [ngram.tempered(rows, float(t)) for t in temperatures]  # [T][C, V]
    out = []
    for draft in drafts:
        if draft is target:
            out.append((1.0,) * len(temperatures))
            continue
        q = np.stack([draft.row(c) for c in contexts])  # [C, V]
        out.append(tuple(float(weight @ sampler.overlap(pt, ngram.tempered(q, float(t))))
                         for pt, t in zip(p, temperatures, strict=True)))
    return tuple(out)


def tokens_per_round(passes: Sequence[float], k: int) -> float:
    """Returns E = 1 + P(the first check passes) + ... + P(the first k pass): tokens per round, bonus included."""
    return 1 + sum(passes[:k])


def pass_profile(p: generate.Rows, q: generate.Rows, prompt: tuple[int, ...], seed: int) -> tuple[float, ...]:
    """Returns [PROFILE_K] the share of PROFILE_ROUNDS rounds, each continuing the text, whose first i checks all
    passed: a round of any k <= PROFILE_K passes its first i checks exactly when this one does."""
    rounds = generate.generate(p, q, prompt, PROFILE_K, generate.mulberry32(seed), PROFILE_ROUNDS)
    passed = np.array([len(r.committed) - 1 for r in rounds])  # [rounds] accepted proposals before the end
    return tuple(round(float(np.mean(passed >= i)), 4) for i in range(1, PROFILE_K + 1))


@functools.lru_cache(maxsize=4)
def explain(tokens: tuple[str, ...], s: LanguageModel, cost: CostModel) -> LanguageRun:
    """Returns the model pair counted from the tokens, its accept rates and the page's seeded run."""
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
    alphas = mean_alphas(target, drafts, seen, s.temperatures)
    prompt = ids[:s.target_order - 1]
    passes = tuple(tuple((1.0,) * PROFILE_K if q is target else
                         pass_profile(generate.rows(target, float(t)), generate.rows(q, float(t)), prompt, s.seed + 2)
                         for t in s.temperatures) for q in drafts)
    t = float(s.default_temperature)
    p, q = generate.rows(target, t), generate.rows(drafts[(*s.draft_orders, s.target_order).index(s.default_draft)], t)
    run = tuple(generate.generate(p, q, prompt, s.k, generate.mulberry32(s.seed), PAGE_ROUNDS))
    each = round_cost(s.k, cost)
    plain = generate.plain(p, prompt, generate.mulberry32(s.seed + 1), int(each * PAGE_ROUNDS))
    top = tuple(c for c, _ in sorted(seen.items(), key=lambda kv: -kv[1])[:20])
    return LanguageRun(settings=s, vocab=vocab, ids=ids, target=target, drafts=drafts, alphas=alphas, passes=passes, run=run,
                       plain=tuple(plain), round_cost=each, top_contexts=top)

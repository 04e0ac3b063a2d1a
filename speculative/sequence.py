"""Owns the context-dependent toy: a target and draft that depend on the previous token, and texts drawn from it.

The page quotes one run of it (`figures`), and the check command runs it at full size; both call `joint`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import sampler

SEED = 20230217  # the seed of the page's run and of the suite's
LENGTH = 4  # the first L tokens of each text: V**L cells
PAGE_TEXTS = 20_000  # the smaller run whose joint TV the page quotes (small enough for every build)


@dataclass(frozen=True)
class Chain:
    """A context-dependent toy: target and draft depend on the previous token; texts start after `start`."""

    vocabulary: tuple[str, ...]
    target: np.ndarray  # [V, V] next token given the previous one, the same at every position
    draft: np.ndarray  # [k, V, V] the draft, which may differ by position in the round
    start: int  # the token before the first: p(x1) = target[start]

    def tables(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Returns the sampler's target [k, V, V], draft [k, V, V] and bonus [V, V]."""
        return np.broadcast_to(self.target, self.draft.shape), self.draft, self.target


TOY = Chain(  # hand-authored eighths; rows differ so that a wrong context shows
    vocabulary=("a", "b", "c"),
    target=np.array([[1, 5, 2], [6, 1, 1], [2, 2, 4]]) / 8,
    draft=np.array([[[4, 2, 2], [2, 4, 2], [3, 3, 2]],
                    [[2, 4, 2], [4, 1, 3], [1, 3, 4]],
                    [[1, 6, 1], [3, 3, 2], [2, 4, 2]]]) / 8,
    start=0,
)


def chain_probs(chain: Chain, length: int) -> np.ndarray:
    """Returns [V] * length the exact joint p(x1) p(x2|x1) ... p(xL|xL-1) of the toy's first tokens."""
    joint = chain.target[chain.start]  # [V]
    for _ in range(length - 1):
        joint = joint[..., None] * chain.target  # [V]*t -> [V]*(t+1): p(prefix) * p(next | its last token)
    return joint


def text_counts(texts: np.ndarray, vocab_size: int) -> np.ndarray:
    """Returns [V**L] how often each sequence of L tokens opens a text: texts [n, L] -> counts."""
    cells = np.ravel_multi_index(tuple(texts.T.astype(np.int64)), (vocab_size,) * texts.shape[1])  # [n]
    return np.bincount(cells, minlength=vocab_size ** texts.shape[1])


def joint(chain: Chain, texts: int, rng: np.random.Generator, rule: sampler.Rule = sampler.RULE,
          length: int = LENGTH) -> tuple[np.ndarray, np.ndarray]:
    """Returns counts [V**L] of the first `length` tokens of drawn texts, and their exact probabilities [V**L]."""
    drawn = sampler.sample_texts(*chain.tables(), texts, length, rng, chain.start, rule)  # [n, L]
    return text_counts(drawn, len(chain.vocabulary)), chain_probs(chain, length).ravel()


def figures(chain: Chain = TOY, texts: int = PAGE_TEXTS, seed: int = SEED) -> tuple[float, float]:
    """Returns the joint TV of the page's run and its bound, rounded as the page keeps them (no scipy)."""
    counts, probs = joint(chain, texts, np.random.default_rng(seed))
    tv, bound = sampler.total_variation(counts, probs), sampler.tv_bound(texts, len(probs))
    return round(tv, 6), round(bound, 6)

"""A small real model pair counted from the page's own prose: interpolated Kneser-Ney n-gram models.

Kneser & Ney (1995), interpolated as in Chen & Goodman (1998, "An empirical study of smoothing techniques", eq. 17
with one discount d): the highest order counts n-grams, every lower order counts continuations (how many distinct
tokens precede a context), and the lowest level is uniform over the vocabulary, so every token has p > 0 everywhere:

    p_n(w | h) = max(c(h w) - d, 0) / c(h .) + d N1+(h .) / c(h .) * p_{n-1}(w | h')      (h' = h without its oldest)

where c is a count at the highest order and a continuation count N1+(. h w) below it; a context never seen passes
all its mass down (p_n(w | h) = p_{n-1}(w | h')). Imports nothing but numpy and the standard library.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np


@dataclass(frozen=True)
class Counts:
    """The counts one order of the model reads: context -> (next tokens, their counts), and each context's total."""

    follow: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]]  # h -> ([m] token ids, [m] counts)
    total: dict[tuple[int, ...], int]  # h -> sum of its counts


@dataclass(frozen=True)
class Model:
    """An interpolated Kneser-Ney model of one order over a vocabulary; rows are computed on demand and cached."""

    order: int
    vocab_size: int
    discount: float
    levels: tuple[Counts, ...]  # [order] level m (1-based) at index m - 1: raw counts at the top, continuations below
    _rows: dict = field(default_factory=dict, compare=False, repr=False)

    def row(self, context: Sequence[int]) -> np.ndarray:
        """Returns p(. | context) [V], reading the last order - 1 tokens of the context; contexts with the same key
        share one read-only row."""
        return self.keyed(self.key(context))

    def key(self, context: Sequence[int]) -> tuple[int, tuple[int, ...]]:
        """Returns (m, h): the level m whose counts the row of this context starts from and the context h it reads
        there, the context's last m - 1 tokens. A context unseen at a level passes all its mass down, so contexts
        with the same key have the same row: a trigram's unseen contexts share the bigram's row of their last token."""
        return self._seen(self.order, tuple(context[len(context) - self.order + 1:]) if self.order > 1 else ())

    def _seen(self, m: int, h: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
        """Returns the first (level, context) from (m, h) down, each level dropping the oldest token, that has counts
        (level 1 at the latest): the level whose row h's row at level m is."""
        while m > 1 and h not in self.levels[m - 1].follow:
            m, h = m - 1, h[1:]
        return m, h

    def keyed(self, key: tuple[int, tuple[int, ...]]) -> np.ndarray:
        """Returns the row [V] of a key(), computed once and read-only."""
        found = self._rows.get(key)
        if found is None:
            found = self._rows[key] = self._level(*key)
            found.flags.writeable = False
        return found

    def _level(self, m: int, h: tuple[int, ...]) -> np.ndarray:
        lower = self.keyed(self._seen(m - 1, h[1:])) if m > 1 else np.full(self.vocab_size, 1.0 / self.vocab_size)  # [V]
        counts = self.levels[m - 1]
        if h not in counts.follow:
            return lower  # an unseen context passes all its mass down
        ids, c = counts.follow[h]
        total = counts.total[h]
        out = lower * (self.discount * len(ids) / total)  # [V] gamma(h) * p_{m-1}
        out[ids] += np.maximum(c - self.discount, 0.0) / total
        return out


def ngram_counts(ids: Sequence[int], n: int) -> Counter:
    """Returns how often each n-gram (a tuple of n ids) occurs in the stream."""
    return Counter(tuple(ids[i:i + n]) for i in range(len(ids) - n + 1))


def grouped(grams: Iterable[tuple[tuple[int, ...], int]]) -> Counts:
    """Returns counts grouped by context: (h + (w,), c) pairs -> h -> (ids, counts)."""
    by: dict[tuple[int, ...], dict[int, int]] = defaultdict(dict)
    for gram, c in grams:
        by[gram[:-1]][gram[-1]] = c
    follow = {h: (np.array(sorted(d)), np.array([d[w] for w in sorted(d)], float)) for h, d in by.items()}
    return Counts(follow=follow, total={h: int(c.sum()) for h, (_, c) in follow.items()})


def level_counts(ids: Sequence[int], m: int, top: bool) -> Counts:
    """Returns level m's counts: n-gram counts at the top order, continuation counts N1+(. h w) below it."""
    if top:
        return grouped(ngram_counts(ids, m).items())
    continuation = Counter(gram[1:] for gram in ngram_counts(ids, m + 1))  # distinct tokens before each m-gram
    return grouped(continuation.items())


def model(ids: Sequence[int], vocab_size: int, order: int, discount: float) -> Model:
    """Returns the interpolated Kneser-Ney model of `order` counted from a stream of token ids."""
    levels = tuple(level_counts(ids, m, m == order) for m in range(1, order + 1))
    return Model(order=order, vocab_size=vocab_size, discount=discount, levels=levels)


def vocabulary(tokens: Sequence[str]) -> tuple[str, ...]:
    """Returns the distinct tokens, most frequent first, and in order of first appearance among equals: the order
    ties are broken in, and the order that lets the page carry the commonest tokens' ids in one character."""
    first = {t: i for i, t in reversed(list(enumerate(tokens)))}
    counts = Counter(tokens)
    return tuple(sorted(first, key=lambda t: (-counts[t], first[t])))


def tempered(p: np.ndarray, temperature: float) -> np.ndarray:
    """Returns p^(1/T) renormalised along the last axis [..., V]; T = 0 is greedy: all mass on the top token, the
    first on a tie."""
    if temperature == 1:
        return p
    if temperature == 0:
        top = np.zeros(p.shape)  # [..., V] one-hot, without np.eye's V x V matrix (7 MB at the prose's 970 tokens)
        np.put_along_axis(top, np.argmax(p, axis=-1)[..., None], 1.0, axis=-1)
        return top
    w = p ** (1.0 / temperature)  # [..., V]
    return w / w.sum(-1, keepdims=True)


def exact_row(ids: Sequence[int], vocab_size: int, order: int, discount: Fraction,
              context: Sequence[int]) -> list[Fraction]:
    """Returns p(. | context) [V] in exact fractions: the same model as model(), for tests and spot checks."""
    levels = [level_counts(ids, m, m == order) for m in range(1, order + 1)]
    h = tuple(context[len(context) - order + 1:]) if order > 1 else ()
    row = [Fraction(1, vocab_size)] * vocab_size
    for m in range(1, order + 1):
        hm = h[len(h) - m + 1:] if m > 1 else ()
        if hm not in levels[m - 1].follow:
            continue
        got, c = levels[m - 1].follow[hm]
        total = levels[m - 1].total[hm]
        row = [r * discount * len(got) / total for r in row]
        for w, cw in zip(got.tolist(), c.tolist(), strict=True):
            row[w] += max(Fraction(int(cw)) - discount, Fraction(0)) / total
    return row

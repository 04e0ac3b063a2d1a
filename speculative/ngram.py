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
    """An interpolated Kneser-Ney model of one order over a vocabulary; each level's rows are worked out at once
    the first time one of them is asked for, and kept."""

    order: int
    vocab_size: int
    discount: float
    levels: tuple[Counts, ...]  # [order] level m (1-based) at index m - 1: raw counts at the top, continuations below
    _rows: dict = field(default_factory=dict, compare=False, repr=False)  # key() -> its row, a view of a table
    _tables: dict = field(default_factory=dict, compare=False, repr=False)  # level -> (its rows [N, V], h -> index)

    def row(self, context: Sequence[int]) -> np.ndarray:
        """Returns p(. | context) [V], reading the last order - 1 tokens of the context; contexts with the same key
        share one read-only row."""
        return self.keyed(self.key(context))

    def key(self, context: Sequence[int]) -> tuple[int, tuple[int, ...]]:
        """Returns (m, h): the level m whose counts the row of this context starts from and the context h it reads
        there, the context's last m - 1 tokens. A context unseen at a level passes all its mass down, so contexts
        with the same key have the same row: a trigram's unseen contexts share the bigram's row of their last token."""
        h = tuple(context[len(context) - self.order + 1:]) if self.order > 1 else ()
        return (self.order, h) if h in self.levels[-1].follow else self._seen(self.order, h)  # the top: most often

    def _seen(self, m: int, h: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
        """Returns the first (level, context) from (m, h) down, each level dropping the oldest token, that has counts
        (level 1 at the latest): the level whose row h's row at level m is."""
        while m > 1 and h not in self.levels[m - 1].follow:
            m, h = m - 1, h[1:]
        return m, h

    def keyed(self, key: tuple[int, tuple[int, ...]]) -> np.ndarray:
        """Returns the row [V] of a key(): a read-only view of its level's table, or the uniform row for a context no
        level has counts after."""
        found = self._rows.get(key)
        if found is None:
            table, index = self._table(key[0])
            at = index.get(key[1])
            found = self._rows[key] = table[at] if at is not None else np.full(self.vocab_size, 1.0 / self.vocab_size)
            found.flags.writeable = False
        return found

    def rows_of(self, contexts: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
        """Returns (rows [U, V], index [C]): each context's row is rows[index[c]]. When every context's row is in one
        level's table (a trigram's contexts seen in its own counts), rows is that table itself, not a copy; otherwise
        the distinct rows, stacked in order of first use."""
        return self._gathered([self.key(c) for c in contexts])

    def _gathered(self, keys: list[tuple[int, tuple[int, ...]]]) -> tuple[np.ndarray, np.ndarray]:
        """Returns rows_of() for the contexts of these keys."""
        if keys and len({m for m, _ in keys}) == 1:
            table, at = self._table(keys[0][0])
            if all(h in at for _, h in keys):
                return table, np.array([at[h] for _, h in keys], np.intp)
        first: dict[tuple[int, tuple[int, ...]], int] = {}
        index = np.array([first.setdefault(key, len(first)) for key in keys], np.intp)  # [C]
        return np.stack([self.keyed(key) for key in first]) if first else np.empty((0, self.vocab_size)), index

    def _table(self, m: int) -> tuple[np.ndarray, dict[tuple[int, ...], int]]:
        """Returns level m's rows [N, V] of every context it has counts after, worked out at once as the formula
        reads for one, gamma(h) * p_{m-1} then the discounted counts added, and each context's index among them."""
        if m in self._tables:
            return self._tables[m]
        counts, V = self.levels[m - 1], self.vocab_size
        contexts = list(counts.follow)
        if m == 1:
            out = np.full((len(contexts), V), 1.0 / V)  # [N, V]
        else:  # each context's lower row: from level m - 1's table, copied in one gather
            lower, at = self._gathered([self._seen(m - 1, h[1:]) for h in contexts])
            out = lower[at]  # [N, V]
        sizes = [len(counts.follow[h][0]) for h in contexts]  # [N]
        totals = np.array([counts.total[h] for h in contexts], np.int64)  # [N]
        out *= np.array([self.discount * n / counts.total[h] for n, h in zip(sizes, contexts, strict=True)])[:, None]
        rows = np.repeat(np.arange(len(contexts)), sizes)  # [entries] each count's context
        ids = np.concatenate([counts.follow[h][0] for h in contexts]) if contexts else np.empty(0, np.int64)
        c = np.concatenate([counts.follow[h][1] for h in contexts]) if contexts else np.empty(0)
        out[rows, ids] += np.maximum(c - self.discount, 0.0) / np.repeat(totals, sizes)  # each (row, id) once
        out.flags.writeable = False
        self._tables[m] = out, {h: i for i, h in enumerate(contexts)}
        return self._tables[m]


def ngram_counts(ids: Sequence[int], n: int) -> Counter:
    """Returns how often each n-gram (a tuple of n ids) occurs in the stream."""
    return Counter(tuple(ids[i:i + n]) for i in range(len(ids) - n + 1))


def grouped(grams: Iterable[tuple[tuple[int, ...], int]]) -> Counts:
    """Returns counts grouped by context: (h + (w,), c) pairs -> h -> (ids, counts)."""
    by: dict[tuple[int, ...], dict[int, int]] = defaultdict(dict)
    for gram, c in grams:
        by[gram[:-1]][gram[-1]] = c
    follow = {h: (np.array(sorted(d)), np.array([d[w] for w in sorted(d)], float)) for h, d in by.items()}
    return Counts(follow=follow, total={h: sum(d.values()) for h, d in by.items()})


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


def tempered(p: np.ndarray, temperature: float, out: np.ndarray | None = None) -> np.ndarray:
    """Returns p^(1/T) renormalised along the last axis [..., V]; T = 0 is greedy: all mass on the top token, the
    first on a tie. With `out` (p's shape, or p itself), the result is written there, and no array is made for it
    (T = 1 still returns p itself): a block tempered again and again reuses its memory."""
    if temperature == 1:
        return p
    if temperature == 0:
        best = np.argmax(p, axis=-1)  # [...] before `out`, which may be p itself, is cleared
        top = np.zeros(p.shape) if out is None else out  # [..., V] one-hot, without np.eye's V x V matrix
        if out is not None:
            top[...] = 0.0
        if p.ndim == 1:
            top[best] = 1.0  # one row, as put_along_axis sets it, at a tenth of the cost
        else:
            np.put_along_axis(top, best[..., None], 1.0, axis=-1)
        return top
    # over the row's largest first, so the largest is 1 and no row underflows to all zeros at a small temperature
    # (0.05^263 is below the smallest float); the ratios, so the renormalised row, are the same
    if out is None:
        w = (p / p.max(-1, keepdims=True)) ** (1.0 / temperature)  # [..., V]
        return w / w.sum(-1, keepdims=True)
    power = {2.0: np.square, 0.5: np.sqrt}.get(1.0 / temperature)  # the exponents `**` computes so, as it does
    np.divide(p, p.max(-1, keepdims=True), out=out)
    if power is None:
        np.power(out, 1.0 / temperature, out=out)
    else:
        power(out, out=out)
    out /= out.sum(-1, keepdims=True)
    return out


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

"""The generator's models: the corpus taken from the prose, and interpolated Kneser-Ney checked against the
textbook formula written out here on its own.

The formula is Chen & Goodman's interpolated Kneser-Ney ("An empirical study of smoothing techniques for language
modeling", 1998, eq. 17, with one discount d), bottoming out in the uniform distribution:

    p_n(w | h) = max(c(h w) - d, 0) / c(h .) + d * N1+(h .) / c(h .) * p_{n-1}(w | h')

with raw counts c at the top order and continuation counts N1+(. h w) (distinct tokens seen before h w) below it.
nltk's KneserNeyInterpolated is not used as the oracle because its definition differs: its recursion ends in a
uniform 1/V without the unigram continuation level, so its trigram interpolates trigram, bigram continuation and
uniform only."""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction

import numpy as np
import pytest

from speculative import ngram, prose


def textbook(ids: list[int], V: int, order: int, d: Fraction, context: tuple[int, ...], w: int) -> Fraction:
    """Returns p(w | context) by the formula above, with every count taken straight from the stream."""
    def level(m: int, h: tuple[int, ...]) -> Fraction:
        lower = level(m - 1, h[1:]) if m > 1 else Fraction(1, V)
        if m == order:  # raw counts of h followed by each token
            follow: dict[int, int] = defaultdict(int)
            for i in range(len(ids) - m + 1):
                if tuple(ids[i:i + m - 1]) == h:
                    follow[ids[i + m - 1]] += 1
        else:  # continuation counts: how many distinct tokens come just before h followed by each token
            before: dict[int, set] = defaultdict(set)
            for i in range(1, len(ids) - m + 1):
                if tuple(ids[i:i + m - 1]) == h:
                    before[ids[i + m - 1]].add(ids[i - 1])
            follow = {y: len(s) for y, s in before.items()}
        total = sum(follow.values())
        if total == 0:
            return lower
        return max(Fraction(follow.get(w, 0)) - d, Fraction(0)) / total + d * len(follow) / total * lower
    h = tuple(context[len(context) - order + 1:]) if order > 1 else ()
    return level(order, h)


SMALL = "the cat sat on the mat . the cat ate the rat . a rat sat on a cat ."


def small() -> tuple[list[int], int]:
    tokens = prose.tokenize(SMALL)
    vocab = ngram.vocabulary(tokens)
    return [vocab.index(t) for t in tokens], len(vocab)


@pytest.mark.parametrize("order", [1, 2, 3, 4])
def test_the_model_is_the_textbook_formula_on_a_small_corpus(order):
    ids, V = small()
    m = ngram.model(ids, V, order, 0.75)
    contexts = {tuple(ids[i:i + 3]) for i in range(len(ids) - 2)} | {(0, 0, 0), (V - 1, 2, 1)}  # seen and unseen
    for c in sorted(contexts):
        exact = [textbook(ids, V, order, Fraction(3, 4), c, w) for w in range(V)]
        assert sum(exact) == 1
        assert np.allclose(m.row(c), [float(x) for x in exact], rtol=0, atol=1e-15), c
        assert ngram.exact_row(ids, V, order, Fraction(3, 4), c) == exact


def test_every_row_of_the_shipped_models_sums_to_one_and_gives_every_token_a_chance(explained):
    run = explained.language
    for m in run.drafts:  # the target is the last draft
        for i in range(2, len(run.ids)):
            row = m.row(run.ids[i - 2:i])
            assert abs(row.sum() - 1) < 1e-12 and row.min() > 0, (m.order, i)


def test_a_handful_of_shipped_contexts_sum_to_exactly_one_in_fractions(explained):
    run, d = explained.language, explained.language.settings.discount
    ids = list(run.ids)
    for c in run.top_contexts[:3] + (run.prompt,):
        exact = ngram.exact_row(ids, len(run.vocab), run.settings.target_order, d, c)
        assert sum(exact) == 1
        assert np.allclose(run.target.row(c), [float(x) for x in exact], rtol=0, atol=1e-15)
        w = int(np.argmax(run.target.row(c)))
        assert exact[w] == textbook(ids, len(run.vocab), run.settings.target_order, d, c, w)


def test_a_wrong_discount_or_level_fails_the_comparison():
    ids, V = small()
    c = tuple(ids[:2])
    right = [float(textbook(ids, V, 3, Fraction(3, 4), c, w)) for w in range(V)]
    assert not np.allclose(ngram.model(ids, V, 3, 0.5).row(c), right, atol=1e-9)
    flat = ngram.Model(order=3, vocab_size=V, discount=0.75,  # every level with raw counts: not Kneser-Ney
                       levels=tuple(ngram.level_counts(ids, m, True) for m in (1, 2, 3)))
    assert not np.allclose(flat.row(c), right, atol=1e-9)


@pytest.mark.parametrize("markdown, tokens", [
    ("A **bold** claim, and `code`.", ["A", "bold", "claim", ",", "and", "code", "."]),
    ("{{ n.tokens }} and {% if x %}kept{% endif %} {# note #}", ["and", "kept"]),
    ('<span class="js-only">Press <strong>Play</strong></span>', ["Press", "Play"]),
    ("[the paper](https://arxiv.org/abs/2211.17192) says", ["the", "paper", "says"]),
    ("It costs 3.92 or 1,000; the target's p", ["It", "costs", "3.92", "or", "1,000", ";", "the", "target's", "p"]),
    ("1. **Propose.** First\n- item\n# Head", ["Propose", ".", "First", "item", "Head"]),
    ("k&nbsp;+&nbsp;1 α ≥ p", ["k", "+", "1", "α", "≥", "p"]),
    ("a context-dependent toy - here", ["a", "context-dependent", "toy", "-", "here"]),
    ("the target’s p and the draft's q", ["the", "target’s", "p", "and", "the", "draft's", "q"]),
])
def test_the_corpus_keeps_words_numbers_and_marks_and_drops_markup(markdown, tokens):
    assert list(prose.corpus([markdown])) == tokens


def test_case_is_kept_and_the_vocabulary_is_most_frequent_first_then_in_order_of_first_appearance():
    assert ngram.vocabulary(prose.tokenize("The cat . the Cat . cat")) == ("cat", ".", "The", "the", "Cat")


def test_too_little_prose_is_refused_with_what_was_found():
    assert prose.corpus_problem(tuple(["a", "b", "a", "b"])) == (
        "found 4 tokens of prose (2 distinct) once template syntax, HTML and markup are removed; expected at least "
        "20 tokens, 2 of them distinct, for the generator's models to be counted from")
    assert prose.corpus_problem(("a",) * 30).startswith("found 30 tokens of prose (1 distinct)")
    assert prose.corpus_problem(tuple(["a", "b"] * 10)) is None


@pytest.mark.parametrize("t", [0.5, 1.5])
def test_temperature_sharpens_or_flattens_and_zero_is_greedy_with_the_first_top_token(t):
    p = np.array([0.1, 0.4, 0.4, 0.1])
    out = ngram.tempered(p, t)
    assert abs(out.sum() - 1) < 1e-12 and (out[1] > 0.4) == (t < 1)
    assert ngram.tempered(p, 0).tolist() == [0, 1, 0, 0]
    assert ngram.tempered(p, 1) is p


@pytest.mark.parametrize("t", [0, 0.5, 1, 1.5, 4])
def test_tempering_into_a_block_made_once_gives_the_same_rows(t):
    p = np.random.default_rng(1).dirichlet(np.ones(50), size=20)  # [20, 50]
    block = np.full_like(p, np.nan)
    got = ngram.tempered(p, t, out=block)
    assert np.array_equal(got, ngram.tempered(p, t)) and got is (p if t == 1 else block)
    again = p.copy()  # the block tempered in place, as mean_alphas tempers its target rows
    assert np.array_equal(ngram.tempered(again, t, out=again), got)

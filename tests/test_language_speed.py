"""The generator analysis' fast paths (issue 42) against the plain code they stand for, exactly: the standard rule's
rounds (generate.standard_round) and the build's count of checks passed (generate.checks_passed) against the general
round under an equal copy of the rule, the n-gram models' tables against the formula's recursion row by row, and
mulberry32's blocks against its one-draw definition. Deliberately broken fast paths are shown to be caught, so
agreement is not vacuous."""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from collections.abc import Callable

import numpy as np
import pytest

from speculative import generate, language, ngram, sampler

pytestmark = pytest.mark.data_independent

GENERAL = dataclasses.replace(sampler.RULE)  # the same rule, but not RULE itself: one_round's general path


@pytest.fixture(scope="module")
def run(explained):
    return explained.language


def both(p_rows: Callable[[], generate.Rows], q_rows: Callable[[], generate.Rows], prompt: tuple[int, ...], k: int,
         seed: int, rounds: int) -> tuple[list[generate.GenRound], list[generate.GenRound]]:
    """Returns (the fast path's rounds, the general path's rounds) from fresh rows and the same mulberry32 seed."""
    fast = generate.generate(p_rows(), q_rows(), prompt, k, generate.mulberry32(seed), rounds)
    general = generate.generate(p_rows(), q_rows(), prompt, k, generate.mulberry32(seed), rounds, GENERAL)
    return fast, general


def model_pair(run, draft: int, t: float) -> tuple[Callable[[], generate.Rows], Callable[[], generate.Rows]]:
    return (lambda: generate.rows(run.target, t)), (lambda: generate.rows(run.drafts[draft], t))


def test_the_general_path_is_taken_for_an_equal_copy_of_the_rule_and_the_fast_one_for_the_rule_itself(monkeypatch):
    p, q = np.array([0.25, 0.75]), np.array([0.5, 0.5])
    calls = []
    real = generate.standard_round
    monkeypatch.setattr(generate, "standard_round", lambda *a: calls.append(a) or real(*a))
    generate.one_round(lambda c: p, lambda c: q, (0,), 2, generate.mulberry32(1), GENERAL)
    assert calls == [] and GENERAL == sampler.RULE
    generate.one_round(lambda c: p, lambda c: q, (0,), 2, generate.mulberry32(1))
    assert len(calls) == 1


@pytest.mark.parametrize("draft", [0, 1])
@pytest.mark.parametrize("t", [0.0, 0.5, 1.0, 1.5])
def test_the_fast_round_is_the_general_round_draw_for_draw_on_the_model_pair(run, draft, t):
    p, q = model_pair(run, draft, t)
    fast, general = both(p, q, run.prompt, language.PROFILE_K, run.settings.seed + 2, 200)
    assert fast == general
    passed = generate.checks_passed(p(), q(), run.prompt, language.PROFILE_K, generate.mulberry32(run.settings.seed + 2),
                                    200)
    assert passed == [len(r.committed) - 1 for r in general]
    assert any(r.kinds[-1] == generate.REPLACED for r in fast) or t == 0.0  # rejections met (greedy: maybe none)


@pytest.mark.parametrize("k", [1, 3])
def test_the_fast_race_and_rounds_on_tiny_rows_with_zeros_match_the_general_path(k):
    """Rows with zero entries (q(x) = 0 for tokens p gives mass, a trailing zero), where chance decides often."""
    rng = np.random.default_rng(5)
    table = {c: rng.dirichlet(np.ones(5)) * (rng.random(5) > 0.3) for c in range(5)}
    table = {c: (row if row.sum() else np.eye(5)[c]) / (row.sum() or 1) for c, row in table.items()}
    p, q = (lambda c: table[c[-1]]), (lambda c: table[(c[-1] + 1) % 5])
    fast, general = both(lambda: p, lambda: q, (0, 1), k, 11, 400)
    assert fast == general and {r.kinds[-1] for r in fast} == {generate.REPLACED, generate.BONUS}
    assert generate.checks_passed(p, q, (0, 1), k, generate.mulberry32(11), 400) == [len(r.committed) - 1
                                                                                    for r in general]
    u = list(itertools.islice(generate.mulberry32(3), 5000))
    assert generate.race(p, q, (0, 1), k, iter(u), 200) == generate.race(p, q, (0, 1), k, iter(u), 200, GENERAL)


def stale_sums(self: generate.Row, u: float, first: list = []) -> int:  # noqa: B006 (the stale cache itself)
    """Draws from the cumulative sums of the first row ever drawn from: sums cached under the wrong key."""
    first[:] = first or [generate.cumulative(self.probs)]
    return generate.pick(*first[0], u)


BROKEN_FAST_PATHS = {  # name -> (what is replaced, by what): each a mistake the fast path could make
    "accept ratio upside down": ((generate, "accept_at"), lambda p, q, x: float(min(1.0, q[x] / p[x]))),
    "replacement from p, q not subtracted": ((generate.Row, "residual"), lambda self, target: target),
    "every context one row": ((generate, "rows"),
                              lambda m, t: generate.Cached(lambda c: ngram.tempered(m.row(c), t), lambda c: 0)),
    "sums of another row": ((generate.Row, "draw"), stale_sums),
}


@pytest.mark.parametrize("name", list(BROKEN_FAST_PATHS))
def test_a_broken_fast_path_disagrees_with_the_general_path(run, monkeypatch, name):
    (owner, attr), broken = BROKEN_FAST_PATHS[name]
    general = generate.generate(generate.rows(run.target, 1.0), generate.rows(run.drafts[1], 1.0), run.prompt, 4,
                                generate.mulberry32(7), 200, GENERAL)
    monkeypatch.setattr(owner, attr, broken)
    fast = generate.generate(generate.rows(run.target, 1.0), generate.rows(run.drafts[1], 1.0), run.prompt, 4,
                             generate.mulberry32(7), 200)
    passed = generate.checks_passed(generate.rows(run.target, 1.0), generate.rows(run.drafts[1], 1.0), run.prompt, 4,
                                    generate.mulberry32(7), 200)
    assert fast != general and passed != [len(r.committed) - 1 for r in general]


def test_a_pass_profile_is_the_same_through_either_path(run):
    """passed_counts (the build's expected tokens per round) reads the fast path; the general path gives the same."""
    t = float(run.settings.temperatures[-1])
    p, q = model_pair(run, 1, t)
    want = language.passed_counts(p(), q(), run.prompt, run.settings.seed + 2)
    rounds = generate.generate(p(), q(), run.prompt, language.PROFILE_K, generate.mulberry32(run.settings.seed + 2),
                               language.PROFILE_ROUNDS, GENERAL)
    assert want.tolist() == [len(r.committed) - 1 for r in rounds]


# --- the models' tables ------------------------------------------------------------------------------------------

def recursive_row(m: ngram.Model, context: tuple[int, ...]) -> np.ndarray:
    """Returns p(. | context) by the formula's recursion, one row at a time, as the models computed it before their
    tables: gamma(h) * p_{m-1}, then the discounted counts added; an unseen context passes its lower row down."""
    def level(n: int, h: tuple[int, ...]) -> np.ndarray:
        lower = level(n - 1, h[1:]) if n > 1 else np.full(m.vocab_size, 1.0 / m.vocab_size)
        counts = m.levels[n - 1]
        if h not in counts.follow:
            return lower
        ids, c = counts.follow[h]
        out = lower * (m.discount * len(ids) / counts.total[h])
        out[ids] += np.maximum(c - m.discount, 0.0) / counts.total[h]
        return out
    return level(m.order, tuple(context[len(context) - m.order + 1:]) if m.order > 1 else ())


@pytest.mark.parametrize("order", [1, 2, 3, 4])
def test_the_models_tables_are_the_recursion_bit_for_bit(run, order):
    ids = run.ids[:2000]
    m = ngram.model(ids, len(run.vocab), order, 0.75)
    contexts = [ids[i - 3:i] for i in range(3, len(ids), 3)] + [(5, len(run.vocab) - 1, 3), (len(run.vocab) - 1, 5, 5), (0,), ()]
    for c in contexts:
        assert np.array_equal(m.row(c), recursive_row(m, c)), c
        assert m.row(c) is m.keyed(m.key(c)) and not m.row(c).flags.writeable
    rows, index = m.rows_of(contexts)
    assert np.array_equal(rows[index], np.stack([m.row(c) for c in contexts]))


def test_a_table_with_the_lower_order_left_out_differs_from_the_recursion(run, monkeypatch):
    ids = run.ids[:2000]
    m = ngram.model(ids, len(run.vocab), 3, 0.75)
    monkeypatch.setattr(ngram.Model, "_seen", lambda self, n, h: (1, ()))  # every row built on the unigram level
    assert not all(np.array_equal(m.row(ids[i - 2:i]), recursive_row(m, ids[i - 2:i])) for i in range(2, 200))


def test_contexts_a_model_has_not_seen_share_the_row_of_their_seen_suffix(run):
    m = run.target
    unseen = [(a, b) for a, b in itertools.product(range(60), repeat=2) if (a, b) not in m.levels[2].follow]
    assert len(unseen) > 100
    for a, b in unseen:
        below = (2, (b,)) if (b,) in m.levels[1].follow else (1, ())
        assert m.key((a, b)) == below and m.row((a, b)) is m.keyed(below)
    rows, b = generate.rows(m, 0.5), unseen[0][1]
    same = [c for c in unseen if c[1] == b]
    assert len(same) > 1 and all(rows.entry(c) is rows.entry(same[0]) for c in same)  # one Row, its sums once


# --- mulberry32 --------------------------------------------------------------------------------------------------

def one_at_a_time(seed: int):
    """Yields mulberry32 as its definition reads, one 32-bit draw at a time."""
    m, a = 0xFFFFFFFF, seed & 0xFFFFFFFF
    while True:
        a = (a + 0x6D2B79F5) & m
        t = ((a ^ (a >> 15)) * (a | 1)) & m
        t = ((t + (((t ^ (t >> 7)) * (t | 61)) & m)) & m) ^ t
        yield ((t ^ (t >> 14)) & m) / 4294967296


@pytest.mark.parametrize("seed", [0, 1, 2026, 2028, 2**32 - 1, 2**32 + 7, -5])
def test_mulberry32_in_blocks_is_the_one_draw_definition_across_block_ends(seed):
    n = 3 * generate.MULBERRY_BLOCK + 17
    assert list(itertools.islice(generate.mulberry32(seed), n)) == list(itertools.islice(one_at_a_time(seed), n))


@pytest.mark.parametrize("block", [1, 7, 256])
def test_mulberry32_reads_the_same_whatever_its_block(monkeypatch, block):
    monkeypatch.setattr(generate, "MULBERRY_BLOCK", block)
    assert list(itertools.islice(generate.mulberry32(9), 600)) == list(itertools.islice(one_at_a_time(9), 600))


# --- the mean accept rates ---------------------------------------------------------------------------------------

def test_the_mean_accept_rates_do_not_depend_on_the_order_the_contexts_come_in(run):
    """mean_alphas reads the target's table in place when the prose's contexts come in its order (the shipped case)
    and gathers them otherwise; both give the rates, to rounding, and the rates are the weighted overlaps."""
    seen = language.contexts(run.ids, run.settings.target_order - 1)
    backwards = Counter(dict(reversed(seen.items())))
    got = language.mean_alphas(run.target, run.drafts, backwards, run.settings.temperatures)
    assert np.allclose(got, run.alphas, rtol=0, atol=1e-12) and got[-1] == (1.0,) * len(run.settings.temperatures)
    rows = np.stack([run.target.row(c) for c in seen])  # [C, V] the plain way, for one draft at one temperature
    q = np.stack([run.drafts[0].row(c) for c in seen])
    weight = np.array(list(seen.values())) / sum(seen.values())
    t = run.settings.temperatures.index(max(run.settings.temperatures))
    T = float(run.settings.temperatures[t])
    assert abs(run.alphas[0][t] - weight @ sampler.overlap(ngram.tempered(rows, T), ngram.tempered(q, T))) < 1e-12

"""Exact statistics: SPEC's figures from the shipped file, and the identities that hold for any draft."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np
import pytest

from speculative import checks, stats
from speculative.text import decimal_str

from .conftest import FIGURES, agreement_profile, random_dist


def by_id(explained, pid):
    return next(r for r in explained.results if r.profile.id == pid)


# The shipped figures (tests/conftest.py FIGURES): the data file was authored to produce them.
@pytest.mark.shipped
@pytest.mark.parametrize("pid", FIGURES)
def test_shipped_profiles_reproduce_the_authored_figures(explained, pid):
    r = by_id(explained, pid)
    assert " ".join(str(a) for a in r.stats.alphas) == FIGURES[pid]["alphas"]
    assert decimal_str(r.stats.expected) == FIGURES[pid]["expected"]
    assert decimal_str(r.stats.speedup) == FIGURES[pid]["speedup"]
    assert len(r.frames) == FIGURES[pid]["frames"]


@pytest.mark.shipped
def test_aligned_draft_is_accepted_outright_everywhere(dataset, explained):
    r = by_id(explained, "aligned")
    assert all(dataset.target[i][x] >= r.profile.draft[i][x] for i, x in enumerate(r.profile.proposals))
    assert [rec.tokens[x].accept for rec, x in zip(r.stats.records, r.profile.proposals, strict=True)] == [1] * dataset.k


@pytest.mark.shipped
def test_divergent_draft_passes_twice_then_proposes_a_zero_target_token(dataset, explained):
    r = by_id(explained, "divergent")
    assert [rec.tokens[x].accept for rec, x in zip(r.stats.records, r.profile.proposals, strict=True)][:2] == [1, 1]
    assert dataset.target[2][r.profile.proposals[2]] == 0 < r.profile.draft[2][r.profile.proposals[2]]


@pytest.mark.shipped
def test_every_shipped_probability_is_a_multiple_of_one_eighth(dataset):
    rows = list(dataset.target) + [dataset.bonus_target] + [row for p in dataset.profiles for row in p.draft]
    assert all((x * 8).denominator == 1 for row in rows for x in row)


def test_overlap_averages_over_every_token_not_the_proposed_one():
    p = (Fraction(1, 2), Fraction(1, 2), Fraction(0))
    q = (Fraction(1, 4), Fraction(1, 4), Fraction(1, 2))
    assert stats.overlap(p, q) == Fraction(1, 2)
    assert stats.accept_prob(p[0], q[0]) == 1


def test_expected_tokens_by_prefix_products():
    assert stats.expected_tokens([Fraction(1, 2), Fraction(1, 2)]) == 1 + Fraction(1, 2) + Fraction(1, 4)
    assert stats.expected_tokens([]) == 1


def test_expected_tokens_agree_two_ways_on_shipped_and_random_profiles(explained):
    for r in explained.results:
        assert r.stats.expected == r.stats.expected_from_distribution
        assert sum(r.stats.distribution) == 1
    rng = np.random.default_rng(5)
    for _ in range(200):
        alphas = [Fraction(int(rng.integers(0, 17)), 16) for _ in range(int(rng.integers(1, 9)))]
        dist = stats.tokens_distribution(alphas)
        assert sum(dist) == 1 and stats.mean_tokens(dist) == stats.expected_tokens(alphas)


def commit_by_enumeration(p, q) -> list[Fraction]:
    """Returns P(commit y) by summing over every proposal x: accepted with min(1, p/q), else the residual's draw."""
    raw = [max(Fraction(0), a - b) for a, b in zip(p, q, strict=True)]
    total = sum(raw, Fraction(0))
    chance = [Fraction(0)] * len(p)
    for x, qx in enumerate(q):
        if qx == 0:
            continue
        keep = min(Fraction(1), p[x] / qx)
        chance[x] += qx * keep
        for y, r in enumerate(raw):
            chance[y] += qx * (1 - keep) * (r / total if total else 0)
    return chance


def check_identity(p, q):
    """The residual's normalising total is the rejection chance 1 - alpha, and the rule commits y with chance p(y)."""
    alpha = stats.overlap(p, q)
    res = [t.residual for t in stats.position_record(p, q, 1).tokens]
    for y, (a, b) in enumerate(zip(p, q, strict=True)):
        assert (1 - alpha) * (res[y] or 0) == max(Fraction(0), a - b)
    assert stats.commit_chance(p, q) == commit_by_enumeration(p, q) == list(p)


def test_rejection_identity_holds_exactly_on_shipped_profiles(dataset):
    for profile in dataset.profiles:
        for p, q in zip(dataset.target, profile.draft, strict=True):
            check_identity(p, q)


@pytest.mark.slow  # statistical power or many random cases: the full run only
def test_rejection_identity_holds_exactly_on_the_stated_number_of_random_pairs():
    rng = np.random.default_rng(2211)
    sizes, alphas = set(), set()
    for _ in range(checks.IDENTITY_PAIRS):
        size = int(rng.integers(1, 9))
        p, q = random_dist(rng, size), random_dist(rng, size)
        check_identity(p, q)
        sizes.add(size)
        alphas.add(stats.overlap(p, q))
    assert sizes == set(range(1, 9))  # every size from one token to eight
    assert Fraction(1) in alphas and len(alphas) > 100  # pairs with nothing to replace, and many overlaps below 1


def test_identity_check_catches_a_residual_that_forgets_the_draft():
    p, q = (Fraction(3, 4), Fraction(1, 4)), (Fraction(1, 4), Fraction(3, 4))
    real = stats.token_facts

    def forgets(a, b, alpha, total):  # the residual that forgets to subtract the draft: p itself
        return dataclasses.replace(real(a, b, alpha, total), residual=a)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(stats, "token_facts", forgets)
        with pytest.raises(AssertionError):
            check_identity(p, q)


def test_commit_chance_needs_its_rejection_factor():
    p, q = (Fraction(3, 4), Fraction(1, 4)), (Fraction(1, 4), Fraction(3, 4))
    assert stats.commit_chance(p, q) == [Fraction(3, 4), Fraction(1, 4)]
    assert stats.commit_chance(p, p) == list(p)  # no residual: nothing is ever rejected
    residual = [t.residual for t in stats.position_record(p, q, 1).tokens]
    without = [min(a, b) + r for (a, b), r in zip(zip(p, q, strict=True), residual, strict=True)]  # (1 - alpha) left out
    assert without != stats.commit_chance(p, q)


def test_residual_never_offers_the_token_just_rejected(dataset):
    for profile in dataset.profiles:
        for p, q, x in zip(dataset.target, profile.draft, profile.proposals, strict=True):
            res = [t.residual for t in stats.position_record(p, q, 1).tokens]
            if stats.accept_prob(p[x], q[x]) < 1:
                assert res[x] == 0


def test_speedup_table_matches_the_headline_speedup(dataset, explained):
    col = dataset.cost.compare_draft_steps.index(dataset.cost.draft_step)
    for r in explained.results:
        assert r.stats.speedup_table[-1][col] == r.stats.speedup
        assert len(r.stats.speedup_table) == dataset.k
        assert r.stats.speedup_table[0][col] == (1 + r.stats.alphas[0]) / (dataset.cost.draft_step + dataset.cost.verify_round)


def test_speedup_divides_by_the_stated_round_cost(dataset, explained):
    for r in explained.results:
        assert r.stats.round_cost == dataset.k * dataset.cost.draft_step + dataset.cost.verify_round
        assert r.stats.speedup == r.stats.expected / r.stats.round_cost


def test_random_agreement_profiles_have_varied_overlap():
    rng = np.random.default_rng(99)
    target, draft, _ = agreement_profile(rng, 6, 5)
    alphas = {stats.overlap(p, q) for p, q in zip(target, draft, strict=True)}
    assert len(alphas) > 1


@pytest.mark.parametrize("value, text", [(Fraction(64267, 16384), "3.92"), (Fraction(5, 8), "0.63"), (Fraction(1), "1.00")])
def test_decimal_rounds_half_up_from_the_exact_value(value, text):
    assert decimal_str(value) == text


def test_a_tokens_replacement_chance_is_what_the_residual_gives_it(dataset):
    # (1 - alpha) * max(0, p - q) / (1 - alpha) = max(0, p - q): the chance a token enters as a replacement
    for profile in dataset.profiles:
        for i, (p, q) in enumerate(zip(dataset.target, profile.draft, strict=True), start=1):
            record = stats.position_record(p, q, i)
            assert [t.replaced for t in record.tokens] == [max(Fraction(0), a - b) for a, b in zip(p, q, strict=True)]
            assert sum(t.replaced for t in record.tokens) == 1 - record.alpha


def test_the_worst_round_commits_one_token_for_the_whole_rounds_cost(dataset, explained):
    for r in explained.results:  # a first rejection commits one token: k draft steps and one pass bought it
        assert r.stats.worst_speedup == 1 / (dataset.k * dataset.cost.draft_step + dataset.cost.verify_round)


def test_best_k_is_the_highest_speedup_and_the_smallest_k_on_a_tie():
    assert stats.best_k([Fraction(3, 2), Fraction(7, 4), Fraction(7, 4), Fraction(1)]) == 2
    assert stats.best_k([Fraction(1, 2)]) == 1


def test_the_residual_is_none_where_no_rejection_can_happen_and_zero_where_a_token_gets_none_of_it():
    """At p = q every proposal passes, so there is no residual to draw from: each token's residual is None (the
    trace's null, which the lab reads as "no rejection"), not 0. Where p differs from q, a token with p <= q gets a
    residual of exactly 0."""
    from speculative.figures.common import position_facts_of
    p = (Fraction(1, 2), Fraction(1, 4), Fraction(1, 4))
    same = stats.position_record(p, p, 1)
    assert [t.residual for t in same.tokens] == [None, None, None] and same.residual_total == 0
    assert same.residual_cuts == (0, 0, 0)
    facts = position_facts_of(same, 0, ["a", "b", "c"], 4)
    assert facts.residual == [None, None, None] and facts.res_raw == "" and facts.cuts == [0.0, 0.0, 0.0]
    other = stats.position_record(p, (Fraction(1, 4), Fraction(1, 2), Fraction(1, 4)), 1)
    assert [t.residual for t in other.tokens] == [1, 0, 0]
    assert [t.commit for t in other.tokens] == list(p)
    assert position_facts_of(other, 0, ["a", "b", "c"], 4).residual == ["1", "0", "0"]

"""The checks themselves: exact references computed a second way, the sequence check, and the suite's power."""

from __future__ import annotations

import itertools
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest

from speculative import checks, sampler, sequence, stats

from .conftest import shipped_profiles


def test_chain_probabilities_are_the_product_of_each_step_given_the_one_before():
    chain, length = checks.TOY, 3
    probs = checks.chain_probs(chain, length)
    for text in itertools.product(range(len(chain.vocabulary)), repeat=length):
        product, before = 1.0, chain.start
        for x in text:
            product, before = product * chain.target[before, x], x
        assert probs[text] == pytest.approx(product, abs=1e-15)
    assert probs.sum() == pytest.approx(1)


def test_text_counts_index_each_text_by_its_tokens_in_base_v():
    texts = np.array([[0, 0, 1], [2, 1, 0], [0, 0, 1]])
    counts = checks.text_counts(texts, 3)
    assert counts[1] == 2 and counts[2 * 9 + 1 * 3] == 1 and counts.sum() == 3


@pytest.mark.slow  # statistical power or many random cases: the full run only
def test_sequence_check_passes_the_rule_on_a_million_texts():
    c = checks.sequence_check(checks.TOY, checks.SEQUENCE_TEXTS, np.random.default_rng(checks.SEED))
    assert c.ok, c.problem
    assert c.n == checks.SEQUENCE_TEXTS >= 1_000_000 and checks.SEQUENCE_LENGTH >= 3


@pytest.mark.slow  # statistical power or many random cases: the full run only
@pytest.mark.parametrize("name", checks.SEQUENCE_BROKEN)
def test_sequence_check_fails_on_a_broken_sampler(name):
    c = checks.sequence_check(checks.TOY, checks.SEQUENCE_TEXTS, np.random.default_rng(checks.SEED),
                              checks.SEQUENCE_BROKEN[name])
    assert not c.ok


@pytest.mark.slow  # statistical power or many random cases: the full run only
@pytest.mark.parametrize("name", checks.HARMLESS)
def test_sequence_check_passes_a_harmless_change(name):
    c = checks.sequence_check(checks.TOY, checks.SEQUENCE_TEXTS, np.random.default_rng(checks.SEED),
                              checks.HARMLESS[name])
    assert c.ok, c.problem


def test_the_toy_depends_on_context_and_its_draft_disagrees_with_it():
    t, d, _ = checks.TOY.tables()
    assert len({tuple(row) for row in checks.TOY.target}) == len(checks.TOY.vocabulary)
    assert (np.minimum(t, d).sum(-1) < 1).all()


def test_page_figure_is_a_joint_tv_under_its_bound():
    tv, bound = sequence.figures()
    assert 0 < tv < bound
    cells = len(checks.TOY.vocabulary) ** sequence.LENGTH  # every sequence of the first LENGTH tokens is one category
    assert bound == round(sampler.tv_bound(sequence.PAGE_TEXTS, cells), 6)  # the page prints 4 places of these 6


def test_a_position_no_round_reaches_is_a_failure():
    target = draft = np.array([[0.5, 0.5], [0.5, 0.5]])  # every proposal should pass: every position is reachable
    never = replace(sampler.RULE, accepts=lambda u, a: np.zeros(u.shape, bool))
    found = checks.problems(checks.profile_checks(target, draft, target[1], 1000, np.random.default_rng(0), never))
    assert found[-3:-1] == ["position 2: no round reached it", "position 3: no round reached it"]
    assert found[-1].startswith("tokens per round: chi-square p = 0.00e+00")


def test_a_position_the_rule_can_never_reach_passes_while_no_round_reaches_it():
    target = np.array([[0.0, 1.0], [0.5, 0.5]])  # position 1: the draft below never matches, so nothing passes
    draft = np.array([[1.0, 0.0], [0.5, 0.5]])
    found = checks.profile_checks(target, draft, target[1], 1000, np.random.default_rng(0))
    assert checks.problems(found) == [] and [c.n for c in found] == [1000, 0, 0, 1000]
    always = replace(sampler.RULE, accepts=lambda u, a: np.ones(u.shape, bool))  # reaches it all the same
    found = checks.problems(checks.profile_checks(target, draft, target[1], 1000, np.random.default_rng(0), always))
    assert "tokens per round: chi-square p = 0.00e+00 < 1e-06" in found


def test_a_drawn_token_of_probability_zero_fails_whatever_the_count():
    c = checks.check("x", np.array([1000, 1]), np.array([1.0, 0.0]))
    assert c.p_value == 0 and not c.ok


def test_rare_cells_are_pooled_before_the_chi_square():
    counts, expected = checks.pooled(np.array([50, 40, 1, 0, 2]), np.array([49.0, 40.0, 1.5, 0.5, 2.0]))
    assert counts.tolist() == [50, 43] and expected.tolist() == [49.0, 44.0]  # pooled 4 < 5: folded into 40
    counts, expected = checks.pooled(np.array([50, 40, 6, 1, 2]), np.array([49.0, 40.0, 4.0, 3.0, 2.0]))
    assert counts.tolist() == [50, 40, 9] and expected.tolist() == [49.0, 40.0, 9.0]
    counts, expected = checks.pooled(np.array([50, 40]), np.array([49.0, 41.0]))
    assert counts.tolist() == [50, 40] and expected.tolist() == [49.0, 41.0]


def test_planted_error_has_exactly_the_stated_total_variation(dataset):
    for probs in [np.array([float(x) for x in dataset.bonus_target]), np.array([0.5, 0.125, 0.25, 0.125])]:
        moved = checks.plant(probs, checks.DETECTABLE_TV)
        assert 0.5 * np.abs(moved - probs).sum() == pytest.approx(checks.DETECTABLE_TV)
        assert moved.sum() == pytest.approx(1) and (moved >= 0).all()


def test_planted_error_takes_the_shape_a_chi_square_sees_least():
    """The chi-square's distance, sum (moved - p)^2 / p, of moving tv proportionally out of one part of the tokens
    and into the rest is tv^2 (1/a + 1/b), for parts of mass a and b: least when both hold half. plant fills one
    part greedily up to half, and moves mass in proportion to p inside each part."""
    rng, tv = np.random.default_rng(7), 0.01
    for probs in [np.array([0.5, 0.125, 0.25, 0.125]), *rng.dirichlet(np.ones(6), 50)]:
        moved = checks.plant(probs, tv)
        ratio = moved / probs
        up = ratio > 1
        assert up.any() and (~up).any()
        assert np.allclose(ratio[up], ratio[up][0]) and np.allclose(ratio[~up], ratio[~up][0])  # proportional
        a = probs[up].sum()
        # greedy from the most likely token down, taking a token when that brings the part nearer half: every
        # token left out would overshoot, and the last one taken did not
        assert all(a + probs[y] / 2 > 0.5 + 1e-12 for y in np.flatnonzero(~up))
        assert a - probs[up].min() / 2 <= 0.5 + 1e-12
        chi = ((moved - probs) ** 2 / probs).sum()
        assert chi == pytest.approx(tv ** 2 * (1 / a + 1 / (1 - a)))
        top, bottom = np.argmax(probs), np.argmin(probs)  # the plain alternative: move tv from one token to another
        shifted = probs.copy()
        shifted[top] -= tv
        shifted[bottom] += tv
        assert chi < ((shifted - probs) ** 2 / probs).sum()


@pytest.mark.shipped
def test_rounds_reach_every_shipped_position_often_enough_to_see_the_detectable_tv(dataset):
    for profile in dataset.profiles:
        reach = Fraction(1)
        for p, q in [*zip(dataset.target, profile.draft, strict=True), (dataset.bonus_target, None)]:
            n = int(checks.ROUNDS * reach)
            assert checks.detectable_tv(n, len(p)) <= checks.DETECTABLE_TV
            reach *= stats.overlap(p, q) if q else 1


@pytest.mark.shipped
def test_the_bonus_check_catches_an_error_of_the_detectable_size_as_often_as_promised_and_never_a_right_one(dataset):
    """The power claim at each shipped profile's least-reached position (the bonus position): over POWER_TRIALS draws
    of what ROUNDS rounds give its check, an error of DETECTABLE_TV planted there is caught at least POWER of the
    time, and the right distribution never; a hundredth of the rounds falls short, so the rate can fail."""
    rng = np.random.default_rng(checks.SEED)
    for name, t, d, b in shipped_profiles(dataset):
        assert checks.catch_rate(t, d, b, checks.DETECTABLE_TV, rng) >= checks.POWER, name
        assert checks.catch_rate(t, d, b, 0.0, rng) == 0, name
        assert checks.catch_rate(t, d, b, checks.DETECTABLE_TV, rng, rounds=checks.ROUNDS // 100) < checks.POWER, name


@pytest.mark.slow  # statistical power or many random cases: the full run only
def test_the_sampler_hands_an_error_planted_at_the_bonus_position_to_that_positions_check_alone(dataset):
    """Only that position's check may fail; and it does wherever enough rounds reach it to see the error (every
    position of the shipped drafts; a draft of another file may reach its bonus position too rarely)."""
    rng = np.random.default_rng(checks.SEED)
    for (name, t, d, b), profile in zip(shipped_profiles(dataset), dataset.profiles, strict=True):
        rule = checks.planted(checks.DETECTABLE_TV)
        found = checks.problems(checks.profile_checks(t, d, b, checks.ROUNDS, rng, rule, name))
        assert all(f.startswith(f"{name} position {len(t) + 1}: ") for f in found), found
        reach = float(np.prod([float(stats.overlap(p, q)) for p, q in zip(dataset.target, profile.draft, strict=True)]))
        if checks.detectable_tv(max(1, int(reach * checks.ROUNDS * 0.9)), len(b)) <= checks.DETECTABLE_TV:
            assert len(found) == 1, (name, reach)


@pytest.mark.slow  # statistical power or many random cases: the full run only
@pytest.mark.data_independent  # the checks' false alarms at full size: the data file's profiles alone
@pytest.mark.parametrize("seed", range(checks.SEED, checks.SEED + checks.QUIET_SEEDS))  # one test per seed, so the
def test_the_correct_sampler_passes_at_every_seed_tried(dataset, seed):  # workers share them
    assert not any(checks.caught(shipped_profiles(dataset), sampler.RULE, seed))


SHUFFLED = "tokens shuffled between texts at each position"


def test_each_marginal_is_the_sum_of_the_joint_over_the_other_positions():
    chain, length = checks.TOY, checks.SEQUENCE_LENGTH
    joint = checks.chain_probs(chain, length)  # [V]*L
    marginals = checks.chain_marginals(chain, length)  # [L, V]
    for t in range(length):
        for x in range(len(chain.vocabulary)):
            total = sum(joint[text] for text in itertools.product(range(3), repeat=length) if text[t] == x)
            assert marginals[t, x] == pytest.approx(total, abs=1e-15)


@pytest.mark.slow  # statistical power or many random cases: the full run only
def test_a_sampler_right_at_every_position_but_not_jointly_fails_only_the_joint_check(dataset):
    rule = checks.SEQUENCE_BROKEN[SHUFFLED]
    texts = checks.SEQUENCE_TEXTS
    marginal = checks.marginal_checks(checks.TOY, texts, np.random.default_rng(checks.SEED), rule)
    assert [c.name for c in marginal] == [f"token {t} of {texts:,} texts" for t in (1, 2, 3, 4)]
    assert checks.problems(marginal) == []
    right = checks.marginal_checks(checks.TOY, texts, np.random.default_rng(checks.SEED))
    assert [c.tv for c in marginal] == [c.tv for c in right]  # the very same tokens at every position
    rounds = [c for name, t, d, b in shipped_profiles(dataset)
              for c in checks.profile_checks(t, d, b, 200_000, np.random.default_rng(checks.SEED), rule, name)]
    assert checks.problems(rounds) == []  # nor does any per-position or tokens-per-round check of the profiles
    joint = checks.sequence_check(checks.TOY, texts, np.random.default_rng(checks.SEED), rule)
    assert joint.problem and joint.problem.startswith(f"first 4 tokens of {texts:,} texts: chi-square p = 0.00e+00")


def test_the_marginal_checks_can_fail():
    rule = checks.SEQUENCE_BROKEN[checks.GREEDY_PROPOSALS.name]
    found = checks.problems(checks.marginal_checks(checks.TOY, 100_000, np.random.default_rng(checks.SEED), rule))
    assert found and all(p.startswith("token ") for p in found)


# --- the check's parts, each able to fail on its own ------------------------------------------------------------

def test_a_tv_past_its_bound_fails_even_when_the_chi_square_passes(monkeypatch):
    """The two halves of a check are separate: 600 of 1,000 draws on one of two even tokens is TV 0.1, past the
    bound sqrt((2 ln 2 + ln 10^6) / 2000) ≈ 0.0871 (and under twice it), whatever the p-value says."""
    monkeypatch.setattr(checks, "p_value", lambda counts, probs: 1.0)
    probs = np.array([0.5, 0.5])
    past = checks.check("t", np.array([600, 400]), probs)
    assert past.problem == f"t: TV 0.1000 above its bound {sampler.tv_bound(1000, 2):.4f}"
    assert sampler.tv_bound(1000, 2) == pytest.approx(0.0871, abs=1e-4)
    assert checks.check("t", np.array([580, 420]), probs).problem is None  # TV 0.08: within


def test_the_chi_square_has_one_degree_of_freedom_fewer_than_its_cells():
    """60 and 40 draws on two even tokens: chi-square (10² / 50) × 2 = 4 on 1 degree of freedom, whose tail is
    erfc(√2) ≈ 0.0455 (with 2 it would be e^−2 ≈ 0.135)."""
    import math

    assert checks.p_value(np.array([60, 40]), np.array([0.5, 0.5])) == pytest.approx(math.erfc(math.sqrt(2)), rel=1e-9)


def test_pooling_two_cells_folds_the_small_one_into_the_other():
    counts, expected = checks.pooled(np.array([8, 5]), np.array([10.0, 3.0]))  # 3 < MIN_EXPECTED: no cell alone
    assert counts.tolist() == [13] and expected.tolist() == [13.0]




@pytest.mark.parametrize("categories", range(2, 11))
def test_the_tabled_noncentrality_is_the_one_detectable_tv_solves_for(categories):
    """The build says whether the check keeps its power without scipy, from a table this test solves again."""
    for n in (1_000, 562_500, 6_400_000):
        assert checks.detectable_tv_tabled(n, categories) == pytest.approx(checks.detectable_tv(n, categories), rel=1e-5)


def test_a_p_value_over_one_cell_is_one_not_nan():
    assert checks.p_value(np.array([10, 0]), np.array([1.0, 0.0])) == 1.0


def test_a_position_the_rule_cannot_reach_is_still_checked_when_rounds_reach_it():
    """Position 1 accepts nothing (p and q share no token), so position 2 has reach 0; a rule that accepts every
    proposal gets there anyway, and that row must be a failed check, not 'the rule never reaches it'."""
    target, draft, bonus = np.array([[1.0, 0.0]] * 2), np.array([[0.0, 1.0]] * 2), np.array([1.0, 0.0])
    always = replace(sampler.RULE, accepts=lambda u, a: u >= 0)
    rows = checks.profile_checks(target, draft, bonus, 1_000, np.random.default_rng(checks.SEED), always, "x")
    assert rows[1].name == "x position 2" and rows[1].n == 1_000 and not rows[1].ok


def test_catch_rate_draws_as_many_rounds_as_reach_the_bonus_position(dataset):
    """Its binomial's chance is P(N = k + 1), every proposal accepted: the product of the positions' overlaps."""
    seen = []

    class Recording:
        def binomial(self, n, p):
            seen.append(p)
            return 0

        def multinomial(self, n, pvals):
            return np.zeros(len(pvals), int)

    for (name, t, d, b), profile in zip(shipped_profiles(dataset), dataset.profiles, strict=True):
        seen.clear()
        checks.catch_rate(t, d, b, checks.DETECTABLE_TV, Recording(), trials=1)
        reach = float(np.prod([float(stats.overlap(p, q)) for p, q in zip(dataset.target, profile.draft, strict=True)]))
        assert seen == [pytest.approx(reach, rel=1e-12)], name


def test_a_cell_expected_exactly_min_expected_times_is_not_pooled():
    five = float(checks.MIN_EXPECTED)
    counts, expected = checks.pooled(np.array([50, 40, 5]), np.array([50.0, 40.0, five]))
    assert counts.tolist() == [50, 40, 5] and expected.tolist() == [50.0, 40.0, five]
    counts, expected = checks.pooled(np.array([50, 40, 3, 2]), np.array([50.0, 40.0, five - 2, 2.0]))
    assert counts.tolist() == [50, 40, 5] and expected.tolist() == [50.0, 40.0, five]  # pooled to 5: kept as a cell


def sure_of_every_chance(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Returns min(1, p/q) rounded up: a sampler that lets every check chance decides pass, and is right wherever
    the accept probability is 0 or 1."""
    return np.ceil(sampler.accept_prob(p, q))


@pytest.mark.shipped
def test_the_check_command_catches_a_sampler_that_passes_every_check_chance_decides(dataset):
    """`speculative check` runs every profile of the file, so the overconfident draft, whose authored round chance
    decides, is checked too: the sampler fails it exactly at the positions where some proposable token's accept
    probability is strictly between 0 and 1 (2, 3 and 5 there; 4 of the aligned draft) and in their drafts'
    tokens-per-round rows, and passes every position where no check is left to chance (the divergent draft's all)."""
    import io
    import re

    from speculative.commands import check as check_command

    from .conftest import DATA

    out = io.StringIO()
    rule = replace(sampler.RULE, accept_prob=sure_of_every_chance)
    assert not check_command.run_checks(str(DATA), 200_000, 1000, out, io.StringIO(), rule=rule)
    failed = set(re.findall(r"^(\S+) (position \d+|tokens per round) .*  FAIL$", out.getvalue(), re.M))
    chance = {(p.id, f"position {rec.position}") for p in dataset.profiles
              for rec in stats.profile_stats(dataset, p).records if any(t.by_chance for t in rec.tokens)}
    assert failed == chance | {(pid, "tokens per round") for pid, _ in chance}
    assert {pos for pid, pos in chance if pid == "overconfident"} == {"position 2", "position 3", "position 5"}
    assert {pid for pid, _ in chance} == {"aligned", "overconfident"}

"""Speculative generation with the n-gram pair: the round's mechanics, the page's seeded run, and the guarantee at
this scale (the first two committed tokens follow the target's own generation), which each broken sampler fails."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from speculative import checks, generate, language, lm_checks, ngram, rules

pytestmark = pytest.mark.data_independent


@pytest.fixture(scope="module")
def run(explained):
    return explained.language


def rows(run, draft: int, temperature: float = 1.0):
    return generate.rows(run.target, temperature), generate.rows(run.drafts[draft], temperature)


@pytest.mark.parametrize("k", [1, 4, 8])
@pytest.mark.parametrize("temperature", [0.0, 1.0])
def test_with_the_target_itself_as_draft_every_round_commits_k_plus_one(run, k, temperature):
    p, q = rows(run, len(run.drafts) - 1, temperature)
    out = generate.generate(p, q, run.prompt, k, generate.uniforms(3), 50)
    assert [len(r.committed) for r in out] == [k + 1] * 50
    assert all(r.kinds == ("a",) * k + ("b",) and r.accept == (1.0,) * k for r in out)


def test_a_round_stops_at_its_first_rejection_and_drops_the_rest(run):
    p, q = rows(run, 0)
    out = generate.generate(p, q, run.prompt, 4, generate.uniforms(5), 300)
    rejected = [r for r in out if r.kinds[-1] == "r"]
    assert rejected and any(r.dropped for r in rejected)
    for r in out:
        assert len(r.committed) == len(r.uniforms) + (r.kinds[-1] == "b")
        assert all(u < a for u, a in zip(r.uniforms[:-1], r.accept[:-1], strict=True)) and r.committed[:-1] == r.proposals[:len(r.committed) - 1]
        if r.kinds[-1] == "r":
            assert r.uniforms[-1] >= r.accept[-1] and r.dropped == r.proposals[len(r.uniforms):]


def test_a_replacement_is_never_the_token_just_rejected(run):
    p, q = rows(run, 0)
    for r in generate.generate(p, q, run.prompt, 3, generate.uniforms(7), 400):
        if r.kinds[-1] == "r":
            assert r.committed[-1] != r.proposals[len(r.committed) - 1]


def test_chance_decides_most_checks_at_temperature_one(run):
    p, q = rows(run, 1)
    accepts = [a for r in generate.generate(p, q, run.prompt, 4, generate.uniforms(11), 200) for a in r.accept]
    assert np.mean([0 < a < 1 for a in accepts]) > 0.5


def test_at_temperature_zero_the_rule_accepts_exactly_when_the_top_tokens_agree(run):
    p, q = rows(run, 1, 0.0)
    for r in generate.generate(p, q, run.prompt, 4, generate.uniforms(13), 100):
        ctx = r.context
        for x, a in zip(r.proposals, r.accept, strict=True):
            top_p, top_q = int(np.argmax(p(ctx))), int(np.argmax(q(ctx)))
            assert x == top_q and a == float(top_p == top_q)
            if a < 1:
                break
            ctx = (*ctx[1:], x)


def test_mulberry32_is_the_32_bit_generator_the_script_repeats():
    # mulberry32(0)'s first outputs, worked by hand from its definition in 32-bit arithmetic
    a = (0 + 0x6D2B79F5) & 0xFFFFFFFF
    t = ((a ^ (a >> 15)) * (a | 1)) & 0xFFFFFFFF
    t = ((t + (((t ^ (t >> 7)) * (t | 61)) & 0xFFFFFFFF)) & 0xFFFFFFFF) ^ t
    assert next(generate.mulberry32(0)) == ((t ^ (t >> 14)) & 0xFFFFFFFF) / 2**32
    draws = list(itertools.islice(generate.mulberry32(2026), 20000))
    assert all(0 <= u < 1 for u in draws) and abs(np.mean(draws) - 0.5) < 0.01 and len(set(draws)) == len(draws)


def test_the_pages_run_is_a_seeded_race_to_the_goal_in_both_lanes(explained, dataset):
    run, s = explained.language, dataset.language_model
    again = language.explain.__wrapped__(tuple(run.vocab[i] for i in run.ids), s, dataset.cost)
    assert again.run == run.run and again.plain == run.plain
    written = [sum(len(r.committed) for r in run.run[:i]) for i in range(len(run.run) + 1)]
    assert written[-1] >= run.goal > written[-2]  # the speculative lane's rounds stop once they reach the goal
    assert len(run.plain) == run.goal == language.RACE_TOKENS  # plain decoding writes the goal, one token a pass
    assert run.round_cost == s.k * dataset.cost.draft_step + dataset.cost.verify_round


def test_the_expected_tokens_per_round_add_the_chance_that_the_first_i_checks_pass(run):
    assert language.tokens_per_round([0.5, 0.25, 0.125], 2) == 1 + 0.5 + 0.25
    assert run.passes[-1] == ((1.0,) * language.PROFILE_K,) * len(run.settings.temperatures)  # the perfect draft
    for profile in (row for draft in run.passes[:-1] for row in draft):
        assert all(1 >= a >= b >= 0 for a, b in itertools.pairwise(profile))  # passing i + 1 checks means passing i
    p, q = rows(run, 1)
    again = language.pass_profile(p, q, run.prompt, run.settings.seed + 2)
    t1 = run.settings.temperatures.index(Fraction(1))
    assert again == run.passes[1][t1]
    rounds = generate.generate(p, q, run.prompt, language.PROFILE_K, generate.mulberry32(run.settings.seed + 2),
                               language.PROFILE_ROUNDS)
    assert again[0] == round(np.mean([r.kinds[0] == "a" for r in rounds]), 4)  # the first check passed


def test_the_mean_alpha_is_one_for_the_perfect_draft_and_ordered_by_the_drafts_order(run):
    t1 = run.settings.temperatures.index(Fraction(1))
    alphas = [row[t1] for row in run.alphas]
    assert alphas[-1] == pytest.approx(1.0) and alphas[0] < alphas[1] < alphas[-1]


# --- the guarantee at this scale ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def exact(run):
    return lm_checks.targets(run)


@pytest.mark.slow  # about 10 s
@pytest.mark.parametrize("rule", list(rules.BY_ID))
def test_every_rule_commits_the_targets_next_two_tokens_with_each_draft(run, exact, rule):
    for draft, k in itertools.product(range(len(run.drafts)), lm_checks.KS):
        c = lm_checks.language_check(run, draft, k, rules.BY_ID[rule].sampling, 150, checks.SEED + draft, exact)
        assert c.ok, (rule, draft, k, c)


@pytest.mark.slow  # up to 30 s: the replacement that forgets to subtract q needs many rejections to show
@pytest.mark.parametrize("name", list(checks.BROKEN))
def test_each_broken_sampler_fails_on_the_model_pair(run, exact, name):
    """Each broken sampler fails the check at some k with at most 1,000 generations per context. The sizes go up
    (100, 300, 1,000) and the test stops at the first failure: a sampler far from the target shows in the smallest
    run, and only one whose error is small pays for the largest. The check fails a correct sampler only with a p-value
    below checks.P_MIN (or a TV past its bound), so six tries add no false catch worth the name."""
    for repeats in (100, 300, 1000):
        for k in lm_checks.KS:
            if not lm_checks.language_check(run, 1, k, checks.BROKEN[name], repeats, checks.SEED, exact).ok:
                return
    pytest.fail(f"{name} passed the check at every k with 1,000 generations per context")


def test_a_draw_on_a_cut_point_takes_the_token_after_it_and_a_trailing_zero_is_never_drawn():
    assert generate.inverse_cdf(np.array([0.5, 0.5]), 0.5) == 1
    assert generate.inverse_cdf(np.array([0.0, 1.0]), 0.0) == 1
    assert generate.inverse_cdf(np.array([0.25, 0.75, 0.0]), 0.9999999999999999) == 1


@pytest.mark.slow  # about 5 s; the fast tier's tests/test_mutants.py checks the tempering at every temperature in under 1
def test_the_mean_accept_rates_are_the_weighted_overlap_of_both_tempered_models(run):
    seen = language.contexts(run.ids, run.settings.target_order - 1)
    total = sum(seen.values())
    for d, draft in enumerate(run.drafts[:-1]):
        for i, t in enumerate(run.settings.temperatures):
            want = sum(n * float(np.minimum(ngram.tempered(run.target.row(c), float(t)),
                                            ngram.tempered(draft.row(c), float(t))).sum()) for c, n in seen.items()) / total
            assert run.alphas[d][i] == pytest.approx(want, abs=1e-12), (d, t)
    assert len({round(a, 6) for a in run.alphas[1]}) == len(run.settings.temperatures)  # temperature matters


def test_the_pairs_chi_square_loses_one_degree_of_freedom_per_context():
    from scipy.stats import chi2

    pairs = [lm_checks.Pair(counts=np.array([30, 70]), expected=np.array([0.25, 0.75])),
             lm_checks.Pair(counts=np.array([10, 20, 70]), expected=np.array([0.2, 0.2, 0.6]))]
    stat = (30 - 25) ** 2 / 25 + (70 - 75) ** 2 / 75 + (10 - 20) ** 2 / 20 + (20 - 20) ** 2 / 20 + (70 - 60) ** 2 / 60
    c = lm_checks.pair_check("two contexts", pairs)
    assert c.n == 200 and c.p_value == pytest.approx(chi2.sf(stat, (2 - 1) + (3 - 1)))
    assert lm_checks.pair_check("unseen", [lm_checks.Pair(np.array([1, 0]), np.array([0.0, 1.0]))]).p_value == 0

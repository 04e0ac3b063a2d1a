"""The sampler's output follows the target at every position, and the checks catch every broken rule."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from scipy.stats import chisquare

from speculative import sampler, stats
from speculative.analysis import arrays, walkthrough

from .conftest import agreement_profile, as_float

ROUNDS = 100_000
P_MIN = 1e-5  # a correct sampler fails one of the ~100 chi-square tests below with probability about 1e-3


def chi_square_problem(counts: np.ndarray, probs: np.ndarray, what: str) -> str | None:
    """Returns why `counts` do not look drawn from `probs`, or None when they do."""
    if counts.sum() == 0:
        return None
    impossible = (probs == 0) & (counts > 0)
    if impossible.any():
        return f"{what}: drew a token or length of probability 0"
    live = probs > 0
    expected = probs[live] / probs[live].sum() * counts.sum()
    p_value = chisquare(counts[live], expected).pvalue
    return f"{what}: chi-square p = {p_value:.2e}" if p_value < P_MIN else None


def check_profile(target, draft, bonus, rng, rule, name: str) -> list[str]:
    """Returns every failed check for one profile: each position's histogram and the length histogram."""
    t, d, b = as_float(target), as_float(draft), as_float([bonus])[0]
    rounds = sampler.sample_rounds(t, d, b, ROUNDS, rng, rule=rule)
    found = []
    targets = np.vstack([t, b[None]])  # [k+1, V]
    for i, counts in enumerate(sampler.position_counts(rounds, t.shape[1])):
        found.append(chi_square_problem(counts, targets[i], f"{name} position {i + 1}"))
        if counts.sum() and sampler.total_variation(counts, targets[i]) > sampler.tv_bound(int(counts.sum()), t.shape[1]):
            found.append(f"{name} position {i + 1}: TV above the bound")
    exact = np.array([float(x) for x in stats.tokens_distribution([stats.overlap(p, q) for p, q in zip(target, draft)])])
    found.append(chi_square_problem(sampler.length_counts(rounds), exact, f"{name} tokens per round"))
    return [f for f in found if f]


def all_profiles(data):
    """Yields (name, target, draft, bonus): the two shipped profiles and 12 random agreement profiles."""
    for profile in data.profiles:
        yield profile.id, data.target, profile.draft, data.bonus_target
    rng = np.random.default_rng(12)
    for j in range(12):
        size, k = int(rng.integers(3, 9)), int(rng.integers(2, 7))
        yield (f"random-{j}", *agreement_profile(rng, size, k))


def failures(data, rule) -> list[str]:
    rng = np.random.default_rng(20230217)
    return [f for name, t, d, b in all_profiles(data) for f in check_profile(t, d, b, rng, rule, name)]


def test_output_matches_the_target_on_shipped_and_random_profiles(shipped):
    assert failures(shipped, sampler.RULE) == []


def forgot_subtract(p, q):
    r = np.where(p > q, p, 0.0)  # keeps the clip, forgets to subtract the draft
    return r / np.maximum(r.sum(-1, keepdims=True), 1e-300)


BROKEN = {
    "residual forgets to subtract the draft": replace(sampler.RULE, residual=forgot_subtract),
    "replacement drawn from the target": replace(sampler.RULE, residual=lambda p, q: p),
    "ratio inverted (q/p)": replace(sampler.RULE, accept_prob=lambda p, q: sampler.accept_prob(q, p)),
    "no drop after a rejection": replace(sampler.RULE, drop_after_reject=False),
    "bonus drawn from the draft": replace(sampler.RULE, bonus_dist=lambda bonus, draft: draft[-1]),
}


@pytest.mark.parametrize("name", BROKEN)
def test_checks_fail_on_a_broken_sampler(shipped, name):
    assert failures(shipped, BROKEN[name]) != []


def test_walkthrough_uses_the_authored_proposals_and_stops_at_the_first_rejection(shipped):
    for i, profile in enumerate(shipped.profiles):
        walk = walkthrough(shipped, i)
        assert walk.proposals[0].tolist() == list(profile.proposals)
        checked = int(walk.n_checked[0])
        assert walk.passed[0, : checked - 1].all()
        assert not walk.checked[0, checked:].any()


def test_walkthrough_is_reproducible_from_the_seed(shipped):
    a, b = walkthrough(shipped, 1), walkthrough(shipped, 1)
    assert (a.committed == b.committed).all() and (a.uniforms == b.uniforms).all()


def test_zero_target_token_is_always_rejected_and_never_replaced_by_itself(shipped):
    t, d, b = arrays(shipped, shipped.profiles[1])
    x = np.array(shipped.profiles[1].proposals)
    rounds = sampler.sample_rounds(t, d, b, 10_000, np.random.default_rng(3), proposals=x)
    assert not rounds.passed[:, 2].any()
    assert (rounds.n_checked == 3).all()
    assert (rounds.replacements[:, 2] != x[2]).all()
    assert (rounds.committed[:, 3:] == -1).all()


def test_committed_lengths_follow_the_checked_positions(shipped):
    t, d, b = arrays(shipped, shipped.profiles[0])
    rounds = sampler.sample_rounds(t, d, b, 5_000, np.random.default_rng(4))
    all_pass = rounds.passed.all(1)
    assert (rounds.n_committed == rounds.n_checked + all_pass).all()
    assert ((rounds.bonus >= 0) == all_pass).all()


def test_tv_bound_shrinks_with_more_rounds():
    assert sampler.tv_bound(400, 6) == pytest.approx(2 * sampler.tv_bound(1600, 6))


def test_inverse_cdf_never_hands_out_a_trailing_zero_probability_token():
    probs = np.array([0.1, 0.2, 0.7, 0.0, 0.0])  # the float cumsum falls just short of 1
    u = np.array([0.0, 0.1, 0.2999, 0.31, 0.9999999999999999])
    assert sampler.categorical(sampler.edges(probs), u).tolist() == [0, 1, 1, 2, 2]
    assert sampler.categorical(sampler.edges(np.array([0.0, 1.0, 0.0])), u).tolist() == [1] * 5

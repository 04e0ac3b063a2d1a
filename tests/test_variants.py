"""The broken samplers a reader may switch on: each one's exact committed distribution at a position, in fractions,
is what its sampler.Rule commits by Monte Carlo, and each broken one moves some shipped position away from p."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from speculative import checks, sampler, variants

from .conftest import random_dist, shipped_profiles

ROUNDS = 200_000


@pytest.mark.parametrize("variant", variants.VARIANTS, ids=[v.id for v in variants.VARIANTS])
def test_each_variants_exact_distribution_is_what_its_rule_commits(shipped, variant):
    rng = np.random.default_rng(checks.SEED)
    for (pid, target, draft, bonus), profile in zip(shipped_profiles(shipped), shipped.profiles):
        rounds = sampler.sample_rounds(target, draft, bonus, ROUNDS, rng, rule=variant.rule)
        counts = sampler.position_counts(rounds, target.shape[-1])  # [k+1, V]
        for i, (p, q) in enumerate(zip(shipped.target, profile.draft)):
            exact = variant.committed(p, q)
            assert sum(exact) == 1
            if counts[i].sum():
                c = checks.check(f"{pid} {variant.id} position {i + 1}", counts[i], np.array([float(x) for x in exact]))
                assert c.ok, c


def test_the_rule_commits_p_exactly_and_every_broken_variant_moves_a_shipped_position(shipped):
    rows = [(p, q) for profile in shipped.profiles for p, q in zip(shipped.target, profile.draft)]
    for v in variants.VARIANTS:
        distances = [variants.total_variation(v.committed(p, q), p) for p, q in rows]
        assert (max(distances) == 0) == (v.id == "rule"), (v.id, distances)


def test_the_exact_distributions_are_the_textbook_formulas_on_random_pairs():
    rng = np.random.default_rng(5)
    for _ in range(300):
        size = int(rng.integers(2, 7))
        p, q = random_dist(rng, size), random_dist(rng, size)
        alpha = sum(min(a, b) for a, b in zip(p, q))
        assert variants.rule(p, q) == p
        assert variants.replacement_from_p(p, q) == tuple(min(a, b) + (1 - alpha) * a for a, b in zip(p, q))
        assert sum(variants.forgot_subtract(p, q)) == sum(variants.ratio_inverted(p, q)) == 1
        top = max(range(size), key=lambda y: (q[y], -y))
        keep = min(Fraction(1), p[top] / q[top])
        res = variants.residual(p, q)
        assert variants.greedy_with_sampled_q(p, q) == tuple(keep * (y == top) + (1 - keep) * r for y, r in enumerate(res))

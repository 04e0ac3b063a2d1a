"""The broken samplers a reader may switch on: each one's exact committed distribution at a position, in fractions,
is what its sampler.Rule commits by Monte Carlo, and each broken one moves some shipped position away from p."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from speculative import checks, sampler, variants

from .conftest import is_shipped, random_dist, shipped_profiles

ROUNDS = 200_000


@pytest.mark.parametrize("variant", variants.VARIANTS, ids=[v.id for v in variants.VARIANTS])
def test_each_variants_exact_distribution_is_what_its_rule_commits(dataset, variant):
    rng = np.random.default_rng(checks.SEED)
    for (pid, target, draft, bonus), profile in zip(shipped_profiles(dataset), dataset.profiles, strict=True):
        rounds = sampler.sample_rounds(target, draft, bonus, ROUNDS, rng, rule=variant.rule)
        counts = sampler.position_counts(rounds, target.shape[-1])  # [k+1, V]
        for i, (p, q) in enumerate(zip(dataset.target, profile.draft, strict=True)):
            exact = variant.committed(p, q)
            assert sum(exact) == 1
            if counts[i].sum():
                c = checks.check(f"{pid} {variant.id} position {i + 1}", counts[i], np.array([float(x) for x in exact]))
                assert c.ok, c


def test_the_rule_commits_p_exactly_and_every_broken_variant_moves_a_shipped_position(dataset):
    rows = [(p, q) for profile in dataset.profiles for p, q in zip(dataset.target, profile.draft, strict=True)]
    for v in variants.VARIANTS:
        distances = [variants.total_variation(v.committed(p, q), p) for p, q in rows]
        if v.id == "rule":
            assert max(distances) == 0, distances
        elif is_shipped(dataset):  # a file with p = q everywhere leaves some broken samplers right
            assert max(distances) > 0, (v.id, distances)


def test_the_exact_distributions_are_the_textbook_formulas_on_random_pairs():
    """Each variant's committed distribution, written out by hand from what it gets wrong (alpha = sum min(p, q))."""
    rng = np.random.default_rng(5)
    by = variants.BY_ID
    for _ in range(300):
        size = int(rng.integers(2, 7))
        p, q = random_dist(rng, size), random_dist(rng, size)
        alpha = sum(min(a, b) for a, b in zip(p, q, strict=True))
        res = variants.residual(p, q)
        shared = [min(a, b) for a, b in zip(p, q, strict=True)]
        assert by["rule"].committed(p, q) == p
        assert by["from-p"].committed(p, q) == tuple(m + (1 - alpha) * a for m, a in zip(shared, p, strict=True))
        above = variants.normalised([a if a > b else Fraction(0) for a, b in zip(p, q, strict=True)])
        assert by["forgot-q"].committed(p, q) == tuple(m + (1 - alpha) * f for m, f in zip(shared, above, strict=True))
        top = max(range(size), key=lambda y: (q[y], -y))
        keep = min(Fraction(1), p[top] / q[top])
        assert by["greedy"].committed(p, q) == tuple(keep * (y == top) + (1 - keep) * r for y, r in enumerate(res))
        kept = [b * min(Fraction(1), b / a) if a else b for a, b in zip(p, q, strict=True)]
        assert by["inverted"].committed(p, q) == tuple(k + (1 - sum(kept)) * r for k, r in zip(kept, res, strict=True))
        if p == q:  # the reversed test rejects every proposal, and with no residual the replacement comes from p
            assert by["reversed"].committed(p, q) == p
        else:
            assert by["reversed"].committed(p, q) == tuple(max(Fraction(0), b - a) + alpha * r for a, b, r in zip(p, q, res, strict=True))
        for v in variants.VARIANTS:
            assert sum(v.committed(p, q)) == 1, v.id


def test_float_rows_give_the_fractions_value():
    """The generator reads the same pieces in floats: they agree with the fractions to rounding."""
    rng = np.random.default_rng(6)
    for _ in range(100):
        p, q = random_dist(rng, 5), random_dist(rng, 5)
        for v in variants.VARIANTS:
            exact = v.committed(p, q)
            approx = v.committed(np.array([float(a) for a in p]), np.array([float(b) for b in q]))
            assert np.allclose([float(e) for e in exact], approx, atol=1e-12), v.id


def test_the_suites_broken_table_holds_every_broken_variant_by_its_page_name():
    for v in variants.BROKEN:
        assert checks.BROKEN[v.name] is v.rule
    rng = np.random.default_rng(7)
    p = np.array([0.5, 0.25, 0.25])
    rounds = sampler.sample_rounds(np.stack([p, p]), np.stack([p, p]), p, 20_000, rng, rule=variants.BY_ID["reversed"].rule)
    counts = sampler.position_counts(rounds, 3)[0]
    assert checks.check("p = q, reversed", counts, p).ok  # every proposal rejected, and the replacement drawn from p
    assert variants.THE_RULE.rule == sampler.RULE

"""Several candidates per position (speculative/trees.py): the exact figures against an enumeration written here from
the definitions, the peeled-residual identity, the numpy sampler against the exact distributions, and the broken ways.

The rule, from its sources: r starts as p; candidate j, drawn from q_j, is kept with chance min(1, r(x_j) / q_j(x_j));
on a rejection r becomes max(0, r - q_j) renormalised; after m rejections the token is drawn from r. With
replacement (Miao et al., SpecInfer, arXiv 2305.09781) q_j = q; without (Jeon et al., Recursive Speculative
Decoding, arXiv 2402.14160) q_j is q without the earlier candidates, renormalised.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from speculative import checks, stats, trees

from .conftest import random_dist

ONE, ZERO = Fraction(1), Fraction(0)

# The shipped figures, worked out separately with Python's fractions from data/profiles.v1.json: A per position
# and E = 1 + A1 + A1*A2 + ... for five positions.
SHIPPED = {("aligned", 1, "with"): ("3/4 7/8 7/8 7/8 7/8", "64267/16384"),
           ("aligned", 2, "with"): ("7/8 57/64 15/16 15/16 57/64", "39257271/8388608"),
           ("aligned", 2, "without"): ("25/28 25/28 53/56 23/24 25/28", "142005263/29503488"),
           ("divergent", 2, "with"): ("13/16 5/8 49/64 27/32 5/8", "6799343/2097152"),
           ("divergent", 2, "without"): ("5/6 2/3 17/20 6/7 2/3", "99/28")}


def as_float(v) -> np.ndarray:
    return np.array([float(x) for x in v])


def norm(v):
    total = sum(v, ZERO)
    return None if total == 0 else tuple(x / total for x in v)


def enumerate_position(p, q, m, replace):
    """Returns (committed [V], A) by walking every sequence of candidates: the rule's definition, step by step. Each
    state (the current r, the candidates removed, how many were tried) is worked out once and reused where another
    sequence of rejections reaches it (with replacement, every sequence of j rejections leaves the same r)."""
    memo: dict = {}

    def state(r, removed, j):  # what a round that reached this state commits, and its chance of keeping a candidate
        key = (r, removed, j)
        if key not in memo:
            memo[key] = step(r, removed, j)
        return memo[key]

    def step(r, removed, j):
        qj = tuple(q) if replace else norm([ZERO if y in removed else b for y, b in enumerate(q)])
        if j == m or qj is None:
            return list(r), ZERO
        committed, kept = [ZERO] * len(p), ZERO
        for x, qx in enumerate(qj):
            if qx == 0:
                continue
            keep = min(ONE, r[x] / qx)
            committed[x] += qx * keep
            kept += qx * keep
            if keep < 1:
                nxt = norm([max(ZERO, a - b) for a, b in zip(r, qj, strict=True)])
                sub, sub_kept = state(nxt, removed | {x} if not replace else removed, j + 1)
                w = qx * (1 - keep)
                committed = [c + w * s for c, s in zip(committed, sub, strict=True)]
                kept += w * sub_kept
        return committed, kept

    committed, kept = state(tuple(p), frozenset(), 0)
    return tuple(committed), kept


@pytest.mark.shipped
@pytest.mark.parametrize("key", SHIPPED)
def test_the_shipped_acceptances_and_expected_tokens(dataset, key):
    pid, m, spec = key
    profile = next(pr for pr in dataset.profiles if pr.id == pid)
    found = [trees.position(p, q, m, trees.BY_ID[spec]) for p, q in zip(dataset.target, profile.draft, strict=True)]
    assert " ".join(str(f.acceptance) for f in found) == SHIPPED[key][0]
    assert str(stats.expected_tokens([f.acceptance for f in found])) == SHIPPED[key][1]


TREE_PAIRS = 1000  # random pairs for the trees' exact checks: each pair is checked at m = 1 to 4, both ways (8 rules)


@pytest.mark.slow  # about 3 s
def test_on_random_eighths_both_ways_commit_p_and_match_the_enumeration():
    """Over TREE_PAIRS random pairs in eighths (some zeros) and m = 1 to 4, both ways: the committed distribution is p, A
    is the enumeration's, and with replacement A = 1 - (1 - alpha_1)...(1 - alpha_m) over the peeled residuals, so E,
    which is built from A alone, matches too. Most pairs have 2 to 4 tokens (four candidates without replacement
    walk up to V^4 paths), a tenth 5 or 6."""
    rng = np.random.default_rng(44)
    for n in range(TREE_PAIRS):
        size = int(rng.integers(2, 7 if n % 10 == 0 else 5))
        p, q = random_dist(rng, size), random_dist(rng, size)
        for m, spec in itertools.product(range(1, trees.MAX_CANDIDATES + 1), trees.SPECS):
            found = trees.position(p, q, m, spec)
            assert found.committed == p
            assert (found.committed, found.acceptance) == enumerate_position(p, q, m, spec.replace)
        for m in range(1, trees.MAX_CANDIDATES + 1):
            peel = trees.peeled(p, q, m)
            assert trees.acceptance_product([a for a, _ in peel[:m]]) == trees.position(p, q, m).acceptance


@pytest.mark.slow  # under 1 s
def test_p_is_peeled_one_residual_after_another():
    """p = min(r_1, q) + (1 - alpha_1) min(r_2, q) + ... + (1 - alpha_1)...(1 - alpha_m) r_m+1, r_1 = p."""
    rng = np.random.default_rng(7)
    for _ in range(TREE_PAIRS):
        size = int(rng.integers(2, 7))
        p, q = random_dist(rng, size), random_dist(rng, size)
        for m in range(1, trees.MAX_CANDIDATES + 1):
            peel, total, reach = trees.peeled(p, q, m), [ZERO] * size, ONE
            for j, (alpha, r) in enumerate(peel):
                last = j == m
                total = [t + reach * (a if last else min(a, b)) for t, a, b in zip(total, r, q, strict=True)]
                reach *= 1 - alpha
            assert tuple(total) == p
            assert peel[0][1] == p
            assert trees.acceptance_product([a for a, _ in peel[:m]]) == 1 - reach


@pytest.mark.shipped
def test_each_broken_way_commits_something_other_than_p_at_some_shipped_position(dataset):
    for spec in trees.BROKEN:
        wrong = [(pr.id, i, m) for pr in dataset.profiles for i, (p, q) in enumerate(zip(dataset.target, pr.draft, strict=True))
                 for m in (2, 3) if trees.position(p, q, m, spec).committed != p]
        assert wrong, spec.id


def test_broken_ways_have_their_exact_distributions():
    """Worked by hand at p = (3/8, 1/8, 0, 4/8), q = (1/8, 4/8, 2/8, 1/8), two candidates."""
    p = (Fraction(3, 8), Fraction(1, 8), ZERO, Fraction(4, 8))
    q = (Fraction(1, 8), Fraction(4, 8), Fraction(2, 8), Fraction(1, 8))
    # against p: each try keeps min(p, q) = (1, 1, 0, 1)/8 (alpha = 3/8), so two tries keep it (1 + 5/8) times;
    # after two misses, (5/8)^2 = 25/64, the draw is from max(0, p - q) renormalised = (2/5, 0, 0, 3/5)
    assert trees.position(p, q, 2, trees.BY_ID["against-p"]).committed == tuple(
        Fraction(n, 64) for n in (23, 13, 0, 28))
    # typical acceptance: H(p) = 0.974 nats, so the threshold is min(0.09, 0.3 * exp(-H)) = 0.09; every token the
    # draft can propose passes but "sat" (p = 0), so a try fails with q(sat) = 1/4, and two misses (1/16) take the
    # target's top token, "a"
    assert trees.position(p, q, 2, trees.BY_ID["typical"]).committed == (
        Fraction(5, 32), Fraction(20, 32), ZERO, Fraction(7, 32))
    # where every token the draft proposes clears the bar (p = (6, 1, 1)/8: H = 0.736 nats, 0.3 * exp(-H) = 0.144, so the
    # bar is the cap 0.09 < 1/8), typical acceptance keeps the first candidate always: it commits q itself, not p
    sharp, q3 = (Fraction(6, 8), Fraction(1, 8), Fraction(1, 8)), (Fraction(1, 8), Fraction(4, 8), Fraction(3, 8))
    assert trees.position(sharp, q3, 2, trees.BY_ID["typical"]).committed == q3
    plain = trees.position(p, q, 2, trees.BY_ID["plain-q"]).committed
    assert sum(plain) == 1 and plain != p


def test_the_sampler_draws_each_ways_exact_distribution():
    rng = np.random.default_rng(3)
    p = (Fraction(3, 8), Fraction(1, 8), ZERO, Fraction(4, 8))
    q = (Fraction(1, 8), Fraction(4, 8), Fraction(2, 8), Fraction(1, 8))
    for spec, m in itertools.product((*trees.SPECS, *trees.BROKEN), range(1, trees.MAX_CANDIDATES + 1)):
        want = as_float(trees.position(p, q, m, spec).committed)
        drawn = trees.sample(as_float(p), as_float(q), m, 100_000, rng, spec)
        c = checks.check(f"{spec.id} m={m}", np.bincount(drawn, minlength=len(p)), want)
        assert c.ok, c


def test_the_sampler_check_catches_each_broken_way_against_p():
    """The check that passes the correct ways fails each broken one at a position where it is wrong."""
    rng = np.random.default_rng(4)
    p = (Fraction(3, 8), Fraction(1, 8), ZERO, Fraction(4, 8))
    q = (Fraction(1, 8), Fraction(4, 8), Fraction(2, 8), Fraction(1, 8))
    for spec in trees.BROKEN:
        assert trees.position(p, q, 2, spec).committed != p, spec.id
        drawn = trees.sample(as_float(p), as_float(q), 2, 200_000, rng, spec)
        assert not checks.check(spec.id, np.bincount(drawn, minlength=len(p)), as_float(p)).ok, spec.id


def test_a_full_tree_scores_m_plus_m_squared_and_so_on():
    assert [trees.tree_nodes(1, k) for k in (1, 2, 5)] == [1, 2, 5]
    assert trees.tree_nodes(2, 3) == 2 + 4 + 8
    assert trees.tree_nodes(4, 2) == 4 + 16


# --- the check command's rows ----------------------------------------------------------------------------------

def test_the_tree_rows_pass_both_ways_at_every_position_of_any_file(dataset):
    from speculative.analysis import arrays

    rng = np.random.default_rng(checks.SEED)
    for profile in dataset.profiles:
        t, d, _ = arrays(dataset, profile)
        rows = checks.tree_checks(t, d, 4_000, rng, profile.id)
        assert len(rows) == len(checks.TREE_WIDTHS) * len(trees.SPECS) * dataset.k
        assert all(c.ok for c in rows), [c.problem for c in rows if not c.ok]


@pytest.mark.shipped
@pytest.mark.parametrize("spec", trees.BROKEN, ids=lambda s: s.id)
def test_the_tree_rows_catch_each_broken_way_at_the_draws_its_own_distance_needs(dataset, spec):
    """Each broken way is tried where it is furthest from p, with just enough draws for the check to detect its
    exact distance with the suite's stated power; its row there fails."""
    from speculative.analysis import arrays

    worst = max(((float(sum(abs(a - b) for a, b in zip(trees.position(p, q, m, spec).committed, p, strict=True))) / 2,
                  pr, i, m) for pr in dataset.profiles for i, (p, q) in enumerate(zip(dataset.target, pr.draft, strict=True))
                 for m in checks.TREE_WIDTHS), key=lambda w: w[0])
    tv, profile, i, m = worst
    draws = next(n for n in (2 ** e for e in range(8, 24)) if checks.detectable_tv(n, len(dataset.vocabulary)) <= tv)
    t, d, _ = arrays(dataset, profile)
    rows = checks.tree_checks(t, d, draws, np.random.default_rng(checks.SEED), profile.id, specs=(spec,))
    assert not next(c for c in rows if c.name == f"{profile.id} m={m} {spec.id} pos {i + 1}").ok, (spec.id, tv, draws)


@pytest.mark.parametrize("spec", trees.SPECS, ids=lambda s: s.id)
def test_tree_rounds_commit_p_at_each_depth_and_as_many_tokens_as_the_exact_a_give(dataset, spec):
    """Whole rounds of depth k and width 2 on any data file: the tokens per round follow P(N = n) from the exact A per
    position (stats.tokens_distribution), and at each depth the rounds that reach it commit its p."""
    from speculative.analysis import arrays

    rng = np.random.default_rng(checks.SEED)
    profile = dataset.profiles[0]
    t, d, b = arrays(dataset, profile)
    rounds = trees.sample_rounds(t, d, b, 2, 40_000, rng, spec)
    exact = stats.tokens_distribution([trees.position(p, q, 2, spec).acceptance
                                       for p, q in zip(dataset.target, profile.draft, strict=True)])
    lengths = (rounds >= 0).sum(1)
    assert checks.check("tokens per round", np.bincount(lengths, minlength=dataset.k + 2)[1:],
                        as_float(exact)).ok
    for i, p in enumerate([*dataset.target, dataset.bonus_target]):
        reached = rounds[:, i][rounds[:, i] >= 0]
        if len(reached):
            assert checks.check(f"depth {i + 1}", np.bincount(reached, minlength=len(p)), as_float(p)).ok, i


def test_tree_rounds_of_a_broken_way_miss_the_exact_tokens_per_round_or_p():
    rng = np.random.default_rng(5)
    p = (Fraction(3, 8), Fraction(1, 8), ZERO, Fraction(4, 8))
    q = (Fraction(1, 8), Fraction(4, 8), Fraction(2, 8), Fraction(1, 8))
    t, d = np.array([as_float(p)] * 2), np.array([as_float(q)] * 2)
    rounds = trees.sample_rounds(t, d, as_float(p), 2, 40_000, rng, trees.BY_ID["against-p"])
    assert not checks.check("depth 1", np.bincount(rounds[:, 0], minlength=4), as_float(p)).ok

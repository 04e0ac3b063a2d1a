"""Three verification rules: their exact figures against an enumeration over tokens, and the sampler under each.

The enumeration below is written from the rules' definitions and imports nothing from speculative.stats:
- the accept test: x ~ q, kept with chance min(1, p(x)/q(x)), else a draw from max(0, p - q) renormalised;
- a greedy draft: x is the draft's most likely token (the first in vocabulary order on a tie), verified as
  q = one-hot at x: kept with chance p(x), else a draw from p with x removed, renormalised;
- exact match: x ~ q and y ~ p independently; x is kept when x = y, otherwise y is committed.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from speculative import checks, rules, sampler, stats
from speculative.analysis import arrays

from .conftest import SHARES, agreement_profile, as_float, is_shipped

RULES = ("accept-test", "greedy-draft", "exact-match")

# The shipped figures, worked out by hand from data/profiles.v1.json (first token and bonus included):
# acceptance per position and E = 1 + a1 + a1*a2 + ..., to four places. Why the rules differ, with sources:
# exact match accepts sum_y p(y) q(y), not sum_y min(p(y), q(y)): for p = q, sum p^2 against 1 (ml-explore/mlx-lm
# pull request #1709); a greedy draft is verified losslessly as q = one-hot at its token, accepting p(x) and redrawing
# from p without x (SafeAILab/EAGLE issue #183, penta2himajin/qwisp pull request #18), while verifying it with the
# sampled q was the bug of jaymody/speculative-sampling issue #3, fixed in commit ffa233e; at temperature 0 p and q
# are one-hot and the rule asks whether the top tokens agree (issue #9 there); verifying N positions costs more than
# one (ggml-org/llama.cpp issue #3649).
SHIPPED = {
    "aligned": {"accept-test": ("3/4 7/8 7/8 7/8 7/8", "3.9225"),
                "greedy-draft": ("1/2 5/8 5/8 5/8 1/2", "2.1909"),
                "exact-match": ("1/4 7/16 25/64 3/8 11/32", "1.4236")},
    "divergent": {"accept-test": ("3/4 1/2 5/8 3/4 1/2", "2.6230"),
                  "greedy-draft": ("1/2 0 0 5/8 1/4", "1.5"),
                  "exact-match": ("7/32 7/32 19/64 9/32 3/16", "1.2856")},
    "overconfident": {"accept-test": ("7/8 7/8 5/8 7/8 3/4", "3.8519"),
                      "greedy-draft": ("1/2 5/8 1/4 5/8 1/2", "1.9639"),
                      "exact-match": ("9/32 33/64 23/64 23/64 3/8", "1.5041")},
}
# At temperature 0 (top tokens by hand; ties go to the first in vocabulary order: the, cat, sat, on, a, mat).
TOP_TOKENS = {"aligned": ("the cat sat on a", "the cat sat on a", 6),
              "divergent": ("the cat sat on a", "the the cat on the", 2),
              "overconfident": ("the cat sat on a", "the cat on on a", 3)}


# --- the enumeration ------------------------------------------------------------------------------------------

def first_top(dist) -> int:
    best = 0
    for i, x in enumerate(dist):
        if x > dist[best]:
            best = i
    return best


def one_hot(i: int, size: int) -> tuple[Fraction, ...]:
    return tuple(Fraction(int(j == i)) for j in range(size))


def outcomes(rule: str, p, q):
    """Yields (chance, kept, committed token) of every way one reached position can go."""
    proposer = one_hot(first_top(q), len(q)) if rule == "greedy-draft" else q
    for x, qx in enumerate(proposer):
        if qx == 0:
            continue
        if rule == "exact-match":
            for y, py in enumerate(p):
                if py:
                    yield qx * py, x == y, y
            continue
        keep = min(Fraction(1), p[x] / qx)
        yield qx * keep, True, x
        rest = [max(Fraction(0), a - b) for a, b in zip(p, proposer, strict=True)]
        for y, r in enumerate(rest):
            if r:
                yield qx * (1 - keep) * r / sum(rest), False, y


def acceptance(rule: str, p, q) -> Fraction:
    return sum((c for c, kept, _ in outcomes(rule, p, q) if kept), Fraction(0))


def committed(rule: str, p, q) -> list[Fraction]:
    chance = [Fraction(0)] * len(p)
    for c, _, y in outcomes(rule, p, q):
        chance[y] += c
    return chance


def expected_by_patterns(accepts) -> Fraction:
    """Returns E over every pattern of passes and failures: tokens up to the first failure, or all k plus the bonus."""
    total = Fraction(0)
    for pattern in itertools.product([True, False], repeat=len(accepts)):
        chance = Fraction(1)
        for a, ok in zip(accepts, pattern, strict=True):
            chance *= a if ok else 1 - a
        total += chance * (pattern.index(False) + 1 if False in pattern else len(accepts) + 1)
    return total


def eighths(rng: np.random.Generator, size: int) -> tuple[Fraction, ...]:
    """Returns a random distribution in eighths: integers 0 to 8 that sum to 8, some of them 0."""
    return tuple(Fraction(int(c), 8) for c in rng.multinomial(8, rng.dirichlet(np.full(size, 0.5))))


def random_eighths(count: int = 300):
    """Yields (target [k][V], draft [k][V]) in eighths, V from 2 to 8, k from 1 to 5."""
    rng = np.random.default_rng(1709)
    for _ in range(count):
        size, k = int(rng.integers(2, 9)), int(rng.integers(1, 6))
        yield [eighths(rng, size) for _ in range(k)], [eighths(rng, size) for _ in range(k)]


def shipped_pairs(dataset):
    return [(p.id, dataset.target, p.draft) for p in dataset.profiles]


# --- exact figures --------------------------------------------------------------------------------------------

@pytest.mark.shipped
@pytest.mark.parametrize("pid", SHIPPED)
@pytest.mark.parametrize("rule", RULES)
def test_shipped_figures_match_the_hand_worked_ones(explained, pid, rule):
    r = next(r for r in explained.results if r.profile.id == pid).stats
    figures = next(f for f in r.rules if f.rule == rule)
    accepts, e = SHIPPED[pid][rule]
    assert " ".join(str(a) for a in figures.acceptance) == accepts
    assert round(figures.expected, 4) == Fraction(e)


@pytest.mark.shipped
def test_exact_match_makes_the_aligned_draft_slower_than_one_token_at_a_time(explained):
    aligned = next(r for r in explained.results if r.profile.id == "aligned").stats
    exact = next(f for f in aligned.rules if f.rule == "exact-match")
    assert exact.speedup < 1 and round(exact.speedup, 2) == Fraction("0.95")


# Each check below runs on the data file's own pairs (whatever file it is), and once, in
# test_each_rule_meets_every_check_on_random_eighths, on 300 random pairs in eighths, which no data file changes.

def matches_the_enumeration(rule, target, draft, cost) -> None:
    figures = stats.rule_stats(rule, target, draft, cost)
    accepts = [acceptance(rule, p, q) for p, q in zip(target, draft, strict=True)]
    assert list(figures.acceptance) == accepts
    assert figures.expected == expected_by_patterns(accepts)


def commits_the_target(rule, target, draft) -> None:
    for p, q in zip(target, draft, strict=True):
        assert committed(rule, p, q) == list(p)


def is_every_rule_at_temperature_zero(target, draft, rules_=RULES) -> None:
    zero = stats.temperature_zero(target, draft)
    hot = [(one_hot(first_top(p), len(p)), one_hot(first_top(q), len(q))) for p, q in zip(target, draft, strict=True)]
    for rule in rules_:
        accepts = [acceptance(rule, p, q) for p, q in hot]
        assert accepts == [Fraction(t.agree) for t in zero.positions]
        assert expected_by_patterns(accepts) == zero.expected


def residual_is_what_a_failure_commits(rule, target, draft) -> None:
    for p, q in zip(target, draft, strict=True):
        failed = [Fraction(0)] * len(p)
        for c, kept, y in outcomes(rule, p, q):
            failed[y] += 0 if kept else c
        total = sum(failed, Fraction(0))
        assert rules.BY_ID[rule].residual(p, q) == (None if total == 0 else tuple(f / total for f in failed))


def acceptance_in_floats_is_exact(rule, target, draft, cost) -> None:
    t, d = (np.array([[float(x) for x in row] for row in rows]) for rows in (target, draft))
    exact = [float(a) for a in stats.rule_stats(rule, target, draft, cost).acceptance]
    assert rules.BY_ID[rule].sampling.acceptance(t, d) == pytest.approx(exact, abs=1e-12)


@pytest.mark.parametrize("rule", RULES)
def test_each_rule_matches_the_enumeration_on_the_files_pairs(dataset, rule):
    for _, target, draft in shipped_pairs(dataset):
        matches_the_enumeration(rule, target, draft, dataset.cost)


@pytest.mark.parametrize("rule", RULES)
def test_each_rule_commits_exactly_the_target_by_enumeration(dataset, rule):
    for _, target, draft in shipped_pairs(dataset):
        commits_the_target(rule, target, draft)


@pytest.mark.data_independent  # the file gives the cost model alone, which no check here reads but the speedup
@pytest.mark.parametrize("rule", RULES)
def test_each_rule_meets_every_check_on_random_eighths(dataset, rule):
    for n, (target, draft) in enumerate(random_eighths()):
        matches_the_enumeration(rule, target, draft, dataset.cost)
        if n < 100:
            commits_the_target(rule, target, draft)
            is_every_rule_at_temperature_zero(target, draft, (rule,))
            residual_is_what_a_failure_commits(rule, target, draft)
            acceptance_in_floats_is_exact(rule, target, draft, dataset.cost)


def test_the_enumeration_sees_a_greedy_draft_verified_with_the_sampled_q_lose_the_target():
    p, q = (Fraction(1, 2), Fraction(1, 2)), (Fraction(3, 4), Fraction(1, 4))
    x = first_top(q)  # always proposed; kept with min(1, p/q) = 2/3, else the residual's draw, which is never x
    wrong = [Fraction(0)] * 2
    wrong[x] += min(Fraction(1), p[x] / q[x])
    wrong[1 - x] += 1 - min(Fraction(1), p[x] / q[x])
    assert wrong != list(p) and committed("greedy-draft", p, q) == list(p)


def test_exact_match_never_accepts_more_often_than_the_rule_and_ties_only_at_0_or_1():
    """min(a, b) >= a*b for a, b in [0, 1], with equality only where one of them is 0 or 1."""
    ties = 0
    for target, draft in random_eighths():
        for p, q in zip(target, draft, strict=True):
            edge = all(a in (0, 1) or b in (0, 1) for a, b in zip(p, q, strict=True))
            assert acceptance("accept-test", p, q) >= acceptance("exact-match", p, q)
            assert (acceptance("accept-test", p, q) == acceptance("exact-match", p, q)) == edge
            ties += edge
    assert ties > 0


@pytest.mark.shipped
@pytest.mark.parametrize("pid", TOP_TOKENS)
def test_temperature_zero_compares_top_tokens_first_in_vocabulary_order(dataset, explained, pid):
    zero = next(r for r in explained.results if r.profile.id == pid).stats.temperature_zero
    target_tops, draft_tops, e = TOP_TOKENS[pid]
    assert " ".join(dataset.vocabulary[t.target] for t in zero.positions) == target_tops
    assert " ".join(dataset.vocabulary[t.draft] for t in zero.positions) == draft_tops
    assert zero.expected == e


def test_temperature_zero_is_every_rule_on_one_hot_distributions(dataset):
    for _, target, draft in shipped_pairs(dataset):
        is_every_rule_at_temperature_zero(target, draft)


@pytest.mark.parametrize("rule", RULES)
def test_each_rules_residual_is_what_a_failed_check_commits_by_enumeration(dataset, rule):
    for _, target, draft in shipped_pairs(dataset):
        residual_is_what_a_failure_commits(rule, target, draft)


def test_the_rules_are_listed_once_in_the_pages_order():
    assert tuple(r.id for r in rules.RULES) == RULES
    assert list(rules.NAMES.values()) == ["Accept test", "Greedy draft", "Exact match"]


@pytest.mark.parametrize("rule", RULES)
def test_the_samplers_acceptance_is_the_exact_one_in_floats(dataset, rule):
    for _, target, draft in shipped_pairs(dataset):
        acceptance_in_floats_is_exact(rule, target, draft, dataset.cost)


# --- the sampler under each rule ------------------------------------------------------------------------------

def test_a_greedy_draft_proposes_its_first_most_likely_token(dataset):
    """On every draft of the file, and on a draft whose two likeliest tokens tie, where the first is proposed."""
    tie = (np.array([[0.5, 0.25, 0.25]]), np.array([[0.125, 0.4375, 0.4375]]), np.array([0.25, 0.25, 0.5]))
    for t, d, b in [*(arrays(dataset, p) for p in dataset.profiles), tie]:
        first = [next(y for y, q in enumerate(row) if q == max(row)) for row in d]  # [k] the first most likely token
        r = sampler.sample_rounds(t, d, b, 1000, np.random.default_rng(3), rule=rules.BY_ID["greedy-draft"].sampling)
        assert (r.proposals_pm == np.array(first)[:, None]).all()
        assert r.accept_table[np.arange(len(t)), first].tolist() == t[np.arange(len(t)), first].tolist()  # p at x


def test_exact_match_keeps_x_only_when_the_targets_own_draw_equals_it(dataset):
    t, d, b = arrays(dataset, dataset.profiles[0])
    r = sampler.sample_rounds(t, d, b, 20_000, np.random.default_rng(4), rule=rules.BY_ID["exact-match"].sampling)
    for i in range(len(t)):
        checked = r.checked_pm[i]  # [n]
        y = np.searchsorted(np.cumsum(t[i]), r.uniforms_pm[i], side="right")  # [n] the target's draw from u
        assert (r.passed_pm[i][checked] == (y == r.proposals_pm[i])[checked]).all()
        assert (r.committed_pm[i][checked] == y[checked]).all()  # x when it matched, y otherwise: y either way


def test_the_default_rule_is_the_accept_test_and_samples_as_before(dataset):
    for profile in dataset.profiles:
        t, d, b = arrays(dataset, profile)
        before = sampler.sample_rounds(t, d, b, 5000, np.random.default_rng(9))
        named = sampler.sample_rounds(t, d, b, 5000, np.random.default_rng(9), rule=rules.BY_ID["accept-test"].sampling)
        assert (before.committed_pm == named.committed_pm).all() and (before.uniforms_pm == named.uniforms_pm).all()


@pytest.mark.parametrize("rule", RULES)
def test_each_rule_passes_a_quick_check_on_the_shipped_drafts(dataset, rule):
    rng = np.random.default_rng(checks.SEED)
    found = [problem for profile in dataset.profiles
             for problem in checks.problems(checks.profile_checks(*arrays(dataset, profile), 200_000, rng,
                                                                  rules.BY_ID[rule].sampling, profile.id))]
    assert found == []


def test_the_broken_rules_are_three_different_ways_to_be_wrong(dataset):
    t, d, b = arrays(dataset, dataset.profiles[0])
    outputs = {name: sampler.sample_rounds(t, d, b, 20_000, np.random.default_rng(5), rule=rule).committed_pm.tobytes()
               for name, rule in {**rules.sampling_rules(), **checks.RULE_BROKEN}.items()}
    assert len(set(outputs.values())) == len(rules.RULES) + len(checks.RULE_BROKEN) == 6


def shipped_failures(dataset, rule, share: int = 1):
    """Yields each failed check of the file's profiles at checks.ROUNDS // share, profile by profile, so a test that
    needs one can stop."""
    rng = np.random.default_rng(checks.SEED)
    for profile in dataset.profiles:
        yield from checks.problems(checks.profile_checks(*arrays(dataset, profile), checks.ROUNDS // share, rng, rule,
                                                         profile.id))


@pytest.mark.slow
@pytest.mark.parametrize("rule", RULES)
def test_each_rule_passes_the_per_position_and_sequence_checks(dataset, rule, full_size):
    assert list(shipped_failures(dataset, rules.BY_ID[rule].sampling, full_size)) == []
    if full_size != 1:
        return  # the sequence check's toy chain is the same for every file: it runs with the data file's
    c = checks.sequence_check(checks.TOY, checks.SEQUENCE_TEXTS, np.random.default_rng(checks.SEED), rules.BY_ID[rule].sampling)
    assert c.ok, c.problem


@pytest.mark.slow
@pytest.mark.data_independent  # a random pair and the toy chain, whatever the file; its drafts when it is the shipped one
@pytest.mark.parametrize("name", checks.RULE_BROKEN)
def test_each_broken_rule_fails_the_per_position_and_sequence_checks(dataset, name):
    """On a random pair (a file with p = q everywhere leaves a broken rule right) and the shipped drafts, each at the
    fewest rounds of SHARES that shows the fault: a rule far off shows in the smallest run, and only a subtle one pays
    for the full size."""
    rule, (target, draft, bonus) = checks.RULE_BROKEN[name], agreement_profile(np.random.default_rng(3), 4, 3)
    pair = (as_float(target), as_float(draft), as_float([bonus])[0])
    assert any(checks.problems(checks.profile_checks(*pair, checks.ROUNDS // share, np.random.default_rng(checks.SEED),
                                                     rule, "random")) for share in SHARES)
    if is_shipped(dataset):
        assert any(next(shipped_failures(dataset, rule, share), None) is not None for share in SHARES)
    c = checks.sequence_check(checks.TOY, checks.SEQUENCE_TEXTS, np.random.default_rng(checks.SEED),
                              checks.RULE_BROKEN[name])
    assert not c.ok

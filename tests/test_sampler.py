"""The sampler's output follows the target at every position, and the checks catch every broken rule."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterator

import numpy as np
import pytest

from speculative import checks, sampler
from speculative.analysis import arrays, walkthrough

from .conftest import SHARES, agreement_profile, as_float, is_shipped, shipped_profiles


def each_failure(data, rule, seed: int = checks.SEED, random: bool = True, share: int = 1) -> Iterator[str]:
    """Yields every failed check of the file's profiles at checks.ROUNDS // share, then of the random ones at
    RANDOM_ROUNDS // share, profile by profile as the check command runs them: a test that needs only one failure
    stops at the first."""
    rng = np.random.default_rng(seed)
    for name, t, d, b in shipped_profiles(data):
        yield from checks.problems(checks.profile_checks(t, d, b, checks.ROUNDS // share, rng, rule, name))
    for name, t, d, b in (checks.random_profiles() if random else ()):
        yield from checks.problems(checks.profile_checks(t, d, b, checks.RANDOM_ROUNDS // share, rng, rule, name))


def failures(data, rule, seed: int = checks.SEED, random: bool = True, share: int = 1) -> list[str]:
    """Returns every failed check of the file's and the random profiles."""
    return list(each_failure(data, rule, seed, random, share))


def fails(data, rule) -> bool:
    """Returns whether any check fails at a hundredth of the full size, else a tenth, else the full size, each run
    stopping at its first failure: a sampler far from the target shows in the smallest run, and only a subtle one pays
    for the full size. A correct sampler fails a check only with a p-value below checks.P_MIN (or a TV past its
    bound), so three tries add no false catch worth the name."""
    return any(next(each_failure(data, rule, share=share), None) is not None for share in SHARES)


@pytest.mark.slow  # statistical power or many random cases: the full run only
def test_output_matches_the_target_on_shipped_and_random_profiles(dataset, full_size):
    """The one full-size run of the correct sampler, on the data file and the random profiles; a tenth of the rounds
    on each generated file's profiles."""
    assert failures(dataset, sampler.RULE, random=full_size == 1, share=full_size) == []


@pytest.mark.slow  # statistical power or many random cases: the full run only
@pytest.mark.parametrize("name", checks.BROKEN)
def test_checks_fail_on_a_broken_sampler(dataset, name):
    assert fails(dataset, checks.BROKEN[name])


@pytest.mark.slow  # statistical power or many random cases: the full run only
@pytest.mark.parametrize("name", checks.HARMLESS)
def test_checks_pass_a_harmless_change(dataset, name, full_size):
    assert failures(dataset, checks.HARMLESS[name], random=full_size == 1, share=full_size) == []


def test_random_profiles_span_the_stated_token_and_position_ranges():
    profiles = list(checks.random_profiles())
    sizes, ks = [t.shape[1] for _, t, _, _ in profiles], [len(t) for _, t, _, _ in profiles]
    assert len(profiles) == checks.RANDOM_PROFILES
    assert (min(sizes), max(sizes)) == checks.RANDOM_TOKENS and (min(ks), max(ks)) == checks.RANDOM_POSITIONS
    assert any(sampler.token_dtype(v) == np.int8 for v in sizes) and any(sampler.token_dtype(v) == np.int32 for v in sizes)


@pytest.mark.slow  # statistical power or many random cases: the full run only
def test_checks_fail_when_small_vocabulary_tokens_are_stored_as_int8_at_200_tokens(dataset, monkeypatch):
    monkeypatch.setattr(sampler, "token_dtype", lambda size: np.int8)
    assert fails(dataset, sampler.RULE)


# sha256 of committed_pm from the sampler as it was before tables could depend on the previous token:
# dirichlet profiles from default_rng(5), 4 positions, 50,000 rounds from default_rng(V), chunk 10,000.
BEFORE_CONTEXT = {2: "cf446271d684febf", 7: "fbfacded209a059f", 130: "2768954e0ed5db13", 300: "f1f11374c7271d1e"}


def test_tables_without_context_are_sampled_draw_for_draw_as_before():
    rng = np.random.default_rng(5)
    for size, digest in BEFORE_CONTEXT.items():
        t, q, b = rng.dirichlet(np.ones(size), 4), rng.dirichlet(np.ones(size), 4), rng.dirichlet(np.ones(size))
        r = sampler.sample_rounds(t, q, b, 50_000, np.random.default_rng(size), chunk=10_000)
        assert hashlib.sha256(r.committed_pm.tobytes()).hexdigest()[:16] == digest


def test_a_table_whose_rows_are_all_the_same_samples_as_the_table_without_context(dataset):
    t, d, b = arrays(dataset, dataset.profiles[-1])
    size = len(b)
    flat = sampler.sample_rounds(t, d, b, 20_000, np.random.default_rng(8), chunk=5000)
    rows = sampler.sample_rounds(np.repeat(t[:, None], size, 1), np.repeat(d[:, None], size, 1), np.tile(b, (size, 1)),
                                 20_000, np.random.default_rng(8), chunk=5000, start=np.arange(20_000) % size)
    assert (flat.committed_pm == rows.committed_pm).all() and (flat.uniforms_pm == rows.uniforms_pm).all()
    assert np.allclose(flat.accept_probs, rows.accept_probs)


def test_each_proposal_is_drafted_and_verified_given_the_proposal_before_it():
    draft = np.zeros((2, 2, 2))
    draft[:, 0], draft[:, 1] = [0.0, 1.0], [1.0, 0.0]  # the draft flips the previous token
    target = np.array([[0.0, 1.0], [0.5, 0.5]])  # [V, V] given 0 always 1; given 1 a coin
    r = sampler.sample_rounds(np.stack([target] * 2), draft, target, 1000, np.random.default_rng(0), start=0)
    assert (r.proposals == [1, 0]).all()
    assert (r.accept_probs == [1.0, 0.5]).all()
    assert set(r.committed[:, 1]) == {0, 1}


def test_context_tables_need_a_start_token(dataset):
    t, d, b = arrays(dataset, dataset.profiles[0])
    with pytest.raises(ValueError, match="start"):
        sampler.sample_rounds(t, np.repeat(d[:, None], len(b), 1), b, 10, np.random.default_rng(0))


def test_texts_are_continued_from_the_last_committed_token_until_long_enough():
    chain = checks.TOY
    texts = sampler.sample_texts(*chain.tables(), 2000, 9, np.random.default_rng(1), chain.start)
    assert texts.shape == (2000, 9) and (texts >= 0).all()
    impossible = chain.target[texts[:, :-1], texts[:, 1:]] == 0  # [n, L-1]
    assert not impossible.any()


def test_walkthrough_uses_the_authored_proposals_and_stops_at_the_first_rejection(dataset):
    for i, profile in enumerate(dataset.profiles):
        walk = walkthrough(dataset, i)
        assert walk.proposals[0].tolist() == list(profile.proposals)
        checked = int(walk.n_checked[0])
        assert walk.passed[0, : checked - 1].all()
        assert not walk.checked[0, checked:].any()


def test_walkthrough_is_reproducible_from_the_seed(dataset):
    a, b = walkthrough(dataset, len(dataset.profiles) - 1), walkthrough(dataset, len(dataset.profiles) - 1)
    assert (a.committed == b.committed).all() and (a.uniforms == b.uniforms).all()


def test_zero_target_token_is_always_rejected_and_never_replaced_by_itself(dataset):
    seen = 0
    for profile in dataset.profiles:
        t, d, b = arrays(dataset, profile)
        x = np.array(profile.proposals)
        rounds = sampler.sample_rounds(t, d, b, 10_000, np.random.default_rng(3), proposals=x)
        for i in np.flatnonzero(t[np.arange(len(x)), x] == 0):  # the authored proposals the target never produces
            reached = rounds.n_checked > i
            assert not rounds.passed[reached, i].any() and (rounds.n_checked[reached] == i + 1).all()
            assert (rounds.replacements[reached, i] != x[i]).all() and (rounds.committed[reached, i + 1:] == -1).all()
            seen += int(reached.sum())
    if is_shipped(dataset):  # the divergent draft proposes "cat" at position 3, which the target gives 0
        assert seen == 10_000


def test_committed_lengths_follow_the_checked_positions(dataset):
    t, d, b = arrays(dataset, dataset.profiles[0])
    rounds = sampler.sample_rounds(t, d, b, 5_000, np.random.default_rng(4))
    all_pass = rounds.passed.all(1)
    assert (rounds.n_committed == rounds.n_checked + all_pass).all()
    assert ((rounds.bonus >= 0) == all_pass).all()


def test_accept_and_residual_match_their_definitions_token_by_token():
    p, q = np.array([0.5, 0.5, 0.0]), np.array([0.25, 0.25, 0.5])
    assert sampler.accept_prob(p, q).tolist() == [1.0, 1.0, 0.0]
    assert sampler.residual(p, q).tolist() == [0.5, 0.5, 0.0]
    assert sampler.residual(p, p).tolist() == [0.0, 0.0, 0.0]


def test_tv_bound_shrinks_with_more_rounds():
    assert sampler.tv_bound(400, 6) == pytest.approx(2 * sampler.tv_bound(1600, 6))


def test_total_variation_is_half_the_l1_distance_and_zero_without_draws():
    assert sampler.total_variation(np.array([3, 1]), np.array([0.5, 0.5])) == 0.25
    assert sampler.total_variation(np.array([0, 0]), np.array([0.5, 0.5])) == 0.0


def test_inverse_cdf_never_hands_out_a_trailing_zero_probability_token():
    probs = np.array([0.1, 0.2, 0.7, 0.0, 0.0])  # the float cumsum falls just short of 1
    u = np.array([0.0, 0.1, 0.2999, 0.31, 0.9999999999999999])
    assert sampler.categorical(sampler.edges(probs), u).tolist() == [0, 1, 1, 2, 2]
    assert sampler.categorical(sampler.edges(np.array([0.0, 1.0, 0.0])), u).tolist() == [1] * 5
    table = sampler.edge_table(np.array([probs, [0.0, 1.0, 0.0, 0.0, 0.0]]))  # [V-1, 2] padded with +inf
    assert sampler.draw(table, np.array([0, 0, 1, 1, 0]), u, np.int8).tolist() == [0, 1, 1, 1, 2]


def test_a_cumulative_sum_short_of_one_still_never_hands_out_the_trailing_zero():
    probs = np.array([0.1] * 10 + [0.0])
    assert np.cumsum(probs)[-1] < 1  # the case the guard is for: u above the float sum must not reach token 10
    u = np.array([np.nextafter(1.0, 0.0), 0.95, 0.0])
    assert sampler.categorical(sampler.edges(probs), u).tolist() == [9, 9, 0]


def test_a_check_accepts_only_when_u_is_below_the_accept_probability():
    """u = a has probability about 2**-53 (checks.HARMLESS), but the rule is the strict one: accept when u < a."""
    assert sampler.RULE.accepts(np.array([0.25, 0.5, 0.75]), np.array([0.5, 0.5, 0.5])).tolist() == [True, False, False]


def test_the_next_round_continues_from_the_bonus_or_else_the_replacement(dataset):
    """A round that passes every proposal ends on its bonus token, not on its last proposal; one that fails ends on
    its replacement. (Texts of k + 1 tokens cannot tell the two apart: only a second round after a full one can.)
    On every draft of the file, and on a random pair that surely has rounds of both kinds."""
    target, draft, bonus = agreement_profile(np.random.default_rng(3), 4, 3)
    pairs = [*(arrays(dataset, p) for p in dataset.profiles), (as_float(target), as_float(draft), as_float([bonus])[0])]
    kinds = set()
    for t, d, b in pairs:
        rounds = sampler.sample_rounds(t, d, b, 10_000, np.random.default_rng(5))
        after, full = sampler.RULE.next_context(rounds), rounds.passed.all(1)
        assert (after[full] == rounds.bonus[full]).all() and (rounds.bonus[full] >= 0).all()
        failed = rounds.replacements[np.arange(len(after)), rounds.n_checked - 1]
        assert (after[~full] == failed[~full]).all() and (failed[~full] >= 0).all()
        kinds |= set(full.tolist())
    assert kinds == {True, False}


def test_tv_bound_solves_the_bretagnolle_huber_carol_tail_for_delta():
    n, m, delta = 5000, 6, 1e-6
    l1 = 2 * sampler.tv_bound(n, m, delta)
    assert 2 ** m * np.exp(-n * l1 ** 2 / 2) == pytest.approx(delta)


def test_counts_agree_with_a_count_round_by_round(dataset):
    t, d, b = arrays(dataset, dataset.profiles[-1])
    r = sampler.sample_rounds(t, d, b, 300, np.random.default_rng(6))
    positions, lengths = np.zeros((len(t) + 1, len(b)), int), np.zeros(len(t) + 1, int)
    for row in r.committed.tolist():
        tokens = [x for x in row if x >= 0]
        lengths[len(tokens) - 1] += 1
        for i, x in enumerate(tokens):
            positions[i, x] += 1
    assert (sampler.position_counts(r, len(b)) == positions).all() and (sampler.length_counts(r) == lengths).all()


@pytest.mark.parametrize("token", [-2, -128])
def test_counts_read_any_negative_token_as_a_position_not_reached(dataset, token):
    """A token overflowed into int8 is negative: counted like -1 (not reached) at its own position, as n_committed
    reads it, and never filed under a neighbouring position's tokens."""
    t, d, b = arrays(dataset, dataset.profiles[0])
    r = sampler.sample_rounds(t, d, b, 50, np.random.default_rng(2))
    before = sampler.position_counts(r, len(b))
    j = np.flatnonzero(r.committed_pm[1] >= 0)[0]  # a round that reached position 2
    was = r.committed_pm[1, j]
    r.committed_pm[1, j] = token
    after = sampler.position_counts(r, len(b))
    assert after[1, was] == before[1, was] - 1 and (np.delete(after - before, 1, axis=0) == 0).all()


@pytest.mark.parametrize("where", ["just past", "far past"])
def test_counts_refuse_a_committed_token_past_the_vocabulary(dataset, where):
    t, d, b = arrays(dataset, dataset.profiles[0])
    token = len(b) if where == "just past" else 127  # the first id past the vocabulary, and the largest an int8 holds
    r = sampler.sample_rounds(t, d, b, 50, np.random.default_rng(2))
    r.committed_pm[1, 7] = token
    with pytest.raises(ValueError, match=f"committed token {token} is outside the vocabulary 0..{len(b) - 1}"):
        sampler.position_counts(r, len(b))


def test_prefix_counts_count_the_rounds_sample_rounds_draws_in_the_same_order(dataset):
    """prefix_counts, which the check command and the page's run both count by, streams chunks through reused
    buffers; each prefix must count exactly the first rounds one sample_rounds call draws from the same seed."""
    t, d, b = arrays(dataset, dataset.profiles[-1])
    n = 3 * sampler.CHUNK + 123  # a last, partial chunk too
    sizes = (10, sampler.CHUNK, sampler.CHUNK + 7, n)  # a prefix inside a chunk, at a chunk's end, and just past it
    reported: list[int] = []  # the check command's progress bar: rounds drawn, a chunk at a time
    counted = sampler.prefix_counts(t, d, b, sizes, np.random.default_rng(9), progress=reported.append)
    r = sampler.sample_rounds(t, d, b, n, np.random.default_rng(9))
    assert reported == [sampler.CHUNK] * 3 + [123]
    assert len(counted) == len(sizes)
    for m, (positions, lengths) in zip(sizes, counted, strict=True):
        first = dataclasses.replace(r, committed_pm=r.committed_pm[:, :m])
        assert (positions == sampler.position_counts(first, len(b))).all()
        assert (lengths == sampler.length_counts(first)).all() and positions[0].sum() == m


def test_the_broken_samplers_are_seven_different_ways_to_be_wrong(dataset):
    """Two mutants that always commit the same tokens would be one failure named twice. On the file's last draft
    and a random pair (a file with p = q everywhere leaves several mutants right, and so alike)."""
    target, draft, bonus = agreement_profile(np.random.default_rng(3), 4, 3)
    pairs = [arrays(dataset, dataset.profiles[-1]), (as_float(target), as_float(draft), as_float([bonus])[0])]
    outputs = {}
    for name, rule in checks.BROKEN.items():
        outputs[name] = b"".join(sampler.sample_rounds(t, d, b, 20_000, np.random.default_rng(5), rule=rule)
                                 .committed_pm.tobytes() for t, d, b in pairs)
    assert len(set(outputs.values())) == len(checks.BROKEN) == 7  # the lab's five, and two of whole rounds

"""The analysis: drawn rounds follow the rule (checked independently of the code that made them), the Monte Carlo
checkpoints are prefixes of one run, and the figures' facts come from the data."""

from __future__ import annotations

import dataclasses
import itertools
from fractions import Fraction

import numpy as np
import pytest

from speculative import sampler, view
from speculative.analysis import arrays, checkpoint_sizes, explain
from speculative.figures import walkthrough
from speculative.stats import expected_tokens

from .conftest import agreement_profile, as_float, is_shipped


def drawn(explained):
    """Yields (profile result, its trace, one drawn round's trace) for every drawn round."""
    tr = view.trace(explained)
    for r, pt in zip(explained.results, tr["profiles"], strict=True):
        for rnd in pt["drawn"]:
            yield r, pt, rnd


def checked(rnd) -> list[tuple[int, str, str]]:
    """Returns (position, verdict, u) of every verify frame of a round's trace."""
    return [(f["pos"], f["slots"][f["pos"] - 1], f["u"]) for f in rnd["frames"] if f["kind"] == "verify"]


def test_every_drawn_verdict_is_u_below_the_exact_accept_probability(dataset, explained):
    seen = 0
    for r, _, rnd in drawn(explained):
        for pos, verdict, u in checked(rnd):
            x = rnd["proposals"][pos - 1]
            p, q = dataset.target[pos - 1][x], r.profile.draft[pos - 1][x]
            assert q > 0, "a drawn proposal always has draft probability above 0"
            assert (Fraction(u) < min(1, p / q)) == (verdict == "accepted"), (r.profile.id, pos, u)
            seen += 1
    assert seen >= sum(len(r.drawn_rounds) for r in explained.results)  # every round checks its first proposal


def test_nothing_is_checked_after_a_rejection_and_the_bonus_comes_only_after_all_pass(dataset, explained):
    for _r, _, rnd in drawn(explained):
        verdicts = [v for _, v, _ in checked(rnd)]
        assert [pos for pos, _, _ in checked(rnd)] == list(range(1, len(verdicts) + 1))
        assert "rejected" not in verdicts[:-1]
        all_pass = verdicts == ["accepted"] * dataset.k
        assert (rnd["bonus"] is not None) == all_pass
        assert (rnd["replacement"] is not None) == (verdicts[-1] == "rejected")
        kinds = [row["kind"] for row in rnd["frames"]]
        assert len(kinds) == 1 + len(verdicts) + int(all_pass) + 1  # the closed form of the frame count


def test_every_replacement_has_positive_residual(dataset, explained):
    for r, _, rnd in drawn(explained):
        if rnd["replacement"] is not None:
            pos = len(checked(rnd))
            y = rnd["replacement"]
            assert dataset.target[pos - 1][y] > r.profile.draft[pos - 1][y]


def test_drawn_rounds_are_the_first_rounds_of_their_seed(dataset, explained):
    for i, r in enumerate(explained.results):
        rng = np.random.default_rng([dataset.walkthrough_seed, i, 1])
        rounds = sampler.sample_rounds(*arrays(dataset, r.profile), dataset.drawn_rounds, rng)
        assert [list(d.proposals) for d in r.drawn_rounds] == rounds.proposals.tolist()
        assert len(r.drawn_rounds) == dataset.drawn_rounds


def test_checkpoints_are_prefixes_of_one_run(dataset, explained):
    for r in explained.results:
        sizes = [c.rounds for c in r.checkpoints]
        assert sizes == list(checkpoint_sizes(dataset.monte_carlo.rounds)) and sizes[-1] == dataset.monte_carlo.rounds
        for a, b in itertools.pairwise(r.checkpoints):
            for ca, cb in zip(a.checks, b.checks, strict=True):
                assert all(x <= y for x, y in zip(ca.counts, cb.counts, strict=True))  # counts only grow: one run, not fresh samples
            assert sum(a.length_counts) == a.rounds
        i = explained.results.index(r)
        rng = np.random.default_rng([dataset.monte_carlo.seed, i])
        run = sampler.sample_rounds(*arrays(dataset, r.profile), dataset.monte_carlo.rounds, rng)
        first = r.checkpoints[0]
        assert [list(c.counts) for c in first.checks] == [
            np.bincount(row[: first.rounds][row[: first.rounds] >= 0], minlength=len(dataset.vocabulary)).tolist()
            for row in run.committed_pm]


def test_checkpoint_sizes_grow_by_three_then_ten_thirds():
    assert checkpoint_sizes(100_000) == (10, 30, 100, 300, 1000, 3000, 10_000, 30_000, 100_000)
    assert checkpoint_sizes(50) == (10, 30, 50)
    assert checkpoint_sizes(5) == (5,)


@pytest.mark.shipped
def test_the_first_chance_decided_proposal_is_found_in_data_order(dataset, explained):
    i, pos, y = explained.chance
    t = explained.results[i].stats.records[pos - 1].tokens[y]
    assert 0 < t.accept < 1
    for j, r in enumerate(explained.results[: i + 1]):
        for rec in r.stats.records[: pos - 1 if j == i else None]:
            assert all(tok.accept is None or tok.accept in (0, 1) for tok in rec.tokens)


def test_own_peak_is_the_highest_exact_speedup_at_the_files_own_costs(explained):
    cost = explained.data.cost
    for r in explained.results:
        k, value, after = r.own_peak(cost)
        curve = [expected_tokens(r.stats.alphas[:j]) / (j * cost.draft_step + cost.verify_round)
                 for j in range(1, explained.data.k + 1)]
        assert value == curve[k - 1] == max(curve) and max(curve[: k - 1], default=0) < value
        assert after == (curve[k] if k < len(curve) else None)


def test_drawn_rounds_mean_length_is_reported_exactly(explained):
    for r in explained.results:
        lengths = [len(d.committed) for d in r.drawn_rounds]
        assert r.drawn_mean == Fraction(sum(lengths), len(lengths))
        assert all(1 <= n <= explained.data.k + 1 for n in lengths)  # one token at least, the bonus at most


def inverse_cdf(cuts, r) -> int:
    """Returns the token whose segment [cuts[y-1], cuts[y]) of exact cut points holds r: the first cut above it."""
    return next(y for y, c in enumerate(cuts) if Fraction(r) < c)


def exact_cuts(probs) -> list[Fraction]:
    run, out = Fraction(0), []
    for x in probs:
        run += x
        out.append(run)
    return out


def every_round(explained):
    """Yields (profile result, round, its trace) for the authored round and every drawn round of every profile."""
    tr = view.trace(explained)
    for r, pt in zip(explained.results, tr["profiles"], strict=True):
        yield from zip([r] * (1 + len(r.drawn_rounds)), (r.walk,) + r.drawn_rounds, [pt["walk"]] + pt["drawn"], strict=True)


def test_the_recorded_draws_select_the_committed_replacement_and_bonus_on_exact_cut_points(dataset, explained):
    bonus_cuts, seen = exact_cuts(dataset.bonus_target), {"rep": 0, "bonus": 0}
    for r, rnd, rt in every_round(explained):
        fields = rt["fields"]
        if rnd.replacement is not None:
            cuts = r.stats.records[len(rnd.passed) - 1].residual_cuts
            for u in (rnd.rep_u, fields["rep_u"]):  # the sampler's own uniform, and the one the page prints
                assert inverse_cdf(cuts, u) == rnd.replacement == rt["replacement"]
            lo, hi = Fraction(fields["rep_lo"]), Fraction(fields["rep_hi"])
            assert lo <= Fraction(fields["rep_u"]) < hi
            seen["rep"] += 1
        else:
            assert rnd.rep_u is None and "rep_u" not in fields
        if rnd.bonus is not None:
            for u in (rnd.bonus_u, fields["bonus_u"]):
                assert inverse_cdf(bonus_cuts, u) == rnd.bonus == rt["bonus"]
            assert Fraction(fields["bonus_lo"]) <= Fraction(fields["bonus_u"]) < Fraction(fields["bonus_hi"])
            seen["bonus"] += 1
        else:
            assert rnd.bonus_u is None and "bonus_u" not in fields
    rounds = sum(1 + len(r.drawn_rounds) for r in explained.results)
    assert seen["rep"] + seen["bonus"] == rounds, seen  # every round ends in one or the other
    if is_shipped(dataset):  # and the shipped rounds take both branches often
        assert seen["rep"] >= 10 and seen["bonus"] >= 10, seen


def test_the_sampler_keeps_the_uniform_each_replacement_and_bonus_was_drawn_by(dataset):
    """On every profile of the file, and on a random pair that surely rejects some proposals and accepts others."""
    pairs = [arrays(dataset, p) for p in dataset.profiles]
    target, draft, bonus = agreement_profile(np.random.default_rng(3), 4, 3)
    pairs.append((as_float(target), as_float(draft), as_float([bonus])[0]))
    kept_any = rep_any = False
    for target, draft, bonus in pairs:
        rounds = sampler.sample_rounds(target, draft, bonus, 5000, np.random.default_rng(7))
        rep, ru = rounds.replacements, rounds.rep_uniforms  # [n, k], [n]
        assert np.array_equal((rep >= 0).any(1), ~np.isnan(ru))
        assert np.array_equal(rounds.bonus >= 0, ~np.isnan(rounds.bonus_uniforms))
        for i in range(len(target)):
            rows = rep[:, i] >= 0
            residual = sampler.residual(target[i], draft[i])
            assert np.array_equal(sampler.categorical(sampler.edges(residual), ru[rows]), rep[rows, i])
        kept = rounds.bonus >= 0
        kept_any, rep_any = kept_any or kept.any(), rep_any or (rep >= 0).any()
        assert np.array_equal(sampler.categorical(sampler.edges(bonus), rounds.bonus_uniforms[kept]), rounds.bonus[kept])
    assert kept_any and rep_any


def independent_chance_rounds(dataset, r) -> list[int]:
    """Returns the drawn rounds (1-based) with a checked proposal whose exact accept probability is in (0, 1)."""
    out = []
    for j, rnd in enumerate(r.drawn_rounds, start=1):
        accepts = [dataset.target[i][x] / r.profile.draft[i][x] for i, x in enumerate(rnd.proposals[: len(rnd.passed)])]
        if any(0 < a < 1 for a in accepts):
            out.append(j)
    return out


@pytest.mark.shipped
def test_the_rounds_chance_decides_are_found_from_the_data(dataset, explained):
    tr = view.trace(explained)
    by_id = {r.profile.id: r for r in explained.results}
    assert list(by_id["aligned"].chance_rounds) == independent_chance_rounds(dataset, by_id["aligned"]) == [5, 11, 12, 23]
    assert by_id["divergent"].chance_rounds == () and not by_id["divergent"].has_chance
    for r, pt in zip(explained.results, tr["profiles"], strict=True):
        assert [j for j, _ in pt["chance"]] == independent_chance_rounds(dataset, r)
        for j, frame in pt["chance"]:
            f = pt["drawn"][j - 1]["frames"][frame - 1]
            assert f["kind"] == "verify" and f["chance"] is True
    notes = {pt["id"]: pt["chance_note"] for pt in tr["profiles"]}
    assert notes["aligned"] == "Chance decides a check in drawn rounds 5, 11, 12 and 23."
    assert notes["divergent"] == ("Chance decides no check of this draft: every token it can propose is accepted with "
                                  "probability 0 or 1.")


@pytest.mark.shipped
def test_a_draft_that_could_be_decided_by_chance_but_was_not_says_so(dataset):
    data = dataclasses.replace(dataset, drawn_rounds=1)  # the aligned draft's one round checks no "mat" at position 4
    r = explain(data).results[0]
    assert r.has_chance and r.chance_rounds == () and independent_chance_rounds(data, r) == []
    assert walkthrough.chance_note(r) == ("Chance decides no check in the 1 drawn round of this draft: no round there "
                                          "reaches a check of a token the target accepts with a probability other "
                                          "than 0 or 1.")

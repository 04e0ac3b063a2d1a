"""Frames: the count follows its closed form, and each frame carries the exact numbers it explains."""

from __future__ import annotations

from fractions import Fraction

import pytest

from speculative.frames import uniform_str
from speculative.stats import prob_str
from speculative.trace import explain


@pytest.fixture(scope="module")
def explained(shipped):
    return explain(shipped)


def closed_form(data, profile):
    """1 propose + positions up to the first with accept probability 0 + bonus if none + 1 done."""
    accept = [data.target[i][x] / profile.draft[i][x] for i, x in enumerate(profile.proposals)]
    assert all(a == 0 or a >= 1 for a in accept), "the shipped walkthrough is decided by the rule alone"
    first_zero = next((i + 1 for i, a in enumerate(accept) if a == 0), None)
    return 1 + (first_zero or data.k) + (0 if first_zero else 1) + 1


def test_frame_count_equals_its_closed_form(shipped, explained):
    for r in explained.results:
        assert len(r.frames) == closed_form(shipped, r.profile) == r.stats.frame_count
        assert [f["index"] for f in r.frames] == list(range(1, len(r.frames) + 1))


def test_frame_kinds_run_propose_verify_bonus_done(explained):
    for r in explained.results:
        kinds = [f["kind"] for f in r.frames]
        assert kinds[0] == "propose" and kinds[-1] == "done"
        assert set(kinds[1:-1]) <= {"verify", "bonus"} and kinds.count("bonus") <= 1
        assert ("bonus" in kinds) == all(f["verdict"] == "accepted" for f in r.frames if f["kind"] == "verify")


def test_verify_frames_carry_exact_fractions_from_the_file(shipped, explained):
    for r in explained.results:
        for f in r.frames:
            if f["kind"] != "verify":
                continue
            i, x = f["position"] - 1, f["token"]
            p, q = shipped.target[i][x], r.profile.draft[i][x]
            assert (Fraction(f["p"]), Fraction(f["q"])) == (p, q)
            assert Fraction(f["accept"]) == min(1, p / q)
            assert f"min(1, ({prob_str(p, 8)})/({prob_str(q, 8)}))" in f["caption"]
            assert (Fraction(f["u"]) < Fraction(f["accept"])) == (f["verdict"] == "accepted")


def test_rejection_frame_shows_residual_replacement_and_dropped_positions(shipped, explained):
    r = next(r for r in explained.results if r.profile.id == "divergent")
    frame = next(f for f in r.frames if f.get("verdict") == "rejected")
    x = frame["token"]
    assert frame["residual"][x] == "0" and frame["replacement"] != x
    assert sum(Fraction(v) for v in frame["residual"]) == 1
    assert [d["position"] for d in frame["dropped"]] == list(range(frame["position"] + 1, shipped.k + 1))
    assert f"min(1, (0)/({frame['q']})) = 0" in frame["caption"]
    assert frame["committed"][-1] == frame["replacement"]


def test_points_worth_noticing_each_land_on_a_frame_that_shows_them(explained):
    for point, where in explained.points.items():
        pid, n = where.split("/")
        r = next(r for r in explained.results if r.profile.id == pid)
        assert point in r.frames[int(n) - 1]["shows"]


@pytest.mark.parametrize("u, a, text", [(0.37412, Fraction(1), "0.3741"), (0.49999, Fraction(1, 2), "0.49999"),
                                        (0.5000001, Fraction(1, 2), "0.5000")])
def test_uniform_is_shown_with_enough_digits_to_keep_the_verdict(u, a, text):
    assert uniform_str(u, a) == text

"""Frames: the count follows its closed form, each frame carries the exact numbers it explains, and captions come
from their one home in speculative.text."""

from __future__ import annotations

from fractions import Fraction

import pytest
import tracekit

from speculative import strings, view
from speculative.figures import common, walkthrough
from speculative.frames import BonusFrame, DoneFrame, ProposeFrame, Round, VerifyFrame, round_frames
from speculative.stats import position_record
from speculative.text import uniform_str

from .conftest import FIGURES, closed_form, is_shipped


def test_frame_count_equals_its_closed_form(dataset, explained):
    for r in explained.results:
        assert len(r.frames) == closed_form(dataset, r.profile, r.walk.uniforms)
        if is_shipped(dataset):  # and the hand-worked count of the shipped file (docs/figures.md)
            assert len(r.frames) == FIGURES[r.profile.id]["frames"]
        assert [f.index for f in r.frames] == list(range(1, len(r.frames) + 1))


def test_frame_kinds_run_propose_verify_bonus_done(explained):
    for r in explained.results:
        kinds = [type(f) for f in r.frames]
        assert kinds[0] is ProposeFrame and kinds[-1] is DoneFrame
        assert set(kinds[1:-1]) <= {VerifyFrame, BonusFrame} and kinds.count(BonusFrame) <= 1
        verdicts = [f.verdict for f in r.frames if isinstance(f, VerifyFrame)]
        assert (BonusFrame in kinds) == all(v == "accepted" for v in verdicts)


def test_verify_frames_carry_the_rule_on_exact_fractions(dataset, explained):
    for r in explained.results:
        for f in r.frames:
            if isinstance(f, VerifyFrame):
                p, q = dataset.target[f.position - 1][f.token], r.profile.draft[f.position - 1][f.token]
                assert (Fraction(f.u) < min(1, p / q)) == (f.verdict == "accepted")


def test_rejection_frame_shows_residual_replacement_and_dropped_positions(dataset, explained):
    seen = 0
    for r in explained.results:
        for rnd, frames in zip((r.walk, *r.drawn_rounds), (r.frames, *r.drawn), strict=True):
            frame = next((f for f in frames if getattr(f, "verdict", "") == "rejected"), None)
            assert (frame is None) == (rnd.replacement is None)
            if frame is None:
                continue
            rec = r.stats.records[frame.position - 1]
            assert rec.tokens[frame.token].residual == 0 and frame.replacement != frame.token
            assert sum(t.residual for t in rec.tokens) == 1
            assert frame.dropped == tuple(range(frame.position + 1, dataset.k + 1))
            assert frame.committed[-1] == frame.replacement == rnd.replacement
            seen += 1
    if is_shipped(dataset):
        assert seen > 0


def rounds_of(pt):
    """Yields every round of a profile's trace: the authored walk, then the drawn rounds."""
    yield pt["walk"]
    yield from pt["drawn"]


def test_captions_are_filled_from_the_one_pattern_table(dataset, explained):
    tr = view.trace(explained)
    for pt in tr["profiles"]:
        for rnd in rounds_of(pt):
            for f in rnd["frames"]:
                caption = tracekit.caption_of(pt, dataset.vocabulary, rnd, f)
                assert "{" not in caption and caption
                f = f
                if f["kind"] == "verify":
                    pos, x = pt["positions"][f["pos"] - 1], rnd["proposals"][f["pos"] - 1]
                    assert pos["worked"][x] in caption and pos["worked"][x].startswith("min(1, ")
    for pt in tr["profiles"]:
        for rnd in rounds_of(pt):
            for f in rnd["frames"]:
                if f["kind"] == "verify" and f["slots"][f["pos"] - 1] == "rejected":
                    p = dataset.target[f["pos"] - 1][rnd["proposals"][f["pos"] - 1]]
                    assert f["caption"][:2] == ["verify", "zero" if p == 0 else "chance_fail"]


def test_the_trace_rebuilds_every_caption_the_build_writes(dataset, explained):
    # the script quotes a round's token lists from its tokens and closing strip (tracekit.round_tokens does the same):
    # every frame of every round must read exactly as the build's own caption, made from the frames themselves
    tr, figs = view.trace(explained), view.figures(explained)
    for i, (r, pt) in enumerate(zip(explained.results, tr["profiles"], strict=True)):
        for frames, rnd in zip((r.frames, *r.drawn), rounds_of(pt), strict=True):
            built = [walkthrough.caption(f, frames, figs.facts[i], dataset.vocabulary) for f in frames]
            assert [tracekit.caption_of(pt, dataset.vocabulary, rnd, f) for f in rnd["frames"]] == built
            assert not set(walkthrough.TOKEN_LISTS) & set(rnd["fields"])  # the lists are not stored twice


def test_no_caption_sentence_is_stored_in_the_trace(explained):
    tr = view.trace(explained)
    for pt in tr["profiles"]:
        for rnd in rounds_of(pt):
            assert all(key in strings.CAPTIONS for f in rnd["frames"] for key in f["caption"])
            assert all(len(str(v)) < 80 for v in rnd["fields"].values())


def test_points_worth_noticing_each_land_on_a_frame_that_shows_them(dataset, explained):
    for point, found in explained.points.items():
        if found is None:  # no authored or drawn round of this file shows it
            assert not any(point in f.shows for r in explained.results for j in range(len(r.drawn) + 1)
                           for f in r.frames_of(j))
            continue
        i, n, round_ = found
        assert point in explained.results[i].frames_of(round_)[n - 1].shows
        if is_shipped(dataset):
            assert round_ == 0, "the shipped data's authored rounds show every point"


@pytest.mark.parametrize("k, words", [(1, ("proposes 1 token:", "The proposal at position", "The proposal passed.")),
                                      (3, ("3 tokens,", "The proposals at positions", "All 3 proposals passed."))])
def test_counts_agree_in_number(k, words):
    p, q = (Fraction(1, 2), Fraction(1, 2)), (Fraction(1), Fraction(0))
    recs = [position_record(p, q, i) for i in range(1, k + 1)]
    vocab = ("a", "b")
    facts = [common.position_facts_of(rec, 0, vocab) for rec in recs]
    passing = round_frames(Round((0,) * k, (0.1,) * k, (True,) * k, None, 1), recs)
    failing = round_frames(Round((0,) * k, (0.9,), (False,), 1, None), recs)
    captions = [walkthrough.caption(f, frames, facts, vocab) for frames in (passing, failing) for f in frames]
    joined = " ".join(captions)
    assert words[0] in joined and words[2] in joined
    if k > 1:
        assert words[1] in joined


@pytest.mark.parametrize("u, a, shown", [(0.37412, Fraction(1), "0.3741"), (0.49999, Fraction(1, 2), "0.49999"),
                                         (0.5000001, Fraction(1, 2), "0.5000")])
def test_uniform_is_shown_with_enough_digits_to_keep_the_verdict(u, a, shown):
    assert uniform_str(u, a) == shown


@pytest.mark.parametrize("r, lo, hi, shown", [
    (0.41234, Fraction(1, 3), Fraction(1), ("0.4123", "0.3333", "1")),
    (0.333334, Fraction(1, 3), Fraction(1), ("0.333334", "0.333333", "1")),  # 0.3333 and 0.33333 lie below 1/3
    (0.6666, Fraction(0), Fraction(2, 3), ("0.6666", "0", "0.6667")),
    (0.123449, Fraction(0), Fraction(12345, 100000), ("0.1234", "0", "0.1235")),
    (0.5041, Fraction(1, 4), Fraction(1), ("0.5041", "0.25", "1")),  # a cut point without trailing zeros
])
def test_a_draw_is_printed_inside_its_segment_as_shown(r, lo, hi, shown):
    from speculative.frames import Draw
    out = walkthrough.draw_texts(Draw(r, lo, hi), "rep")
    u, a, b = (Fraction(out[k]) for k in ("rep_u", "rep_lo", "rep_hi"))
    assert (out["rep_u"], out["rep_lo"], out["rep_hi"]) == shown
    assert a <= u < b and lo <= Fraction(r) < hi


def test_every_replacement_and_bonus_caption_states_its_draw_and_segment(explained):
    tr = view.trace(explained)
    seen = 0
    for pt in tr["profiles"]:
        for rnd in rounds_of(pt):
            for row in rnd["frames"]:
                f = row
                said = tracekit.caption_of(pt, tr["vocabulary"], rnd, f)
                rejected = f["kind"] == "verify" and f["slots"][f["pos"] - 1] == "rejected"
                if rejected or f["kind"] == "bonus":
                    name, tok = ("rep", rnd["replacement"]) if rejected else ("bonus", rnd["bonus"])
                    fl = rnd["fields"]
                    seg = "the residual’s" if rejected else "the target’s"
                    assert (f"r = {fl[name + '_u']}{', a fresh uniform separate from u,' if rejected else ''} falls in "
                            f"[{fl[name + '_lo']}, {fl[name + '_hi']}), {seg} segment for “{tr['labels'][tok]}”.") in said
                    seen += 1
    assert seen == sum(1 + len(pt["drawn"]) for pt in tr["profiles"])  # each round ends in a replacement or a bonus


@pytest.mark.parametrize("proposals, key", [((2,), "propose_one"), ((2, 4), "propose"), ((1, 2, 3), "propose")])
def test_the_opening_caption_speaks_of_positions_only_when_there_are_several(proposals, key):
    from speculative.frames import propose_frame

    frame = propose_frame(Round(proposals, (), (), None, None))
    assert frame.caption == (key,)
    words = strings.CAPTIONS[key]
    assert ("one per position" in words and "every position" in words) == (len(proposals) > 1)

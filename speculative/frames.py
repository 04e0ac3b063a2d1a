"""Owns the frames of one round: one small dataclass per frame kind, built in one pass from the round's draws.

Frames hold typed facts (token indices, positions, draws); the words come later, from the view and text."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar

from .stats import PositionRecord, cumulative


@dataclass(frozen=True)
class Round:
    """One round's draws: what the draft proposed and what the rule did with it."""

    proposals: tuple[int, ...]  # [k] token indices
    uniforms: tuple[float, ...]  # [checked] the draw u at each checked position
    passed: tuple[bool, ...]  # [checked] verdicts; only the last can be False
    replacement: int | None  # drawn from the residual after the rejection, if any
    bonus: int | None  # drawn from the target when every position passed
    rep_u: float | None = None  # the uniform the replacement was drawn by: inverse CDF on the residual's cut points
    bonus_u: float | None = None  # the uniform the bonus was drawn by: inverse CDF on the bonus target's cut points

    @property
    def committed(self) -> tuple[int, ...]:
        """Returns the tokens the round commits, in order."""
        kept = self.proposals[: len(self.passed)]
        if self.replacement is not None:
            kept = kept[:-1] + (self.replacement,)
        return kept + (() if self.bonus is None else (self.bonus,))


@dataclass(frozen=True)
class Draw:
    """A token drawn by inverse CDF: the uniform r and the segment [lo, hi) of the cut points it falls in."""

    r: float
    lo: Fraction
    hi: Fraction


def draw_of(r: float | None, cuts: Sequence[Fraction], y: int | None) -> Draw | None:
    """Returns the draw r as it lands in token y's segment of the cut points; None when nothing was drawn."""
    if r is None or y is None:
        return None
    return Draw(r, cuts[y - 1] if y else Fraction(0), cuts[y])


@dataclass(frozen=True)
class Slot:
    state: str  # a key of strings.STATE_NAMES
    token: int | None
    replacement: int | None = None


@dataclass(frozen=True)
class Frame:
    index: int  # 1-based
    slots: tuple[Slot, ...]  # [k+1] every position as this frame leaves it, bonus last
    committed: tuple[int, ...]
    caption: tuple[str, ...]  # keys of strings.CAPTIONS, filled by the view from the frame, its round and position
    shows: tuple[str, ...] = ()  # the points worth noticing this frame demonstrates
    # The frame's kind as the trace names it for the script (and strings.KIND_NAMES' key); Python tells frames
    # apart by their class (isinstance, or match frame: case VerifyFrame()), never by this string.
    kind: ClassVar[str] = ""
    position: ClassVar[int | None] = None
    token: ClassVar[int | None] = None


@dataclass(frozen=True)
class ProposeFrame(Frame):
    kind: ClassVar[str] = "propose"


@dataclass(frozen=True)
class VerifyFrame(Frame):
    position: int = 0  # type: ignore[misc]
    token: int = 0  # type: ignore[misc]
    u: float = 0.0  # the draw
    accept: Fraction = Fraction(0)  # the accept probability min(1, p/q) the draw is compared with
    verdict: str = ""  # "accepted" or "rejected"
    chance: bool = False  # True when the accept probability is strictly between 0 and 1 (TokenFacts.by_chance)
    replacement: int | None = None
    dropped: tuple[int, ...] = field(default=())  # 1-based positions never checked
    draw: Draw | None = None  # after a rejection, the replacement's draw on the residual's cut points
    kind: ClassVar[str] = "verify"


@dataclass(frozen=True)
class BonusFrame(Frame):
    position: int = 0  # type: ignore[misc]
    token: int = 0  # type: ignore[misc]
    draw: Draw | None = None  # the bonus's draw on the bonus target's cut points
    kind: ClassVar[str] = "bonus"


@dataclass(frozen=True)
class DoneFrame(Frame):
    dropped: tuple[int, ...] = ()  # 1-based positions never checked
    lost: tuple[int, ...] = ()  # [len(dropped)] the tokens proposed there
    sure: tuple[int, ...] = ()  # the dropped positions the target would have accepted with probability 1
    kind: ClassVar[str] = "done"


def by_chance(frame: Frame) -> bool:
    """Returns True for a verify frame whose check chance decides (its accept probability strictly between 0 and 1)."""
    return isinstance(frame, VerifyFrame) and frame.chance


def slots(rnd: Round, upto: int, bonus_shown: bool) -> tuple[Slot, ...]:
    """Returns every position's state once positions 1..upto are checked, bonus slot last."""
    rejected = len(rnd.passed) <= upto and not all(rnd.passed)
    out = []
    for pos, token in enumerate(rnd.proposals, start=1):
        if pos <= upto:
            ok = rnd.passed[pos - 1]
            out.append(Slot("accepted" if ok else "rejected", token, None if ok else rnd.replacement))
        else:
            out.append(Slot("dropped" if rejected else "proposed", token))
    last = "bonus" if bonus_shown else ("none" if rejected else "pending")
    return tuple(out) + (Slot(last, rnd.bonus if bonus_shown else None),)


def propose_frame(rnd: Round) -> ProposeFrame:
    """Returns the opening frame: every position proposed before any is checked."""
    return ProposeFrame(index=1, slots=slots(rnd, 0, False), committed=(),
                        caption=("propose_one",) if len(rnd.proposals) == 1 else ("propose",))


def verify_frame(rnd: Round, rec: PositionRecord, index: int) -> VerifyFrame:
    """Returns the frame that checks position rec.position of the round."""
    i = rec.position - 1
    x, ok, facts = rnd.proposals[i], rnd.passed[i], rec.tokens[rnd.proposals[i]]
    upto = rec.position
    assert facts.accept is not None  # x was proposed, so the draft gives it q > 0
    base: dict[str, Any] = dict(index=index, slots=slots(rnd, upto, False), committed=rnd.committed[:upto], position=upto, token=x,
                u=rnd.uniforms[i], accept=facts.accept, chance=facts.by_chance)
    if ok:
        key = "chance_pass" if facts.accept < 1 else ("capped" if facts.p > facts.q else "equal")
        return VerifyFrame(**base, caption=("verify", key), shows=("capped",) if key in ("capped", "equal") else (),
                           verdict="accepted")
    dropped = tuple(range(upto + 1, len(rnd.proposals) + 1))
    keys = ("verify", "zero" if facts.p == 0 else "chance_fail", "residual",
            "own_zero" if facts.p == 0 else "own_above") + (("rep_draw",) if rnd.rep_u is not None else ()) + ("drawn",)
    keys += (("dropped_one" if len(dropped) == 1 else "dropped_many"),) if dropped else ()
    return VerifyFrame(**base, caption=keys, shows=(("zero",) if facts.p == 0 else ()) + ("residual",),
                       verdict="rejected", replacement=rnd.replacement, dropped=dropped,
                       draw=draw_of(rnd.rep_u, rec.residual_cuts, rnd.replacement))


def bonus_frame(rnd: Round, index: int, bonus_target: Sequence[Fraction] = ()) -> BonusFrame:
    """Returns the frame that draws the bonus token after every proposal passed."""
    k = len(rnd.proposals)
    assert rnd.bonus is not None  # called only for a round whose every proposal passed
    draw = draw_of(rnd.bonus_u, cumulative(bonus_target), rnd.bonus) if bonus_target else None
    return BonusFrame(index=index, slots=slots(rnd, k, True), committed=rnd.committed,
                      caption=("bonus_one" if k == 1 else "bonus_many",) + (("bonus_draw",) if draw else ()),
                      position=k + 1, token=rnd.bonus, draw=draw)


def lost_keys(dropped: tuple[int, ...], sure: list[int]) -> tuple[str, ...]:
    """Returns the caption keys that say what the dropped proposals cost."""
    if not dropped:
        return ()
    one = len(dropped) == 1
    if not sure:
        return ("lost_one" if one else "lost_many",)
    return ("lost_one_sure" if one else ("lost_many_all_sure" if len(sure) == len(dropped) else "lost_many_sure"),)


def done_frame(rnd: Round, records: Sequence[PositionRecord], index: int) -> DoneFrame:
    """Returns the closing frame: what the round committed and, after a rejection, what it threw away."""
    checked = len(rnd.passed)
    dropped = tuple(range(checked + 1, len(rnd.proposals) + 1)) if not all(rnd.passed) else ()
    lost = tuple(rnd.proposals[p - 1] for p in dropped)
    sure = [p for p, x in zip(dropped, lost, strict=True) if records[p - 1].tokens[x].accept == 1]  # positions, not tokens
    return DoneFrame(index=index, slots=slots(rnd, checked, rnd.bonus is not None), committed=rnd.committed,
                     caption=("done",) + lost_keys(dropped, sure), shows=("drop",) if dropped else (),
                     dropped=dropped, lost=lost, sure=tuple(sure))


def round_frames(rnd: Round, records: Sequence[PositionRecord],
                 bonus_target: Sequence[Fraction] = ()) -> tuple[Frame, ...]:
    """Returns propose, one verify per checked position, bonus if all passed, then done."""
    frames: list[Frame] = [propose_frame(rnd)]
    for rec in records[: len(rnd.passed)]:
        frames.append(verify_frame(rnd, rec, len(frames) + 1))
    if rnd.bonus is not None:
        frames.append(bonus_frame(rnd, len(frames) + 1, bonus_target))
    frames.append(done_frame(rnd, records, len(frames) + 1))
    return tuple(frames)

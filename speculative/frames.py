"""Owns the frames of one round: one small dataclass per frame kind, built in one pass from the round's draws."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Sequence

from .stats import PositionRecord
from .text import and_list, count, isolated, position_words, quoted, uniform_str


@dataclass(frozen=True)
class Round:
    """One round's draws: what the draft proposed and what the rule did with it."""

    proposals: tuple[int, ...]  # [k] token indices
    uniforms: tuple[float, ...]  # [checked] the draw u at each checked position
    passed: tuple[bool, ...]  # [checked] verdicts; only the last can be False
    replacement: int | None  # drawn from the residual after the rejection, if any
    bonus: int | None  # drawn from the target when every position passed

    @property
    def committed(self) -> tuple[int, ...]:
        """Returns the tokens the round commits, in order."""
        kept = self.proposals[: len(self.passed)]
        if self.replacement is not None:
            kept = kept[:-1] + (self.replacement,)
        return kept + (() if self.bonus is None else (self.bonus,))


@dataclass(frozen=True)
class Slot:
    state: str  # a key of text.STATE_NAMES
    token: int | None
    replacement: int | None = None


@dataclass(frozen=True)
class Frame:
    index: int  # 1-based
    slots: tuple[Slot, ...]  # [k+1] every position as this frame leaves it, bonus last
    committed: tuple[int, ...]
    caption: tuple[str, ...]  # keys of text.CAPTIONS, filled from context(frame)
    fields: dict[str, Any]  # the caption's frame-specific fields; position facts come from the position
    shows: tuple[str, ...] = ()  # the points worth noticing this frame demonstrates
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
    u: str = ""  # the draw, with enough digits to keep its verdict
    verdict: str = ""  # "accepted" or "rejected"
    chance: bool = False  # True when the accept probability is strictly between 0 and 1
    replacement: int | None = None
    dropped: tuple[int, ...] = field(default=())  # 1-based positions never checked
    kind: ClassVar[str] = "verify"


@dataclass(frozen=True)
class BonusFrame(Frame):
    position: int = 0  # type: ignore[misc]
    token: int = 0  # type: ignore[misc]
    kind: ClassVar[str] = "bonus"


@dataclass(frozen=True)
class DoneFrame(Frame):
    dropped: tuple[int, ...] = ()
    kind: ClassVar[str] = "done"


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


def propose_frame(rnd: Round, vocab: Sequence[str]) -> ProposeFrame:
    """Returns the opening frame: every position proposed before any is checked."""
    fields = {"tokens_count": count(len(rnd.proposals), "token"), "proposals": quoted([vocab[x] for x in rnd.proposals])}
    return ProposeFrame(index=1, slots=slots(rnd, 0, False), committed=(), caption=("propose",), fields=fields)


def verify_frame(rnd: Round, rec: PositionRecord, vocab: Sequence[str], index: int) -> VerifyFrame:
    """Returns the frame that checks position rec.position of the round."""
    i = rec.position - 1
    x, ok, facts = rnd.proposals[i], rnd.passed[i], rec.tokens[rnd.proposals[i]]
    u = uniform_str(rnd.uniforms[i], facts.accept)
    upto = rec.position
    committed = rnd.committed[:upto]
    if ok:
        key = "chance_pass" if facts.accept < 1 else ("capped" if facts.p > facts.q else "equal")
        return VerifyFrame(index=index, slots=slots(rnd, upto, False), committed=committed, caption=("verify", key),
                           fields={"u": u}, shows=("capped",) if key == "capped" else (), position=upto, token=x,
                           u=u, verdict="accepted", chance=0 < facts.accept < 1)
    dropped = tuple(range(upto + 1, len(rnd.proposals) + 1))
    keys = ("verify", "zero" if facts.p == 0 else "chance_fail", "residual",
            "own_zero" if facts.p == 0 else "own_above", "drawn")
    keys += (("dropped_one" if len(dropped) == 1 else "dropped_many"),) if dropped else ()
    fields = {"u": u, "rep": isolated(vocab[rnd.replacement]), "dropped": and_list(dropped) if dropped else ""}
    return VerifyFrame(index=index, slots=slots(rnd, upto, False), committed=committed, caption=keys, fields=fields,
                       shows=(("zero",) if facts.p == 0 else ()) + ("residual",), position=upto, token=x, u=u,
                       verdict="rejected", chance=0 < facts.accept < 1, replacement=rnd.replacement, dropped=dropped)


def bonus_frame(rnd: Round, vocab: Sequence[str], index: int) -> BonusFrame:
    """Returns the frame that draws the bonus token after every proposal passed."""
    k = len(rnd.proposals)
    return BonusFrame(index=index, slots=slots(rnd, k, True), committed=rnd.committed,
                      caption=("bonus_one" if k == 1 else "bonus_many",), fields={"k": k},
                      position=k + 1, token=rnd.bonus)


def done_frame(rnd: Round, records: Sequence[PositionRecord], vocab: Sequence[str], index: int) -> DoneFrame:
    """Returns the closing frame: what the round committed and, after a rejection, what it threw away."""
    committed, checked = rnd.committed, len(rnd.passed)
    dropped = tuple(range(checked + 1, len(rnd.proposals) + 1)) if not all(rnd.passed) else ()
    lost = [rnd.proposals[p - 1] for p in dropped]
    sure = [p for p, x in zip(dropped, lost) if records[p - 1].tokens[x].accept == 1]  # positions, not tokens
    keys: tuple[str, ...] = ("done",)
    if dropped:
        one = len(dropped) == 1
        if not sure:
            keys += ("lost_one" if one else "lost_many",)
        else:
            keys += ("lost_one_sure" if one else ("lost_many_all_sure" if len(sure) == len(lost) else "lost_many_sure"),)
    fields = {"committed_count": count(len(committed), "token"), "committed": quoted([vocab[t] for t in committed]),
              "lost": quoted([vocab[t] for t in lost]), "sure": position_words(sure)}
    return DoneFrame(index=index, slots=slots(rnd, checked, rnd.bonus is not None), committed=committed,
                     caption=keys, fields=fields, shows=("drop",) if dropped else (), dropped=dropped)


def round_frames(rnd: Round, records: Sequence[PositionRecord], vocab: Sequence[str]) -> tuple[Frame, ...]:
    """Returns propose, one verify per checked position, bonus if all passed, then done."""
    frames: list[Frame] = [propose_frame(rnd, vocab)]
    for rec in records[: len(rnd.passed)]:
        frames.append(verify_frame(rnd, rec, vocab, len(frames) + 1))
    if rnd.bonus is not None:
        frames.append(bonus_frame(rnd, vocab, len(frames) + 1))
    frames.append(done_frame(rnd, records, vocab, len(frames) + 1))
    return tuple(frames)

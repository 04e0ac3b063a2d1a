"""The round player: every round (authored and drawn) as plain JSON frames for the script, and the authored
rounds as a plain list of frames for readers without scripting and for print."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from .. import strings, text
from ..frames import BonusFrame, DoneFrame, Draw, Frame, ProposeFrame, Round, VerifyFrame, by_chance
from ..stats import cumulative
from .common import Figure, PositionFacts

if TYPE_CHECKING:  # the types only: a cached build never imports the analysis (and numpy)
    from ..analysis import ProfileResult
FRAMES = "walkthrough"  # the prefix of a frame's address: "#walkthrough/aligned/3"; the script still opens "#aligned/3"


def common_fields(k: int) -> dict[str, Any]:
    """Returns the caption fields every round of k positions shares, so the trace holds them once."""
    return {"k": k, "tokens_count": text.token_count(k), "lost": "", "sure": "", "dropped": ""}


def u_text(frame: Frame) -> str:
    """Returns a verify frame's draw with enough digits to keep its verdict; "" for other frames."""
    return text.uniform_str(frame.u, frame.accept) if isinstance(frame, VerifyFrame) else ""


def held(token: int | None) -> int:
    """Returns the token of a slot that holds one: a proposal, or the replacement a rejection drew."""
    assert token is not None
    return token


def draw_texts(d: Draw, name: str) -> dict[str, str]:
    """Returns a draw r and its segment [lo, hi) as {name}_u, {name}_lo, {name}_hi: the fewest decimals (4 or more)
    at which r, as shown and as drawn, lies in the segment as shown and as it is."""
    for places in range(4, 17):
        r, lo, hi = (text.decimal_str(x, places) if 0 < x < 1 else str(x) for x in (Fraction(d.r), d.lo, d.hi))
        lo, hi = (x.rstrip("0") if "." in x else x for x in (lo, hi))  # a cut point as short as it is: 0.25
        if Fraction(lo) <= Fraction(r) < Fraction(hi) and d.lo <= Fraction(r) < d.hi:
            break
    return {f"{name}_u": r, f"{name}_lo": lo, f"{name}_hi": hi}


def frame_fields(frame: Frame, vocab: Sequence[str]) -> dict[str, Any]:
    """Returns the caption fields one frame adds, as finished strings."""
    if isinstance(frame, ProposeFrame):  # frames told apart by their classes; frame.kind is the trace's name
        return {"tokens_count": text.token_count(len(frame.slots) - 1),
                "proposals": text.quoted([vocab[held(s.token)] for s in frame.slots[:-1]])}
    if isinstance(frame, VerifyFrame):
        if frame.verdict == "accepted":
            return {"u": u_text(frame)}
        return {"u": u_text(frame), "rep": text.isolated(vocab[held(frame.replacement)]),
                "dropped": text.and_list(frame.dropped) if frame.dropped else "",
                **(draw_texts(frame.draw, "rep") if frame.draw else {})}
    if isinstance(frame, BonusFrame):
        return {"k": frame.position - 1, **(draw_texts(frame.draw, "bonus") if frame.draw else {})}
    assert isinstance(frame, DoneFrame)  # the one kind left
    return {"committed_count": text.token_count(len(frame.committed)),
            "committed": text.quoted([vocab[t] for t in frame.committed]),
            "lost": text.quoted([vocab[t] for t in frame.lost]), "sure": text.position_words(frame.sure)}


# What the script makes from the round's tokens and its closing strip: the quoted lists, the replacement's label and
# how many tokens the round commits.
TOKEN_LISTS = ("proposals", "committed", "lost", "rep", "committed_count")


def round_fields(frames: Sequence[Frame], vocab: Sequence[str], lists: bool = True) -> dict[str, Any]:
    """Returns the caption fields a round's frames add, once per round (the draw and shared counts left out);
    without `lists`, not the quoted token lists, which the trace leaves to the script."""
    return {key: value for f in frames for key, value in frame_fields(f, vocab).items()
            if key not in ("u", "tokens_count", "k") and value and (lists or key not in TOKEN_LISTS)}


def frame_json(frame: Frame) -> dict[str, Any]:
    """Returns one frame as the script reads it: its kind, position (0: none), each slot's state, its caption's keys
    in strings.CAPTIONS, its draw ("" where it draws nothing) and whether chance decides it; what it shows is in the
    trace's points."""
    return {"kind": frame.kind, "pos": frame.position or 0, "slots": [s.state for s in frame.slots],
            "caption": list(frame.caption), "u": u_text(frame), "chance": by_chance(frame)}


def round_json(rnd: Round, frames: Sequence[Frame], vocab: Sequence[str]) -> dict[str, Any]:
    """Returns one round as trace JSON: its tokens and caption fields once, then its frames. The fields leave out
    TOKEN_LISTS: the script makes them from the tokens and the closing frame's slot states, as
    tracekit.round_tokens does."""
    return {"proposals": list(rnd.proposals), "replacement": rnd.replacement, "bonus": rnd.bonus,
            "fields": round_fields(frames, vocab, lists=False), "frames": [frame_json(f) for f in frames]}


def caption(frame: Frame, frames: Sequence[Frame], facts: Sequence[PositionFacts], vocab: Sequence[str]) -> str:
    """Returns a frame's caption, filled from its one home in strings.CAPTIONS (the script's caption does the same)."""
    ctx: dict[str, Any] = {}
    if isinstance(frame, VerifyFrame):
        f, x = facts[frame.position - 1], frame.token
        ctx = {"p": f.target[x], "q": f.draft[x], "accept": f.accept[x], "worked": f.worked[x],
               "res_raw": f.res_raw, "res_total": f.res_total, "res_norm": f.res_norm}
    if frame.position:
        ctx["pos"] = frame.position
    if frame.token is not None:
        ctx["tok"] = text.isolated(vocab[frame.token])
    u = u_text(frame)
    ctx = {**ctx, **common_fields(len(frame.slots) - 1), **round_fields(frames, vocab), **({"u": u} if u else {})}
    return " ".join(text.fill(strings.CAPTIONS[key], ctx) for key in frame.caption)


def slot_views(frame: Frame, rnd: Round, vocab: Sequence[str]) -> list[dict[str, Any]]:
    """Returns each slot of a frame as the strip prints it (the script's strip does the same)."""
    out, k = [], len(rnd.proposals)
    for pos, slot in enumerate(frame.slots, start=1):
        words = strings.STATE_NAMES[slot.state]
        if slot.state == "rejected":
            words += text.fill(strings.WALKTHROUGH["slot_instead"], {"rep": text.isolated(vocab[held(slot.replacement)])})
        out.append({"state": slot.state, "current": pos == frame.position,
                    "pos": text.fill(strings.WALKTHROUGH["slot_bonus"], {"pos": pos}) if pos > k else str(pos),
                    "token": strings.WALKTHROUGH["no_token"] if slot.token is None else vocab[slot.token], "text": words})
    return out


def frame_views(profile_id: str, rnd: Round, frames: Sequence[Frame], facts: Sequence[PositionFacts],
                vocab: Sequence[str]) -> list[dict[str, Any]]:
    """Returns the no-JS list's frames: head, strip and caption, all finished strings."""
    out, n = [], len(frames)
    for f in frames:
        head = text.fill(strings.WALKTHROUGH["head_verify" if isinstance(f, VerifyFrame) else "head"],
                         {"i": f.index, "n": n, "kind": strings.KIND_NAMES[f.kind], "pos": f.position or 0})
        out.append({"id": f"{FRAMES}/{profile_id}/{f.index}", "head": head, "slots": slot_views(f, rnd, vocab),
                    "caption": caption(f, frames, facts, vocab)})
    return out


def chance_frame(frames: Sequence[Frame]) -> int:
    """Returns the number of a round's first frame whose check chance decides."""
    return next(f.index for f in frames if by_chance(f))


def chance_note(r: ProfileResult) -> str:
    """Returns which drawn rounds chance decides a check in, or why none: the data, or the draws."""
    rounds = r.chance_rounds
    if rounds:
        return text.fill(strings.DRAWS["chance_one" if len(rounds) == 1 else "chance_many"], {"rounds": text.and_list(rounds)})
    if not r.has_chance:
        return strings.DRAWS["chance_none_data"]
    return text.fill(strings.DRAWS["chance_none_drawn"], {"n": text.count(len(r.drawn), "drawn round")})


class Walkthrough(Figure):
    """The player's model: each profile's authored round and drawn rounds, and their frames."""

    SCRIPTS = ('js/walkthrough_frames.js', 'js/walkthrough_stage.js', 'js/walkthrough.js')  # the frames, the stage, the player
    WORDS = ("WALKTHROUGH", "DRAWS", "KIND_NAMES", "CAPTIONS", "STATE_NAMES", "ACCEPT")
    STYLESHEET = True
    IDS = frozenset({"walkthrough", "walkthrough-player", "walkthrough-frame", "walkthrough-speed", "walkthrough-draw-hint",
                     "walkthrough-chance-note"})
    # "walkthrough-frames-<profile id>"; each frame's address is "walkthrough/<profile id>/<n>" (FRAMES), which no
    # element id written from a profile id can be
    PREFIXES = frozenset({"walkthrough-frames"})

    def trace(self) -> dict[str, Any]:
        """Returns the profile the player opens on (Explained.opening): the first whose authored round holds a check
        chance decides, else the first; a frame link in the address opens on its own frame instead."""
        return {"profile": self.ex.opening}

    def context(self) -> dict[str, Any]:
        """Returns the opening state the player's markup holds before its script runs: the profile's id, and its
        authored round's frame count and counter."""
        r = self.ex.results[self.ex.opening]
        n = len(r.frames)
        return {"walkthrough": {"open": r.profile.id, "frames": n,
                                "counter": text.fill(strings.WALKTHROUGH["counter"], {"i": 1, "n": n})}}

    def profile_trace(self, i: int) -> dict[str, Any]:
        """Returns profile i's rounds for the script."""
        r, vocab = self.ex.results[i], self.ex.data.vocabulary
        return {"walk": round_json(r.walk, r.frames, vocab),
                "drawn": [round_json(rnd, frames, vocab) for rnd, frames in zip(r.drawn_rounds, r.drawn, strict=True)],
                "bonus_cuts": [round(float(c), 6) for c in cumulative(self.ex.data.bonus_target)],
                "chance": [[j, chance_frame(r.drawn[j - 1])] for j in r.chance_rounds], "chance_note": chance_note(r)}

    def profile_context(self, i: int) -> dict[str, Any]:
        """Returns profile i's authored frames as the no-JS list prints them."""
        r = self.ex.results[i]
        return {"frames": len(r.frames),
                "frame_views": frame_views(r.profile.id, r.walk, r.frames, self.facts[i], self.ex.data.vocabulary)}


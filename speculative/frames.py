"""Turn one authored round into the frames the player steps through, as JSON-ready dicts."""

from __future__ import annotations

from fractions import Fraction
from math import lcm
from typing import Any, Sequence

from .profiles import Dataset, Dist, Profile
from .sampler import Rounds
from .stats import prob_str

Frame = dict[str, Any]


def common_denominator(data: Dataset) -> int:
    """Returns the least common denominator of every probability in the file (8 for eighths)."""
    rows = list(data.target) + [data.bonus_target] + [row for prof in data.profiles for row in prof.draft]
    return lcm(*(x.denominator for row in rows for x in row))


def uniform_str(u: float, a: Fraction) -> str:
    """Returns u with enough decimals that the shown value compares with `a` the way u does."""
    for places in range(4, 17):
        text = f"{u:.{places}f}"
        if (Fraction(text) < a) == (Fraction(u) < a):
            return text
    return repr(u)


def quoted(vocab: Sequence[str], tokens: Sequence[int]) -> str:
    """Returns tokens as “a” “b” “c” for captions."""
    return " ".join(f"“{vocab[t]}”" for t in tokens)


def ratio_text(p: str, q: str, ratio: Fraction, accept: Fraction) -> str:
    """Returns the accept probability worked out: "min(1, (4/8)/(3/8)) = min(1, 4/3) = 1"."""
    if ratio <= 1:
        return f"min(1, ({p})/({q})) = {accept}"
    return f"min(1, ({p})/({q})) = min(1, {ratio}) = {accept}"


def _positions_text(positions: Sequence[int]) -> str:
    names = [str(p) for p in positions]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def propose_frame(data: Dataset, profile: Profile) -> Frame:
    """Returns the opening frame: every position proposed before any is checked."""
    caption = (f"The draft proposes {data.k} tokens, one per position, all before any is checked: "
               f"{quoted(data.vocabulary, profile.proposals)}. One pass of the target will now score every position.")
    return {"kind": "propose", "position": None, "committed": [], "caption": caption, "shows": []}


def verify_frame(data: Dataset, profile: Profile, rounds: Rounds, i: int, committed: list[int],
                 residual: Dist | None, denom: int) -> Frame:
    """Returns the frame that checks position i (0-based) of round 0."""
    vocab, x = data.vocabulary, profile.proposals[i]
    p, q = data.target[i][x], profile.draft[i][x]
    ratio, accept = p / q, min(Fraction(1), p / q)
    ok = bool(rounds.passed[0, i])
    u = float(rounds.uniforms[0, i])
    p_s, q_s, u_s, tok = prob_str(p, denom), prob_str(q, denom), uniform_str(u, accept), vocab[x]
    frame: Frame = {"kind": "verify", "position": i + 1, "token": x, "p": p_s, "q": q_s,
                    "ratio": str(ratio), "accept": str(accept), "u": u_s,
                    "verdict": "accepted" if ok else "rejected", "shows": []}
    head = f"Position {i + 1}: the target gives “{tok}” p = {p_s}; the draft gave it q = {q_s}. " \
           f"Accept with probability {ratio_text(p_s, q_s, ratio, accept)}. "
    if ok:
        committed.append(x)
        if accept == 1:
            frame["shows"] += ["capped"] if p > q else []
            why = "Since p > q, the ratio is capped at 1" if p > q else "Since p = q, the ratio is exactly 1"
            tail = f"{why}: accepted outright (u = {u_s} cannot fail)."
        else:
            tail = f"The draw u = {u_s} is below {accept}, so “{tok}” is accepted."
        frame.update(committed=list(committed), caption=head + tail)
        return frame
    rep = int(rounds.replacements[0, i])
    committed.append(rep)
    raw = [max(Fraction(0), a - b) for a, b in zip(data.target[i], profile.draft[i])]
    dropped = [{"position": j + 1, "token": profile.proposals[j],
                "accept": str(min(Fraction(1), data.target[j][profile.proposals[j]] / profile.draft[j][profile.proposals[j]]))}
               for j in range(i + 1, data.k)]
    if accept == 0:
        why = f"The target never produces “{tok}”, so no draw can pass: u = {u_s} is not below 0. Rejected."
        frame["shows"].append("zero")
    else:
        why = f"The draw u = {u_s} is not below {accept}: rejected."
    kept = [j for j, r in enumerate(raw) if r > 0]
    total = sum(raw, Fraction(0))
    res_text = ", ".join(f"“{vocab[j]}” {prob_str(raw[j], denom)}" for j in kept)
    norm_text = ", ".join(f"“{vocab[j]}” {residual[j]}" for j in kept)
    own = (f"max(0, {p_s} − {q_s}) = 0: it was rejected because q > p, and the residual subtracts the draft’s "
           "share from every token, this one included" if p > 0 else
           f"max(0, 0 − {q_s}) = 0, as any token the target never produces")
    tail = (f" The replacement is drawn from the residual max(0, p − q): {res_text}, every other token 0; "
            f"divided by their sum {prob_str(total, denom)}: {norm_text}. "
            f"“{tok}” itself gets {own}. Drawn: “{vocab[rep]}”.")
    frame["shows"].append("residual")
    if dropped:
        tail += f" The proposals at position{'s' if len(dropped) > 1 else ''} " \
                f"{_positions_text([d['position'] for d in dropped])} {'are' if len(dropped) > 1 else 'is'} dropped, never checked."
    frame.update(committed=list(committed), caption=head + why + tail, replacement=rep,
                 residual_raw=[prob_str(r, denom) for r in raw], residual=[str(r) for r in residual],
                 dropped=dropped)
    return frame


def bonus_frame(data: Dataset, rounds: Rounds, committed: list[int]) -> Frame:
    """Returns the frame that draws the bonus token after every proposal passed."""
    tok = int(rounds.bonus[0])
    committed.append(tok)
    caption = (f"All {data.k} proposals passed. The same target pass also scored position {data.k + 1}, "
               f"so one more token is drawn there, straight from the target: “{data.vocabulary[tok]}”.")
    return {"kind": "bonus", "position": data.k + 1, "token": tok, "committed": list(committed),
            "caption": caption, "shows": []}


def done_frame(data: Dataset, committed: list[int], dropped: list[dict[str, Any]]) -> Frame:
    """Returns the closing frame: what the round committed and, after a rejection, what it threw away."""
    caption = (f"The round commits {len(committed)} token{'s' if len(committed) != 1 else ''}: "
               f"{quoted(data.vocabulary, committed)}, for one pass of the target.")
    shows = []
    if dropped:
        sure = [d for d in dropped if d["accept"] == "1"]
        one = len(dropped) == 1
        caption += (f" The dropped proposal{'' if one else 's'} ({quoted(data.vocabulary, [d['token'] for d in dropped])}) "
                    f"cost {'a draft step' if one else 'a draft step each'} and {'was' if one else 'were'} never checked")
        whom = ("it" if one else "them") if len(sure) == len(dropped) else quoted(data.vocabulary, [d["token"] for d in sure])
        caption += f", though the target would have accepted {whom} outright." if sure else "."
        shows.append("drop")
    return {"kind": "done", "position": None, "committed": list(committed), "dropped": dropped,
            "caption": caption, "shows": shows}


def slots(data: Dataset, profile: Profile, frame: Frame, verdicts: dict[int, Frame], bonus: int | None) -> list[dict[str, Any]]:
    """Returns the state of every position, bonus last, as this frame leaves it (slot i is position i + 1)."""
    upto = {"propose": 0, "verify": frame["position"]}.get(frame["kind"], len(verdicts))  # positions checked so far
    rejected = next((p for p, f in verdicts.items() if p <= upto and f["verdict"] == "rejected"), None)
    out = []
    for pos, token in enumerate(profile.proposals, start=1):
        slot: dict[str, Any] = {"token": token}
        if pos <= upto:
            slot["state"] = verdicts[pos]["verdict"]
            if slot["state"] == "rejected":
                slot["replacement"] = verdicts[pos]["replacement"]
        else:
            slot["state"] = "dropped" if rejected else "proposed"
        out.append(slot)
    last = "bonus" if frame["kind"] in ("bonus", "done") and bonus is not None else ("none" if rejected else "pending")
    out.append({"token": bonus if last == "bonus" else None, "state": last})
    return out


def round_frames(data: Dataset, profile: Profile, rounds: Rounds, residuals: Sequence[Dist | None]) -> list[Frame]:
    """Returns propose, one verify per checked position, bonus if all passed, then done."""
    denom = common_denominator(data)
    committed: list[int] = []
    frames = [propose_frame(data, profile)]
    for i in range(int(rounds.n_checked[0])):
        frames.append(verify_frame(data, profile, rounds, i, committed, residuals[i], denom))
    if rounds.bonus[0] >= 0:
        frames.append(bonus_frame(data, rounds, committed))
    frames.append(done_frame(data, committed, frames[-1].get("dropped", [])))
    verdicts = {f["position"]: f for f in frames if f["kind"] == "verify"}
    bonus = int(rounds.bonus[0]) if rounds.bonus[0] >= 0 else None
    for n, frame in enumerate(frames, start=1):
        frame["index"] = n
        frame["slots"] = slots(data, profile, frame, verdicts, bonus)
    return frames

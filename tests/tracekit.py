"""Reads the trace as the page's script does: a frame's caption and the points it shows, from the plain JSON.

Test code only: the build never reads its own trace; these let tests check what the script will show."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from speculative import strings, text
from speculative.figures.walkthrough import common_fields


def shows(frame: dict[str, Any]) -> set[str]:
    """Returns the points worth noticing a trace frame shows, read from its kind, slots and caption keys (the trace
    leaves them out): a proposal passed outright (p >= q), a token the target never produces, a rejection's
    residual, and proposals dropped unchecked."""
    out = set()
    if frame["kind"] == "verify" and {"capped", "equal"} & set(frame["caption"]):
        out.add("capped")
    if frame["kind"] == "verify" and frame["slots"][frame["pos"] - 1] == "rejected":
        out |= {"residual", *({"zero"} if "zero" in frame["caption"] else set())}
    if frame["kind"] == "done" and "dropped" in frame["slots"]:
        out.add("drop")
    return out


def point_frame(trace: dict[str, Any], href: str) -> tuple[dict[str, Any], dict[str, Any], int, int]:
    """Returns (profile, its round, round number (0: authored), frame number) of a point's link
    "walkthrough/id/frame" or "walkthrough/id/rN/frame"."""
    prefix, pid, *rest = href.split("/")
    assert prefix == "walkthrough", href
    profile = next(p for p in trace["profiles"] if p["id"] == pid)
    round_ = int(rest[0][1:]) if len(rest) == 2 else 0
    return profile, profile["drawn"][round_ - 1] if round_ else profile["walk"], round_, int(rest[-1])


def frame_token(rnd: dict[str, Any], frame: dict[str, Any]) -> int | None:
    """Returns the token a frame is about: the proposal it checks, or the bonus token."""
    if frame["kind"] == "verify":
        return rnd["proposals"][frame["pos"] - 1]
    return rnd["bonus"] if frame["kind"] == "bonus" else None


def round_tokens(rnd: dict[str, Any], vocab: Sequence[str]) -> dict[str, str]:
    """Returns the fields the script makes for a round: its quoted proposals, and from its closing frame's slot states
    the tokens it committed (accepted, the replacement, the bonus) and how many, and the proposals it dropped; and
    its replacement's label."""
    slots, k = rnd["frames"][-1]["slots"], len(rnd["proposals"])
    token = {"accepted": lambda i: rnd["proposals"][i], "rejected": lambda i: rnd["replacement"],
             "bonus": lambda i: rnd["bonus"]}
    committed = [token[state](i) for i, state in enumerate(slots) if state in token]
    lost = [rnd["proposals"][i] for i, state in enumerate(slots) if state == "dropped" and i < k]
    made = {"proposals": text.quoted([vocab[t] for t in rnd["proposals"]]),
            "committed": text.quoted([vocab[t] for t in committed]), "lost": text.quoted([vocab[t] for t in lost]),
            "committed_count": text.fill(strings.WALKTHROUGH["token_one" if len(committed) == 1 else "tokens"], {"n": len(committed)})}
    return made | ({} if rnd["replacement"] is None else {"rep": text.isolated(vocab[rnd["replacement"]])})


def caption_of(pt: dict[str, Any], vocab: Sequence[str], rnd: dict[str, Any], frame: dict[str, Any]) -> str:
    """Returns the caption the script shows for a trace frame of profile trace `pt`."""
    ctx: dict[str, Any] = {}
    pos, x = frame["pos"], frame_token(rnd, frame)
    if frame["kind"] == "verify":
        f = pt["positions"][pos - 1]
        ctx = {"p": f["target"][x], "q": f["draft"][x], "accept": f["accept"][x], "worked": f["worked"][x],
               "res_raw": f["res_raw"], "res_total": f["res_total"], "res_norm": f["res_norm"]}
    if pos:
        ctx["pos"] = pos
    if x is not None:
        ctx["tok"] = text.isolated(vocab[x])
    ctx = {**ctx, **common_fields(len(rnd["proposals"])), **round_tokens(rnd, vocab), **rnd["fields"], **({"u": frame["u"]} if frame["u"] else {})}
    return " ".join(text.fill(strings.CAPTIONS[key], ctx) for key in frame["caption"])

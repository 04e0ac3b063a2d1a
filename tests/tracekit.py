"""Reads the trace as the page's script does: frame rows back into fields, and a frame's caption from its row.

Test code only: the build never reads its own trace; these let tests check what the script will show."""

from __future__ import annotations

from typing import Any, Sequence

from speculative import text
from speculative.view import SPACED
from speculative.figures.walkthrough import CAPTION_KEYS, FRAME_FIELDS, KINDS_BY_CODE, ROW_SEPARATOR, common_fields
from speculative import strings


def positions(pt: dict[str, Any], spaced: Sequence[str] = SPACED) -> list[dict[str, Any]]:
    """Returns a profile trace's positions as the script reads them, one dict per position: the trace holds them as
    columns {fact: [value per position]}, each fact in `spaced` (the trace's "spaced") one space-separated string
    with an empty item for None."""
    columns = pt["positions"]
    return [{name: [v or None for v in values[i].split(" ")] if name in spaced else values[i]
             for name, values in columns.items()} for i in range(len(next(iter(columns.values()))))]


def frame_dict(row: str | dict[str, Any]) -> dict[str, Any]:
    """Returns a trace frame row (its fields joined by ROW_SEPARATOR) as a dict of FRAME_FIELDS: its kind by name,
    position and chance flag as ints, caption keys (one base-36 digit each) as a list."""
    if isinstance(row, dict):
        return row
    f = dict(zip(FRAME_FIELDS, row.split(ROW_SEPARATOR), strict=True))
    return {**f, "kind": KINDS_BY_CODE[f["kind"]], "pos": int(f["pos"]), "chance": int(f["chance"]),
            "caption": [CAPTION_KEYS[int(d, 36)] for d in f["caption"]]}


def shows(frame: dict[str, Any]) -> set[str]:
    """Returns the points worth noticing a decoded frame shows, read from its kind, slots and caption keys (the trace
    leaves them out): a proposal passed outright (p >= q), a token the target never produces, a rejection's
    residual, and proposals dropped unchecked."""
    out = set()
    if frame["kind"] == "verify" and {"capped", "equal"} & set(frame["caption"]):
        out.add("capped")
    if frame["kind"] == "verify" and frame["slots"][frame["pos"] - 1] == "r":
        out |= {"residual", *({"zero"} if "zero" in frame["caption"] else set())}
    if frame["kind"] == "done" and "d" in frame["slots"]:
        out.add("drop")
    return out


def point_frame(trace: dict[str, Any], href: str) -> tuple[dict[str, Any], dict[str, Any], int, int]:
    """Returns (profile, its round, round number (0: authored), frame number) of a point's link "id/frame" or
    "id/rN/frame"."""
    pid, *rest = href.split("/")
    profile = next(p for p in trace["profiles"] if p["id"] == pid)
    round_ = int(rest[0][1:]) if len(rest) == 2 else 0
    return profile, profile["drawn"][round_ - 1] if round_ else profile["walk"], round_, int(rest[-1])


def frame_token(rnd: dict[str, Any], frame: dict[str, Any]) -> int | None:
    """Returns the token a frame is about: the proposal it checks, or the bonus token."""
    if frame["kind"] == "verify":
        return rnd["proposals"][frame["pos"] - 1]
    return rnd["bonus"] if frame["kind"] == "bonus" else None


def round_tokens(rnd: dict[str, Any], vocab: Sequence[str]) -> dict[str, str]:
    """Returns the fields the script makes for a round: its quoted proposals, and from its closing frame's slot codes
    the tokens it committed (accepted, the replacement, the bonus) and how many, and the proposals it dropped; and
    its replacement's label."""
    slots, k = frame_dict(rnd["frames"][-1])["slots"], len(rnd["proposals"])
    token = {"a": lambda i: rnd["proposals"][i], "r": lambda i: rnd["replacement"], "b": lambda i: rnd["bonus"]}
    committed = [token[code](i) for i, code in enumerate(slots) if code in token]
    lost = [rnd["proposals"][i] for i, code in enumerate(slots) if code == "d" and i < k]
    made = {"proposals": text.quoted([vocab[t] for t in rnd["proposals"]]),
            "committed": text.quoted([vocab[t] for t in committed]), "lost": text.quoted([vocab[t] for t in lost]),
            "committed_count": text.fill(strings.PLAYER["token_one" if len(committed) == 1 else "tokens"], {"n": len(committed)})}
    return made | ({} if rnd["replacement"] is None else {"rep": text.isolated(vocab[rnd["replacement"]])})


def caption_of(pt: dict[str, Any], vocab: Sequence[str], rnd: dict[str, Any], frame: Any) -> str:
    """Returns the caption the script shows for a trace frame row of profile trace `pt`."""
    frame = frame_dict(frame)
    ctx: dict[str, Any] = {}
    pos, x = frame["pos"], frame_token(rnd, frame)
    if frame["kind"] == "verify":
        f = positions(pt)[pos - 1]
        ctx = {"p": f["target"][x], "q": f["draft"][x], "accept": f["accept"][x], "worked": f["worked"][x],
               "res_raw": f["res_raw"], "res_total": f["res_total"], "res_norm": f["res_norm"]}
    if pos:
        ctx["pos"] = pos
    if x is not None:
        ctx["tok"] = text.isolated(vocab[x])
    ctx = {**ctx, **common_fields(len(rnd["proposals"])), **round_tokens(rnd, vocab), **rnd["fields"], **({"u": frame["u"]} if frame["u"] else {})}
    return " ".join(text.fill(strings.CAPTIONS[key], ctx) for key in frame["caption"])

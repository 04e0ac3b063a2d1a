"""Owns the view: turns the analysis into finished strings, chart markup and the JSON trace for the player."""

from __future__ import annotations

from typing import Any, Sequence

from . import charts, checks, text
from .analysis import Explained, ProfileResult
from .frames import Frame, Round
from .stats import PositionRecord
from .text import decimal_str, percent_str, prob_str


# --- the per-position facts the trace and the prose share -------------------------------------------


def position_facts(ex: Explained, r: ProfileResult, rec: PositionRecord) -> dict[str, Any]:
    """Returns one position as display strings: p, q, accept and worked ratio per token, and the residual."""
    d, vocab = ex.denom, ex.data.vocabulary
    kept = [y for y, t in enumerate(rec.tokens) if t.residual_raw > 0]
    return {
        "target": [prob_str(t.p, d) for t in rec.tokens],
        "draft": [prob_str(t.q, d) for t in rec.tokens],
        "proposal": r.profile.proposals[rec.position - 1],
        "alpha": prob_str(rec.alpha, d),
        "accept": [None if t.accept is None else str(t.accept) for t in rec.tokens],
        "ratio": [None if t.ratio is None else str(t.ratio) for t in rec.tokens],
        "worked": [None if t.accept is None else text.ratio_text(prob_str(t.p, d), prob_str(t.q, d), t.ratio, t.accept)
                   for t in rec.tokens],
        "residual_raw": [prob_str(t.residual_raw, d) for t in rec.tokens],
        "residual": [None if t.residual is None else str(t.residual) for t in rec.tokens],
        "res_total": prob_str(rec.residual_total, d),
        "res_raw": ", ".join(f"{text.quoted([vocab[y]])} {prob_str(rec.tokens[y].residual_raw, d)}" for y in kept),
        "res_norm": ", ".join(f"{text.quoted([vocab[y]])} {rec.tokens[y].residual}" for y in kept),
        "accept_f": [None if t.accept is None else float(t.accept) for t in rec.tokens],
        "cuts": [round(float(c), 6) for c in rec.residual_cuts],
        "q_cuts": [round(float(sum(t.q for t in rec.tokens[: y + 1])), 6) for y in range(len(rec.tokens))],
        "bars": bar_widths(rec),
    }


def bar_widths(rec: PositionRecord) -> list[list[float]]:
    """Returns [min(p, q), |p − q|, 1 if p > q else 0] per token, widths as fractions of the largest p or q there."""
    top = max(max(t.p, t.q) for t in rec.tokens)
    return [[round(float(t.overlap / top), 4), round(float(abs(t.p - t.q) / top), 4), int(t.p > t.q)] for t in rec.tokens]


SLOT_CODES = {"accepted": "a", "rejected": "r", "dropped": "d", "proposed": "p", "pending": "w", "none": "n", "bonus": "b"}


FRAME_FIELDS = ("kind", "pos", "slots", "caption", "u", "chance", "shows")
CAPTION_KEYS = tuple(text.CAPTIONS)  # a frame row names its caption patterns by their index here


def frame_json(frame: Frame) -> list[Any]:
    """Returns one frame as a compact row of FRAME_FIELDS: kind, position, slot states, caption keys, draw, flags.

    Tokens live once in the round; a slot state is one letter of SLOT_CODES, in position order, bonus last.
    """
    return [frame.kind, frame.position or 0, "".join(SLOT_CODES[s.state] for s in frame.slots),
            " ".join(str(CAPTION_KEYS.index(key)) for key in frame.caption),
            getattr(frame, "u", ""), int(getattr(frame, "chance", False)), " ".join(frame.shows)]


def frame_dict(row: Sequence[Any]) -> dict[str, Any]:
    """Returns a trace frame row as a dict of FRAME_FIELDS, caption keys and shows as lists (the player's frameOf)."""
    if isinstance(row, dict):
        return row
    f = dict(zip(FRAME_FIELDS, row))
    return {**f, "caption": [CAPTION_KEYS[int(i)] for i in f["caption"].split()], "shows": f["shows"].split()}


def round_json(rnd: Round, frames: Sequence[Frame]) -> dict[str, Any]:
    """Returns one round as trace JSON: its tokens and caption fields once, then its frames."""
    fields = {key: value for f in frames for key, value in f.fields.items() if key not in ("u", "tokens_count", "k") and value}
    return {"proposals": list(rnd.proposals), "replacement": rnd.replacement, "bonus": rnd.bonus,
            "fields": fields, "frames": [frame_json(f) for f in frames]}


def frame_token(rnd: dict[str, Any], frame: dict[str, Any]) -> int | None:
    """Returns the token a frame is about: the proposal it checks, or the bonus token."""
    if frame["kind"] == "verify":
        return rnd["proposals"][frame["pos"] - 1]
    return rnd["bonus"] if frame["kind"] == "bonus" else None


def caption_context(pt: dict[str, Any], vocab: Sequence[str], rnd: dict[str, Any], frame: dict[str, Any]) -> dict[str, Any]:
    """Returns the fields a frame's caption is filled from: its position's facts, the round's fields, its draw.

    The player's context() does the same in the browser.
    """
    ctx: dict[str, Any] = {}
    frame = frame_dict(frame)
    pos, x = frame["pos"], frame_token(rnd, frame)
    if frame["kind"] == "verify":
        f = pt["positions"][pos - 1]
        ctx = {"p": f["target"][x], "q": f["draft"][x], "accept": f["accept"][x], "worked": f["worked"][x],
               "res_raw": f["res_raw"], "res_total": f["res_total"], "res_norm": f["res_norm"]}
    if pos:
        ctx["pos"] = pos
    if x is not None:
        ctx["tok"] = text.isolated(vocab[x])
    return {**ctx, **common_fields(len(rnd["proposals"])), **rnd["fields"], **({"u": frame["u"]} if frame["u"] else {})}


def common_fields(k: int) -> dict[str, Any]:
    """Returns the caption fields every round of k positions shares, so the trace holds them once."""
    return {"k": k, "tokens_count": text.count(k, "token"), "lost": "", "sure": "", "dropped": ""}


def caption_of(pt: dict[str, Any], vocab: Sequence[str], rnd: dict[str, Any], frame: dict[str, Any]) -> str:
    """Returns a trace frame's caption, filled from its one home in text.CAPTIONS."""
    ctx = caption_context(pt, vocab, rnd, frame)
    return " ".join(text.fill(text.CAPTIONS[key], ctx) for key in frame_dict(frame)["caption"])


# --- the trace ----------------------------------------------------------------------------------


def profile_trace(ex: Explained, r: ProfileResult) -> dict[str, Any]:
    """Returns one profile's part of the trace."""
    s, d = r.stats, ex.denom
    return {
        "id": r.profile.id,
        "name": r.profile.name,
        "positions": [position_facts(ex, r, rec) for rec in s.records],
        "bonus_target": [prob_str(x, d) for x in ex.data.bonus_target],
        "walk": round_json(r.walk, r.frames),
        "drawn": [round_json(rnd, frames) for rnd, frames in zip(r.drawn_rounds, r.drawn)],
        "stats": {
            "accept_probabilities": [prob_str(a, d) for a in s.alphas],
            "expected_tokens_per_round": float(s.expected),
            "expected_tokens_exact": str(s.expected),
            "expected_tokens_display": decimal_str(s.expected),
            "round_cost": str(s.round_cost),
            "speedup": float(s.speedup),
            "speedup_display": decimal_str(s.speedup),
            "tokens_per_round_distribution": [str(p) for p in s.distribution],
        },
        "convergence": convergence_trace(r),
        "speedup": speedup_trace(ex, r),
    }


def convergence_trace(r: ProfileResult) -> dict[str, Any]:
    """Returns the Monte Carlo run at every checkpoint: counts, TV and bound per position, tokens per round."""
    cps = r.checkpoints
    return {"rounds": r.mc_rounds, "checkpoints": [c.rounds for c in cps],
            "within": [[int(x.tv <= x.tv_bound) for x in c.checks] for c in cps],
            "vacuous": [[int(x.tv_bound >= 1) for x in c.checks] for c in cps],
            "tv_text": [[decimal_str(x.tv, 4) for x in c.checks] for c in cps],
            "bound_text": [[decimal_str(min(x.tv_bound, 1.0), 4) for x in c.checks] for c in cps],
            "freq": [[[float(decimal_str(f, 3)) for f in x.freq] for x in c.checks] for c in cps],
            "lengths_freq": [[float(decimal_str(f, 3)) for f in c.length_freq] for c in cps],
            "reached": [[text.count(x.n, "round") for x in c.checks] for c in cps], "rounds_text": [f"{c.rounds:,}" for c in cps],
            "lengths_exact": [str(p) for p in r.stats.distribution]}


def browser_words(words: dict[str, str]) -> dict[str, str]:
    """Returns the patterns the player fills; the ones only the build fills stay out of the trace."""
    build_only = {"option", "none", "short", "target", "observed"}
    return {k: v for k, v in words.items() if k not in build_only}


def point_href(ex: Explained, where: tuple[int, int] | None) -> str | None:
    """Returns "profile-id/frame" for a point's frame, or None."""
    return None if where is None else f"{ex.results[where[0]].profile.id}/{where[1]}"


def trace(ex: Explained) -> dict[str, Any]:
    """Returns the JSON-ready trace embedded in the page and written to trace.json."""
    data = ex.data
    return {
        "format": "speculative-decoding-trace/2",
        "vocabulary": list(data.vocabulary),
        "labels": [text.isolated(t) for t in data.vocabulary],  # for sentences: isolated where direction matters
        "fields": common_fields(data.k),
        "k": data.k,
        "cost_model": {"draft_step": str(data.cost.draft_step), "verify_round": str(data.cost.verify_round)},
        "points": {name: point_href(ex, where) for name, where in ex.points.items()},
        "frame_fields": list(FRAME_FIELDS),
        "caption_keys": list(CAPTION_KEYS),
        "slot_states": STATES_BY_CODE,  # the player reads a frame's one-letter slot codes with this
        "text": {"captions": text.CAPTIONS, "player": text.PLAYER, "kinds": text.KIND_NAMES,
                 "states": text.STATE_NAMES, "lab": browser_words(text.LAB), "conv": browser_words(text.CONV),
                 "explore": text.EXPLORE},
        "lab": lab_default(ex),
        "explore": {"costs": [str(c) for c in data.cost.compare_draft_steps],
                    "cost_text": [text.cost_phrase(c) for c in data.cost.compare_draft_steps],
                    "round_costs": [[str(x) for x in row] for row in ex.round_costs]},
        "profiles": [profile_trace(ex, r) for r in ex.results],
    }


# --- the template context -------------------------------------------------------------------------


def point_view(ex: Explained, where: tuple[int, int] | None) -> dict[str, Any]:
    """Returns a "Show me" link to the frame that shows a point, or an empty link."""
    if where is None:
        return {"href": None, "label": None}
    r = ex.results[where[0]]
    return {"href": f"#{point_href(ex, where)}", "label": f"{r.profile.name}, frame {where[1]} of {len(r.frames)}"}


STATES_BY_CODE = {code: state for state, code in SLOT_CODES.items()}


def slot_views(rnd: dict[str, Any], frame: dict[str, Any], vocab: Sequence[str], k: int) -> list[dict[str, Any]]:
    """Returns each slot of a frame as the strip prints it (the player's renderStrip does the same)."""
    out = []
    for pos, code in enumerate(frame["slots"], start=1):
        state = STATES_BY_CODE[code]
        token = rnd["proposals"][pos - 1] if pos <= k else (rnd["bonus"] if state == "bonus" else None)
        words = text.STATE_NAMES[state]
        if state == "rejected":
            words += text.fill(text.PLAYER["slot_instead"], {"rep": text.isolated(vocab[rnd["replacement"]])})
        out.append({"state": state, "current": pos == frame["pos"],
                    "pos": text.fill(text.PLAYER["slot_bonus"], {"pos": pos}) if pos > k else str(pos),
                    "token": text.PLAYER["no_token"] if token is None else vocab[token], "text": words})
    return out


def frame_views(ex: Explained, pt: dict[str, Any]) -> list[dict[str, Any]]:
    """Returns the no-JS list's frames: head, strip and caption, all finished strings."""
    vocab, rnd = ex.data.vocabulary, pt["walk"]
    n, out = len(rnd["frames"]), []
    for i, f in enumerate(map(frame_dict, rnd["frames"]), start=1):
        head = text.fill(text.PLAYER["head_verify" if f["kind"] == "verify" else "head"],
                         {"i": i, "n": n, "kind": text.KIND_NAMES[f["kind"]], "pos": f["pos"]})
        out.append({"id": f"{pt['id']}/{i}", "head": head, "slots": slot_views(rnd, f, vocab, ex.data.k),
                    "caption": caption_of(pt, vocab, rnd, f)})
    return out


def position_rows(ex: Explained, r: ProfileResult, pt: dict[str, Any]) -> list[dict[str, Any]]:
    """Returns the Positions table's row groups and each position's overlap chart."""
    rows = []
    for rec, facts in zip(r.stats.records, pt["positions"]):
        x = facts["proposal"]
        rows.append({"position": rec.position, "proposal": x, "token": ex.data.vocabulary[x], "p": facts["target"],
                     "q": facts["draft"], "accept": ["–" if a is None else a for a in facts["accept"]],
                     "alpha": facts["alpha"], "accept_text": facts["worked"][x]})
    return rows


def profile_view(ex: Explained, r: ProfileResult, pt: dict[str, Any]) -> dict[str, Any]:
    """Returns one profile's figures as display strings and chart markup, for the prose and the templates."""
    s = r.stats
    return {
        "id": r.profile.id,
        "name": r.profile.name,
        "alphas": [prob_str(a, ex.denom) for a in s.alphas],
        "expected": decimal_str(s.expected),
        "expected_exact": str(s.expected),
        "speedup": decimal_str(s.speedup),
        "frames": len(r.frames),
        "frame_views": frame_views(ex, pt),
        "drawn_chance": r.drawn_with_chance,
        "has_chance": any(t.accept is not None and 0 < t.accept < 1 for rec in r.stats.records for t in rec.tokens),
        "drawn_mean": decimal_str(r.drawn_mean),
        "peak_k": r.best_k[cost_index(ex)] if cost_index(ex) is not None else None,
        "peak": decimal_str(r.stats.speedup_table[r.best_k[cost_index(ex)] - 1][cost_index(ex)], 3) if cost_index(ex) is not None else None,
        "peak_next": decimal_str(r.stats.speedup_table[min(r.best_k[cost_index(ex)], ex.data.k - 1)][cost_index(ex)], 3)
        if cost_index(ex) is not None else None,
        "all_pass": percent_str(s.distribution[-1]),
        "mc_rounds": f"{r.mc_rounds:,}",
        "max_tv": f"{max(c.tv for c in r.checks):.4f}",
        "table": speedup_cells(r),
        "positions": position_rows(ex, r, pt),
        "overlap_chart": charts.overlap_matrix(
            ex.data.vocabulary, [(rec.position, prob_str(rec.alpha, ex.denom), [t.p for t in rec.tokens],
                                  [t.q for t in rec.tokens], x) for rec, x in zip(r.stats.records, r.profile.proposals)],
            f"ov-{r.profile.id}", denom=ex.denom, row_key=r.profile.id),
    }


def residual_example(ex: Explained) -> dict[str, Any] | None:
    """Returns the first token the target does produce whose residual is still 0 because q > p, if any."""
    for r in ex.results:
        for rec in r.stats.records:
            for y, t in enumerate(rec.tokens):
                if 0 < t.p < t.q:
                    return {"profile": r.profile.name, "position": rec.position, "token": ex.data.vocabulary[y],
                            "open": f"{r.profile.id}/{rec.position}/{y}",
                            "p": prob_str(t.p, ex.denom), "q": prob_str(t.q, ex.denom)}
    return None


def identity_view(ex: Explained) -> dict[str, Any]:
    """Returns the worked check min(p,q) + (1-α)·residual = p at the walkthrough's first rejection."""
    where = ex.points.get("residual")
    r = ex.results[where[0] if where else 0]
    i = r.frames[where[1] - 1].position - 1 if where else 0
    d, rec = ex.denom, r.stats.records[i]
    rows = [{"token": token, "min": prob_str(t.overlap, d), "fix": prob_str(t.commit - t.overlap, d),
             "total": prob_str(t.commit, d), "p": prob_str(t.p, d)} for token, t in zip(ex.data.vocabulary, rec.tokens)]
    scope = (f"at all {text.count(ex.identity_total, 'position')}" if ex.identity_equal == ex.identity_total
             else f"at only {ex.identity_equal} of {text.count(ex.identity_total, 'position')}")
    summary = (f"The same sum, done in exact fractions for every token at every position of "
               f"{'the draft' if len(ex.results) == 1 else 'both drafts' if len(ex.results) == 2 else f'all {len(ex.results)} drafts'}, "
               f"matches the target {scope}.")
    return {"profile": r.profile.name, "position": i + 1, "rows": rows, "summary": summary,
            "where": ", where the walkthrough below meets a rejection" if where else ""}


def context(ex: Explained, tr: dict[str, Any]) -> dict[str, Any]:
    """Returns everything the prose and templates may refer to, as finished values."""
    data, cost = ex.data, ex.data.cost
    views = [profile_view(ex, r, pt) for r, pt in zip(ex.results, tr["profiles"])]
    return {
        "vocab": list(data.vocabulary),
        "V": len(data.vocabulary),
        "k": data.k,
        "profiles": views,
        "p": {v["id"]: v for v in views},
        "denom": ex.denom,
        "cost": {"draft_step": str(cost.draft_step), "verify_round": str(cost.verify_round),
                 "round_cost": str(ex.results[0].stats.round_cost),
                 "compare": [str(c) for c in cost.compare_draft_steps]},
        "points": {name: point_view(ex, where) for name, where in ex.points.items()},
        "mc_rounds": f"{data.monte_carlo.rounds:,}",
        "bonus_target": [prob_str(x, ex.denom) for x in data.bonus_target],
        "identity": identity_view(ex),
        "residual_example": residual_example(ex),
        "state_names": text.STATE_NAMES,
        "lab": lab_view(ex, tr),
        "convergence": [convergence_view(ex, r, pt) for r, pt in zip(ex.results, tr["profiles"])],
        "explore": speedup_view(ex),
        "conv_words": text.CONV,
        "n": counts(ex),
        "seeds": {"walk": data.walkthrough_seed, "mc": data.monte_carlo.seed, "drawn": data.drawn_rounds},
        "worst": {"round_cost": str(ex.results[0].stats.round_cost),
                  "speedup": decimal_str(ex.results[0].stats.worst_speedup)},
        "suite": suite_view(ex),
    }


def cost_index(ex: Explained) -> int | None:
    """Returns the column of the page's own draft-step cost among the compared costs, if it is one of them."""
    costs = list(ex.data.cost.compare_draft_steps)
    return costs.index(ex.data.cost.draft_step) if ex.data.cost.draft_step in costs else None


def counts(ex: Explained) -> dict[str, str]:
    """Returns the counts the prose names, each with its noun in agreement ("1 position", "5 positions")."""
    k, v = ex.data.k, len(ex.data.vocabulary)
    return {"tokens": text.count(v, "token"), "positions": text.count(k, "position"),
            "proposals": text.count(k, "proposal"), "profiles": text.count(len(ex.results), "profile"),
            "drawn": text.count(ex.data.drawn_rounds, "round"), "drawn_rounds": text.count(ex.data.drawn_rounds, "drawn round"),
            "bonus_position": str(k + 1)}


def suite_view(ex: Explained) -> dict[str, Any]:
    """Returns what the page says about the test suite, from the constants the suite itself uses (speculative.checks)."""
    c = checks
    return {"rounds": f"{c.ROUNDS:,}", "random": c.RANDOM_PROFILES, "tokens": f"{c.RANDOM_TOKENS[0]} to {c.RANDOM_TOKENS[1]}",
            "positions": f"{c.RANDOM_POSITIONS[0]} to {c.RANDOM_POSITIONS[1]}", "pairs": f"{c.IDENTITY_PAIRS:,}",
            "p_min": text.power_of_ten(c.P_MIN), "detectable": f"{c.DETECTABLE_TV:g}", "power": f"{c.POWER:.0%}",
            "broken_count": text.count(len(c.BROKEN), "broken sampler"), "broken": text.and_list(list(c.BROKEN)),
            "sequence_broken": text.and_list(list(c.SEQUENCE_BROKEN)), "harmless": text.and_list(list(c.HARMLESS)),
            "texts": f"{c.SEQUENCE_TEXTS:,}", "length": c.SEQUENCE_LENGTH, "page_texts": f"{c.PAGE_SEQUENCE_TEXTS:,}",
            "toy_tokens": len(c.TOY.vocabulary), "cells": f"{len(c.TOY.vocabulary) ** c.SEQUENCE_LENGTH:,}",
            "joint_tv": decimal_str(ex.sequence[0], 4), "joint_bound": decimal_str(ex.sequence[1], 4)}


# --- the interactive figures: each one's default state, rendered so the page reads without scripting ---


def lab_default(ex: Explained) -> dict[str, Any]:
    """Returns the lab's opening state: the first proposal chance decides, with u on the rejecting side."""
    if ex.chance:
        i, pos, token = ex.chance
        accept = ex.results[i].stats.records[pos - 1].tokens[token].accept
        u = decimal_str((accept + 1) / 2, 3)  # halfway between the threshold and 1: a rejection
    else:
        i, pos = 0, 1
        token = next(y for y, t in enumerate(ex.results[0].stats.records[0].tokens) if t.q > 0)
        u = "0.500"
    return {"profile": i, "where": f"{ex.results[i].profile.id}/{pos}", "pos": pos, "token": token, "u": u}


def lab_view(ex: Explained, tr: dict[str, Any]) -> dict[str, Any]:
    """Returns the accept-test lab: its position choices, its default state and the no-JS accept table."""
    options = [{"value": f"{r.profile.id}/{rec.position}", "label": text.fill(text.LAB["option"], {
        "name": r.profile.name, "pos": rec.position})} for r in ex.results for rec in r.stats.records]
    tables = [{"id": r.profile.id, "name": r.profile.name,
               "rows": [{"position": i2 + 1, "cells": ["–" if a is None else a for a in pt_pos["accept"]]}
                        for i2, pt_pos in enumerate(pt["positions"])]} for r, pt in zip(ex.results, tr["profiles"])]
    return {"options": options, "tables": tables, "none": ex.chance is None, "none_text": text.LAB["none"],
            "default": tr["lab"]}


def convergence_view(ex: Explained, r: ProfileResult, pt: dict[str, Any]) -> dict[str, Any]:
    """Returns one profile's convergence figure at its default state (the whole run, position 1), and its TV table."""
    conv, k = pt["convergence"], ex.data.k
    last = len(conv["checkpoints"]) - 1
    positions = [{"value": i, "label": text.fill(text.CONV["position" if i <= k else "bonus"], {"pos": i})}
                 for i in range(1, k + 2)]
    rows = [{"position": c.position, "label": positions[c.position - 1]["label"], "n": f"{c.n:,}",
             "tv": decimal_str(c.tv, 4), "bound": decimal_str(c.tv_bound, 4),
             "ok": text.CONV["within" if c.tv <= c.tv_bound else "above"]} for c in r.checks]
    return {"id": r.profile.id, "name": r.profile.name, "last": last, "positions": positions, "rows": rows,
            "chart": charts.tv_chart(conv["checkpoints"], [[x.tv for x in c.checks] for c in r.checkpoints],
                                     [[x.tv_bound for x in c.checks] for c in r.checkpoints],
                                     [p["label"] if p["value"] <= k else text.fill(text.CONV["short"], {"pos": p["value"]})
                                      for p in positions],
                                     f"tv-{r.profile.id}")}


def speedup_view(ex: Explained) -> dict[str, Any]:
    """Returns the speedup explorer's choices and its default state (all k, the page's own draft cost)."""
    cost = ex.data.cost
    costs = list(cost.compare_draft_steps)
    default = costs.index(cost.draft_step) if cost.draft_step in costs else 0
    return {"costs": [str(c) for c in costs], "cost_text": [text.cost_phrase(c) for c in costs], "default_cost": default,
            "k": ex.data.k}


def speedup_cells(r: ProfileResult) -> list[list[dict[str, Any]]]:
    """Returns the speedup table [k][cost] as cells: the value, ★ on each cost's best k, and whether it is below 1×."""
    best = r.best_k
    return [[{"text": decimal_str(v) + "×" + ("\u00a0★" if best[c] == k and v > 1 else ""), "slow": v < 1}
             for c, v in enumerate(row)] for k, row in enumerate(r.stats.speedup_table, start=1)]


def speedup_trace(ex: Explained, r: ProfileResult) -> dict[str, Any]:
    """Returns one profile's speedup at every (cost, k) for the explorer: display strings, heights and the best k."""
    table = r.stats.speedup_table  # [k][cost]
    top = max(max(max(row) for row in table), 1)
    return {"values": [[decimal_str(row[c]) for row in table] for c in range(len(table[0]))],
            "heights": [[round(float(row[c] / top), 4) for row in table] for c in range(len(table[0]))],
            "slow": [[int(row[c] < 1) for row in table] for c in range(len(table[0]))],
            "best": [k if table[k - 1][c] > 1 else 0 for c, k in enumerate(r.best_k)], "one": round(float(1 / top), 4)}

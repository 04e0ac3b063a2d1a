"""Owns the view: the analysis as finished strings for the prose, and the JSON trace for the script.

Each figure's own part comes from its module in `figures`; this module joins them and adds the page-wide facts
the prose quotes. It formats only: every number arrives computed from the analysis."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from . import checks, strings, text, variants
from .analysis import Explained, ProfileResult
from .figures import FIGURES, common, identity, positions, walkthrough
from .figures import name as figure_name
from .rules import NAMES
from .text import decimal_str, percent_str, prob_str


@dataclass(frozen=True)
class Figures:
    """Every figure's model, built once from the analysis, in the registry's order."""

    facts: common.Facts  # [profiles][k] every position's facts, which several figures share
    models: tuple[common.Figure, ...]  # [len(FIGURES)] one per figure module

    def parts(self, hook: str, *args: Any) -> dict[str, Any]:
        """Returns the merged results of every model's `hook` (figures.common.HOOKS), in the registry's order; two
        figures giving one key is a mistake in the figures, refused here."""
        out: dict[str, Any] = {}
        for m in self.models:
            part = getattr(m, hook)(*args)
            if clash := out.keys() & part.keys():
                raise ValueError(f"{type(m).__name__}.{hook} gives {', '.join(sorted(clash))}, which another figure gives")
            out.update(part)
        return out


def figures(ex: Explained) -> Figures:
    """Returns every figure's model."""
    facts = common.all_facts(ex)
    return Figures(facts, tuple(figure(ex, facts) for figure in FIGURES))


# --- the trace ----------------------------------------------------------------------------------


def stats_trace(ex: Explained, r: ProfileResult) -> dict[str, Any]:
    """Returns one profile's exact statistics as the script reads them."""
    s, d = r.stats, ex.position_denom(ex.results.index(r))
    return {"accept_probabilities": [prob_str(a, d) for a in s.alphas],
            "expected_tokens_per_round": float(s.expected), "expected_tokens_exact": str(s.expected),
            "expected_tokens_display": decimal_str(s.expected), "round_cost": str(s.round_cost),
            "speedup": float(s.speedup), "speedup_display": decimal_str(s.speedup),
            "tokens_per_round_distribution": [str(p) for p in s.distribution]}


def profile_trace(ex: Explained, figs: Figures, i: int) -> dict[str, Any]:
    """Returns one profile's part of the trace."""
    r = ex.results[i]
    return {"id": r.profile.id, "name": r.profile.name, "positions": [f.json() for f in figs.facts[i]],
            "bonus_target": [prob_str(x, ex.target_denom) for x in ex.data.bonus_target],
            "stats": stats_trace(ex, r), **figs.parts("profile_trace", i)}


def point_href(ex: Explained, where: tuple[int, int, int] | None) -> str | None:
    """Returns "walkthrough/profile-id/frame" (or ".../rN/frame" in drawn round N) for a point's frame, or None."""
    if where is None:
        return None
    i, frame, round_ = where
    return f"{walkthrough.FRAMES}/{ex.results[i].profile.id}/{f'r{round_}/' if round_ else ''}{frame}"


def text_table() -> dict[str, Any]:
    """Returns every table of words the figures' scripts read (each figure's WORDS), as text.<table in lower case>,
    without the keys only the build fills (strings.BUILD_ONLY): the script has no words of its own."""
    tables = dict.fromkeys(t for f in FIGURES for t in f.WORDS)
    return {t.lower(): {k: v for k, v in getattr(strings, t).items() if k not in strings.BUILD_ONLY} for t in tables}


def whole_numbers(value: Any) -> Any:
    """Returns value with every float that is a whole number as an int, so the JSON reads 0 and 1 for 0.0 and 1.0
    (the same number to the script) and the page carries no ".0" it does not need."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: whole_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [whole_numbers(v) for v in value]
    return value


def trace(ex: Explained, figs: Figures | None = None) -> dict[str, Any]:
    """Returns the JSON-ready trace embedded in the page and written to trace.json."""
    return whole_numbers(full_trace(ex, figs or figures(ex)))


def full_trace(ex: Explained, figs: Figures) -> dict[str, Any]:
    """Returns the trace's parts, in the order the trace holds them."""
    data = ex.data
    return {
        "format": "speculative-decoding-trace/5",  # 5: plain JSON throughout (frames and positions as objects)
        "vocabulary": list(data.vocabulary),
        "labels": [text.isolated(t) for t in data.vocabulary],  # for sentences: isolated where direction matters
        "fields": walkthrough.common_fields(data.k),
        "k": data.k,
        "cost_model": {"draft_step": str(data.cost.draft_step), "verify_round": str(data.cost.verify_round)},
        "points": {name: point_href(ex, where) for name, where in ex.points.items()},
        "text": text_table(),
        "rules": [{"id": rule, "name": name} for rule, name in NAMES.items()],  # the script names them by id
        "samplers": [v.json() for v in variants.VARIANTS],  # the rule, then the broken samplers a reader may switch on
        **{figure_name(f): part for f, m in zip(FIGURES, figs.models, strict=True) if (part := m.trace())},
        "profiles": [profile_trace(ex, figs, i) for i in range(len(ex.results))],
    }


# --- the template context -------------------------------------------------------------------------


def point_view(ex: Explained, where: tuple[int, int, int] | None) -> dict[str, Any]:
    """Returns a "Show me" link to the frame that shows a point, or an empty link."""
    if where is None:
        return {"href": None, "label": None}
    r, frame, round_ = ex.results[where[0]], where[1], where[2]
    label = text.fill(strings.WALKTHROUGH["point_drawn" if round_ else "point"],
                      {"name": r.profile.name, "i": frame, "n": len(r.frames_of(round_)), "r": round_})
    return {"href": f"#{point_href(ex, where)}", "label": label}


def peak_view(ex: Explained, r: ProfileResult) -> dict[str, Any]:
    """Returns the best k at the page's own costs, its speedup, the speedup one position further, and whether even
    the best k is slower than plain decoding."""
    k, value, after = r.own_peak(ex.data.cost)
    return {"peak_k": k, "peak": decimal_str(value, 3), "peak_next": None if after is None else decimal_str(after, 3),
            "peak_after": k + 1, "peak_slower": value < 1}


def pace(speedup: Fraction) -> str:
    """Returns how a speedup compares with plain decoding: a key of strings.WORST and strings.PACE."""
    return "slower" if speedup < 1 else "same" if speedup == 1 else "faster"


def profile_view(ex: Explained, figs: Figures, i: int) -> dict[str, Any]:
    """Returns one profile's figures as display strings and chart markup, for the prose and the templates."""
    r = ex.results[i]
    s = r.stats
    return {
        "id": r.profile.id,
        "name": r.profile.name,
        "alphas": [prob_str(a, ex.position_denom(i)) for a in s.alphas],
        "expected": decimal_str(s.expected),
        "expected_exact": str(s.expected),
        "speedup": decimal_str(s.speedup),
        "pace": strings.PACE[pace(s.speedup)],
        "drawn_chance": text.some_of(r.drawn_with_chance, ex.data.drawn_rounds, "drawn round", "contain"),
        "has_chance": r.has_chance,
        "drawn_mean": decimal_str(r.drawn_mean),
        **peak_view(ex, r),
        "all_pass": percent_str(s.distribution[-1]),
        "mc_rounds": f"{r.mc_rounds:,}",
        **figs.parts("profile_context", i),
    }


def residual_example(ex: Explained) -> dict[str, Any] | None:
    """Returns the first token the target does produce whose residual is still 0 because q > p, if any."""
    for i, r in enumerate(ex.results):
        for rec in r.stats.records:
            for y, t in enumerate(rec.tokens):
                if 0 < t.p < t.q:
                    return {"profile": r.profile.name, "position": rec.position, "token": ex.data.vocabulary[y],
                            "open": positions.lab_link(r.profile.id, rec.position, y, t.accept),
                            "p": prob_str(t.p, ex.target_denom), "q": prob_str(t.q, ex.draft_denom(i))}
    return None


def context(ex: Explained, figs: Figures | None = None) -> dict[str, Any]:
    """Returns everything the prose and templates may refer to, as finished values."""
    data, cost, figs = ex.data, ex.data.cost, figs or figures(ex)
    views = [profile_view(ex, figs, i) for i in range(len(ex.results))]
    return {
        "vocab": list(data.vocabulary),
        "V": len(data.vocabulary),
        "k": data.k,
        "k1": data.k + 1,
        "span": {"row": len(data.vocabulary) + 1, "table": len(data.vocabulary) + 2},  # table columns a row spans
        "profiles": views,
        "p": {v["id"]: v for v in views},
        "denom": ex.denom,
        "cost": {"draft_step": str(cost.draft_step), "verify_round": str(cost.verify_round),
                 "verify_words": text.cost_phrase(cost.verify_round), "draft_words": text.cost_phrase(cost.draft_step),
                 "paper": cost.verify_round == 1,  # the paper's model: checking a round costs one target pass
                 "round_words": text.cost_phrase(ex.results[0].stats.round_cost),
                 "round_cost": str(ex.results[0].stats.round_cost),
                 "compare": [str(c) for c in cost.compare_draft_steps]},
        "points": {name: point_view(ex, where) for name, where in ex.points.items()},
        "mc_rounds": f"{data.monte_carlo.rounds:,}",
        "bonus_target": [prob_str(x, ex.target_denom) for x in data.bonus_target],
        "residual_example": residual_example(ex),
        "state_names": strings.STATE_NAMES,
        "n": counts(ex),
        "authored_chance": text.and_list([r.profile.name for r in ex.results if r.walk_by_chance]),
        "authored_rounds": "round" if sum(r.walk_by_chance for r in ex.results) == 1 else "rounds",
        "seeds": {"walk": data.walkthrough_seed, "mc": data.monte_carlo.seed, "drawn": data.drawn_rounds},
        "worst": worst_view(ex.results[0].stats.worst_speedup, ex.results[0].stats.round_cost),
        "suite": suite_view(ex),
        **figs.parts("context"),
    }


def worst_view(speedup: Fraction, round_cost: Fraction) -> dict[str, str | bool]:
    """Returns what the prose says of a round whose first proposal is rejected: its cost, its speedup, and how that
    compares with plain decoding in words (slower unless a draft step is free or verifying costs under a step)."""
    return {"round_cost": str(round_cost), "speedup": decimal_str(speedup), "slower": speedup < 1,
            "ties": speedup == 1, **strings.WORST[pace(speedup)]}


def counts(ex: Explained) -> dict[str, str]:
    """Returns the counts the prose names, each with its noun in agreement ("1 position", "5 positions")."""
    k, v = ex.data.k, len(ex.data.vocabulary)
    return {"tokens": text.count(v, "token"), "positions": text.count(k, "position"),
            "proposals": text.count(k, "proposal"), "profiles": text.count(len(ex.results), "profile"),
            "first_drawn": "first round" if ex.data.drawn_rounds == 1 else f"first {text.count(ex.data.drawn_rounds, 'round')}",
            "bonus_position": str(k + 1), "mc_rounds": text.count(ex.data.monte_carlo.rounds, "round"),
            "mc_all": text.count(ex.data.monte_carlo.rounds, "round") if ex.data.monte_carlo.rounds == 1
            else f"all {text.count(ex.data.monte_carlo.rounds, 'round')}"}


def suite_view(ex: Explained) -> dict[str, Any]:
    """Returns what the page says about the checks, from the constants the checks themselves use (speculative.checks)."""
    c = checks
    return {"rounds": f"{c.ROUNDS:,}", "random": c.RANDOM_PROFILES, "tokens": f"{c.RANDOM_TOKENS[0]} to {c.RANDOM_TOKENS[1]}",
            "positions": f"{c.RANDOM_POSITIONS[0]} to {c.RANDOM_POSITIONS[1]}", "pairs": f"{c.IDENTITY_PAIRS:,}",
            "p_min": text.power_of_ten(c.P_MIN), "detectable": f"{c.DETECTABLE_TV:g}", "power": f"{c.POWER:.0%}",
            "broken_count": text.count(len(c.BROKEN), "broken sampler"), "broken": text.and_list(list(c.BROKEN)),
            "sequence_broken": text.and_list(list(c.SEQUENCE_BROKEN)), "harmless": text.and_list(list(c.HARMLESS)),
            "texts": f"{c.SEQUENCE_TEXTS:,}", "length": c.SEQUENCE_LENGTH, "page_texts": f"{c.PAGE_SEQUENCE_TEXTS:,}",
            "toy_tokens": len(c.TOY.vocabulary), "cells": f"{len(c.TOY.vocabulary) ** c.SEQUENCE_LENGTH:,}",
            "joint_tv": decimal_str(ex.sequence[0], 4), "joint_bound": decimal_str(ex.sequence[1], 4),
            "drafts": identity.drafts_phrase(len(ex.results)), "power_here": power_here(ex)}


def power_here(ex: Explained) -> bool:
    """Returns whether the check command's rounds reach every position of these drafts often enough to catch an error
    of checks.DETECTABLE_TV with probability checks.POWER: the least-reached position is the bonus position of some
    draft, reached by a share α1⋯αk = P(N = k + 1) of its rounds."""
    least = min(r.stats.distribution[-1] for r in ex.results)
    n = int(checks.ROUNDS * least)
    return n > 0 and checks.detectable_tv_tabled(n, len(ex.data.vocabulary)) <= checks.DETECTABLE_TV

"""Owns what several figures share: each position's facts as display strings, built once from the analysis."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from fractions import Fraction
from math import lcm
from typing import TYPE_CHECKING, Any, ClassVar

from .. import strings, text
from ..rules import BY_ID, RULES, top_token
from ..stats import PositionRecord, cumulative
from ..text import prob_str

if TYPE_CHECKING:  # the types only: a cached build never imports the analysis (and numpy)
    from ..analysis import Explained, ProfileResult


@dataclass(frozen=True)
class PositionFacts:
    """One position of one profile as the page prints it: p, q, accept and worked ratio per token, the residual.

    The player and the lab read it from the trace; the tables and captions read it here."""

    target: list[str]  # [V]
    draft: list[str]  # [V]
    proposal: int  # the authored proposal's token index
    alpha: str
    accept: list[str | None]  # [V] min(1, p/q), None where q = 0
    ratio: list[str | None]  # [V] p/q
    worked: list[str | None]  # [V] "min(1, (p)/(q)) = accept", the working a caption shows
    residual_raw: list[str]  # [V] max(0, p − q)
    residual: list[str | None]  # [V] the normalised residual, None when no rejection can happen
    res_total: str  # Σ max(0, p − q)
    res_raw: str  # the residual's non-zero tokens, raw
    res_norm: str  # ... normalised
    accept_f: list[float | None]  # [V] accept thresholds the browser compares a draw with
    cuts: list[float]  # [V] the normalised residual's cumulative sums: token y owns [cuts[y-1], cuts[y])
    q_cuts: list[float]  # [V] the draft's cumulative q: a draw u proposes token y when q_cuts[y-1] <= u < q_cuts[y]
    bars: list[list[float]]  # [V] [min(p, q), |p − q|, p > q] as shares of the largest p or q
    # the other verification rules (rules.RULES): what the lab's check, draws and tally compare with
    rates: dict[str, str]  # {rule id: the chance a proposal passes under that rule}, ids as in rules.RULES
    p_cuts: list[float]  # [V] the target's cumulative p: exact match's draw y
    greedy: int  # the greedy draft's proposal: the draft's top token, the first in vocabulary order on a tie
    greedy_f: float  # p at that proposal: the greedy draft's accept threshold
    greedy_cuts: list[float]  # [V] cumulative p without the proposal, renormalised: the replacement on a rejection
    greedy_res: list[str | None]  # [V] p without the proposal, renormalised; None when it cannot be rejected

    def json(self) -> dict[str, Any]:
        """Returns the trace's copy of these facts."""
        return asdict(self)


def position_facts(ex: Explained, r: ProfileResult, rec: PositionRecord) -> PositionFacts:
    """Returns one position of a profile's facts, formatted once."""
    i = ex.results.index(r)
    return position_facts_of(rec, r.profile.proposals[rec.position - 1], ex.data.vocabulary, ex.target_denom,
                             ex.draft_denom(i))


def position_facts_of(rec: PositionRecord, proposal: int, vocab: Sequence[str], dp: int = 1,
                      dq: int | None = None) -> PositionFacts:
    """Returns one position's facts with `proposal` as its proposed token: p over denominator dp, q over dq (dp when
    not given), and what is built from both over their least common multiple."""
    dq = dp if dq is None else dq
    d = lcm(dp, dq)
    kept = [y for y, t in enumerate(rec.tokens) if t.residual_raw > 0]
    return PositionFacts(
        target=[prob_str(t.p, dp) for t in rec.tokens],
        draft=[prob_str(t.q, dq) for t in rec.tokens],
        proposal=proposal,
        alpha=prob_str(rec.alpha, d),
        accept=[None if t.accept is None else str(t.accept) for t in rec.tokens],
        ratio=[None if t.ratio is None else str(t.ratio) for t in rec.tokens],
        worked=[None if t.accept is None or t.ratio is None else text.ratio_text(prob_str(t.p, dp), prob_str(t.q, dq), t.ratio, t.accept)
                for t in rec.tokens],
        residual_raw=[prob_str(t.residual_raw, d) for t in rec.tokens],
        residual=[None if t.residual is None else str(t.residual) for t in rec.tokens],
        res_total=prob_str(rec.residual_total, d),
        res_raw=", ".join(f"{text.quoted([vocab[y]])} {prob_str(rec.tokens[y].residual_raw, d)}" for y in kept),
        res_norm=", ".join(f"{text.quoted([vocab[y]])} {rec.tokens[y].residual}" for y in kept),
        accept_f=[None if t.accept is None else float(t.accept) for t in rec.tokens],
        cuts=[round(float(c), 6) for c in rec.residual_cuts],
        q_cuts=[round(float(c), 6) for c in draft_cuts(rec)],
        bars=bar_widths(rec),
        **rule_facts(rec, d),
    )


def rule_facts(rec: PositionRecord, d: int = 1) -> dict[str, Any]:
    """Returns the fields the greedy-draft and exact-match rules add to a position's facts."""
    p, q = tuple(t.p for t in rec.tokens), tuple(t.q for t in rec.tokens)
    x, rest = top_token(q), BY_ID["greedy-draft"].residual(p, q)
    return {"rates": {rule.id: prob_str(rule.acceptance(p, q), d) for rule in RULES},
            "p_cuts": [round(float(c), 6) for c in cumulative(p)], "greedy": x, "greedy_f": float(p[x]),
            "greedy_cuts": [round(float(c), 6) for c in cumulative(rest or [Fraction(0)] * len(p))],
            "greedy_res": [None if rest is None else str(r) for r in rest or p]}


def draft_cuts(rec: PositionRecord) -> tuple[Fraction, ...]:
    """Returns the draft's cumulative sums [V]: the cut points a uniform draw is compared with to propose a token."""
    return cumulative([t.q for t in rec.tokens])


def bar_widths(rec: PositionRecord) -> list[list[float]]:
    """Returns [min(p, q), |p − q|, 1 if p > q else 0] per token, widths as fractions of the largest p or q there."""
    top = max(max(t.p, t.q) for t in rec.tokens)
    return [[round(float(t.overlap / top), 4), round(float(abs(t.p - t.q) / top), 4), int(t.p > t.q)] for t in rec.tokens]


Facts = tuple[tuple[PositionFacts, ...], ...]  # [profiles][k] every position's facts


def all_facts(ex: Explained) -> tuple[tuple[PositionFacts, ...], ...]:
    """Returns [profiles][k] every position's facts."""
    return tuple(tuple(position_facts(ex, r, rec) for rec in r.stats.records) for r in ex.results)


def none_mark(value: str | None) -> str:
    """Returns the value, or the dash the page prints where there is none."""
    return strings.WALKTHROUGH["no_token"] if value is None else value


def accept_words(u: str, bound: str, below: bool, kept: bool, tok: str | None = None) -> str:
    """Returns an accept strip's words for a check as core.js's acceptWords writes them: u as shown, the bound it is
    compared with, whether u is below it and whether the proposal was kept ("u = 0.306 < 5/6: kept"); with `tok`,
    the proposal first ("“the”: u = …")."""
    w = strings.ACCEPT
    test = text.fill(w["test"], {"u": u, "rel": w["lt" if below else "ge"], "bound": bound,
                                 "verdict": w["kept" if kept else "rejected"]})
    return test if tok is None else text.fill(w["named"], {"tok": tok, "test": test})


HOOKS = ("trace", "context", "profile_trace", "profile_context")


@dataclass(frozen=True)
class Figure:
    """A figure's model, built once from the analysis: the one subclass in figures/<name>.py, whose module's name is
    the figure's one name. It overrides any of HOOKS, each giving a dict merged into the page's trace or template
    context (the trace's own part under the figure's name). Any other public method is refused as the class is made,
    so a misspelt hook fails instead of vanishing: helpers' names start with "_"."""

    ex: Explained
    facts: Facts  # [profiles][k] every position's facts, which several figures share

    SCRIPTS: ClassVar[tuple[str, ...]] = ()  # its files in templates/, in the order they join
    IDS: ClassVar[frozenset[str]] = frozenset()  # the element ids it writes
    PREFIXES: ClassVar[frozenset[str]] = frozenset()  # ... and the prefixes of those it writes per profile
    STYLESHEET: ClassVar[bool] = False  # whether templates/<name>.css, its own, joins the page's style
    WORDS: ClassVar[tuple[str, ...]] = ()  # strings' tables its script reads, as text.<table, lower case> in the trace

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        unknown = sorted(n for n, v in vars(cls).items() if callable(v) and not n.startswith("_") and n not in HOOKS)
        if unknown:
            raise TypeError(f"{cls.__name__}: {', '.join(unknown)} is no figure hook (expected one of {', '.join(HOOKS)}, "
                            f"or a helper whose name starts with _)")

    def trace(self) -> dict[str, Any]:
        return {}

    def context(self) -> dict[str, Any]:
        return {}

    def profile_trace(self, i: int) -> dict[str, Any]:
        return {}

    def profile_context(self, i: int) -> dict[str, Any]:
        return {}

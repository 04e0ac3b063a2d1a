"""Watch it generate: n-gram models counted from the page's own words race to a stated length, speculative decoding
against plain decoding on one clock.

The script counts the models from the prose's token ids (the trace carries them, not the tables), runs the rounds
live and fills strings.GENERATOR's patterns; this module gives it those ids and settings, and the no-JS page one
seeded race with its verdict."""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from .. import prose, strings, text, trees, variants
from ..sizes import CONTEXTS, KS, PROFILE_K, PROFILE_ROUNDS
from ..stats import round_cost
from ..text import decimal_str
from .common import Figure, accept_words

if TYPE_CHECKING:  # the types only: a cached build never imports the analysis (and numpy)
    from ..language import LanguageRun

KINDS = {"a": "accepted", "r": "replaced", "b": "bonus"}
CLOCK_STEPS = 20  # target passes the lanes' clock strips show
PLACES = 15  # the most decimals a probability below 1 gets to show that it is not 1
TIE = 1e-9  # clock times this close are the same time (a round's cost is summed in floats)
CHOOSE_KEYS = ("Enter", " ")  # the keys that press a focused token, as they press a button
NODE_COST = Fraction(0)  # a scored position's cost on the generator's clock: none, as its chain (round_cost's default)


def joined(tokens: Sequence[str]) -> list[tuple[str, str]]:
    """Returns (space before, token) pairs: a space unless punctuation joins the token to its neighbour."""
    out, previous = [], None
    for t in tokens:
        tight = previous is None or t[0] in strings.SPACE_BEFORE_NOT or previous[-1] in strings.SPACE_AFTER_NOT
        out.append(("" if tight else " ", t))
        previous = t
    return out


def counted(n: int, one: str, many: str) -> str:
    """Returns n with its noun from a pair of strings.GENERATOR's patterns, such as "1 token" or "{n} tokens"."""
    return strings.GENERATOR[one] if n == 1 else text.fill(strings.GENERATOR[many], {"n": f"{n:,}"})


def draft_names(run: LanguageRun) -> list[str]:
    """Returns the drafts' names, in the order the figure offers them (the target itself last)."""
    return [strings.GENERATOR["drafts"][m] for m in run.settings.draft_orders] + [strings.GENERATOR["drafts"][0]]


def probability(x: float) -> str:
    """Returns a probability as the figure prints it (generator.js's probText): "0" and "1" only when exactly so; 4
    places from 0.01 up, and as many more (up to PLACES) as it takes for a number below 1 not to print as 1, else
    "> 0.999…"; 3 significant digits below 0.01, in exponent form below 1e-6 ("2.05e-190", as toExponential(2)).
    Rounds the float's exact value half up, as JavaScript's toFixed."""
    if x in (0, 1):
        return str(int(x))
    if x < 1e-6:  # at a small temperature a probability can be far too small for decimals (or toFixed's 100 places)
        mantissa, exponent = f"{x:.2e}".split("e")
        return f"{mantissa}e{int(exponent)}"
    if x < 0.01:
        return _places(x, 2 - math.floor(math.log10(x)))
    places = 4
    while x < 1 and _places(x, places) == _places(1, places) and places < PLACES:
        places += 1
    return f"> 0.{'9' * places}" if x < 1 and _places(x, places) == _places(1, places) else _places(x, places)


def _places(x: float, places: int) -> str:
    """Returns x to `places` decimals, its exact value rounded half up, never in exponent form (as toFixed)."""
    return f"{Decimal(x).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP):f}"


def passes_phrase(cost: Fraction) -> str:
    """Returns a cost on the clock in target passes: "1 target pass", "1/10 of a target pass", "7/5 target passes"."""
    if 0 < cost < 1:
        return text.fill(strings.GENERATOR["pass_part"], {"n": cost})
    return counted(int(cost), "passes_one", "passes") if cost.denominator == 1 else text.fill(strings.GENERATOR["passes"], {"n": cost})


def verdict(goal: int, rounds: int, steps: int, time: float) -> str:
    """Returns who reached `goal` tokens first, and by how much: speculative decoding took `rounds` target passes and
    `steps` draft steps, `time` on the clock; plain decoding needs `goal` target passes, `goal` on the clock."""
    key = "verdict_tie" if abs(time - goal) < TIE else "verdict_spec" if time < goal else "verdict_plain"
    return text.fill(strings.GENERATOR[key], {
        "goal": goal, "passes": counted(rounds, "passes_one", "passes"), "steps": counted(steps, "steps_one", "steps"),
        "time": decimal_str(time, 1), "goal_passes": counted(goal, "passes_one", "passes"),
        "fewer": decimal_str(goal / rounds, 2), "ratio": decimal_str(max(goal / time, time / goal), 2)})


def expected(passes: Sequence[float], spread: Sequence[float] | None, k: int, cost: float, rounds: str) -> str:
    """Returns the expected tokens per round and speedup at k, with their 95% half-widths (None: exact)."""
    e = 1 + sum(passes[:k])  # language.tokens_per_round
    if spread is None:
        return text.fill(strings.GENERATOR["expected_exact"], {"per": decimal_str(e, 2), "speedup": decimal_str(e / cost, 2)})
    return text.fill(strings.GENERATOR["expected"], {
        "rounds": rounds, "per": decimal_str(e, 2), "pm": decimal_str(spread[k - 1], 2),
        "speedup": decimal_str(e / cost, 2), "speedup_pm": decimal_str(spread[k - 1] / cost, 2)})


def tree_round_cost(k: int, m: int, cost: Any) -> Fraction:
    """Returns a tree round's cost on the clock: k draft steps (a depth drafted in one batch), a target pass, and
    NODE_COST for each of its m + m^2 + ... + m^k scored nodes, where stats.round_cost charges a chain's k."""
    return round_cost(k, cost, verify_cost=NODE_COST) + (trees.tree_nodes(m, k) - k) * NODE_COST


def tree_costs(cost: Any) -> list[list[float]]:
    """Returns [m - 2][k - 1] tree_round_cost for m = 2..MAX_CANDIDATES, k = 1..8: what the script's clock reads."""
    return [[float(tree_round_cost(k, m, cost)) for k in range(1, 9)] for m in range(2, trees.MAX_CANDIDATES + 1)]


def rates(committed: Sequence[int], goal: int, cost: Fraction) -> tuple[float, float]:
    """Returns (tokens per round, tokens per target pass of the clock) of a race's rounds, each committing
    `committed[i]` tokens at `cost` on the clock, its tokens counted to the goal (as the lanes count them)."""
    tokens = min(goal, sum(committed))
    return tokens / len(committed), tokens / float(cost * len(committed))


def tree_verdict(tree: float, chain: float) -> str:
    """Returns which did better per target pass of the clock, to the two places shown (generator_text.js's tallyText)."""
    g = strings.GENERATOR_TREES
    return g["same"] if decimal_str(tree, 2) == decimal_str(chain, 2) else g["better"] if tree > chain else g["worse"]


def temp_label(t: Any) -> str:
    """Returns a temperature as the control shows it: 0, 0.5, 1, 1.5."""
    return f"{float(t):g}"


class Generator(Figure):
    SCRIPTS = ("js/generator_model.js", "js/generator_text.js", "js/generator_tree.js", "js/generator_tree_view.js",
               "js/generator_view.js", "js/generator.js")  # model, words, a tree's round and its drawing, render, race
    WORDS = ("GENERATOR", "ACCEPT", "GENERATOR_TREES")
    IDS = frozenset({"generator", "generator-title", "generator-draft", "generator-k", "generator-temp", "generator-sampler",
                     "generator-check", "generator-m", "generator-way"})
    STYLESHEET = True

    @property
    def _run(self) -> LanguageRun:
        run = self.ex.language
        if run is None:  # the analysis leaves it out only when no section places the generator
            raise ValueError("the generator's figure needs the analysis of the prose's model pair")
        return run

    def trace(self) -> dict[str, Any]:
        """Returns the script's part: the prose's ids, the settings and each draft's mean accept rate."""
        r, s, cost = self._run, self._run.settings, self.ex.data.cost
        return {"types": len(r.vocab),  # the script counts the vocabulary from the sections' data-corpus tokens
                "order": s.target_order, "orders": [*s.draft_orders, s.target_order], "discount": float(s.discount),
                "k": s.k, "max_k": 8, "temps": [float(t) for t in s.temperatures],
                "temp": s.temperatures.index(s.default_temperature), "draft": r.draft_index(s.default_draft),
                "seed": s.seed, "goal": r.goal, "passes": [[list(profile) for profile in row] for row in r.passes],
                "spreads": [[None if x is None else list(x) for x in row] for row in r.spreads],
                "profile_rounds": f"{PROFILE_ROUNDS:,}", "profile_k": PROFILE_K,
                "cost": {"c": float(cost.draft_step), "v": float(cost.verify_round), "c_text": str(cost.draft_step),
                         "v_text": str(cost.verify_round)},
                "clock": CLOCK_STEPS, "join": {"before": strings.SPACE_BEFORE_NOT, "after": strings.SPACE_AFTER_NOT},
                "kinds": list(KINDS.values()), "keys": list(CHOOSE_KEYS),
                "context": list(r.top_contexts[0]),  # the prose's most frequent context: a broken sampler's next token
                "context_size": text.count(s.target_order - 1, "token"),
                "cost_words": [passes_phrase(round_cost(k, cost)) for k in range(1, 9)],
                "max_m": trees.MAX_CANDIDATES, "tree_costs": tree_costs(cost)}

    def context(self) -> dict[str, Any]:
        """Returns the controls' choices and the seeded run, as the page shows it without scripting."""
        r, s = self._run, self._run.settings
        t1 = s.temperatures.index(1) if 1 in s.temperatures else s.temperatures.index(s.default_temperature)
        return {"generator_facts": {
            "drafts": draft_names(r), "draft": r.draft_index(s.default_draft), "k": s.k,
            "tokens": f"{len(r.ids):,}", "types": f"{len(r.vocab):,}", "discount": str(s.discount),
            "order": s.target_order, "alpha_t": temp_label(s.temperatures[t1]), "seed": s.seed,
            "regex": prose.TOKEN.pattern,
            "context_words": text.count(s.target_order - 1, "token"),
            "check_contexts": CONTEXTS, "check_ks": text.and_list([str(k) for k in KS]),
            "alphas": [{"name": strings.GENERATOR["short"][m], "alpha": decimal_str(row[t1], 2)}
                       for m, row in zip(s.draft_orders, r.alphas[:len(s.draft_orders)], strict=True)],  # then the target's own row
            "temps": [temp_label(t) for t in s.temperatures],
            "temp": s.temperatures.index(s.default_temperature), "spec_name": strings.GENERATOR["spec"],
            "plain_name": strings.GENERATOR["plain"], "dropped": strings.GENERATOR["dropped"], "pick": strings.GENERATOR["pick"],
            "clock": text.fill(strings.GENERATOR["clock"], {"window": CLOCK_STEPS}), "how": text.fill(strings.GENERATOR["how"], {"goal": r.goal}),
            "why": strings.GENERATOR["why"], "unit": strings.GENERATOR["unit"], "goal": r.goal, "new": strings.GENERATOR["new"],
            "prompt_key": strings.GENERATOR["prompt"], "samplers": [v.name for v in variants.VARIANTS],
            **self._seeded(), **self._facts(), **self._checks(), **self._trees()}}

    def _seeded(self) -> dict[str, Any]:
        """Returns the seeded run's lanes: the prompt, the speculative tokens with their kinds, the plain tokens."""
        r, v = self._run, self._run.vocab
        spec = [(i, kind) for g in r.run for i, kind in zip(g.committed, g.kinds, strict=True)][:r.goal]  # to the finish
        spaced = joined([v[i] for i in (*r.prompt, *(i for i, _ in spec))])
        plain = joined([v[i] for i in (*r.prompt, *r.plain)])
        n = len(r.prompt)
        return {"prompt": "".join(a + b for a, b in spaced[:n]),
                "spec": [{"space": a, "token": b, "kind": KINDS[kind]} for (a, b), (_, kind) in zip(spaced[n:], spec, strict=True)],
                "plain": "".join(a + b for a, b in plain[n:]),
                "legend": [{"kind": name, "text": strings.GENERATOR[name]} for name in ("accepted", "replaced", "bonus")]}

    def _checks(self) -> dict[str, Any]:
        """Returns the seeded race's last round as the row of its checks shows it (generator.js's renderChecks):
        the row's title, each check's strip words and verdict, then each proposal it dropped."""
        r = self._run
        last, v = r.run[-1], r.vocab
        kept = [kind == "a" for kind in last.kinds[:len(last.uniforms)]]  # one per check: the bonus is none
        cells = [{"text": accept_words(probability(u), probability(a), u < a, ok, v[x]), "state": "kept" if ok else "rejected"}
                 for x, a, u, ok in zip(last.proposals, last.accept, last.uniforms, kept, strict=False)]
        dropped = [text.fill(strings.GENERATOR["cell_dropped"], {"tok": v[x]}) for x in last.dropped]
        if last.kinds[-1] == "r":  # generate.REPLACED: the residual strip follows the rejected check
            cells.append({"text": self._residual_words(last), "state": "residual"})
        return {"checks_title": text.fill(strings.GENERATOR["checks_title"], {"round": len(r.run)}), "checks": cells,
                "dropped_cells": dropped}

    def _trees(self) -> dict[str, Any]:
        """Returns the candidates' controls and, for the page without scripting, the seeded race run again with 2 to
        MAX_CANDIDATES candidates per position both ways, each against the chain (the page's race, the same seed; each
        reads its own draws from it)."""
        from .. import generate

        r, s, cost, g = self._run, self._run.settings, self.ex.data.cost, strings.GENERATOR_TREES_PAGE
        t = float(s.default_temperature)
        p, q = generate.rows(r.target, t), generate.rows(r.drafts[r.draft_index(s.default_draft)], t)
        chain_per, chain_pass = rates([len(x.committed) for x in r.run], r.goal, round_cost(s.k, cost))
        rows = []
        for m, spec in ((m, spec) for m in range(2, trees.MAX_CANDIDATES + 1) for spec in trees.SPECS):
            race = generate.tree_race(p, q, r.prompt, s.k, m, spec.replace, generate.mulberry32(s.seed), r.goal)
            per, per_pass = rates([len(x.committed) for x in race], r.goal, tree_round_cost(s.k, m, cost))
            rows.append(text.fill(g["static_row"], {
                "m": m, "way": strings.GENERATOR_TREES["ways"][str(spec.replace).lower()], "per": decimal_str(per, 2),
                "pass": decimal_str(per_pass, 2), "verdict": tree_verdict(per_pass, chain_pass)}))
        return {"trees": {"m_label": g["m_label"], "way_label": g["way_label"], "ms": list(range(1, trees.MAX_CANDIDATES + 1)),
                          "ways": [{"value": str(spec.replace).lower(), "name": spec.name} for spec in trees.SPECS],
                          "static_title": text.fill(g["static_title"], {"chain_per": decimal_str(chain_per, 2),
                                                                        "chain_pass": decimal_str(chain_pass, 2)}),
                          "static_rows": rows,
                          "tree_key": [list(kv) for kv in g["tree_key"].items()]}}

    def _residual_words(self, last: Any) -> str:
        """Returns the residual strip's words after the round's rejection, as generator_view.js's residualCell: the
        draw r in the replacement's segment [lo, hi) of the residual at the rejected check's context."""
        from .. import generate, sampler

        r, s, width = self._run, self._run.settings, len(self._run.prompt)
        before = (*last.context, *last.proposals[:len(last.uniforms) - 1])  # the text the rejected check scored
        at, t = tuple(before[len(before) - width:]), float(s.default_temperature)
        p = generate.rows(r.target, t)(at)
        q = generate.rows(r.drafts[r.draft_index(s.default_draft)], t)(at)
        fix, y = sampler.RULE.residual(p, sampler.RULE.verify_dist(q)), last.committed[-1]
        total, lo = float(fix.sum()), float(fix[:y].sum())
        lo, hi = lo / total, lo / total + float(fix[y]) / total
        return text.fill(strings.ACCEPT["drawn"], {"u": probability(last.last_draw), "lo": probability(lo),
                                                   "hi": probability(hi), "tok": r.vocab[y]})

    def _facts(self) -> dict[str, Any]:
        """Returns the seeded race's figures, its verdict and the expected ones, as finished sentences."""
        r, s, cost, g = self._run, self._run.settings, self.ex.data.cost, strings.GENERATOR
        rounds, tokens = len(r.run), min(r.goal, sum(len(x.committed) for x in r.run))  # the lane stops at the goal
        time = float(r.round_cost * rounds)
        per = tokens / rounds
        d, t = r.draft_index(s.default_draft), s.temperatures.index(s.default_temperature)
        goal = {"goal": r.goal}
        return {
            "plain_stats": text.fill(g["plain_stats"], {**goal, "tokens": counted(len(r.plain), "token_one", "tokens"),
                                                         "passes": counted(len(r.plain), "passes_one", "passes"),
                                                         "time": decimal_str(len(r.plain), 1)}),
            "spec_stats": text.fill(g["spec_stats"], {
                **goal, "tokens": counted(tokens, "token_one", "tokens"), "time": decimal_str(time, 1),
                "passes": counted(rounds, "passes_one", "passes"),
                "steps": counted(rounds * s.k, "steps_one", "steps"), "per": decimal_str(per, 2)}),
            "verdict": verdict(r.goal, rounds, rounds * s.k, time),
            "expected": expected(r.passes[d][t], r.spreads[d][t], s.k, float(r.round_cost), f"{PROFILE_ROUNDS:,}"),
            "expected_note": text.fill(g["expected_note"], {"rounds": f"{PROFILE_ROUNDS:,}", "kmax": PROFILE_K, "k": s.k,
                                                            "c": str(cost.draft_step), "v": str(cost.verify_round),
                                                            "cost": passes_phrase(r.round_cost)}),
        }

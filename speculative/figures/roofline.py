"""When checking several guesses stops being free: one pass's time against the tokens it scores (the roofline), and
the speedup against the batch size, for the data file's hardware, model pairs and drafts (speculative/roofline.py);
the charts at the defaults and a table of speedups by batch for readers without scripting, and the words the prose
ties to the explorer's cost model."""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any

from .. import roofline as rl
from .. import roofline_charts as ch
from .. import stats, strings, text
from ..text import decimal_str
from .common import Figure
from .explorer import tree_acceptance

WAY = "without"  # candidates drawn without replacement (trees.SPECS' ids), as the contract with the script says
WIDTHS = (1, 2, 3, 4)  # the candidates per position offered: trees.MAX_CANDIDATES at most


def _tokens(n: int) -> str:
    return text.fill(strings.ROOFLINE["tokens_one" if n == 1 else "tokens_many"], {"n": ch.grouped(n)})


class Roofline(Figure):
    SCRIPTS = ("js/roofline_model.js", "js/roofline_charts.js", "js/roofline.js")
    WORDS = ("ROOFLINE",)
    STYLESHEET = True
    IDS = frozenset({"roofline", "roofline-title", "roofline-hardware", "roofline-pair", "roofline-profile", "roofline-k",
                     "roofline-m", "roofline-batch", "roofline-table", "roofline-pass", "roofline-speedup"})

    def _acceptance(self, i: int) -> tuple[tuple[Fraction, ...], ...]:
        """Returns profile i's A [m - 1][position], candidates drawn without replacement."""
        return self._acceptances[i]

    @property
    def _first(self) -> tuple[rl.Hardware, rl.ModelPair, Fraction]:
        """Returns what the figure shows first, and readers without scripting: the first hardware and pair, with the
        file's bytes per parameter."""
        rf = self.ex.data.roofline
        return rf.hardware[0], rf.pairs[0], rf.bytes_per_parameter

    @functools.cached_property
    def _acceptances(self) -> list[tuple[tuple[Fraction, ...], ...]]:
        return [tree_acceptance(self.ex.data.target, p.draft)[WAY] for p in self.ex.data.profiles]

    def _expected(self, i: int, k: int, m: int) -> Fraction:
        """Returns profile i's E over its first k positions with m candidates at each: 1 + A1 + A1·A2 + …"""
        return stats.expected_tokens(self._acceptance(i)[m - 1][:k])

    def _top(self) -> int:
        """Returns the speedup chart's top: a whole number, at least 2, at or above every choice's speedup at batch 1
        (for one hardware, pair, k and m, the draft with the highest E has the highest speedup)."""
        rf, b, data = self.ex.data.roofline, self.ex.data.roofline.bytes_per_parameter, self.ex.data
        best_e = {(k, m): max(self._expected(i, k, m) for i in range(len(data.profiles)))
                  for k in range(1, data.k + 1) for m in WIDTHS}
        best = max(rl.speedup(e, pair, hw, b, 1, k, m) for hw in rf.hardware for pair in rf.pairs
                   for (k, m), e in best_e.items())
        return max(2, math.ceil(best))

    @functools.cached_property
    def _axes(self) -> dict[str, Any]:
        rf, b = self.ex.data.roofline, self.ex.data.roofline.bytes_per_parameter
        fastest = min(rl.pass_time(pair.draft, 1, hw, b) for hw in rf.hardware for pair in rf.pairs)
        slowest = max(rl.pass_time(pair.target, 2 ** ch.TOKENS_LOG2_MAX, hw, b) for hw in rf.hardware for pair in rf.pairs)
        return ch.axes(math.floor(math.log10(fastest)), math.ceil(math.log10(slowest)), self._top())

    def trace(self) -> dict[str, Any]:
        """Returns the script's part: the choices, each profile's A [m - 1][position], the defaults and the axes."""
        rf, k = self.ex.data.roofline, self.ex.data.k
        return {
            "hardware": [{"name": h.name, "bandwidth": float(h.bandwidth), "flops": float(h.flops),
                          "out": self._hardware_out(h)} for h in rf.hardware],
            "pairs": [{"name": p.name, "target": float(p.target), "draft": float(p.draft), "ratio": str(p.ratio),
                       "out": text.fill(strings.ROOFLINE["pair_out"], {"ratio": p.ratio})} for p in rf.pairs],
            "bytes": float(rf.bytes_per_parameter), "k": k, "widths": list(WIDTHS),
            "profiles": [{"name": p.name, "a": [[float(a) for a in by_m[:k]] for by_m in self._acceptance(i)[:len(WIDTHS)]]}
                         for i, p in enumerate(self.ex.data.profiles)],
            "batch_log2_max": ch.BATCH_LOG2_MAX,
            "defaults": {"hardware": 0, "pair": 0, "profile": 0, "k": k, "m": 1, "batch_log2": 0},
            "axes": self._axes}

    @staticmethod
    def _hardware_out(h: rl.Hardware) -> str:
        return text.fill(strings.ROOFLINE["hardware_out"], {"bandwidth": ch.grouped(h.bandwidth_gb_s),
                                                            "tflops": ch.grouped(h.tflops)})

    def _sentences(self, hw: rl.Hardware, pair: rl.ModelPair, i: int, k: int, m: int, n: int) -> dict[str, str]:
        """Returns what one step and one round cost at batch n, and where speculation stops paying, in words."""
        w, b = strings.ROOFLINE, self.ex.data.roofline.bytes_per_parameter
        e, knee, check = self._expected(i, k, m), rl.knee(hw, b), n * rl.scored(k, m)
        passes = text.fill(w["passes_one" if k == 1 else "passes_many"], {"k": k})
        step = text.fill(w["step"], {
            "n": ch.grouped(n), "plain_tokens": _tokens(n), "plain": ch.time_str(float(rl.plain_time(pair, hw, b, n))),
            "drafts": passes, "check_tokens": _tokens(check), "round": ch.time_str(float(rl.round_time(pair, hw, b, n, k, m))),
            "e": decimal_str(e), "value": ch.speedup_str(rl.speedup(e, pair, hw, b, n, k, m))})
        step += text.fill(w["flat" if check <= knee else "steep"], {"knee": ch.knee_str(knee)})
        stop = rl.stops_paying(e, pair, hw, b, k, m)
        said = (text.fill(w["stop_beyond"], {"n": ch.grouped(rl.MAX_BATCH)}) if stop is None else w["stop_never"]
                if stop == 1 else text.fill(w["stop_at"], {"n": ch.grouped(stop)}))
        return {"words": step, "stop": said}

    def _shown(self, hw: rl.Hardware, pair: rl.ModelPair, i: int, k: int, m: int, n: int) -> str:
        """Returns the line naming the setting the charts are drawn for (the script writes it again as it changes)."""
        w = strings.ROOFLINE
        return text.fill(w["shown"], {
            "hardware": hw.name, "pair": pair.name, "profile": self.ex.data.profiles[i].name,
            "positions": text.fill(w["positions_one" if k == 1 else "positions_many"], {"k": k}),
            "candidates": text.fill(w["candidates_one" if m == 1 else "candidates_many"], {"m": m}),
            "batch": text.fill(w["batch_one" if n == 1 else "batch_many"], {"n": ch.grouped(n)})})

    def _widest(self) -> dict[str, Any]:
        """Returns the widest tree the figure offers (trees.MAX_CANDIDATES candidates at each of every position) for
        the first draft on the first hardware with the first pair: the positions its check scores, whether at a batch
        of 1 that is past the knee, its speedup there, and the explorer's for the same tree with a free check."""
        from .. import trees
        from ..stats import speedup_curve

        data, m = self.ex.data, trees.MAX_CANDIDATES
        k = data.k
        hw, pair, b = self._first
        theirs = speedup_curve(self._acceptance(0)[m - 1][:k], data.cost, width=m)[k - 1]
        return {"m": m, "scored": ch.grouped(rl.scored(k, m)), "past_at_one": rl.scored(k, m) > rl.knee(hw, b),
                "speedup": ch.speedup_str(rl.speedup(self._expected(0, k, m), pair, hw, b, 1, k, m)),
                "explorer_speedup": ch.speedup_str(theirs)}

    def _charts(self, i: int, k: int, m: int, n: int) -> dict[str, str]:
        """Returns both charts at these settings, on the first hardware with the first pair."""
        w, page = strings.ROOFLINE, strings.ROOFLINE_PAGE
        hw, pair, b = self._first
        ax, e, knee, check = self._axes, self._expected(i, k, m), rl.knee(hw, b), n * rl.scored(k, m)
        lines = {"target": lambda t: float(rl.pass_time(pair.target, Fraction(t), hw, b)),
                 "draft": lambda t: float(rl.pass_time(pair.draft, Fraction(t), hw, b))}
        pass_desc = text.fill(w["pass_desc"], {
            "hardware": hw.name, "knee": ch.knee_str(knee), "n": ch.grouped(n), "plain_tokens": _tokens(n),
            "plain": ch.time_str(lines["target"](n)), "check_tokens": _tokens(check), "check": ch.time_str(lines["target"](check))})
        curve = [(s, float(rl.speedup(e, pair, hw, b, s, k, m))) for s in ch.samples()]
        speedup_desc = text.fill(w["speedup_desc"], {
            "profile": self.ex.data.profiles[i].name, "k": k, "m": m, "first": ch.speedup_str(curve[0][1]),
            "last": ch.speedup_str(curve[-1][1]), "max": ch.grouped(curve[-1][0])})
        return {"pass_chart": ch.pass_chart(ax, lines, float(knee), n, check, page["pass_title"], pass_desc, page["pass_x"]),
                "speedup_chart": ch.speedup_chart(ax, curve, n, float(rl.speedup(e, pair, hw, b, n, k, m)),
                                                  rl.stops_paying(e, pair, hw, b, k, m), page["speedup_title"], speedup_desc,
                                                  page["speedup_x"])}

    def _table(self) -> list[dict[str, Any]]:
        """Returns the no-JS table's rows, one per profile: the speedup at each of table_batches on the first hardware
        with the first pair, all positions, one candidate each, and where it stops paying."""
        rf, k, page = self.ex.data.roofline, self.ex.data.k, strings.ROOFLINE_PAGE
        hw, pair, b = self._first
        rows = []
        for i, p in enumerate(self.ex.data.profiles):
            e = self._expected(i, k, 1)
            values = [rl.speedup(e, pair, hw, b, n, k) for n in rf.table_batches]
            stop = rl.stops_paying(e, pair, hw, b, k)
            rows.append({"name": p.name, "cells": [{"text": text.fill(strings.ROOFLINE["times"], {"value": ch.speedup_str(v)}),
                                                    "slow": v < 1} for v in values],
                         "stop": text.fill(page["beyond_cell"], {"n": ch.grouped(rl.MAX_BATCH)}) if stop is None
                         else page["never_cell"] if stop == 1 else ch.grouped(stop)})
        return rows

    def _explorer_tie(self) -> dict[str, Any]:
        """Returns what the prose says of the explorer's cost model: whether, at batch 1 on the first hardware, the
        first pair is exactly its assumption (draft/target = the file's draft step, a check costing one target pass,
        and every pass below the knee, so each profile's speedup at k = all positions is the explorer's), the
        speedups, and the two ratios."""
        data = self.ex.data
        cost, k = data.cost, data.k
        hw, pair, b = self._first
        ours = [rl.speedup(self._expected(i, k, 1), pair, hw, b, 1, k) for i in range(len(data.profiles))]
        same = pair.ratio == cost.draft_step and cost.verify_round == 1
        return {"same_ratio": same, "matches": same and ours == [r.stats.speedup for r in self.ex.results],
                "ratio": str(pair.ratio), "draft_step": text.cost_phrase(cost.draft_step),
                "verify_round": text.cost_phrase(cost.verify_round),
                "verify_one": cost.verify_round == 1,
                "speedups": [{"name": p.name, "value": decimal_str(v)} for p, v in zip(data.profiles, ours, strict=True)]}

    def _regimes(self) -> dict[str, Any]:
        """Returns the fold's worked numbers at the defaults (first hardware, pair and profile, a chain of every
        position): T*/(k + 1), E, c, the closed-form crossing n* when it is a batch of 1 or more, and where a chain and
        a tree of width 2 stop paying (None when they still pay at MAX_BATCH or never do)."""
        data = self.ex.data
        k = data.k
        hw, pair, b = self._first
        e, knee = self._expected(0, k, 1), rl.knee(hw, b)
        cross = rl.crossing(e, k, pair.ratio, knee)
        stop, wide = rl.stops_paying(e, pair, hw, b, k), rl.stops_paying(self._expected(0, k, 2), pair, hw, b, k, 2)
        flat = math.floor(knee / (k + 1))  # the largest batch whose check stays at or below the knee
        return {"flat_until": ch.grouped(flat) if flat >= 1 else None, "e": decimal_str(e), "ratio": str(pair.ratio),
                "crossing": decimal_str(cross, 1) if cross is not None and cross >= 1 and stop is not None else None,
                "stop": ch.grouped(stop) if stop is not None and stop > 1 else None,
                "stop_wide": ch.grouped(wide) if wide is not None and wide > 1 else None}

    def context(self) -> dict[str, Any]:
        """Returns the figure at its defaults (first hardware, pair and profile, every position, one candidate, a batch
        of 1), its no-JS table, and the facts the prose quotes."""
        data = self.ex.data
        rf, k = data.roofline, data.k
        hw, pair, b = self._first
        return {"roofline_facts": {
            "hardware": [{"name": h.name, "out": self._hardware_out(h)} for h in rf.hardware],
            "pairs": [{"name": p.name, "out": text.fill(strings.ROOFLINE["pair_out"], {"ratio": p.ratio})} for p in rf.pairs],
            "profiles": [p.name for p in data.profiles], "k": k, "k_text": text.count(k, "position"), "max_m": WIDTHS[-1], "batch_log2_max": ch.BATCH_LOG2_MAX,
            "k_out": text.fill(strings.ROOFLINE["k_out"], {"k": k}), "m_out": text.fill(strings.ROOFLINE["m_out"], {"m": 1}),
            "batch_out": text.fill(strings.ROOFLINE["batch_out"], {"n": 1}),
            "profile_out": text.fill(strings.ROOFLINE["profile_out"], {"e": decimal_str(self._expected(0, k, 1))}),
            "shown": self._shown(hw, pair, 0, k, 1, 1), "check_past": rl.scored(k, 1) > 2 ** ch.TOKENS_LOG2_MAX,
            "stop_drawn": 1 < (rl.stops_paying(self._expected(0, k, 1), pair, hw, b, k) or 0) <= 2 ** ch.BATCH_LOG2_MAX,
            **self._charts(0, k, 1, 1), **self._sentences(hw, pair, 0, k, 1, 1), **strings.ROOFLINE_PAGE,
            "hardware_name": hw.name, "pair_name": pair.name, "profile_name": data.profiles[0].name,
            "batches": [ch.grouped(n) for n in rf.table_batches], "rows": self._table(),
            "two_bytes": b == 2, "bytes": str(b), "knees": [{"name": h.name, "knee": ch.knee_str(rl.knee(h, b))} for h in rf.hardware],
            "explorer": self._explorer_tie(), "regimes": self._regimes(), "widest": self._widest()}}

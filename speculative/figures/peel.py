"""Several candidates per position: p peeled one residual after another (a stacked bar per token, with the numbers
in a table), and the tokens per round each draft commits with m candidates, drawn with and without replacement."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from .. import charts, stats, strings, text, trees
from ..text import decimal_str, prob_str
from .common import Figure

WIDTH = 3  # candidates the picture peels p for


class Peel(Figure):
    IDS = frozenset({"peel", "peel-cap", "peel-chart", "peel-e-cap"})

    def _where(self) -> tuple[int, int]:
        """Returns (profile, position index) of the picture: the first position, in data order, whose p is peeled
        into the most layers by WIDTH candidates (each rejection leaves something for the next)."""
        ex = self.ex
        places = [(i, j) for i in range(len(ex.data.profiles)) for j in range(ex.data.k)]
        return max(places, key=lambda w: (len(self._layers(*w)[0]), -w[0], -w[1]))

    def _layers(self, i: int, j: int) -> tuple[list[list[Fraction]], list[Fraction]]:
        """Returns ([layers][V] what candidate 1, 2, ... keeps of each token, [V] what is drawn after WIDTH misses),
        each already times the chance of getting that far, so that they sum to p."""
        p, q = self.ex.data.target[j], self.ex.data.profiles[i].draft[j]
        layers, reach = [], Fraction(1)
        peel = trees.peeled(p, q, WIDTH)
        for alpha, r in peel[:WIDTH]:
            layers.append([reach * min(a, b) for a, b in zip(r, q, strict=True)])
            reach *= 1 - alpha
        rest = [reach * a for a in peel[WIDTH][1]] if len(peel) > WIDTH else [Fraction(0)] * len(p)
        return layers, rest

    def _expected(self, i: int, spec: trees.Spec) -> list[str]:
        """Returns profile i's E over all its positions with m = 1 .. MAX_CANDIDATES candidates each."""
        draft, target = self.ex.data.profiles[i].draft, self.ex.data.target
        return [decimal_str(stats.expected_tokens([trees.position(p, q, m, spec).acceptance
                                                   for p, q in zip(target, draft, strict=True)]))
                for m in range(1, trees.MAX_CANDIDATES + 1)]

    def _broken(self) -> list[dict[str, Any]]:
        """Returns, for each broken way, what it commits with 2 candidates at the first position, in data order, where
        that differs from p (none where it never does)."""
        ex, out = self.ex, []
        for spec in trees.BROKEN:
            wrong = next(((i, j, c) for i, pr in enumerate(ex.data.profiles) for j, (p, q) in
                          enumerate(zip(ex.data.target, pr.draft, strict=True))
                          if (c := trees.position(p, q, 2, spec).committed) != p), None)
            if wrong is not None:
                i, j, c = wrong
                d = ex.position_denom(i)
                where = text.fill(strings.PEEL["peel_broken_where"], {"profile": ex.data.profiles[i].name,
                                                                      "position": j + 1})
                diffs = [text.fill(strings.PEEL["peel_diff"], {"token": tok, "got": prob_str(x, d), "p": prob_str(a, d)})
                         for tok, x, a in zip(ex.data.vocabulary, c, ex.data.target[j], strict=True) if x != a]
                out.append({"sentence": text.fill(strings.PEEL["peel_broken"], {
                    "name": spec.name, "where": where, "diffs": ", ".join(diffs)}),
                    "commits": [prob_str(x, d) for x in c], "p": [prob_str(x, d) for x in ex.data.target[j]]})
        return out

    def context(self) -> dict[str, Any]:
        """Returns the picture, its table and the tokens-per-round table."""
        ex, w = self.ex, strings.PEEL
        i, j = self._where()
        layers, rest = self._layers(i, j)
        d = ex.position_denom(i)
        p = ex.data.target[j]
        alphas = [a for a, _ in trees.peeled(p, ex.data.profiles[i].draft[j], WIDTH)[:WIDTH]]
        chart = charts.peel_bars(ex.data.vocabulary, layers, rest, p, "peel-chart",
                                 text.fill(w["peel_title"], {"m": WIDTH}), [w["peel_layer"].format(j=n + 1) for n in
                                                                              range(len(layers))], w["peel_rest"])
        rows = [{"token": tok, "layers": [prob_str(layer[y], d) for layer in layers], "rest": prob_str(rest[y], d),
                 "p": prob_str(p[y], d)} for y, tok in enumerate(ex.data.vocabulary)]
        where = text.fill(w["peel_where"], {"profile": ex.data.profiles[i].name, "position": j + 1, "m": WIDTH})
        return {"peel_facts": {
            "where": where, "chart": chart, "rest_key": w["peel_rest"], "rows": rows, "heads": [w["peel_layer"].format(j=n + 1) for n in range(len(layers))],
            "short": [w["peel_head"].format(j=n + 1) for n in range(len(layers))], "short_rest": w["peel_head_rest"],
            "short_key": text.fill(w["peel_heads_key"], {"m": WIDTH}),
            "alphas": ", ".join(f"α{text.subscript(n + 1)} = {prob_str(a, d)}" for n, a in enumerate(alphas)),
            "accept": prob_str(trees.acceptance_product(alphas), d),
            "widths": list(range(1, trees.MAX_CANDIDATES + 1)), "broken": self._broken(),
            "expected": [{"name": pr.name, "with": self._expected(n, trees.WITH), "without": self._expected(n, trees.WITHOUT)}
                         for n, pr in enumerate(ex.data.profiles)]}}

"""The figure "Several guesses per position" (figures/peel.py): p peeled by several candidates, the tokens per round
by width, and what each broken tree way commits, as the built page shows them for any valid data file."""

from __future__ import annotations

import re
from fractions import Fraction
from html import unescape

from speculative import stats, trees
from speculative.figures import peel
from speculative.text import decimal_str


def figure(explained) -> dict:
    from speculative.figures import common

    return peel.Peel(explained, common.all_facts(explained)).context()["peel_facts"]


def test_each_tokens_parts_sum_to_its_p(explained):
    facts = figure(explained)
    for row in facts["rows"]:
        parts = [Fraction(x) for x in (*row["layers"], row["rest"])]
        assert sum(parts) == Fraction(row["p"]), row


def test_the_picture_shows_the_position_peeled_into_the_most_layers(explained):
    """No other position is peeled into more non-empty layers by the picture's width than the one it shows."""
    data = explained.data
    layers = [len(trees.peeled(p, pr.draft[j], peel.WIDTH)) for pr in data.profiles for j, p in enumerate(data.target)]
    shown = figure(explained)
    assert len(shown["heads"]) == min(peel.WIDTH, max(min(n, peel.WIDTH) for n in layers))


def test_the_tokens_per_round_table_is_the_trees_exact_e(explained):
    data, facts = explained.data, figure(explained)
    for pr, row in zip(data.profiles, facts["expected"], strict=True):
        for spec, shown in ((trees.WITH, row["with"]), (trees.WITHOUT, row["without"])):
            exact = [stats.expected_tokens([trees.position(p, q, m, spec).acceptance
                                            for p, q in zip(data.target, pr.draft, strict=True)])
                     for m in range(1, trees.MAX_CANDIDATES + 1)]
            assert shown == [decimal_str(e) for e in exact]
        assert row["with"][0] == row["without"][0] == decimal_str(stats.expected_tokens(
            [a for a in explained.results[data.profiles.index(pr)].stats.alphas]))  # one candidate: the chain


def test_each_broken_row_differs_from_p_where_it_is_shown(explained):
    for b in figure(explained)["broken"]:
        assert b["commits"] != b["p"]
        assert sum(Fraction(x) for x in b["commits"]) == 1


def test_the_page_shows_the_picture_and_its_table(built_site):
    page = (built_site / "index.html").read_text(encoding="utf-8")
    section = page[page.index('id="trees"'):page.index('id="trees"') + 60_000]
    assert '<svg class="chart"' in section and 'id="peel-chart-t"' in section  # drawn, not escaped as text
    caption = unescape(re.search(r'<caption id="peel-cap">(.*?)</caption>', page, re.S).group(1))
    assert "A = " in caption

"""The servers section: the three verification rules' figures on the page are the exact ones.

The shipped figures are worked by hand in docs/figures.md from data/profiles.v1.json: per position, the accept
test passes with α = Σ min(p, q), a greedy draft (q one-hot at the draft's first most likely token) with p at that
token, exact match with Σ p·q (ml-explore/mlx-lm pull request #1709; SafeAILab/EAGLE issue #183)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from speculative import view

SHIPPED = {  # accept test, greedy draft, exact match: acceptance per position, then E to two decimals
    "aligned": ([["6/8", "7/8", "7/8", "7/8", "7/8"], ["4/8", "5/8", "5/8", "5/8", "4/8"], ["2/8", "7/16", "25/64", "3/8", "11/32"]],
                ["3.92", "2.19", "1.42"]),
    "divergent": ([["6/8", "4/8", "5/8", "6/8", "4/8"], ["4/8", "0", "0", "5/8", "2/8"], ["7/32", "7/32", "19/64", "9/32", "3/16"]],
                  ["2.62", "1.50", "1.29"]),
    "overconfident": ([["7/8", "7/8", "5/8", "7/8", "6/8"], ["4/8", "5/8", "2/8", "5/8", "4/8"],
                       ["9/32", "33/64", "23/64", "23/64", "3/8"]], ["3.85", "1.96", "1.50"]),
}


@pytest.fixture(scope="session")
def rules(explained):
    return {v["id"]: v for v in view.context(explained)["servers_facts"]["profiles"]}


@pytest.mark.shipped
@pytest.mark.parametrize("pid", list(SHIPPED))
def test_each_rules_acceptance_and_e_are_the_hand_worked_ones(rules, pid):
    acceptance, expected = SHIPPED[pid]
    columns = [[Fraction(row["cells"][j]) for row in rules[pid]["rows"]] for j in range(3)]
    assert columns == [[Fraction(x) for x in col] for col in acceptance]
    assert rules[pid]["expected"] == expected


@pytest.mark.shipped
def test_exact_match_alone_is_slower_than_plain_decoding_for_the_aligned_and_divergent_drafts(rules):
    # E under exact match over a round of 5 × 1/10 + 1 = 3/2 steps: 1.4236 / 1.5 ≈ 0.95 and 1.2856 / 1.5 ≈ 0.86; the
    # overconfident draft's 1.5041 / 1.5 ≈ 1.003 is just faster, so no rule of it is slower
    assert [(v["slower"], v["slower_verb"]) for v in rules.values()] == [("exact match (0.95×)", "is"),
                                                                        ("exact match (0.86×)", "is"), ("", "are")]
    assert rules["overconfident"]["speedup"][2] == "1.00×" and rules["overconfident"]["slow"] == [False] * 3


@pytest.mark.shipped
def test_temperature_zero_agrees_where_the_top_tokens_agree(rules):
    assert [r["agree"] for r in rules["divergent"]["t0"]] == [True, False, False, True, False]
    assert rules["divergent"]["t0"][1]["text"] == "2 “cat” ≠ “the”"
    assert (rules["aligned"]["t0_expected"], rules["divergent"]["t0_expected"]) == ("6", "2")
    # the overconfident draft's top token at position 3 is "on" (4/8), the target's "sat" (5/8): E = 1 + 1 + 1
    assert [r["agree"] for r in rules["overconfident"]["t0"]] == [True, True, False, True, True]
    assert rules["overconfident"]["t0_expected"] == "3"


def test_the_accept_test_stops_paying_where_the_speedup_is_one(explained, rules):
    cost = explained.data.cost
    k = explained.data.k
    for r in explained.results:
        stops, plain = rules[r.profile.id]["stops_exact"][0], k * cost.draft_step + cost.verify_round
        if stops == "":  # the draft never pays, even when verification is free
            assert r.stats.rules[0].expected < plain
        else:
            assert r.stats.rules[0].expected == plain + k * Fraction(stops)


@pytest.mark.shipped
def test_the_section_states_each_drafts_figures(page_text):
    assert "E is 3.92 under the accept test, 2.19 with a greedy draft and 1.42 under exact match" in page_text
    assert "exact match (0.95×) is slower than plain decoding" in page_text


def test_where_a_rule_stops_paying_is_printed_exactly_not_only_on_hover(rules, explained, built_site):
    """A touch screen has no hover, so every cost the table rounds ("≈ 0.138") is printed as its fraction in the
    sentence under the table ("a greedy draft stops paying at 283/2048"), and the table carries no title."""
    html = (built_site / "index.html").read_text(encoding="utf-8")
    servers = html[html.index('class="servers"'):html.index('id="cost"')]
    assert "title=" not in servers
    for r in explained.results:
        view_ = rules[r.profile.id]
        for rs, cell in zip(r.stats.rules, view_["stops"], strict=True):
            if rs.stops_paying and cell.startswith("≈"):
                assert f"stops paying at {rs.stops_paying}" in view_["stops_line"], (cell, view_["stops_line"])
                assert view_["stops_line"] in servers
            elif rs.stops_paying:  # the decimal is exact
                assert Fraction(cell) == rs.stops_paying

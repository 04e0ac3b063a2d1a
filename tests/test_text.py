"""speculative/text.py: number formats and words, each with its exact output."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from speculative import strings, text


@pytest.mark.parametrize("x, denom, shown", [
    (F(1, 2), 8, "4/8"), (F(3, 4), 8, "6/8"), (F(1, 8), 8, "1/8"),  # over the file's common denominator
    (F(0), 8, "0"), (F(1), 8, "1"),  # never "0/8" or "8/8"
    (F(1, 3), 8, "1/3"),  # not a multiple of 1/8: reduced
    (F(1, 2), 64, "1/2"),  # a denominator above 32 would make hard reading: reduced
    (F(1, 2), 32, "16/32"), (F(1, 2), 33, "1/2"),  # 32 itself is still written over
    (F(3, 7), 1, "3/7"),
])
def test_prob_str_writes_over_the_common_denominator_when_it_can(x, denom, shown):
    assert text.prob_str(x, denom) == shown


@pytest.mark.parametrize("x, places, shown", [
    (F(5, 2), 0, "3"), (F(1, 8), 2, "0.13"), (F(1343, 512), 2, "2.62"), (F(1, 200), 2, "0.01"),  # half up, from exact
    (F(2615, 1000), 2, "2.62"), (F(2, 3), 3, "0.667"), (F(7), 2, "7.00"),
    (0.125, 2, "0.13"),  # a float from its shortest repr: 0.125 exactly
    (0.01245, 4, "0.0125"),  # the float's repr is 0.01245, rounded half up
])
def test_decimal_str_rounds_half_up(x, places, shown):
    assert text.decimal_str(x, places) == shown


@pytest.mark.parametrize("x, shown", [(F(7203, 16384), "44.0%"), (F(45, 512), "8.8%"), (F(1, 2), "50.0%"), (F(1), "100.0%")])
def test_percent_str_is_one_decimal_half_up(x, shown):
    assert text.percent_str(x) == shown


@pytest.mark.parametrize("u, a, shown", [
    (0.5629, F(3, 4), "0.5629"),  # four decimals suffice
    (0.74999, F(3, 4), "0.74999"),  # 0.7500 would read as not below 3/4
    (0.75, F(3, 4), "0.7500"),
    (0.7500001, F(3, 4), "0.7500"),  # still not below: four decimals tell the truth
    (0.749999999, F(3, 4), "0.749999999"),
])
def test_uniform_str_shows_enough_decimals_to_compare_as_u_does(u, a, shown):
    assert text.uniform_str(u, a) == shown
    assert (F(shown) < a) == (F(u) < a)


@pytest.mark.parametrize("p, q, ratio, accept, shown", [
    ("4/8", "2/8", F(2), F(1), "min(1, (4/8)/(2/8)) = min(1, 2) = 1"),
    ("1/8", "2/8", F(1, 2), F(1, 2), "min(1, (1/8)/(2/8)) = 1/2"),
    ("0", "2/8", F(0), F(0), "min(1, 0/(2/8)) = 0"),
    ("1", "1/2", F(2), F(1), "min(1, 1/(1/2)) = min(1, 2) = 1"),
    ("3/8", "3/8", F(1), F(1), "min(1, (3/8)/(3/8)) = 1"),
])
def test_ratio_text_works_out_the_accept_probability(p, q, ratio, accept, shown):
    assert text.ratio_text(p, q, ratio, accept) == shown


@pytest.mark.parametrize("cost, shown", [(F(1, 10), "1/10 of a target pass"), (F(1), "1 target pass"),
                                         (F(2), "2 target passes"), (F(3, 2), "3/2 target passes")])
def test_cost_phrase(cost, shown):
    assert text.cost_phrase(cost) == shown


@pytest.mark.parametrize("x, shown", [(1e-6, "10⁻⁶"), (1e-12, "10⁻¹²"), (1e3, "10³"), (1.0, "10⁰")])
def test_power_of_ten_in_superscript(x, shown):
    assert text.power_of_ten(x) == shown


@pytest.mark.parametrize("label, shown", [
    ("cat", "cat"), ("x2", "x2"),  # left-to-right letters and digits cannot reorder anything
    ("position 1", "position 1"), ("a b", "a b"),  # nor can spaces between them (a copied chart legend stays clean)
    ("قط", "\u2068قط\u2069"), ("a قط", "\u2068a قط\u2069"), ("3.5", "\u20683.5\u2069"),
    (" a", "\u2068 a\u2069"), ("a ", "\u2068a \u2069"), ("", "\u2068\u2069"),  # an end space takes the text's side
])
def test_isolated_wraps_only_labels_whose_direction_could_reorder_the_text(label, shown):
    assert text.isolated(label) == shown


def test_quoted_puts_each_label_in_curly_quotes():
    assert text.quoted(["the", "قط"]) == "“the” “\u2068قط\u2069”"
    assert text.quoted([]) == ""


@pytest.mark.parametrize("items, shown", [([1], "1"), ([1, 2], "1 and 2"), ([3, 4, 5], "3, 4 and 5")])
def test_and_list(items, shown):
    assert text.and_list(items) == shown


@pytest.mark.parametrize("n, shown", [(0, "0 tokens"), (1, "1 token"), (2, "2 tokens"), (6_400_000, "6,400,000 tokens")])
def test_count_agrees_the_noun_with_the_number(n, shown):
    assert text.count(n, "token") == shown
    assert text.count(n, "mouse", "mice").endswith("mouse" if n == 1 else "mice")


@pytest.mark.parametrize("k, n, shown", [
    (0, 24, "none of the 24 drawn rounds contains"), (1, 24, "1 of the 24 drawn rounds contains"),
    (4, 24, "4 of the 24 drawn rounds contain"), (24, 24, "all 24 drawn rounds contain"),
    (2, 2, "all 2 drawn rounds contain"), (1, 1, "the one drawn round contains"),
    (0, 1, "the one drawn round does not contain"), (3, 1000, "3 of the 1,000 drawn rounds contain")])
def test_some_of_agrees_the_verb_and_says_none_all_and_the_one(k, n, shown):
    assert text.some_of(k, n, "drawn round", "contain") == shown


@pytest.mark.parametrize("positions, shown", [([], ""), ([3], "the one at position 3"),
                                              ([4, 5], "the ones at positions 4 and 5")])
def test_position_words(positions, shown):
    assert text.position_words(positions) == shown


def test_fill_replaces_each_field_and_refuses_a_missing_one():
    assert text.fill("Frame {i} of {n}: {kind}", {"i": 2, "n": 8, "kind": "check", "unused": 0}) == "Frame 2 of 8: check"
    assert text.fill("no fields {here", {}) == "no fields {here"
    with pytest.raises(KeyError):
        text.fill("{missing}", {})


def test_every_caption_field_is_a_plain_name():
    for key, pattern in strings.CAPTIONS.items():
        assert text.fill(pattern, {name: f"<{name}>" for name in text._FIELD.findall(pattern)}).count("{") == 0, key


def test_a_number_with_more_digits_than_decimals_default_precision_is_still_rounded():
    """A fuzzing audit's find: a verification cost of 10^26 target passes made decimal's quantize fail (its default
    context keeps 28 digits), and the build crashed."""
    assert text.decimal_str(F(10**26) + F(1, 3), 1) == "100000000000000000000000000.3"
    assert text.decimal_str(F(-10**40 - 1, 8), 2) == "-1250000000000000000000000000000000000000.13"
    assert text.decimal_str(1e30, 1) == "1" + "0" * 30 + ".0"  # a float by its repr, as before

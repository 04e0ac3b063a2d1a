"""The page's claims about the test suite, and the README's field list, cannot drift from what is true.

The page builds its sentences about the suite from speculative.checks, the same constants the suite's tests read;
these tests check both halves: the rendered page states each constant, and the tests use the constants rather than
numbers of their own.
"""

from __future__ import annotations

import pytest

from speculative import checks, limits
from speculative.text import power_of_ten

from . import test_checks, test_cli, test_sampler
from .conftest import ROOT


def test_the_page_states_every_constant_the_suite_uses(page_text):
    claims = [
        f"on {checks.IDENTITY_PAIRS:,} randomly generated pairs",
        f"on {checks.ROUNDS:,} drawn rounds per shipped draft",
        f"on {checks.RANDOM_PROFILES} random drafts of {checks.RANDOM_TOKENS[0]} to {checks.RANDOM_TOKENS[1]} tokens "
        f"and {checks.RANDOM_POSITIONS[0]} to {checks.RANDOM_POSITIONS[1]} positions",
        f"fail when the p-value is below {power_of_ten(checks.P_MIN)}",
        f"as small as {checks.DETECTABLE_TV:g} in total variation",
        f"with probability at least {checks.POWER:.0%}",
        f"{len(checks.BROKEN)} broken samplers",
        f"on {checks.SEQUENCE_TEXTS:,} texts",
        f"its first {checks.SEQUENCE_LENGTH} tokens",
    ]
    for claim in claims:
        assert claim in page_text, claim
    for name in [*checks.BROKEN, *checks.SEQUENCE_BROKEN, *checks.HARMLESS]:
        assert name in page_text, name


def parametrized_over(test) -> object:
    """Returns the values a test function is parametrized over."""
    (mark,) = [m for m in test.pytestmark if m.name == "parametrize"]
    return mark.args[1]


@pytest.mark.parametrize("test, table", [
    (test_sampler.test_checks_fail_on_a_broken_sampler, checks.BROKEN),
    (test_cli.test_check_exits_one_on_each_broken_sampler_and_names_a_failing_position_row, checks.BROKEN),
    (test_checks.test_sequence_check_fails_on_a_broken_sampler, checks.SEQUENCE_BROKEN),
    (test_cli.test_check_exits_one_on_each_sequence_broken_sampler_and_names_the_sequence_row, checks.SEQUENCE_BROKEN),
    (test_checks.test_sequence_check_passes_a_harmless_change, checks.HARMLESS),
    (test_sampler.test_checks_pass_a_harmless_change, checks.HARMLESS),
], ids=lambda x: getattr(x, "__name__", ""))
def test_every_sampler_the_page_names_is_run_by_the_tests(test, table):
    assert list(parametrized_over(test)) == list(table) != []


def test_the_data_reference_names_every_key_the_loader_accepts():
    readme = (ROOT / "docs" / "data.md").read_text(encoding="utf-8")
    keys = (limits.TOP_KEYS - {"$schema", "about", "version"}) | limits.PROFILE_KEYS | limits.MC_KEYS
    for key in sorted(keys):
        assert f"`{key}`" in readme, key

"""The page's claims about the test suite, and the README's field list, cannot drift from what is true.

The page builds its sentences about the suite from speculative.checks, the same constants the suite's tests read;
these tests check both halves: the rendered page states each constant, and the tests use the constants rather than
numbers of their own.
"""

from __future__ import annotations


import pytest

from speculative import checks, profiles
from speculative.text import power_of_ten

from .conftest import ROOT

TESTS = ROOT / "tests"


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


@pytest.mark.parametrize("constant, test_file", [
    ("checks.BROKEN", "test_sampler.py"), ("checks.SEQUENCE_BROKEN", "test_checks.py"),
    ("checks.HARMLESS", "test_checks.py"), ("checks.IDENTITY_PAIRS", "test_stats.py"),
    ("checks.random_profiles", "test_sampler.py"), ("checks.DETECTABLE_TV", "test_checks.py"),
])
def test_the_suite_reads_the_constants_the_page_quotes(constant, test_file):
    assert constant in (TESTS / test_file).read_text(encoding="utf-8"), f"{test_file} no longer uses {constant}"


def test_the_readme_names_every_key_the_loader_accepts():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    keys = (profiles._TOP_KEYS - {"$schema", "about", "version"}) | profiles._PROFILE_KEYS | profiles._MC_KEYS
    for key in sorted(keys):
        assert f"`{key}`" in readme, key

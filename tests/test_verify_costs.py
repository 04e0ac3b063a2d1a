"""cost_model.verify_costs: what verifying one drafted position adds. Optional, validated, and the speedups under it.

The model: a round of k drafted positions costs k*c + verify_round + k*v target passes, so verifying N positions
costs verify_round + N*v and T1 < TN, as servers measure ("T1 < TN < N*T1", ggml-org/llama.cpp issue #3649).
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from jsonschema import Draft202012Validator

from speculative import rules, stats
from speculative.errors import Problems
from speculative.limits import COST_REQUIRED, MAX_COSTS

from .conftest import DATA, ROOT, edited_data, unlined
from .test_broken_data import RAW, SRC, edited, load_bytes, put

PATH = "cost_model.verify_costs"
SCHEMA = json.loads((DATA.parent / "profiles.v1.schema.json").read_text())


def without_verify_costs(raw):
    del raw["cost_model"]["verify_costs"]


@pytest.mark.shipped
def test_shipped_file_offers_four_verification_costs(dataset):
    assert dataset.cost.verify_costs == (Fraction(0), Fraction(1, 100), Fraction(1, 20), Fraction(1, 10))


def test_a_file_without_verification_costs_gets_free_verification_only():
    assert "verify_costs" not in COST_REQUIRED
    assert load_bytes(edited(without_verify_costs)).cost.verify_costs == (Fraction(0),)


def only_free_verification(raw):
    raw["cost_model"]["verify_costs"] = ["0"]


def test_a_file_without_verification_costs_builds_the_page_of_free_verification(tmp_path):
    from speculative import pipeline

    older = edited_data(tmp_path, without_verify_costs)
    free = edited_data(tmp_path, only_free_verification, "free.json")
    page = pipeline.build_files(older, ROOT / "content", ROOT / "templates")
    assert page == pipeline.build_files(free, ROOT / "content", ROOT / "templates")
    html = page["index.html"].decode()
    assert html.count('<option value="0" selected>free (0)<') == 1  # the explorer's one verification choice


CASES = [
    ("not a list", put(PATH, "1/20"),
     [f'{PATH}: found "1/20"; expected a non-empty list of verification costs per drafted position']),
    ("empty", put(PATH, []), [f"{PATH}: found a list of 0; expected a non-empty list of verification costs per "
                              "drafted position"]),
    ("eleven costs", put(PATH, [f"{i}/100" for i in range(11)]),
     [f"{PATH}: found 11 costs; expected at most {MAX_COSTS}, so the speedup explorer's choices fit the page"]),
    ("negative", put(PATH, ["0", "-1/20"]),
     [f'{PATH}[1]: found "-1/20"; expected a fraction of 0 or more, with no minus sign, such as "3/8"']),
    ("decimal", put(PATH, ["0", 0.05]), [f'{PATH}[1]: found 0.05; expected an exact fraction as a string, such as "3/8"']),
    ("denominator over 1000", put(PATH, ["0", "1/1024"]),
     [f'{PATH}[1]: found "1/1024", which is 1/1024; expected a denominator of at most 1000, so the page can print it']),
    ("the same cost twice", put(PATH, ["0", "1/20", "1/20"]),
     [f'{PATH}[2]: found "1/20" again; expected every verification cost to be unique']),
    ("the same cost in two spellings", put(PATH, ["0", "1/20", "5/100"]),
     [f'{PATH}[2]: found "5/100", which is 1/20, as {PATH}[1] is; expected every verification cost to be unique']),
    ("0 as a number and as a string", put(PATH, [0, "0"]),
     [f'{PATH}[1]: found "0", which is 0, as {PATH}[0] is; expected every verification cost to be unique']),
]


@pytest.mark.parametrize("edit, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_refuses_a_bad_verification_cost_with_exact_message(edit, expected):
    with pytest.raises(Problems) as caught:
        load_bytes(edited(edit))
    assert unlined(caught.value.lines) == [f"{SRC}: {line}" for line in expected]


def test_accepts_costs_above_one_target_step():
    data = load_bytes(edited(put(PATH, ["2", "3/2"])))
    assert data.cost.verify_costs == (Fraction(2), Fraction(3, 2))


def test_schema_states_the_same_limits():
    node = SCHEMA["properties"]["cost_model"]
    field = node["properties"]["verify_costs"]
    assert "verify_costs" not in node["required"]
    assert (field["minItems"], field["maxItems"], field["uniqueItems"]) == (1, MAX_COSTS, True)
    validator = Draft202012Validator(SCHEMA)
    for bad in [["1/20", "1/20"], [f"{i}/100" for i in range(11)], ["-1/20"], []]:
        raw = json.loads(json.dumps(RAW))
        raw["cost_model"]["verify_costs"] = bad
        assert list(validator.iter_errors(raw)), bad
    assert not list(validator.iter_errors(RAW))


def test_the_data_reference_states_the_limit_and_the_default():
    readme = " ".join((ROOT / "docs" / "data.md").read_text(encoding="utf-8").split())
    assert f"at most {MAX_COSTS} `verify_costs`, each a different non-negative fraction" in readme
    assert 'Left out, it is `["0"]`' in readme


# --- speedups under the cost model ------------------------------------------------------------------------------

def prefix_expected(accepts) -> Fraction:
    total, run = Fraction(1), Fraction(1)
    for a in accepts:
        run *= a
        total += run
    return total


@pytest.mark.parametrize("rule", rules.BY_ID)
def test_speedup_tables_divide_by_k_draft_steps_one_verification_and_k_verified_positions(dataset, rule):
    cost = dataset.cost
    for profile in dataset.profiles:
        figures = stats.rule_stats(rule, dataset.target, profile.draft, cost)
        assert len(figures.speedup_tables) == len(cost.verify_costs) == len(figures.speedups)
        for v, table, speedup in zip(cost.verify_costs, figures.speedup_tables, figures.speedups, strict=True):
            for k, row in enumerate(table, start=1):
                e = prefix_expected(figures.acceptance[:k])
                assert list(row) == [e / (k * c + cost.verify_round + k * v) for c in cost.compare_draft_steps]
            assert speedup == figures.expected / (dataset.k * cost.draft_step + cost.verify_round + dataset.k * v)
        assert list(figures.speedups) == sorted(figures.speedups, reverse=True)  # dearer checks, smaller speedup


def test_with_free_verification_the_accept_test_keeps_the_old_speedups(explained):
    for r in explained.results:
        rule = next(f for f in r.stats.rules if f.rule == "accept-test")
        assert rule.speedup_tables[0] == r.stats.speedup_table and rule.speedup == r.stats.speedup


def test_a_draft_stops_paying_where_its_speedup_at_k_is_exactly_one(dataset):
    cost = dataset.cost
    for profile in dataset.profiles:
        for rule in rules.BY_ID:
            figures = stats.rule_stats(rule, dataset.target, profile.draft, cost)
            v = figures.stops_paying
            at = lambda cost_v, figures=figures: figures.expected / (dataset.k * cost.draft_step + cost.verify_round + dataset.k * cost_v)  # noqa: E731
            if v is None:
                assert at(Fraction(0)) < 1
            else:
                assert at(v) == 1 and at(v + Fraction(1, 10**6)) < 1
                assert v == 0 or at(v - Fraction(1, 10**6)) > 1


@pytest.mark.shipped
def test_where_the_shipped_drafts_stop_paying_at_k_5(explained):
    """v = (E - 5/10 - 1) / 5 from the hand-worked E (tests/test_rules.py): exact match never pays the aligned and
    divergent drafts at k = 5 and draft step 1/10 and pays the overconfident one only while verifying a position costs
    under 1/1000 of a step, and the greedy divergent draft (E = 3/2) only breaks even with free verification."""
    found = {(r.profile.id, f.rule): f.stops_paying for r in explained.results for f in r.stats.rules}
    by_hand = {("aligned", "accept-test"): Fraction(64267, 16384), ("aligned", "greedy-draft"): Fraction(4487, 2048),
               ("divergent", "accept-test"): Fraction(1343, 512), ("divergent", "greedy-draft"): Fraction(3, 2),
               ("overconfident", "accept-test"): Fraction(63109, 16384),
               ("overconfident", "greedy-draft"): Fraction(2011, 1024),  # 1 + 1/2 + 5/16 + 5/64 + 25/512 + 25/1024
               # exact match, Σ p·q = 9/32, 33/64, 23/64, 23/64, 3/8: E = 100941043/67108864 ≈ 1.5041, just above 3/2
               ("overconfident", "exact-match"): Fraction(100941043, 67108864)}
    assert found == {**{key: (e - Fraction(3, 2)) / 5 for key, e in by_hand.items()},
                     ("aligned", "exact-match"): None, ("divergent", "exact-match"): None}
    assert found["divergent", "greedy-draft"] == 0

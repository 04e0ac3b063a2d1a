"""The loader reads the shipped file exactly and refuses broken ones with one line per problem."""

from __future__ import annotations

import copy
import json
from fractions import Fraction

import pytest

from speculative.errors import Problems
from speculative.profiles import parse

from .conftest import DATA, FIXTURE, unlined

SRC = "data/profiles.v1.json"
RAW = json.loads(FIXTURE.read_text())  # a known file: the edits below name its places


def broken(edit) -> str:
    raw = copy.deepcopy(RAW)
    edit(raw)
    return json.dumps(raw)


def problems(text: str) -> list[str]:
    with pytest.raises(Problems) as caught:
        parse(text, SRC)
    return unlined(caught.value.lines)


def test_reads_the_data_file_as_exact_fractions(dataset, data_file):
    RAW = json.loads(data_file.read_text(encoding="utf-8"))  # the data file itself, whatever it holds
    assert dataset.vocabulary == tuple(RAW["vocabulary"])
    assert dataset.k == len(RAW["target"])
    assert [list(row) for row in dataset.target] == [[Fraction(x) for x in row] for row in RAW["target"]]
    assert all(isinstance(x, Fraction) for row in dataset.target for x in row)
    assert [p.id for p in dataset.profiles] == [p["id"] for p in RAW["profiles"]]
    assert [list(p.proposals) for p in dataset.profiles] == [[RAW["vocabulary"].index(t) for t in p["proposals"]]
                                                             for p in RAW["profiles"]]


def _set(path, value):
    def edit(raw):
        node = raw
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return edit


def _delete(path):
    def edit(raw):
        node = raw
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]
    return edit


BROKEN = [
    (_set(["profiles", 1, "draft", 2, 0], "1/8"),
     ["profiles[1].draft[2] (a divergent draft, position 3): sums to 9/8; each distribution must sum to 1"]),
    (_set(["target", 0, 1], 0.125),
     ['target[0][1] (the target, position 1): found 0.125; expected an exact fraction as a string, such as "3/8"']),
    (_set(["target", 0, 1], "3/2"),
     ['target[0][1] (the target, position 1): found "3/2"; expected a probability between 0 and 1']),
    (_set(["bonus_target", 5], "-1/8"),
     ['bonus_target[5] (the target, bonus position): found "-1/8"; expected a fraction of 0 or more, with no minus sign, such as "3/8"']),
    (_set(["vocabulary", 2], "cat"),
     ['vocabulary[2]: found "cat" again; expected every token to be unique',
      'profiles[0].proposals[2] (a closely aligned draft, position 3): found "sat"; expected a token from the vocabulary']),
    (_set(["vocabulary", 5], ""),
     ['vocabulary[5]: found ""; expected a non-empty string',
      'profiles[1].proposals[1] (a divergent draft, position 2): found "mat"; expected a token from the vocabulary']),
    (_set(["vocabulary"], []),
     ["vocabulary: found a list of 0; expected a non-empty list of token strings"]),
    (_set(["bonus_target"], ["1"]),
     ["bonus_target (the target, bonus position): found a list of 1; expected a list of 6 probabilities, one per vocabulary token"]),
    (lambda raw: raw["profiles"][0]["draft"].pop(),
     ["profiles[0].draft: found 4 rows; expected 5, one per position, as many as target has"]),
    (_delete(["bonus_target"]),
     ['$: found no key "bonus_target"; expected one (it is required)']),
    (_set(["profiles", 0, "drafts"], []),
     ['profiles[0]: found unknown key "drafts"; expected one of: draft, id, name, proposals']),
    (_set(["profiles", 1, "id"], "aligned"),
     ['profiles[1].id: found "aligned" again; expected every profile id to be unique']),
    (_set(["profiles", 0, "id"], "Aligned Draft"),
     ['profiles[0].id: found "Aligned Draft"; expected lower-case letters and digits, with single dashes between them, '
      'such as "aligned"']),
    (_set(["profiles", 0, "proposals", 1], "dog"),
     ['profiles[0].proposals[1] (a closely aligned draft, position 2): found "dog"; expected a token from the vocabulary']),
    (_set(["profiles", 0, "proposals", 1], "on"),
     ['profiles[0].proposals[1] (a closely aligned draft, position 2): found "on", which the draft gives probability 0 at position 2; '
      "expected a token the draft could propose"]),
    (_set(["profiles", 0, "proposals"], ["the"]),
     ["profiles[0].proposals: found 1 proposal; expected 5, one per position, as many as target has"]),
    (_set(["version"], 2),
     ["version: found 2; expected 1 for profiles.v1.json"]),
    (_set(["monte_carlo", "rounds"], 0),
     ["monte_carlo.rounds: found 0; expected a whole number from 1 to 10000000"]),
    (_set(["cost_model", "verify_round"], "0"),
     ['cost_model.verify_round: found "0"; expected a positive cost']),
]


@pytest.mark.parametrize("edit, expected", BROKEN, ids=[e[1][0].split(":")[0] for e in BROKEN])
def test_rejects_broken_file_with_exact_message(edit, expected):
    assert problems(broken(edit)) == [f"{SRC}: {line}" for line in expected]


def test_collects_every_problem_before_failing():
    def edit(raw):
        raw["target"][0][0] = "5/8"
        raw["profiles"][0]["draft"][4][0] = "1/3"
        raw["profiles"][1]["proposals"][0] = "dog"
    assert problems(broken(edit)) == [
        f"{SRC}: target[0] (the target, position 1): sums to 9/8; each distribution must sum to 1",
        f"{SRC}: profiles[0].draft[4] (a closely aligned draft, position 5): sums to 13/12; each distribution must sum to 1",
        f'{SRC}: profiles[1].proposals[0] (a divergent draft, position 1): found "dog"; expected a token from the vocabulary',
    ]


def test_rejects_invalid_json_with_line_and_column():
    text = FIXTURE.read_text().replace('"version": 1,', '"version": 1')
    (line,) = problems(text)
    assert line == f'{SRC}: line 4, column 3: found the string "about"; expected "," or "}}" (is a comma missing before it?)'


def test_vocabulary_size_and_position_count_come_from_the_file():
    def edit(raw):
        raw["vocabulary"] = ["x", "y"]
        raw["target"] = [["1/2", "1/2"]] * 2
        raw["bonus_target"] = ["1", "0"]
        raw["profiles"] = [{"id": "only", "name": "only", "proposals": ["x", "y"],
                            "draft": [["1/4", "3/4"], ["1", "0"]]}]
    with pytest.raises(Problems) as caught:
        parse(broken(edit), SRC)
    # position 2's draft gives "y" probability 0, so that proposal alone is refused
    assert unlined(caught.value.lines) == [
        f'{SRC}: profiles[0].proposals[1] (only, position 2): found "y", which the draft gives probability 0 at position 2; '
        "expected a token the draft could propose"]


def test_costs_are_target_steps_and_may_exceed_one():
    def edit(raw):
        raw["cost_model"]["verify_round"] = "2"
        raw["cost_model"]["compare_draft_steps"] = ["1/10", "3/2"]
    assert parse(broken(edit), SRC).cost.verify_round == 2


def test_schema_key_is_allowed_and_optional():
    parse(broken(_delete(["$schema"])), SRC)


def test_the_data_reference_states_the_schemas_limits():
    from speculative import limits as lim
    from speculative.errors import MAX_INPUT_BYTES

    readme = " ".join((DATA.parent.parent / "docs" / "data.md").read_text(encoding="utf-8").split())
    for claim in [f"at most {lim.MAX_TOKENS} tokens, {lim.MAX_POSITIONS} positions, {lim.MAX_PROFILES} profiles, "
                  f"{lim.MAX_COSTS} `compare_draft_steps` costs and {lim.MAX_DRAWN} `drawn_rounds`",
                  f"a token label at most {lim.MAX_LABEL} characters, a profile `name` at most {lim.MAX_NAME} and "
                  f"an `id` at most {lim.MAX_ID}",
                  f"is at most {lim.MAX_DENOMINATOR}, and no number has more than {lim.MAX_DIGITS} digits",
                  f"at most {MAX_INPUT_BYTES:,} bytes", f"nested at most {lim.MAX_DEPTH} deep",
                  f"at most {lim.MAX_ROUNDS:,} `monte_carlo.rounds`"]:
        assert claim in readme


def test_a_data_path_also_names_what_a_reader_of_the_page_sees():
    from speculative.profiles import glossed

    raw = {"profiles": [{"name": "a closely aligned draft"}, {"name": 7}, {"name": "bad\u202ename"}]}
    assert glossed("profiles[0].draft[0]", raw) == "profiles[0].draft[0] (a closely aligned draft, position 1)"
    assert glossed("profiles[0].draft[2][5]", raw) == "profiles[0].draft[2][5] (a closely aligned draft, position 3)"
    assert glossed("profiles[0].proposals[4]", raw) == "profiles[0].proposals[4] (a closely aligned draft, position 5)"
    assert glossed("target[1][0]", raw) == "target[1][0] (the target, position 2)"
    assert glossed("bonus_target[3]", raw) == "bonus_target[3] (the target, bonus position)"
    assert glossed("profiles[1].draft[0]", raw) == "profiles[1].draft[0]"  # a name that is no string: the place alone
    assert glossed("profiles[2].draft[0]", raw) == "profiles[2].draft[0] (bad<U+202E>name, position 1)"  # shown, not obeyed
    assert glossed("profiles[9].draft[0]", raw) == "profiles[9].draft[0]"
    assert glossed("profiles[0].id", raw) == "profiles[0].id"


def test_a_problem_names_the_line_of_the_value_it_is_about():
    """Authors asked for lines: each problem gives the line where its value starts in the file as written."""
    text = FIXTURE.read_text(encoding="utf-8")
    lines = text.splitlines()
    row = next(i for i, line in enumerate(lines, 1) if line.strip().startswith('["4/8"'))  # target[0]
    edited = text.replace('["4/8"', '["5/8"', 1).replace('"walkthrough_seed": 2023', '"walkthrough_seed": -1', 1)
    seed = next(i for i, line in enumerate(lines, 1) if '"walkthrough_seed"' in line)
    with pytest.raises(Problems) as caught:
        parse(edited, SRC)
    assert [line.split(": ")[1] for line in caught.value.lines] == [f"line {row}", f"line {seed}"]

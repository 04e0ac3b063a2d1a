"""The schema, the one statement of the data file's shape and limits: valid, accepting the shipped file, refusing
structural errors at their JSON paths, and read by the loader for every limit."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from speculative import checkout, figures, limits, pipeline
from speculative.lm_settings import DEFAULT
from speculative.profiles import parse

from .conftest import DATA
from .test_profiles import RAW, _delete, _set, broken

SCHEMA_PATH = DATA.parent / "profiles.v1.schema.json"
SCHEMA = json.loads(SCHEMA_PATH.read_text())
VALIDATOR = Draft202012Validator(SCHEMA)


def errors(instance) -> list:
    return list(VALIDATOR.iter_errors(instance))


def test_schema_is_a_valid_draft_2020_12_schema():
    Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_data_file_points_editors_at_the_schema():
    assert (DATA.parent / RAW["$schema"]).resolve() == SCHEMA_PATH.resolve()


def test_shipped_file_passes():
    assert [e.message for e in errors(RAW)] == []


def test_accepts_what_the_loader_accepts_beyond_the_shipped_file():
    # The loader allows the bare JSON integers 0 and 1 as probabilities, and "$schema" and "about" are optional.
    def edit(raw):
        del raw["$schema"], raw["about"]
        raw["bonus_target"] = [0, "1/8", 0, 0, "1/8", "6/8"]
        raw["target"][0] = [0, 0, 0, 0, 1, 0]
    text = broken(edit)
    parse(text, "edited.json")
    assert [e.message for e in errors(json.loads(text))] == []


# (edit, JSON path the error must point at, schema keyword that must fire). The first ten are the
# structural rows of test_profiles.BROKEN; the rest are structural mistakes that table does not list.
STRUCTURAL = [
    ("float probability", _set(["target", 0, 1], 0.125), ["target", 0, 1], "anyOf"),
    ("negative fraction", _set(["bonus_target", 5], "-1/8"), ["bonus_target", 5], "anyOf"),
    ("missing bonus_target", _delete(["bonus_target"]), [], "required"),
    ("unknown profile key", _set(["profiles", 0, "drafts"], []), ["profiles", 0], "additionalProperties"),
    ("bad profile id", _set(["profiles", 0, "id"], "Aligned Draft"), ["profiles", 0, "id"], "pattern"),
    ("empty vocabulary", _set(["vocabulary"], []), ["vocabulary"], "minItems"),
    ("version 2", _set(["version"], 2), ["version"], "const"),
    ("zero rounds", _set(["monte_carlo", "rounds"], 0), ["monte_carlo", "rounds"], "minimum"),
    ("empty token", _set(["vocabulary", 5], ""), ["vocabulary", 5], "minLength"),
    ("unknown top-level key", _set(["profile"], []), [], "additionalProperties"),
    ("decimal string", _set(["target", 0, 1], "0.125"), ["target", 0, 1], "anyOf"),
    ("boolean probability", _set(["target", 0, 0], True), ["target", 0, 0], "anyOf"),
    ("blank token", _set(["vocabulary", 5], "  "), ["vocabulary", 5], "not"),
    ("repeated token", _set(["vocabulary", 2], "cat"), ["vocabulary"], "uniqueItems"),
    ("negative seed", _set(["walkthrough_seed"], -1), ["walkthrough_seed"], "minimum"),
    ("seed above 2**32 - 1", _set(["monte_carlo", "seed"], 2**32), ["monte_carlo", "seed"], "maximum"),
    ("empty compare_draft_steps", _set(["cost_model", "compare_draft_steps"], []),
     ["cost_model", "compare_draft_steps"], "minItems"),
    ("unknown cost_model key", _set(["cost_model", "draft_steps"], "1/10"), ["cost_model"], "additionalProperties"),
    ("empty profiles", _set(["profiles"], []), ["profiles"], "minItems"),
]


@pytest.mark.parametrize("edit, path, keyword", [row[1:] for row in STRUCTURAL], ids=[row[0] for row in STRUCTURAL])
def test_rejects_structural_error_at_its_json_path(edit, path, keyword):
    found = errors(json.loads(broken(edit)))
    assert found, "the schema accepted a file the loader refuses"
    # Every error points at the edited place, and the expected keyword is among them.
    assert {tuple(e.absolute_path) for e in found} == {tuple(path)}
    assert keyword in {e.validator for e in found}


def test_the_loader_reads_its_limits_from_this_schema():
    assert limits.SCHEMA == SCHEMA
    assert {"maxDigits", "maxDenominator"} <= SCHEMA["$defs"]["fraction"].keys() and "maxDepth" in SCHEMA


def _described(node, path="$"):
    """Yields the path of every declared property, with whether it has a description."""
    if isinstance(node, dict):
        for name, sub in node.get("properties", {}).items():
            yield f"{path}.{name}", "description" in sub
        for key, sub in node.items():
            yield from _described(sub, f"{path}.{key}")
    elif isinstance(node, list):
        for i, sub in enumerate(node):
            yield from _described(sub, f"{path}[{i}]")


def test_every_property_and_definition_has_a_description_for_editor_hover_text():
    found = dict(_described(SCHEMA))
    found.update((f"$defs.{name}", "description" in sub) for name, sub in SCHEMA["$defs"].items())
    assert len(found) >= len(limits.TOP_KEYS | limits.PROFILE_KEYS | limits.COST_KEYS | limits.MC_KEYS)
    assert [path for path, ok in found.items() if not ok] == []


def test_schema_refuses_what_the_page_uses_as_an_id():
    profile = SCHEMA["$defs"]["profile"]["properties"]
    _, sections, _ = pipeline.parse_inputs(checkout.ROOT / "data" / "profiles.v1.json", checkout.ROOT / "content",
                                        checkout.ROOT / "templates")
    assert set(profile["id"]["not"]["enum"]) == pipeline.reserved_ids(sections)  # the figures', the shell's, the sections'
    assert figures.page_ids() <= pipeline.reserved_ids(sections)


@pytest.mark.parametrize("label", ["ca\u202et", "ca\nt", "ca\tt", " cat", "cat ", "cat\n", "a\u2066b"])
def test_refuses_labels_the_page_cannot_show(label):
    assert errors(json.loads(broken(_set(["vocabulary", 5], label))))


def test_the_generator_settings_written_out_are_their_defaults_and_within_the_schema():
    raw = json.loads(broken(lambda raw: None))
    raw["language_model"] = {"target_order": DEFAULT.target_order, "draft_orders": list(DEFAULT.draft_orders),
                             "discount": str(DEFAULT.discount), "k": DEFAULT.k, "default_draft": DEFAULT.default_draft,
                             "temperatures": [str(t) for t in DEFAULT.temperatures],
                             "default_temperature": str(DEFAULT.default_temperature), "seed": DEFAULT.seed}
    assert set(raw["language_model"]) == set(SCHEMA["properties"]["language_model"]["properties"])
    assert errors(raw) == []
    assert parse(json.dumps(raw), "edited.json").language_model == DEFAULT

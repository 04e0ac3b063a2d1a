"""The editor schema accepts the shipped file, refuses the loader's structural errors, and declares the loader's keys."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from speculative import checkout, figures, limits, pipeline
from speculative.limits import COST_KEYS, COST_REQUIRED, FRACTION, MC_KEYS, PROFILE_ID, PROFILE_KEYS, TOP_KEYS, TOP_REQUIRED
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


def test_fraction_pattern_is_the_loaders_regex():
    (as_string, _) = SCHEMA["$defs"]["fraction"]["anyOf"]
    assert as_string["pattern"] == FRACTION.pattern
    assert SCHEMA["$defs"]["profile"]["properties"]["id"]["pattern"] == PROFILE_ID.pattern


@pytest.mark.parametrize("where, keys, required", [
    ((), TOP_KEYS, TOP_REQUIRED),
    (("$defs", "profile"), PROFILE_KEYS, PROFILE_KEYS),
    (("properties", "cost_model"), COST_KEYS, COST_REQUIRED),
    (("properties", "monte_carlo"), MC_KEYS, MC_KEYS),
], ids=["top level", "profile", "cost_model", "monte_carlo"])
def test_schema_declares_exactly_the_loaders_keys(where, keys, required):
    node = SCHEMA
    for step in where:
        node = node[step]
    assert set(node["properties"]) == keys
    assert set(node["required"]) == required
    assert node["additionalProperties"] is False


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
    assert len(found) >= len(TOP_KEYS | PROFILE_KEYS | COST_KEYS | MC_KEYS)
    assert [path for path, ok in found.items() if not ok] == []


def upper_limits(node, path: str = ""):
    """Yields ("/"-joined path, value) of every maxItems, maxLength and maximum in a schema, language_model's aside."""
    if isinstance(node, dict) and path != "properties/language_model":
        for key, value in node.items():
            here = f"{path}/{key}" if path else key
            if key in ("maxItems", "maxLength", "maximum"):
                yield here, value
            yield from upper_limits(value, here)


def test_schema_states_exactly_the_loaders_limits():
    assert dict(upper_limits(SCHEMA)) == limits.IN_SCHEMA


def test_schema_refuses_what_the_page_uses_as_an_id():
    profile = SCHEMA["$defs"]["profile"]["properties"]
    _, sections, _ = pipeline.parse_inputs(checkout.ROOT / "data" / "profiles.v1.json", checkout.ROOT / "content",
                                        checkout.ROOT / "templates")
    assert set(profile["id"]["not"]["enum"]) == pipeline.reserved_ids(sections)  # the figures', the shell's, the sections'
    assert figures.page_ids() <= pipeline.reserved_ids(sections)


@pytest.mark.parametrize("label", ["ca\u202et", "ca\nt", "ca\tt", " cat", "cat ", "cat\n", "a\u2066b"])
def test_refuses_labels_the_page_cannot_show(label):
    assert errors(json.loads(broken(_set(["vocabulary", 5], label))))


def test_schema_states_the_generator_settings_limits():
    from speculative import lm_settings as lm
    props = SCHEMA["properties"]["language_model"]["properties"]
    assert set(props) == lm.KEYS and "language_model" not in SCHEMA["required"]
    assert props["target_order"]["maximum"] == lm.MAX_ORDER and props["k"]["maximum"] == lm.MAX_K
    assert props["temperatures"]["maxItems"] == lm.MAX_TEMPERATURES
    assert props["draft_orders"]["items"]["maximum"] == lm.MAX_ORDER - 1

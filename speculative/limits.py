"""The data file's schema, data/profiles.v1.schema.json, loaded once: the one statement of the file's shape and
limits. The names below are read from it, for the code and the tests that need a limit or a key."""

from __future__ import annotations

import json
import re
from pathlib import Path


def schema_path() -> Path:
    """Returns the clone's data/profiles.v1.schema.json, where data/profiles.v1.json points editors to it: beside the
    package (the clone's own, as scripts/build.sh installs it), else in the current folder or the nearest one above it
    that has one (the package installed elsewhere, run in a clone, as checkout.py finds the clone)."""
    beside = Path(__file__).resolve().parent.parent
    for folder in (beside, Path.cwd(), *Path.cwd().parents):
        if (folder / "data" / "profiles.v1.schema.json").is_file():
            return folder / "data" / "profiles.v1.schema.json"
    return beside / "data" / "profiles.v1.schema.json"


SCHEMA = json.loads(schema_path().read_text("utf-8"))
_TOP, _DEFS = SCHEMA["properties"], SCHEMA["$defs"]
_PROFILE, _COST, _MC = _DEFS["profile"], _TOP["cost_model"], _TOP["monte_carlo"]

MAX_TOKENS = _TOP["vocabulary"]["maxItems"]  # one table column and one chart bar per token
MAX_POSITIONS = _TOP["target"]["maxItems"]  # target rows, so a round has at most 8 + 3 frames
MAX_PROFILES = _TOP["profiles"]["maxItems"]
MAX_LABEL = _TOP["vocabulary"]["items"]["maxLength"]  # in Unicode code points, as JSON Schema counts
MAX_NAME = _PROFILE["properties"]["name"]["maxLength"]
MAX_ID = _PROFILE["properties"]["id"]["maxLength"]
MAX_COSTS = _COST["properties"]["compare_draft_steps"]["maxItems"]  # and verify_costs
MAX_DRAWN = _TOP["drawn_rounds"]["maximum"]
MAX_ROUNDS = _MC["properties"]["rounds"]["maximum"]
MAX_SEED = _DEFS["seed"]["maximum"]
MAX_DENOMINATOR = _DEFS["fraction"]["maxDenominator"]  # of a fraction once reduced, so the page can print it
MAX_DIGITS = _DEFS["fraction"]["maxDigits"]  # on either side of a fraction's "/"
MAX_TEMPERATURE = _TOP["language_model"]["properties"]["temperatures"]["items"]["maximum"]
MAX_DEPTH = SCHEMA["maxDepth"]  # nested lists and objects, far below Python's recursion limit

FRACTION = re.compile(_DEFS["fraction"]["anyOf"][0]["pattern"])
PROFILE_ID = re.compile(_PROFILE["properties"]["id"]["pattern"])
PAGE_IDS = frozenset(_PROFILE["properties"]["id"]["not"]["enum"])  # the page's own ids, which no profile may take
TOP_KEYS, TOP_REQUIRED = set(_TOP), set(SCHEMA["required"])
PROFILE_KEYS = set(_PROFILE["properties"])
COST_KEYS, COST_REQUIRED = set(_COST["properties"]), set(_COST["required"])
MC_KEYS = set(_MC["properties"])

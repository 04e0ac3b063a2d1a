"""The data file's limits and keys, in one place: the loader enforces them, the JSON Schema and docs/data.md state
them (tests/test_schema.py holds the schema to IN_SCHEMA, and tests/test_profiles.py holds docs/data.md to these)."""

from __future__ import annotations

import re

MAX_TOKENS = 10  # vocabulary size: one table column and one chart bar per token
MAX_POSITIONS = 8  # target rows, so a round has at most 8 + 3 frames
MAX_PROFILES = 4  # draft profiles the reader can switch between
MAX_LABEL = 12  # characters (Unicode code points, as JSON Schema's maxLength counts them) in a token label
MAX_NAME = 40  # characters in a profile name
MAX_ID = 20  # characters in a profile id
MAX_COSTS = 10  # entries of cost_model.compare_draft_steps, and of cost_model.verify_costs
MAX_DRAWN = 100  # drawn rounds per profile that the page carries
MAX_DENOMINATOR = 1000  # of a probability or cost once reduced, so the page can print it
MAX_DEPTH = 64  # nested lists and objects, far below Python's recursion limit
MAX_DIGITS = 30  # in a JSON number or either side of a fraction, far below Python's int-conversion limit
MAX_ROUNDS = 10_000_000  # monte_carlo.rounds, so a build's Monte Carlo run takes seconds, not hours
MAX_SEED = 2**32 - 1  # walkthrough_seed, monte_carlo.seed and language_model.seed

# Every upper limit the JSON Schema states, by its "/"-joined path in data/profiles.v1.schema.json (language_model's
# are lm_settings.py's, held to the schema beside them).
IN_SCHEMA = {
    "properties/vocabulary/maxItems": MAX_TOKENS,
    "$defs/distribution/maxItems": MAX_TOKENS,
    "properties/vocabulary/items/maxLength": MAX_LABEL,
    "properties/target/maxItems": MAX_POSITIONS,
    "$defs/profile/properties/draft/maxItems": MAX_POSITIONS,
    "$defs/profile/properties/proposals/maxItems": MAX_POSITIONS,
    "properties/profiles/maxItems": MAX_PROFILES,
    "$defs/profile/properties/name/maxLength": MAX_NAME,
    "$defs/profile/properties/id/maxLength": MAX_ID,
    "properties/cost_model/properties/compare_draft_steps/maxItems": MAX_COSTS,
    "properties/cost_model/properties/verify_costs/maxItems": MAX_COSTS,
    "properties/drawn_rounds/maximum": MAX_DRAWN,
    "properties/monte_carlo/properties/rounds/maximum": MAX_ROUNDS,
    "$defs/seed/maximum": MAX_SEED,
}

FRACTION = re.compile(r"^(0|[1-9][0-9]*)(/([1-9][0-9]*))?$")
NEAR_FRACTION = re.compile(r"(-?)([0-9]+)(?:/(-?[0-9]+))?")  # what an author may have meant as a fraction
DECIMAL = re.compile(r"-?[0-9]*\.[0-9]+")
PROFILE_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
TOP_KEYS = {"$schema", "version", "about", "vocabulary", "target", "bonus_target",
             "profiles", "walkthrough_seed", "drawn_rounds", "cost_model", "monte_carlo", "language_model"}
TOP_REQUIRED = TOP_KEYS - {"$schema", "about", "language_model"}
PROFILE_KEYS = {"id", "name", "proposals", "draft"}
COST_KEYS = {"draft_step", "verify_round", "compare_draft_steps", "verify_costs"}
COST_REQUIRED = COST_KEYS - {"verify_costs"}  # files from before verification costs build unchanged
MC_KEYS = {"rounds", "seed"}
# Characters a label or name may not hold: they are invisible, break lines, or reorder the text around them.
BIDI = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
ALLOWED_FORMAT = {"\u200c", "\u200d"}  # zero-width (non-)joiners: part of emoji and of Persian and Indic words

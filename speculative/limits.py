"""The data file's limits and keys, in one place: the loader enforces them, the JSON Schema and docs/data.md state
them (tests/test_schema.py and tests/test_profiles.py hold those to these)."""

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

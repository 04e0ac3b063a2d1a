"""A corpus of broken data files: each is refused with the project's own error, naming the file, the JSON path,
what was found and what was expected, quickly. BROKEN_FILES (name -> bytes) is for running the real build too."""

from __future__ import annotations

import contextlib
import copy
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from speculative import figures
from speculative.dataset import Dataset
from speculative.errors import MAX_PROBLEMS, Problems, decode, describe, visible
from speculative.profiles import parse

from .conftest import FIXTURE, unlined

SRC = "data/profiles.v1.json"
SHIPPED = FIXTURE.read_bytes()  # a valid file of known text, whatever data/profiles.v1.json holds
LAST_LINE = SHIPPED.count(b"\n")  # the line of the file's closing brace
RAW = json.loads(SHIPPED)


def edited(edit) -> bytes:
    """Returns the shipped file with one edit applied, written as an author's editor would (indented, UTF-8)."""
    raw = copy.deepcopy(RAW)
    edit(raw)
    return json.dumps(raw, ensure_ascii=False, indent=2).encode()


def put(path: str, value):
    """Returns an edit that sets the value at a dotted path such as "profiles.0.id"."""
    def edit(raw):
        *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
        node = raw
        for key in parents:
            node = node[key]
        node[last] = value
    return edit


def replaced(old: str, new: str, count: int = 1) -> bytes:
    """Returns the shipped file's text with `old` replaced by `new` (as typed, so it can break the syntax)."""
    text = SHIPPED.decode()
    assert text.count(old) >= count, old
    return text.replace(old, new, count).encode()


def eleven_tokens(raw):
    raw["vocabulary"] += ["dog", "ran", "far", "up", "it"]
    for row in [*raw["target"], raw["bonus_target"], *(r for p in raw["profiles"] for r in p["draft"])]:
        row += ["0"] * 5


def nine_positions(raw):
    for _ in range(4):
        raw["target"].append(raw["target"][0])
        for p in raw["profiles"]:
            p["draft"].append(p["draft"][0])
            p["proposals"].append(p["proposals"][0])


def five_profiles(raw):
    raw["profiles"] += [dict(raw["profiles"][0], id=f"copy{i}", name=f"copy {i}") for i in range(3)]


def target_four_rows(raw):
    raw["target"].pop()


def vocabulary_five(raw):
    raw["vocabulary"].pop()


def sixty_problems(raw):
    for row in raw["target"] + [r for p in raw["profiles"] for r in p["draft"]]:
        row[:] = [True] * len(row)


def nfd_duplicate(raw):
    raw["vocabulary"][4], raw["vocabulary"][5] = "caf\u00e9", "cafe\u0301"
    for p in raw["profiles"]:
        p["proposals"] = [t if t not in ("a", "mat") else "the" for t in p["proposals"]]


# --- the corpus: (name, file bytes, the exact lines after "data/profiles.v1.json: ") --------------------------

CASES: list[tuple[str, bytes, list[str]]] = [
    # bytes that are not UTF-8 text
    ("latin-1 byte", replaced("Hand-authored", "Hand-authored caf\u00e9").decode().encode("latin-1"),
     ["line 4, column 30 (byte offset 89): found the byte 0xE9, which is not valid UTF-8 here; "
      "expected UTF-8 text (save the file as UTF-8)"]),
    ("UTF-16 file", SHIPPED.decode().encode("utf-16"),
     ["line 1, column 1 (byte offset 0): found a UTF-16 byte-order mark; expected UTF-8 text (save the file as UTF-8)"]),
    ("cut inside a character", SHIPPED[:-2] + b'"\xc3',
     [f"line {LAST_LINE}, column 2 (byte offset {len(SHIPPED) - 1}): found the byte 0xC3, which is not valid UTF-8 here; "
      "expected UTF-8 text (save the file as UTF-8)"]),
    ("encoded surrogate", b'{"about": "\xed\xa0\x80"}',
     ["line 1, column 12 (byte offset 11): found the byte 0xED, which is not valid UTF-8 here; "
      "expected UTF-8 text (save the file as UTF-8)"]),
    # JSON syntax
    ("empty file", b"", ["line 1, column 1: found an empty file; expected a JSON object"]),
    ("only spaces", b" \n\n ", ["line 3, column 2: found an empty file; expected a JSON object"]),
    ("NUL byte", b"{\x00}", ['line 1, column 2: found "<U+0000>"; expected a key in double quotes']),
    ("missing comma", b'{"version": 1\n "about": "x"}',
     ['line 2, column 2: found the string "about"; expected "," or "}" (is a comma missing before it?)']),
    ("trailing comma in a list", b'{"vocabulary": ["a", "b",]}',
     ['line 1, column 26: found "]"; expected a value: a string, number, object, list, true, false or null '
      "(JSON allows no comma before a closing bracket)"]),
    ("trailing comma in an object", b'{"version": 1,\n}',
     ['line 2, column 1: found "}"; expected a key in double quotes (JSON allows no comma before a closing bracket)']),
    ("single quotes", b"{'version': 1}", ["line 1, column 2: found \"'\"; expected a key in double quotes"]),
    ("a comment", b'// profiles\n{"version": 1}',
     ['line 1, column 1: found "/"; expected a value: a string, number, object, list, true, false or null '
      "(JSON has no comments)"]),
    ("NaN", replaced('"seed": 17', '"seed": NaN'), ["monte_carlo.seed: found NaN; expected a whole number from 0 to 4294967295"]),
    ("Infinity", replaced("2023", "-Infinity"),
     ["walkthrough_seed: found -Infinity; expected a whole number from 0 to 4294967295"]),
    ("NaN as a probability", replaced('"6/8"', "NaN"),
     ['bonus_target[5] (the target, bonus position): found NaN; expected an exact fraction as a string, such as "3/8"']),
    ("Python True", b'{"version": True}',
     ["line 1, column 13: found True; expected a value: a string, number, object, list, true, false or null"]),
    ("string never ends", b'{"about": "x}', ["line 1, column 11: found a string that never ends; expected a closing double quote"]),
    ("line break in a string", b'{"about": "two\nlines"}',
     [r"line 1, column 15: found U+000A (line feed) inside a string; expected it written as an escape such as \n or \t"]),
    ("bad escape", b'{"about": "C:\\dir"}',
     [r'line 1, column 14: found the escape \d; expected one of \" \\ \/ \b \f \n \r \t or \u and four hex digits']),
    ("leading zero", b'{"walkthrough_seed": 02023}',
     ['line 1, column 22: found 02023; expected a number such as 0, 12, 0.5 or 1e3 (no leading zeros, '
      'and digits after any "." or "e")']),
    ("text after the object", SHIPPED + b"}",
     [f"line {LAST_LINE + 1}, column 1: found \"}}\"; expected the end of the file after the top-level value"]),
    ("file cut short", SHIPPED[:200],
     ["line 5, column 18: found the end of the file; expected a value: a string, number, object, list, true, false "
      "or null"]),
    ("a list, not an object", b"[]", ["$: found a list of 0; expected an object"]),
    ("a string, not an object", b'"profiles"', ['$: found "profiles"; expected an object']),
    # nesting and number sizes, refused before Python's own limits
    ("nested 100,000 deep", b"[" * 100_000,
     ["line 1, column 65: found lists and objects nested more than 64 deep; expected at most 64 levels"]),
    ("nested 65 deep in about", replaced('"about": "Hand', '"about": ' + "[" * 64 + "]" * 64 + ', "x": "Hand'),
     ["line 4, column 75: found lists and objects nested more than 64 deep; expected at most 64 levels"]),
    ("5,000-digit integer", replaced('"walkthrough_seed": 2023', '"walkthrough_seed": ' + "9" * 5000),
     ["walkthrough_seed: found 999999999999999999999999999999… (5000 characters); expected a whole number from 0 to 4294967295"]),
    ("5,000-digit numerator", edited(put("target.0.0", "1" * 5000 + "/8")),
     ['target[0][0] (the target, position 1): found "111111111111111111111111111111…" (5002 characters); '
      'expected at most 30 digits on each side of the "/"']),
    ("5,000-digit denominator", edited(put("bonus_target.0", "0/" + "7" * 5000)),
     ['bonus_target[0] (the target, bonus position): found "0/7777777777777777777777777777…" (5002 characters); '
      'expected at most 30 digits on each side of the "/"']),
    ("1e999", replaced('"seed": 17', '"seed": 1e999'),
     ["monte_carlo.seed: found 1e999; expected a whole number from 0 to 4294967295"]),
    ("denominator over 1000", edited(put("cost_model.draft_step", "1/1024")),
     ['cost_model.draft_step: found "1/1024", which is 1/1024; expected a denominator of at most 1000, '
      "so the page can print it"]),
    ("50,000 tokens", edited(put("vocabulary", ["x"] * 50_000)),
     ["vocabulary: found 50000 tokens; expected at most 10, so the page's tables and charts fit a phone screen"]),
    ("25 million entries", b'{"vocabulary": [' + b"0," * 25_000_000 + b"0]}",
     ["found 50,000,019 bytes; expected at most 1,000,000 bytes for an input file"]),  # the whole file: no JSON path
    # strict types
    ("version true", edited(put("version", True)), ["version: found true; expected 1 for profiles.v1.json"]),
    ("version 1.0", replaced('"version": 1', '"version": 1.0'), ["version: found 1.0; expected 1 for profiles.v1.json"]),
    ("version as a string", edited(put("version", "1")), ['version: found "1"; expected 1 for profiles.v1.json']),
    ("version 2", edited(put("version", 2)), ["version: found 2; expected 1 for profiles.v1.json"]),
    ("seed true", edited(put("walkthrough_seed", True)),
     ["walkthrough_seed: found true; expected a whole number from 0 to 4294967295"]),
    ("seed 2023.0", replaced("2023", "2023.0"),
     ["walkthrough_seed: found 2023.0; expected a whole number from 0 to 4294967295"]),
    ("seed 1e3", replaced("2023", "1e3"),
     ["walkthrough_seed: found 1e3; expected a whole number from 0 to 4294967295"]),
    ("negative seed", edited(put("monte_carlo.seed", -1)),
     ["monte_carlo.seed: found -1; expected a whole number from 0 to 4294967295"]),
    ("rounds as a string", edited(put("monte_carlo.rounds", "100")),
     ['monte_carlo.rounds: found "100"; expected a whole number from 1 to 10000000']),
    ("too many rounds", edited(put("monte_carlo.rounds", 10_000_001)),
     ["monte_carlo.rounds: found 10000001; expected a whole number from 1 to 10000000"]),
    ("probability true", edited(put("target.0.2", True)),
     ['target[0][2] (the target, position 1): found true; expected an exact fraction as a string, such as "3/8"']),
    ("probability 0.0", replaced('"4/8", "1/8", "0"', '"4/8", "1/8", 0.0'),
     ['target[0][2] (the target, position 1): found 0.0; expected an exact fraction as a string, such as "3/8"']),
    ("probability null", edited(put("target.0.2", None)),
     ['target[0][2] (the target, position 1): found null; expected an exact fraction as a string, such as "3/8"']),
    ("probability 2 as a number", edited(put("bonus_target.0", 2)),
     ['bonus_target[0] (the target, bonus position): found 2; expected an exact fraction as a string, such as "3/8"']),
    ("fraction with a line break", edited(put("target.0.0", "4/8\n")),
     ['target[0][0] (the target, position 1): found "4/8<U+000A>"; expected a fraction with no spaces or line breaks around it, such as "3/8"']),
    ("fraction with a space", edited(put("target.0.0", " 4/8")),
     ['target[0][0] (the target, position 1): found " 4/8"; expected a fraction with no spaces or line breaks around it, such as "3/8"']),
    ("spaces inside a fraction", edited(put("target.0.0", "4 / 8")),
     ['target[0][0] (the target, position 1): found "4 / 8"; expected an exact fraction as a string, such as "3/8"']),
    ("divide by zero", edited(put("target.0.0", "4/0")),
     ['target[0][0] (the target, position 1): found "4/0"; expected a denominator above 0, such as the 8 of "3/8"']),
    ("leading zeros", edited(put("target.0.0", "04/8")),
     ['target[0][0] (the target, position 1): found "04/8"; expected whole numbers without leading zeros, such as "4/8"']),
    ("a decimal", edited(put("target.0.0", "0.5")),
     ['target[0][0] (the target, position 1): found "0.5"; expected an exact fraction rather than a decimal, such as "1/2" for 0.5']),
    ("negative zero", edited(put("target.0.0", "-0")),
     ['target[0][0] (the target, position 1): found "-0"; expected a fraction of 0 or more, with no minus sign, such as "3/8"']),
    ("full-width digits", edited(put("target.0.0", "\uff14/8")),
     ['target[0][0] (the target, position 1): found "４/8"; expected an exact fraction as a string, such as "3/8"']),
    ("probability over 1", edited(put("target.0.0", "9/8")),
     ['target[0][0] (the target, position 1): found "9/8"; expected a probability between 0 and 1']),
    ("row is an object", edited(put("target.1", {"the": "1"})),
     ["target[1] (the target, position 2): found an object; expected a list of 6 probabilities, one per vocabulary token"]),
    ("target is a string", edited(put("target", "uniform")),
     ['target: found "uniform"; expected a list of distributions, one per position']),
    ("bonus_target is a number", edited(put("bonus_target", 1)),
     ["bonus_target (the target, bonus position): found 1; expected a list of 6 probabilities, one per vocabulary token"]),
    ("vocabulary is an object", edited(put("vocabulary", {"the": 1})),
     ["vocabulary: found an object; expected a non-empty list of token strings"]),
    ("token is a number", edited(put("vocabulary.3", 7)),
     ["vocabulary[3]: found 7; expected a non-empty string"]),
    ("profiles is an object", edited(put("profiles", {"aligned": {}})),
     ["profiles: found an object; expected a non-empty list of draft profiles"]),
    ("profile is a list", edited(put("profiles.1", [])), ["profiles[1]: found a list of 0; expected an object"]),
    ("id is a list", edited(put("profiles.0.id", ["aligned", "x"])),
     ['profiles[0].id: found a list of 2; expected lower-case letters and digits, with single dashes between them, '
      'such as "aligned"']),
    ("id is an object", edited(put("profiles.1.id", {"name": "divergent"})),
     ['profiles[1].id: found an object; expected lower-case letters and digits, with single dashes between them, '
      'such as "aligned"']),
    ("id is a number", edited(put("profiles.1.id", 2)),
     ['profiles[1].id: found 2; expected lower-case letters and digits, with single dashes between them, '
      'such as "aligned"']),
    ("name is a number", edited(put("profiles.0.name", 1)), ["profiles[0].name: found 1; expected a non-empty string"]),
    ("proposals is a string", edited(put("profiles.0.proposals", "the cat sat on a")),
     ['profiles[0].proposals: found "the cat sat on a"; expected a list of proposed tokens, one per position']),
    ("proposal is null", edited(put("profiles.1.proposals.0", None)),
     ["profiles[1].proposals[0] (a divergent draft, position 1): found null; expected a token from the vocabulary"]),
    ("cost_model is a list", edited(put("cost_model", ["1/10"])), ["cost_model: found a list of 1; expected an object"]),
    ("draft_step true", edited(put("cost_model.draft_step", True)),
     ['cost_model.draft_step: found true; expected an exact fraction as a string, such as "3/8"']),
    ("verify_round 0", edited(put("cost_model.verify_round", "0")), ['cost_model.verify_round: found "0"; expected a positive cost']),
    ("verify_round 0 as a number", edited(put("cost_model.verify_round", 0)), ["cost_model.verify_round: found 0; expected a positive cost"]),
    ("eleven costs to compare", edited(put("cost_model.compare_draft_steps", ["1/10"] * 11)),
     ["cost_model.compare_draft_steps: found 11 costs; expected at most 10, so the speedup table fits the page"]),
    ("a cost to compare twice", edited(put("cost_model.compare_draft_steps", ["1/50", "1/10", "2/20"])),
     ['cost_model.compare_draft_steps[2]: found "2/20", which is 1/10, as cost_model.compare_draft_steps[1] is; '
      "expected every draft-step cost to be unique"]),
    ("about is a number", edited(put("about", 3)), ["about: found 3; expected a string"]),
    ("$schema is null", edited(put("$schema", None)), ["$schema: found null; expected a string"]),
    ("unknown key", edited(put("profile", [])),
     ['$: found unknown key "profile"; expected one of: $schema, about, bonus_target, cost_model, drawn_rounds, language_model, monte_carlo, '
      "profiles, roofline, target, version, vocabulary, walkthrough_seed"]),
    ("unknown key with a bidi control", edited(put("cost_model.dra\u202eft", "1")),
     ['cost_model: found unknown key "dra<U+202E>ft"; expected one of: compare_draft_steps, draft_step, verify_costs, verify_round']),
    # keys given twice
    ("version twice", replaced('"version": 1,', '"version": 1, "version": 2,'),
     ['version: found the key "version" twice in one object (line 3, column 3 and line 3, column 17); '
      "expected each key once"]),
    ("target twice", replaced('"bonus_target"', '"target": [], "bonus_target"'),
     ['target: found the key "target" twice in one object (line 6, column 3 and line 13, column 3); '
      "expected each key once"]),
    ("id twice", replaced('"id": "aligned",', '"id": "aligned", "id": "x",'),
     ['profiles[0].id: found the key "id" twice in one object (line 16, column 7 and line 16, column 24); '
      "expected each key once"]),
    ("seed twice in monte_carlo", replaced('"seed": 17', '"seed": 17, "seed": 18'),
     ['monte_carlo.seed: found the key "seed" twice in one object (line 50, column 5 and line 50, column 17); '
      "expected each key once"]),
    ("draft_step twice", replaced('"draft_step": "1/10",', '"draft_step": "1/10", "draft_step": "1/8",'),
     ['cost_model.draft_step: found the key "draft_step" twice in one object (line 43, column 5 and line 43, '
      "column 27); expected each key once"]),
    # limits the page can show
    ("eleven tokens", edited(eleven_tokens),
     ["vocabulary: found 11 tokens; expected at most 10, so the page's tables and charts fit a phone screen"]),
    ("nine positions", edited(nine_positions),  # in the file's order: a profile's proposals come before its draft
     ["target: found 9 rows; expected at most 8 positions, so the page fits a phone screen",
      "profiles[0].proposals: found 9 proposals; expected at most 8 positions, so the page fits a phone screen",
      "profiles[0].draft: found 9 rows; expected at most 8 positions, so the page fits a phone screen",
      "profiles[1].proposals: found 9 proposals; expected at most 8 positions, so the page fits a phone screen",
      "profiles[1].draft: found 9 rows; expected at most 8 positions, so the page fits a phone screen"]),
    ("five profiles", edited(five_profiles),
     ["profiles: found 5 profiles; expected at most 4, so the page's profile switch fits a phone screen"]),
    ("13-character token", edited(put("vocabulary.0", "extraordinary")),
     ['vocabulary[0]: found "extraordinary" (13 characters); expected a token of at most 12 characters, '
      "so it fits the page on a phone",
      'profiles[0].proposals[0] (a closely aligned draft, position 1): found "the"; expected a token from the vocabulary',
      'profiles[1].proposals[0] (a divergent draft, position 1): found "the"; expected a token from the vocabulary']),
    ("41-character name", edited(put("profiles.0.name", "a" * 41)),
     ['profiles[0].name: found "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…" (41 characters); expected a name of at most '
      "40 characters, so it fits the page on a phone"]),
    ("21-character id", edited(put("profiles.0.id", "a-very-long-draft-id1")),
     ['profiles[0].id: found "a-very-long-draft-id1" (21 characters); expected an id of at most 20 characters']),
    # labels and names the page cannot show safely
    ("right-to-left override", edited(put("vocabulary.5", "ma\u202et")),
     ['vocabulary[5]: found "ma<U+202E>t", which has U+202E (right-to-left override) at character 3; '
      "expected a token without control characters, line breaks or bidi controls",
      'profiles[1].proposals[1] (a divergent draft, position 2): found "mat"; expected a token from the vocabulary']),
    ("isolate in a name", edited(put("profiles.1.name", "a \u2066divergent\u2069 draft")),
     ['profiles[1].name: found "a <U+2066>divergent<U+2069> draft", which has U+2066 (left-to-right isolate) at '
      "character 3; expected a name without control characters, line breaks or bidi controls"]),
    ("Arabic letter mark", edited(put("profiles.1.name", "\u061cdivergent")),
     ['profiles[1].name: found "<U+061C>divergent", which has U+061C (arabic letter mark) at character 1; '
      "expected a name without control characters, line breaks or bidi controls"]),
    ("line break in a token", edited(put("vocabulary.4", "a\nb")),
     ['vocabulary[4]: found "a<U+000A>b", which has U+000A (line feed) at character 2; '
      "expected a token without control characters, line breaks or bidi controls",
      'profiles[0].proposals[4] (a closely aligned draft, position 5): found "a"; expected a token from the vocabulary',
      'profiles[1].proposals[4] (a divergent draft, position 5): found "a"; expected a token from the vocabulary']),
    ("blank line in a name", edited(put("profiles.0.name", "a closely\n\naligned draft")),
     ['profiles[0].name: found "a closely<U+000A><U+000A>aligned draft", which has U+000A (line feed) at '
      "character 10; expected a name without control characters, line breaks or bidi controls"]),
    ("tab in a token", edited(put("vocabulary.0", "t\the")),
     ['vocabulary[0]: found "t<U+0009>he", which has U+0009 (tab) at character 2; '
      "expected a token without control characters, line breaks or bidi controls",
      'profiles[0].proposals[0] (a closely aligned draft, position 1): found "the"; expected a token from the vocabulary',
      'profiles[1].proposals[0] (a divergent draft, position 1): found "the"; expected a token from the vocabulary']),
    ("zero-width space", edited(put("vocabulary.1", "c\u200bat")),
     ['vocabulary[1]: found "c<U+200B>at", which has U+200B (zero width space) at character 2; '
      "expected a token without control characters, line breaks or bidi controls",
      'profiles[0].proposals[1] (a closely aligned draft, position 2): found "cat"; expected a token from the vocabulary',
      'profiles[1].proposals[2] (a divergent draft, position 3): found "cat"; expected a token from the vocabulary']),
    ("a token only a Hangul filler", replaced('"cat"', '"\\u3164"', 3),
     ['vocabulary[1]: found "\u3164", which has only U+3164 (hangul filler), none of which can be seen; '
      "expected a token with at least one visible character"]),
    ("a token only a zero-width joiner", replaced('"cat"', '"\\u200d"', 3),
     ['vocabulary[1]: found "<U+200D>", which has only U+200D (zero width joiner), none of which can be seen; '
      "expected a token with at least one visible character"]),
    ("lone surrogate", replaced('"sat"', '"s\\ud800t"', 1),
     ['vocabulary[2]: found "s<U+D800>t", which has U+D800 (half of a surrogate pair) at character 2; '
      "expected a token without control characters, line breaks or bidi controls",
      'profiles[0].proposals[2] (a closely aligned draft, position 3): found "sat"; expected a token from the vocabulary']),
    ("leading space", edited(put("vocabulary.2", " sat")),
     ['vocabulary[2]: found " sat", which starts with a space; expected a token with no spaces at either end',
      'profiles[0].proposals[2] (a closely aligned draft, position 3): found "sat"; expected a token from the vocabulary']),
    ("trailing no-break space", edited(put("profiles.0.name", "aligned\u00a0")),
     ['profiles[0].name: found "aligned<U+00A0>", which ends with U+00A0 (no-break space); '
      "expected a name with no spaces at either end"]),
    ("same token in two spellings", edited(nfd_duplicate),
     ['vocabulary[5]: found "cafe\u0301", which looks the same as vocabulary[4] (the same letters in other Unicode '
      "code points); expected every token to be unique"]),
    ("same name twice", edited(put("profiles.1.name", RAW["profiles"][0]["name"])),
     ['profiles[1].name: found "a closely aligned draft" again; expected every profile name to be unique']),
    # profile ids
    ("id and id-t", edited(put("profiles.1.id", "aligned-t")),
     ['profiles[1].id: found "aligned-t", which begins with "aligned-", the id of profiles[0]; expected ids where '
      "none is another followed by a dash, because the page names elements by id and suffix (positions-profile-aligned-cap), "
      "so two profiles could name the same element"]),
    ("id-t and id", edited(lambda raw: (put("profiles.0.id", "divergent-t")(raw), put("profiles.1.id", "divergent")(raw))),
     ['profiles[1].id: found "divergent", which is how profiles[0].id "divergent-t" begins; expected ids where '
      "none is another followed by a dash, because the page names elements by id and suffix (positions-profile-divergent-cap), "
      "so two profiles could name the same element"]),
    ("same id twice", edited(put("profiles.1.id", "aligned")),
     ['profiles[1].id: found "aligned" again; expected every profile id to be unique']),
    ("id main", edited(put("profiles.0.id", "main")),
     ['profiles[0].id: found "main", which the page already uses for its own elements; expected another id']),
    ("id positions-profile", edited(put("profiles.1.id", "positions-profile")),
     ['profiles[1].id: found "positions-profile", which the page already uses for its own elements; expected another id']),
    ("id with two dashes", edited(put("profiles.1.id", "very--divergent")),
     ['profiles[1].id: found "very--divergent"; expected lower-case letters and digits, with single dashes between '
      'them, such as "aligned"']),
    ("id ending in a dash", edited(put("profiles.1.id", "divergent-")),
     ['profiles[1].id: found "divergent-"; expected lower-case letters and digits, with single dashes between them, '
      'such as "aligned"']),
    ("id with a line break", edited(put("profiles.1.id", "divergent\n")),
     ['profiles[1].id: found "divergent<U+000A>"; expected lower-case letters and digits, with single dashes '
      'between them, such as "aligned"']),
    # lists that disagree in length: the one that sets the length is named
    ("target has 4 rows, every draft 5", edited(target_four_rows),
     ["target: found 4 rows; expected 5, one per position, as every draft and proposal list has 5"]),
    ("one draft has 4 rows", edited(lambda raw: raw["profiles"][1]["draft"].pop()),
     ["profiles[1].draft: found 4 rows; expected 5, one per position, as many as target has"]),
    ("six proposals", edited(lambda raw: raw["profiles"][0]["proposals"].append("the")),
     ["profiles[0].proposals: found 6 proposals; expected 5, one per position, as many as target has"]),
    ("vocabulary has 5 tokens, every distribution 6", edited(vocabulary_five),
     ["vocabulary: found 5 tokens; expected 6, as every distribution has 6 entries",
      'profiles[1].proposals[1] (a divergent draft, position 2): found "mat"; expected a token from the vocabulary']),
    ("bonus_target has 5 entries", edited(lambda raw: raw["bonus_target"].pop()),
     ["bonus_target (the target, bonus position): found a list of 5; expected a list of 6 probabilities, one per vocabulary token"]),
]

CAPPED = ("60 problems", edited(sixty_problems))

# For the build's own tests: every broken file above, by name.
BROKEN_FILES: dict[str, bytes] = {name: blob for name, blob, _ in CASES} | {CAPPED[0]: CAPPED[1]}


def load_bytes(blob: bytes) -> Dataset:
    return parse(decode(blob, SRC), SRC, figures.page_ids())


@pytest.mark.parametrize("blob, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_refuses_broken_file_with_exact_message(blob, expected):
    with pytest.raises(Problems) as caught:  # how fast each is refused: bench/refusal_speed.py
        load_bytes(blob)
    assert unlined(caught.value.lines) == [f"{SRC}: {line}" for line in expected]


def test_corpus_is_large_and_every_message_says_what_was_found_and_expected():
    assert len(BROKEN_FILES) >= 60
    for name, _, lines in CASES:
        assert all("found" in line and ("expected" in line or "must" in line) for line in lines), name


def test_lists_at_most_fifty_problems_then_a_count():
    with pytest.raises(Problems) as caught:
        load_bytes(CAPPED[1])
    lines = unlined(caught.value.lines)
    total = caught.value.count
    assert total > MAX_PROBLEMS and len(lines) == MAX_PROBLEMS + 1
    assert lines[0] == f'{SRC}: target[0][0] (the target, position 1): found true; expected an exact fraction as a string, such as "3/8"'
    assert lines[-1] == f"{SRC}: … and {total - MAX_PROBLEMS} more problems"


def test_accepts_a_byte_order_mark():
    assert load_bytes(b"\xef\xbb\xbf" + SHIPPED) == load_bytes(SHIPPED)


def test_accepts_what_an_author_may_reasonably_write():
    def edit(raw):
        raw["vocabulary"] = ["the", "القطة", "猫", "👩‍💻", "café", "a b"]
        raw["profiles"][0]["name"] = "a draft d’accord — ‘aligned’"
        raw["profiles"][1]["id"] = "very-divergent-2"
        for p in raw["profiles"]:
            p["proposals"] = [raw["vocabulary"][RAW["vocabulary"].index(t)] for t in p["proposals"]]
    data = load_bytes(edited(edit))
    assert data.vocabulary[3] == "👩‍💻" and data.profiles[1].id == "very-divergent-2"


@pytest.mark.parametrize("text, shown", [
    ("ab\u202ec", "ab<U+202E>c"), ("café", "café"), ("القطة", "القطة"), ("a\nb", "a<U+000A>b"),
    ("a b", "a b"), ("\ufeffx", "<U+FEFF>x"), ("\ud800", "<U+D800>"), ("\u00a0", "<U+00A0>"),
])
def test_visible_names_only_what_cannot_be_seen(text, shown):
    assert visible(text) == shown


def test_describe_shows_strings_as_typed_and_cuts_long_ones():
    assert describe('say "hi"') == r'"say \"hi\""'
    assert describe("x" * 100) == '"' + "x" * 30 + '…" (100 characters)'


# --- properties: whatever the input, a Dataset or the project's own error -------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=12), inner, max_size=5),
    max_leaves=30)


def outcome(text: str):
    try:
        return parse(text, SRC)
    except Problems as err:
        assert err.lines and all(line.startswith(f"{SRC}: ") for line in err.lines)
        assert not any("what the schema allows" in line for line in err.lines)  # every schema error is worded
        return err


@pytest.mark.slow  # statistical power or many random cases: the full run only
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_values)
def test_any_json_value_gives_a_dataset_or_our_error(value):
    outcome(json.dumps(value))


def _paths(node, path=()):
    yield path
    children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in children:
        yield from _paths(child, (*path, key))


PATHS = list(_paths(RAW))[1:]


@pytest.mark.slow  # statistical power or many random cases: the full run only
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(PATHS), json_values), min_size=1, max_size=4))
def test_any_mutation_of_the_shipped_file_gives_a_dataset_or_our_error(edits):
    raw = copy.deepcopy(RAW)
    for path, value in edits:
        node = raw
        try:
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue
    outcome(json.dumps(raw, ensure_ascii=False))


@pytest.mark.slow  # statistical power or many random cases: the full run only
@settings(max_examples=300, deadline=None)
@given(st.data())
def test_any_byte_edit_of_the_shipped_file_gives_a_dataset_or_our_error(data):
    blob = bytearray(SHIPPED)
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(blob) - 1))
        blob[at:at + data.draw(st.integers(0, 3))] = data.draw(st.binary(max_size=4))
    with contextlib.suppress(Problems):
        load_bytes(bytes(blob))


@pytest.mark.slow  # statistical power or many random cases: the full run only
@settings(max_examples=300, deadline=None)
@given(json_values, st.sampled_from([None, 1, "\t"]))
def test_finds_where_every_value_of_any_json_text_starts(value, indent):
    from speculative.profiles import _positions
    text = json.dumps(value, indent=indent, ensure_ascii=indent is None)
    where, twice = _positions(text)
    assert twice == [] and where[()] == len(text) - len(text.lstrip())
    for path in _paths(value):
        node = value
        for key in path:
            node = node[key]
        assert json.JSONDecoder().raw_decode(text, where[path])[0] == node, path


def test_names_each_key_given_twice_with_both_places():
    from speculative.profiles import _positions
    where, twice = _positions('{"a": {"b": [1, {"c": 2, "c": 3}], "b": 4}}')
    assert where[("a", "b", 1, "c")] == 22 and twice == [
        (("a", "b", 1, "c"), 'found the key "c" twice in one object (line 1, column 18 and line 1, column 26); '
                             "expected each key once"),
        (("a", "b"), 'found the key "b" twice in one object (line 1, column 8 and line 1, column 36); expected each key once')]

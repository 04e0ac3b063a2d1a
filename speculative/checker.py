"""What the data file's schema says, in the project's words, and what a schema cannot say.

`problems` returns every problem of a parsed file: each schema error (data/profiles.v1.schema.json, the one statement
of the file's shape, types, ranges, patterns and limits) worded as found and expected, then what the schema cannot
check: sums, lengths that must agree, proposals the draft can make, labels and ids that must differ, the full set of
invisible characters, and the bounds of fractions written as strings. Each problem is (JSON path, message)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Mapping
from fractions import Fraction
from typing import Any

from jsonschema import Draft202012Validator, validators

from . import lm_settings, roofline
from .errors import PLAIN, char_name, describe
from .limits import FRACTION, MAX_ID, MAX_LABEL, MAX_NAME, MAX_POSITIONS, MAX_TOKENS, PAGE_IDS, PROFILE_ID, SCHEMA

Path_ = tuple[Any, ...]  # a JSON path: its keys and indices
Found = list[tuple[Path_, str]]  # (JSON path, message) per problem


def _items(validator: Any, items: Any, instance: Any, schema: dict) -> Iterator[Any]:
    """Checks a list's entries only when it is within its maxItems: a list far too long is one problem, found fast."""
    if not (isinstance(instance, list) and len(instance) > schema.get("maxItems", len(instance))):
        yield from Draft202012Validator.VALIDATORS["items"](validator, items, instance, schema)


VALIDATOR = validators.extend(Draft202012Validator, {"items": _items})(SCHEMA)
ROOFLINE_NAME = SCHEMA["properties"]["roofline"]["properties"]["hardware"]["items"]["properties"]["name"]["maxLength"]
VALUE_CHECKED = {"fraction", "probability", "distribution", "visible_text"}  # $defs whose messages read the value


_KEY = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*\Z")


def path_text(path: Path_) -> str:
    """Returns a JSON path as messages write it: $, vocabulary[2], profiles[0].id, cost_model["dra ft"]."""
    out = "$"
    for step in path:
        if isinstance(step, int) or not _KEY.match(step):
            out += f"[{step if isinstance(step, int) else describe(step)}]"
        else:
            out = step if out == "$" else f"{out}.{step}"
    return out


def _node(path: Path_) -> dict:
    """Returns the schema that describes the value at `path`, its own keywords over those of the $defs it names."""
    node = SCHEMA
    for step in (None, *path):
        if step is not None:
            node = node["items"] if isinstance(step, int) else node["properties"][step]
        while "$ref" in node:
            node = {**SCHEMA["$defs"][node["$ref"].rsplit("/", 1)[1]], "$def": node["$ref"].rsplit("/", 1)[1],
                    **{k: v for k, v in node.items() if k != "$ref"}}
    return node


POSITIONS = " positions, so the page fits a phone screen"
# A list's key: what it should be, a noun for its entries and, after its limit, why there is one.
LISTS = {
    "vocabulary": ("a non-empty list of token strings", "token", ", so the page's tables and charts fit a phone screen"),
    "target": ("a list of distributions, one per position", "row", POSITIONS),
    "draft": ("a list of distributions, one per position", "row", POSITIONS),
    "proposals": ("a list of proposed tokens, one per position", "proposal", POSITIONS),
    "profiles": ("a non-empty list of draft profiles", "profile", ", so the page's profile switch fits a phone screen"),
    "compare_draft_steps": ("a non-empty list of draft-step costs", "cost", ", so the speedup table fits the page"),
    "verify_costs": ("a non-empty list of verification costs per drafted position", "cost",
                     ", so the speedup explorer's choices fit the page"),
    "temperatures": ("a list of {minItems} to {maxItems} temperatures", "", ""),
    "hardware": ("a non-empty list of hardware", "hardware entry", ", so the figure's choices fit a phone screen"),
    "model_pairs": ("a non-empty list of model pairs", "pair", ", so the figure's choices fit a phone screen"),
    "table_batches": ("a list of {minItems} to {maxItems} different batch sizes", "batch size",
                      ", so the table fits a phone screen"),
}


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun[:-1]}ies" if noun.endswith("y") else f"{n} {noun}s"


def _explain(err: Any) -> Found:
    """Returns the problems a schema error stands for, in the project's words; none where the pass after the schema
    words it from the value (a fraction, a distribution, a label, an id, a proposal, a list's repeats)."""
    path, value, node, keyword = tuple(err.absolute_path), err.instance, err.schema, err.validator
    if keyword == "required":
        return [(path, f'found no key "{key}"; expected one (it is required)') for key in err.validator_value
                if key not in value]
    if keyword == "additionalProperties":
        return [(path, f"found unknown key {describe(key)}; expected one of: {', '.join(sorted(node['properties']))}")
                for key in value if key not in node["properties"]]
    if (keyword in ("uniqueItems", "anyOf") or _node(path).get("$def") in VALUE_CHECKED or path[-1:] == ("id",)
            or path[-2:-1] == ("proposals",) or path[:2] == ("language_model", "draft_orders")):
        return []
    found = f"found {describe(value)}; expected"
    if keyword == "const":
        return [(path, f"{found} {node['const']} for profiles.v1.json")]
    if node.get("type") == "integer":
        return [(path, f"{found} a whole number from {node['minimum']} to {node['maximum']}")]
    if node.get("type") == "array":
        want, noun, why = LISTS[path[-1]]
        if keyword == "maxItems" and why:
            return [(path, f"found {plural(len(value), noun)}; expected at most {node['maxItems']}{why}")]
        return [(path, f"{found} {want.format(**node)}")]
    what = {"object": "an object", "string": "a string"}.get(node.get("type", ""), err.message)
    return [(path, f"{found} {what}")]


def fraction_expected(value: Any) -> str:
    """Returns what a value that is not a fraction should have been, saying what is wrong with a near miss: spaces, a
    minus sign, a zero denominator, leading zeros, or a decimal."""
    near = re.fullmatch(r"(-?)([0-9]+)(?:/(-?[0-9]+))?", value) if isinstance(value, str) else None
    if isinstance(value, str) and FRACTION.fullmatch(value.strip()):
        return 'expected a fraction with no spaces or line breaks around it, such as "3/8"'
    if near is None:
        if isinstance(value, str) and re.fullmatch(r"-?[0-9]*\.[0-9]+", value):
            return 'expected an exact fraction rather than a decimal, such as "1/2" for 0.5'
        return 'expected an exact fraction as a string, such as "3/8"'
    sign, _, bottom = near.groups()
    if sign or (bottom or "").startswith("-"):
        return 'expected a fraction of 0 or more, with no minus sign, such as "3/8"'
    if bottom is not None and int(bottom) == 0:
        return 'expected a denominator above 0, such as the 8 of "3/8"'
    return 'expected whole numbers without leading zeros, such as "4/8"'


BOUNDED = {"discount": 'a discount strictly between {lo} and {hi}, such as "3/4"', "verify_round": "a positive cost",
           "bytes_per_parameter": 'a number of bytes above {lo} and at most {hi}, such as "2"',
           "temperatures": "a temperature from {lo} to {hi}", "default_temperature": "a temperature from {lo} to {hi}"}


def _fraction(value: Any, path: Path_, found: Found) -> Fraction | None:
    """Returns the exact fraction at `path`, or None after adding its problem to `found`: not a fraction, too many
    digits, outside the bounds its schema gives, or a denominator too large to print."""
    node = _node(path)
    if isinstance(value, bool) or not (value in (0, 1) if isinstance(value, int) else
                                       isinstance(value, str) and FRACTION.fullmatch(value)):
        problem = f"; {fraction_expected(value)}"
    elif max(len(side) for side in str(value).split("/")) > node["maxDigits"]:
        problem = f'; expected at most {node["maxDigits"]} digits on each side of the "/"'
    else:
        frac, lo, hi = Fraction(value), node.get("exclusiveMinimum", 0), node.get("exclusiveMaximum", node.get("maximum"))
        if (frac < lo or frac == lo and "exclusiveMinimum" in node
                or hi is not None and (frac > hi or frac == hi and "exclusiveMaximum" in node)):
            what = BOUNDED.get(path[-1] if isinstance(path[-1], str) else path[-2], "a probability between {lo} and {hi}")
            problem = f"; expected {what.format(lo=lo, hi=hi)}"
        elif frac.denominator > node["maxDenominator"]:
            problem = f", which is {frac}; expected a denominator of at most {node['maxDenominator']}, so the page can print it"
        else:
            return frac
    found.append((path, f"found {describe(value)}{problem}"))
    return None


def _list(value: Any, most: int | None = None) -> list:
    """Returns value if it is a list (of at most `most` entries), else an empty list: what the checks look at."""
    return value if isinstance(value, list) and (most is None or len(value) <= most) else []


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _costs(raw: dict, found: Found) -> dict[Path_, Fraction | None]:
    """Returns each fraction of cost_model, language_model and roofline by its path, None where it has a problem
    (added to `found`); a distribution's are checked with it."""
    places: list[tuple[Path_, Any]] = []
    for parent in ("cost_model", "language_model", "roofline"):
        for key, value in _dict(raw.get(parent)).items():
            node = SCHEMA["properties"][parent]["properties"].get(key, {})
            if node.get("$ref") == "#/$defs/fraction":
                places.append(((parent, key), value))
            elif node.get("items", {}).get("$ref") == "#/$defs/fraction":
                places += [((parent, key, i), v) for i, v in enumerate(_list(value))]
    return {path: _fraction(value, path, found) for path, value in places}


def _vocabulary_size(raw: dict, vocab: list | None, found: Found) -> int | None:
    """Returns the length every distribution must have: the vocabulary's, unless every distribution agrees on
    another, when the vocabulary is the one to blame."""
    if vocab is None:
        return None
    dists = [*_list(raw.get("target"), MAX_POSITIONS), raw.get("bonus_target"),
             *(row for p in _list(raw.get("profiles")) for row in _list(_dict(p).get("draft"), MAX_POSITIONS))]
    sizes = {len(d) for d in dists if isinstance(d, list)}
    (size,) = sizes if len(sizes) == 1 else (None,)
    if sum(isinstance(d, list) for d in dists) >= 2 and size is not None and 0 < size <= MAX_TOKENS and size != len(vocab):
        found.append((("vocabulary",), f"found {plural(len(vocab), 'token')}; expected {size}, "
                                       f"as every distribution has {size} entries"))
        return size
    return len(vocab)


def _positions_count(raw: dict, found: Found) -> int | None:
    """Returns k, the number of positions: the target's row count, unless every draft and proposal list agrees on
    another, when the target is the one to blame."""
    target = raw.get("target")
    rows = len(target) if isinstance(target, list) and 0 < len(target) <= MAX_POSITIONS else None
    others = [len(v) for p in _list(raw.get("profiles")) for v in (_dict(p).get("draft"), _dict(p).get("proposals"))
              if isinstance(v, list) and 0 < len(v) <= MAX_POSITIONS]
    if len(others) >= 2 and len(set(others)) == 1 and others[0] != rows:
        if rows is not None:
            found.append((("target",), f"found {plural(rows, 'row')}; expected {others[0]}, one per position, "
                                       f"as every draft and proposal list has {others[0]}"))
        return others[0]
    return rows


def _per_position(value: Any, path: Path_, k: int | None, noun: str, found: Found) -> bool:
    """Returns whether value is a list of one entry per position, adding a problem if its length is wrong."""
    if not isinstance(value, list) or not 0 < len(value) <= MAX_POSITIONS:
        return False  # the schema's problem
    if k is not None and len(value) != k:
        found.append((path, f"found {plural(len(value), noun)}; expected {k}, one per position, as many as target has"))
        return False
    return True


def _distributions(raw: dict, size: int | None, k: int | None, found: Found) -> dict[Path_, tuple]:
    """Returns each distribution of the right length that sums to 1, by its path; adds a problem for each other."""
    rows: list[tuple[Path_, Any]] = [(("bonus_target",), raw["bonus_target"])] if "bonus_target" in raw else []
    rows += [(("target", i), row) for i, row in enumerate(_list(raw.get("target"), MAX_POSITIONS))]
    for p, profile in enumerate(_list(raw.get("profiles"))):
        draft = _dict(profile).get("draft")
        if _per_position(draft, ("profiles", p, "draft"), k, "row", found):
            rows += [(("profiles", p, "draft", i), row) for i, row in enumerate(_list(draft))]
    vocab = raw.get("vocabulary")
    # a row as long as too long a vocabulary is fine here: the vocabulary's length is the problem
    longest = len(vocab) if isinstance(vocab, list) and len(vocab) > MAX_TOKENS else 0
    fine = {}
    for path, row in rows:
        n = len(row) if isinstance(row, list) else -1
        if n != size if size is not None else not (0 < n <= MAX_TOKENS or n == longest > 0):
            found.append((path, f"found {describe(row)}; expected a list of {size or f'1 to {MAX_TOKENS}'} "
                                "probabilities, one per vocabulary token"))
            continue
        entries = [_fraction(value, (*path, j), found) for j, value in enumerate(row)]
        total = sum(e for e in entries if e is not None)
        if None not in entries and total != 1:
            found.append((path, f"sums to {total}; each distribution must sum to 1"))
        elif None not in entries:
            fine[path] = tuple(entries)
    return fine


def _proposals(raw: dict, vocab: list | None, k: int | None, dists: dict, found: Found) -> None:
    """Adds a problem per proposal that is not a vocabulary token the draft can propose at its position."""
    for p, profile in enumerate(_list(raw.get("profiles"))):
        value, path = _dict(profile).get("proposals"), ("profiles", p, "proposals")
        if not _per_position(value, path, k, "proposal", found) or vocab is None:
            continue  # no vocabulary to look the tokens up in: its own problem is reported
        for i, token in enumerate(_list(value)):
            if not isinstance(token, str) or token not in vocab:
                found.append(((*path, i), f"found {describe(token)}; expected a token from the vocabulary"))
            elif len(row := dists.get(("profiles", p, "draft", i), ())) == len(vocab) and row[vocab.index(token)] == 0:
                found.append(((*path, i), f"found {describe(token)}, which the draft gives probability 0 at position "
                                          f"{i + 1}; expected a token the draft could propose"))


ALLOWED_FORMAT = {"\u200c", "\u200d"}  # zero-width (non-)joiners: part of emoji and of Persian and Indic words
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")  # letters fonts draw as nothing: Hangul fillers, blank Braille


def forbidden(ch: str) -> bool:
    """Returns whether a label or name may not hold ch: it is invisible, breaks the line or reorders the text around
    it. The schema's pattern names the most common of them; Unicode's categories, which no pattern can, name all."""
    cat = unicodedata.category(ch)
    if cat == "Cf":
        return ch not in ALLOWED_FORMAT and not 0xE0020 <= ord(ch) <= 0xE007F  # tags spell subdivision flags
    return cat in ("Cc", "Cs", "Zl", "Zp")


def _label(value: Any, most: int, what: str) -> str | None:
    """Returns what is wrong with a token or name, if anything: it must be a short, visible, one-line string."""
    if not isinstance(value, str) or not value.strip():
        return f"found {describe(value)}; expected a non-empty string"
    bad = next(((i, ch) for i, ch in enumerate(value) if forbidden(ch)), None)
    if bad is not None:
        return f"found {describe(value)}, which has {char_name(bad[1])} at character {bad[0] + 1}; expected {what} {PLAIN}"
    if value != value.strip():
        end, ch = ("starts", value[0]) if value[0].isspace() else ("ends", value[-1])
        return (f"found {describe(value)}, which {end} with {'a space' if ch == ' ' else char_name(ch)}; "
                f"expected {what} with no spaces at either end")
    if len(value) > most:
        shown = describe(value)
        shown = shown if shown.endswith(" characters)") else f"{shown} ({len(value)} characters)"
        return f"found {shown}; expected {what} of at most {most} characters, so it fits the page on a phone"
    if not any(unicodedata.category(ch) not in ("Cf", "Mn", "Me", "Zs", "Cc") and ch not in _BLANK_LETTERS for ch in value):
        names = ", ".join(char_name(ch) for ch in value[:3]) + (", …" if len(value) > 3 else "")
        return (f"found {describe(value)}, which has only {names}, none of which can be seen; "
                f"expected {what} with at least one visible character")
    return None


def _unique(values: list[tuple[Path_, Any]], what: str) -> Found:
    """Returns a problem per text that, once normalised, an earlier one already had."""
    seen: dict[str, tuple[Path_, str]] = {}
    found: Found = []
    for path, text in values:
        key = unicodedata.normalize("NFC", text) if isinstance(text, str) else None
        if key is not None and key in seen:
            found.append((path, f"found {describe(text)} again; expected every {what} to be unique" if seen[key][1] == text
                          else f"found {describe(text)}, which looks the same as {path_text(seen[key][0])} (the same "
                               f"letters in other Unicode code points); expected every {what} to be unique"))
        elif key is not None:
            seen[key] = (path, text)
    return found


def _labels(raw: dict, found: Found) -> None:
    """Adds a problem per token or profile name the page cannot show, or that repeats another."""
    tokens = [(("vocabulary", i), t) for i, t in enumerate(_list(raw.get("vocabulary"), MAX_TOKENS))]
    names = [(("profiles", p, "name"), profile["name"]) for p, profile in enumerate(_list(raw.get("profiles")))
             if isinstance(profile, dict) and "name" in profile]
    machines, pairs = ([((*key, i, "name"), item["name"]) for i, item in enumerate(_list(_dict(raw.get("roofline")).get(key[1])))
                        if isinstance(item, dict) and "name" in item] for key in (("roofline", "hardware"), ("roofline", "model_pairs")))
    for places, most, what in ((tokens, MAX_LABEL, "a token"), (names, MAX_NAME, "a name"),
                               (machines, ROOFLINE_NAME, "a name"), (pairs, ROOFLINE_NAME, "a name")):
        found += [(path, problem) for path, value in places if (problem := _label(value, most, what))]
    found += (_unique(tokens, "token") + _unique(names, "profile name") + _unique(machines, "hardware name")
              + _unique(pairs, "model pair name"))


def _ids(raw: dict, reserved: frozenset[str], owners: Mapping[str, str], found: Found) -> None:
    """Adds a problem per profile id that is not a short lower-case name, that the page uses, or that repeats or
    begins with an earlier one and a dash."""
    seen: list[tuple[int, str]] = []
    for i, pid in [(i, p["id"]) for i, p in enumerate(_list(raw.get("profiles"))) if isinstance(p, dict) and "id" in p]:
        shown = describe(pid)
        if not isinstance(pid, str) or not PROFILE_ID.fullmatch(pid):
            message = (f"found {shown}; expected lower-case letters and digits, with single dashes between them, "
                       'such as "aligned"')
        elif len(pid) > MAX_ID:
            message = f"found {shown} ({len(pid)} characters); expected an id of at most {MAX_ID} characters"
        elif pid in owners:
            message = (f"found {shown}, which {owners[pid]} already gives an element on the page; expected another id "
                       "(or change that one)")
        elif pid in reserved | PAGE_IDS:
            message = f"found {shown}, which the page already uses for its own elements; expected another id"
        else:
            clash = _clash(pid, seen)
            seen.append((i, pid))
            if clash is None:
                continue
            message = clash
        found.append((("profiles", i, "id"), message))


def _clash(pid: str, seen: list[tuple[int, str]]) -> str | None:
    """Returns the problem of an id that repeats an earlier one or begins with one and a dash: the page builds element
    ids such as "positions-profile-<id>-cap" from each, so "aligned" and "aligned-cap" would both own one."""
    for j, other in seen:
        if pid == other:
            return f"found {describe(pid)} again; expected every profile id to be unique"
        if pid.startswith(other + "-") or other.startswith(pid + "-"):
            short = min(pid, other, key=len)
            clash = (f"begins with {describe(short + '-')}, the id of profiles[{j}]" if short == other else
                     f"is how profiles[{j}].id {describe(other)} begins")
            return (f"found {describe(pid)}, which {clash}; expected ids where none is another followed by a dash, "
                    "because the page names elements by id and suffix "
                    f"(positions-profile-{short}-cap), so two profiles could name the same element")
    return None


def _distinct_costs(raw: dict, fracs: dict, found: Found) -> None:
    """Adds a problem per cost equal to an earlier one of its list: a table row or a choice offered twice."""
    for key, what in (("compare_draft_steps", "draft-step cost"), ("verify_costs", "verification cost")):
        path = ("cost_model", key)
        value = _list(_dict(raw.get("cost_model")).get(key), _node(path)["maxItems"])
        first: dict[Fraction, int] = {}
        for i, cost in enumerate(fracs.get((*path, i)) for i in range(len(value))):
            if cost is not None and cost in first:
                j = first[cost]
                again = " again" if value[i] == value[j] else f", which is {cost}, as {path_text(path)}[{j}] is"
                found.append(((*path, i), f"found {describe(value[i])}{again}; expected every {what} to be unique"))
            elif cost is not None:
                first[cost] = i


def problems(raw: Any, reserved: frozenset[str], owners: Mapping[str, str]) -> Found:
    """Returns every problem of the parsed file: the schema's, then what the schema cannot say."""
    errors = list(VALIDATOR.iter_errors(raw))
    found = [problem for err in errors for problem in _explain(err)]
    if isinstance(raw, dict):
        vocab = raw.get("vocabulary")
        vocab = vocab if isinstance(vocab, list) and 0 < len(vocab) <= MAX_TOKENS and all(
            isinstance(t, str) for t in vocab) else None
        _labels(raw, found)
        size, k = _vocabulary_size(raw, vocab, found), _positions_count(raw, found)
        _proposals(raw, vocab, k, _distributions(raw, size, k, found), found)
        _ids(raw, reserved, owners, found)
        _distinct_costs(raw, _costs(raw, found), found)
        if isinstance(raw.get("roofline"), dict):
            found += roofline.problems(raw["roofline"], {path for path, _ in found})
        if isinstance(raw.get("language_model"), dict):
            settings = lm_settings.problems(raw["language_model"], {path[1] for path, _ in found if len(path) > 1
                                                                    and path[0] == "language_model"})
            found = [problem for problem in found if problem[0] not in dict(settings)] + settings
    # a file the schema refuses is never let through, even were a message above to miss its problem
    return found or [(tuple(err.absolute_path), f"found {describe(err.instance)}; expected what the schema allows "
                                                f"({err.message})") for err in errors]

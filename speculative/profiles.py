"""Load data/profiles.v1.json into frozen dataclasses of exact fractions, checking everything first."""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

from .checker import Checker, known, plural, sized
from .dataset import CostModel, Dataset, Dist, MonteCarlo, Profile
from .errors import MAX_INPUT_BYTES, Problems, Refused, decode, describe, visible
from .limits import (
    COST_KEYS,
    COST_REQUIRED,
    MAX_COSTS,
    MAX_DRAWN,
    MAX_ID,
    MAX_LABEL,
    MAX_NAME,
    MAX_POSITIONS,
    MAX_PROFILES,
    MAX_ROUNDS,
    MAX_SEED,
    MAX_TOKENS,
    MC_KEYS,
    PROFILE_ID,
    PROFILE_KEYS,
    TOP_KEYS,
    TOP_REQUIRED,
)
from .lm_settings import DEFAULT as LM_DEFAULT
from .lm_settings import settings as lm_settings
from .reading import read_bytes
from .strict_json import JSONSyntax, line_col, read_json


def _vocabulary(check: Checker, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise check.refuse("vocabulary", f"found {describe(value)}; expected a non-empty list of token strings")
    if len(value) > MAX_TOKENS:
        check.too_many_tokens = len(value)
        raise check.refuse("vocabulary", f"found {len(value)} tokens; expected at most {MAX_TOKENS}, "
                                         "so the page's tables and charts fit a phone screen")
    for i, token in enumerate(value):
        check.label(token, f"vocabulary[{i}]", MAX_LABEL, "a token")
    check.unique([(i, t) for i, t in enumerate(value) if isinstance(t, str)], "vocabulary[{}]", "token")
    if not all(isinstance(t, str) for t in value):
        raise Refused("vocabulary")
    return tuple(value)


def _lists(value: Any, most: int) -> list:
    """Returns value if it is a list of at most `most` entries, else an empty list: what the shape checks look at."""
    return value if isinstance(value, list) and len(value) <= most else []


def _profile_dicts(raw: dict) -> list[dict]:
    return [p for p in _lists(raw.get("profiles"), MAX_PROFILES) if isinstance(p, dict)]


def _positions_count(check: Checker, raw: dict) -> int | None:
    """Returns k, the number of positions: the target's row count, unless every draft and proposal list agrees on
    another, when the target is the one to blame."""
    target = raw.get("target")
    rows = len(target) if isinstance(target, list) and 0 < len(target) <= MAX_POSITIONS else None
    others = [len(v) for p in _profile_dicts(raw) for v in (p.get("draft"), p.get("proposals"))
              if isinstance(v, list) and 0 < len(v) <= MAX_POSITIONS]
    if len(others) >= 2 and len(set(others)) == 1 and others[0] != rows:
        if rows is not None:
            check.fail("target", f"found {plural(rows, 'row')}; expected {others[0]}, one per position, "
                                 f"as every draft and proposal list has {others[0]}")
        return others[0]
    return rows


def _vocabulary_size(check: Checker, raw: dict, vocab: tuple[str, ...] | None) -> int | None:
    """Returns the length every distribution must have: the vocabulary's, unless every distribution agrees on
    another, when the vocabulary is the one to blame."""
    if vocab is None:
        return None
    dists = [*_lists(raw.get("target"), MAX_POSITIONS), raw.get("bonus_target"),
             *(row for p in _profile_dicts(raw) for row in _lists(p.get("draft"), MAX_POSITIONS))]
    sizes = {len(d) for d in dists if isinstance(d, list)}
    (size,) = sizes if len(sizes) == 1 else (None,)
    if sum(isinstance(d, list) for d in dists) >= 2 and size is not None and 0 < size <= MAX_TOKENS and size != len(vocab):
        check.fail("vocabulary", f"found {plural(len(vocab), 'token')}; expected {size}, "
                                 f"as every distribution has {size} entries")
        return size
    return len(vocab)


def _profiles(check: Checker, value: Any, vocab: tuple[str, ...] | None, size: int | None,
              k: int | None) -> tuple[Profile, ...]:
    if not isinstance(value, list) or not value:
        raise check.refuse("profiles", f"found {describe(value)}; expected a non-empty list of draft profiles")
    if len(value) > MAX_PROFILES:
        raise check.refuse("profiles", f"found {len(value)} profiles; expected at most {MAX_PROFILES}, "
                                       "so the page's profile switch fits a phone screen")
    parsed = [check.attempt(_profile, check, raw, f"profiles[{i}]", vocab, size, k) for i, raw in enumerate(value)]
    names = [(i, p.get("name")) for i, p in enumerate(value) if isinstance(p, dict)]
    check.unique([(i, n) for i, n in names if isinstance(n, str)], "profiles[{}].name", "profile name")
    _ids(check, [(i, p.get("id")) for i, p in enumerate(value) if isinstance(p, dict)])
    return tuple(check.each(parsed, "profiles"))


def _ids(check: Checker, ids: list[tuple[int, Any]]) -> None:
    """Reports ids that repeat an earlier one, or that begin with an earlier one and a dash: the page builds element
    ids such as "positions-profile-<id>-cap" from each, so "aligned" and "aligned-cap" would both own "positions-profile-aligned-cap"."""
    seen: list[tuple[int, str]] = []
    for i, pid in ids:
        if not isinstance(pid, str) or not PROFILE_ID.fullmatch(pid):
            continue
        for j, other in seen:
            if pid == other:
                check.fail(f"profiles[{i}].id", f"found {describe(pid)} again; expected every profile id to be unique")
            elif pid.startswith(other + "-") or other.startswith(pid + "-"):
                short = min(pid, other, key=len)
                clash = (f"begins with {describe(short + '-')}, the id of profiles[{j}]" if short == other else
                         f"is how profiles[{j}].id {describe(other)} begins")
                check.fail(f"profiles[{i}].id", f"found {describe(pid)}, which {clash}; expected ids where none is "
                           "another followed by a dash, because the page names elements by id and suffix "
                           f"(positions-profile-{short}-cap), so two profiles could name the same element")
            else:
                continue
            break
        seen.append((i, pid))


def _profile(check: Checker, raw: Any, path: str, vocab: tuple[str, ...] | None, size: int | None,
             k: int | None) -> Profile:
    if not check.keys(raw, path, PROFILE_KEYS, PROFILE_KEYS):
        raise Refused(path)
    pid, name = raw.get("id"), raw.get("name")
    ok = _profile_id(check, pid, f"{path}.id") if "id" in raw else False
    ok = (check.label(name, f"{path}.name", MAX_NAME, "a name") if "name" in raw else False) and ok
    draft = check.attempt(check.distributions, raw["draft"], f"{path}.draft", size, k) if "draft" in raw else None
    proposals = check.attempt(_proposals, check, raw["proposals"], f"{path}.proposals", vocab, k, draft) \
        if "proposals" in raw else None
    if not ok or draft is None or proposals is None:
        raise Refused(path)
    return Profile(id=pid, name=name, proposals=proposals, draft=draft)


def _profile_id(check: Checker, pid: Any, path: str) -> bool:
    if not isinstance(pid, str) or not PROFILE_ID.fullmatch(pid):
        check.fail(path, f"found {describe(pid)}; expected lower-case letters and digits, with single dashes "
                         'between them, such as "aligned"')
    elif len(pid) > MAX_ID:
        check.fail(path, f"found {sized(pid)}; expected an id of at most {MAX_ID} characters")
    elif pid in check.owners:
        check.fail(path, f"found {describe(pid)}, which {check.owners[pid]} already gives an element on the page; "
                         "expected another id (or change that one)")
    elif pid in check.reserved:
        check.fail(path, f"found {describe(pid)}, which the page already uses for its own elements; "
                         "expected another id")
    else:
        return True
    return False


def _proposals(check: Checker, value: Any, path: str, vocab: tuple[str, ...] | None, k: int | None,
               draft: tuple[Dist, ...] | None) -> tuple[int, ...]:
    if not check.positions(value, path, k, "proposal", "a list of proposed tokens, one per position") or vocab is None:
        raise Refused(path)  # no vocabulary to look the tokens up in: its own problem is recorded
    indices: list[int] = []
    for i, token in enumerate(value):
        if not isinstance(token, str) or token not in vocab:
            check.fail(f"{path}[{i}]", f"found {describe(token)}; expected a token from the vocabulary")
            continue
        idx = vocab.index(token)
        if draft is not None and i < len(draft) and draft[i][idx] == 0:
            check.fail(f"{path}[{i}]", f"found {describe(token)}, which the draft gives probability 0 at position {i + 1}; "
                                       "expected a token the draft could propose")
            continue
        indices.append(idx)
    if len(indices) != len(value):
        raise Refused(path)
    return tuple(indices)


def _cost(check: Checker, raw: Any) -> CostModel:
    if not check.keys(raw, "cost_model", COST_KEYS, COST_REQUIRED):
        raise Refused("cost_model")
    # costs are in target steps, not probabilities, so they may exceed 1
    step = check.attempt(check.fraction, raw["draft_step"], "cost_model.draft_step", probability=False) \
        if "draft_step" in raw else None
    verify = check.attempt(check.fraction, raw["verify_round"], "cost_model.verify_round", probability=False) \
        if "verify_round" in raw else None
    if verify == 0:
        check.fail("cost_model.verify_round", "found 0; expected a positive cost")
        verify = None
    steps = check.attempt(_compare_steps, check, raw["compare_draft_steps"]) if "compare_draft_steps" in raw else None
    per_position = check.attempt(_verify_costs, check, raw["verify_costs"]) if "verify_costs" in raw else (Fraction(0),)
    if step is None or verify is None or steps is None or per_position is None:
        raise Refused("cost_model")
    return CostModel(draft_step=step, verify_round=verify, compare_draft_steps=steps, verify_costs=per_position)


def _compare_steps(check: Checker, value: Any) -> tuple[Fraction, ...]:
    path = "cost_model.compare_draft_steps"
    if not isinstance(value, list) or not value:
        raise check.refuse(path, f"found {describe(value)}; expected a non-empty list of draft-step costs")
    if len(value) > MAX_COSTS:
        raise check.refuse(path, f"found {len(value)} costs; expected at most {MAX_COSTS}, so the speedup table fits "
                                 "the page")
    steps = [check.attempt(check.fraction, c, f"{path}[{i}]", probability=False) for i, c in enumerate(value)]
    return _distinct_costs(check, value, steps, path, "draft-step cost")


def _verify_costs(check: Checker, value: Any) -> tuple[Fraction, ...]:
    path = "cost_model.verify_costs"
    if not isinstance(value, list) or not value:
        raise check.refuse(path, f"found {describe(value)}; expected a non-empty list of verification costs per "
                                 "drafted position")
    if len(value) > MAX_COSTS:
        raise check.refuse(path, f"found {len(value)} costs; expected at most {MAX_COSTS}, so the speedup explorer's "
                                 "choices fit the page")
    costs = [check.attempt(check.fraction, c, f"{path}[{i}]", probability=False) for i, c in enumerate(value)]
    return _distinct_costs(check, value, costs, path, "verification cost")


def _distinct_costs(check: Checker, value: list, costs: list[Fraction | None], path: str,
                    what: str) -> tuple[Fraction, ...]:
    """Returns the costs, or raises Refused after naming each one equal to an earlier one (a table row or a choice
    twice); costs: each cost, None where it was refused."""
    first: dict[Fraction, int] = {}
    for i, cost in enumerate(costs):
        if cost is not None and cost in first:
            j = first[cost]
            seen = " again" if value[i] == value[j] else f", which is {cost}, as {path}[{j}] is"
            check.fail(f"{path}[{i}]", f"found {describe(value[i])}{seen}; expected every {what} to be unique")
            costs[i] = None
        elif cost is not None:
            first[cost] = i
    return tuple(check.each(costs, path))


def _monte_carlo(check: Checker, raw: Any) -> MonteCarlo:
    if not check.keys(raw, "monte_carlo", MC_KEYS, MC_KEYS):
        raise Refused("monte_carlo")
    rounds = check.attempt(check.integer, raw["rounds"], "monte_carlo.rounds", 1, MAX_ROUNDS) if "rounds" in raw else None
    seed = check.attempt(check.integer, raw["seed"], "monte_carlo.seed", 0, MAX_SEED) if "seed" in raw else None
    if rounds is None or seed is None:
        raise Refused("monte_carlo")
    return MonteCarlo(rounds=rounds, seed=seed)


def _header(check: Checker, raw: dict) -> None:
    version = raw.get("version", 1)
    if isinstance(version, bool) or not isinstance(version, int) or version != 1:
        check.fail("version", f"found {describe(version)}; expected 1 for profiles.v1.json")
    for key in ("$schema", "about"):
        if key in raw and not isinstance(raw[key], str):
            check.fail(key, f"found {describe(raw[key])}; expected a string")


def _dataset(check: Checker, raw: Any) -> Dataset:
    """Returns the Dataset in the parsed JSON, or raises Refused once every problem in it is recorded."""
    if not check.keys(raw, "$", TOP_KEYS, TOP_REQUIRED):
        raise Refused("$")
    _header(check, raw)
    vocab = check.attempt(_vocabulary, check, raw["vocabulary"]) if "vocabulary" in raw else None
    size = _vocabulary_size(check, raw, vocab)
    k = _positions_count(check, raw)
    # every key is attempted, so each one's problems are recorded; a key left out is None (reported as missing)
    target = check.attempt(check.distributions, raw["target"], "target", size, None) if "target" in raw else None
    bonus = check.attempt(check.distribution, raw["bonus_target"], "bonus_target", size) if "bonus_target" in raw else None
    profiles = check.attempt(_profiles, check, raw["profiles"], vocab, size, k) if "profiles" in raw else None
    seed = check.attempt(check.integer, raw["walkthrough_seed"], "walkthrough_seed", 0, MAX_SEED) \
        if "walkthrough_seed" in raw else None
    drawn = check.attempt(check.integer, raw["drawn_rounds"], "drawn_rounds", 1, MAX_DRAWN) if "drawn_rounds" in raw else None
    cost = check.attempt(_cost, check, raw["cost_model"]) if "cost_model" in raw else None
    mc = check.attempt(_monte_carlo, check, raw["monte_carlo"]) if "monte_carlo" in raw else None
    lm = check.attempt(lm_settings, check, raw["language_model"]) if "language_model" in raw else LM_DEFAULT
    if check.problems:
        raise Refused("$")
    return Dataset(vocabulary=known(vocab), target=known(target), bonus_target=known(bonus), profiles=known(profiles),
                   walkthrough_seed=known(seed), drawn_rounds=known(drawn), cost=known(cost), monte_carlo=known(mc),
                   language_model=known(lm))


def parse(text: str, source: str, reserved: frozenset[str] = frozenset(),
          owners: Mapping[str, str] | None = None) -> Dataset:
    """Returns the Dataset in `text`, or raises Problems listing every problem found.

    reserved: the element ids and id prefixes the page uses, which no profile id may take; owners: those of them
    that a content file gives (id -> the file, named in the message)."""
    text = text[1:] if text.startswith("\ufeff") else text
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_INPUT_BYTES:
        raise Problems.in_file(source, [("", f"found {size:,} bytes; expected at most {MAX_INPUT_BYTES:,} bytes "
                                       "for an input file")])
    try:
        raw, duplicates = read_json(text)
    except JSONSyntax as err:
        raise Problems.in_file(source, [(line_col(text, err.pos), err.message)]) from None
    check = Checker(duplicates, reserved, owners)
    try:
        return _dataset(check, raw)
    except Refused:
        raise Problems.in_file(source, [(glossed(path, raw), message) for path, message in check.problems]) from None


_ROW = re.compile(r"(?:target|profiles\[(\d+)\]\.(?:draft|proposals))\[(\d+)\]")


def glossed(path: str, raw: Any) -> str:
    """Returns a JSON path with, after it, what a reader of the page calls the place it names: "target[0][2] (the
    target, position 1)", "profiles[0].draft[0] (a closely aligned draft, position 1)". A profile whose name is not
    a usable string is named by its place alone."""
    found = _ROW.match(path)
    if path.startswith("bonus_target"):
        return f"{path} (the target, bonus position)"
    if not found:
        return path
    position = int(found.group(2)) + 1
    if found.group(1) is None:
        return f"{path} (the target, position {position})"
    try:
        name = raw["profiles"][int(found.group(1))]["name"]
    except (KeyError, IndexError, TypeError):
        name = None
    named = visible(name.strip()) if isinstance(name, str) and name.strip() and len(name) <= 80 else None
    return f"{path} ({named}, position {position})" if named else path


def load(path: str, source: str | None = None, reserved: frozenset[str] = frozenset(),
         owners: Mapping[str, str] | None = None) -> Dataset:
    """Returns the Dataset read from `path` by the build's own reader; raises Problems (named `source`) on any problem.

    reserved and owners as for parse. For the package's commands (commands/check.py's page_data gives them the page's
    ids, as the build does) and the tests; build.py reads every input through the same reader."""
    name = source or str(path)
    try:
        raw = read_bytes(Path(path))
    except ValueError as err:
        raise Problems.in_file(name, [("", str(err))]) from None
    return parse(decode(raw, name), name, reserved, owners)


"""Load data/profiles.v1.json into frozen dataclasses of exact fractions, checking everything first."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

Dist = tuple[Fraction, ...]

_FRACTION = re.compile(r"^(0|[1-9][0-9]*)(/([1-9][0-9]*))?$")
_PROFILE_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_TOP_KEYS = {"$schema", "version", "about", "vocabulary", "target", "bonus_target",
             "profiles", "walkthrough_seed", "cost_model", "monte_carlo"}
_TOP_REQUIRED = _TOP_KEYS - {"$schema", "about"}
_PROFILE_KEYS = {"id", "name", "proposals", "draft"}
_COST_KEYS = {"draft_step", "verify_round", "compare_draft_steps"}
_MC_KEYS = {"rounds", "seed"}


class DataError(Exception):
    """Every problem found in one data file, each as a (json_path, message) pair."""

    def __init__(self, source: str, problems: list[tuple[str, str]]):
        self.source = source
        self.problems = problems
        super().__init__("\n".join(self.lines()))

    def lines(self) -> list[str]:
        """Returns one printable line per problem: file, JSON path, message."""
        return [f"{self.source}: {path}: {message}" for path, message in self.problems]


@dataclass(frozen=True)
class Profile:
    id: str
    name: str
    proposals: tuple[int, ...]  # [k] vocabulary indices
    draft: tuple[Dist, ...]  # [k][V]


@dataclass(frozen=True)
class CostModel:
    draft_step: Fraction  # cost of one draft step, in target steps
    verify_round: Fraction  # cost of verifying all k positions at once, in target steps
    compare_draft_steps: tuple[Fraction, ...]


@dataclass(frozen=True)
class MonteCarlo:
    rounds: int
    seed: int


@dataclass(frozen=True)
class Dataset:
    vocabulary: tuple[str, ...]
    target: tuple[Dist, ...]  # [k][V]
    bonus_target: Dist  # [V]
    profiles: tuple[Profile, ...]
    walkthrough_seed: int
    cost: CostModel
    monte_carlo: MonteCarlo

    @property
    def k(self) -> int:
        """Returns the number of positions a round proposes."""
        return len(self.target)


def describe(value: Any) -> str:
    """Returns a short rendering of a JSON value for an error message."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (dict, list)):
        kind = "an object" if isinstance(value, dict) else f"a list of {len(value)}"
        return kind
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + '..."'


class _Checker:
    """Walks the parsed JSON, collecting problems instead of stopping at the first."""

    def __init__(self) -> None:
        self.problems: list[tuple[str, str]] = []

    def fail(self, path: str, message: str) -> None:
        self.problems.append((path, message))

    def keys(self, obj: Any, path: str, allowed: set[str], required: set[str]) -> bool:
        if not isinstance(obj, dict):
            self.fail(path, f"found {describe(obj)}; expected an object")
            return False
        for key in sorted(required - obj.keys()):
            self.fail(path, f'missing key "{key}"')
        for key in sorted(obj.keys() - allowed):
            self.fail(path, f'found unknown key "{key}"; expected one of: {", ".join(sorted(allowed))}')
        return True

    def fraction(self, value: Any, path: str, probability: bool = True) -> Fraction | None:
        if isinstance(value, int) and not isinstance(value, bool) and value in (0, 1):
            return Fraction(value)
        match = _FRACTION.match(value) if isinstance(value, str) else None
        if match is None:
            self.fail(path, f'found {describe(value)}; expected an exact fraction as a string, such as "3/8"')
            return None
        frac = Fraction(value)
        if probability and frac > 1:
            self.fail(path, f"found {value}; expected a probability between 0 and 1")
            return None
        return frac

    def distribution(self, value: Any, path: str, size: int) -> Dist | None:
        if not isinstance(value, list) or len(value) != size:
            self.fail(path, f"found {describe(value)}; expected a list of {size} probabilities, one per vocabulary token")
            return None
        entries = [self.fraction(item, f"{path}[{i}]") for i, item in enumerate(value)]
        if any(e is None for e in entries):
            return None
        total = sum(entries, Fraction(0))
        if total != 1:
            self.fail(path, f"sums to {total}; each distribution must sum to 1")
            return None
        return tuple(entries)

    def distributions(self, value: Any, path: str, size: int, count: int | None) -> tuple[Dist, ...] | None:
        if not isinstance(value, list) or not value or (count is not None and len(value) != count):
            want = f"{count} positions" if count is not None else "at least one position"
            self.fail(path, f"found {describe(value)}; expected a list of {want}")
            return None
        rows = [self.distribution(row, f"{path}[{i}]", size) for i, row in enumerate(value)]
        return None if any(r is None for r in rows) else tuple(rows)

    def integer(self, value: Any, path: str, low: int, high: int) -> int | None:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            self.fail(path, f"found {describe(value)}; expected a whole number from {low} to {high}")
            return None
        return value


def _vocabulary(check: _Checker, value: Any) -> tuple[str, ...] | None:
    if not isinstance(value, list) or not value:
        check.fail("vocabulary", f"found {describe(value)}; expected a non-empty list of token strings")
        return None
    seen: set[str] = set()
    for i, token in enumerate(value):
        if not isinstance(token, str) or not token.strip():
            check.fail(f"vocabulary[{i}]", f"found {describe(token)}; expected a non-empty string")
        elif token in seen:
            check.fail(f"vocabulary[{i}]", f"found {describe(token)} again; expected every token to be unique")
        seen.add(token if isinstance(token, str) else "")
    return tuple(value) if all(isinstance(t, str) for t in value) else None


def _profile(check: _Checker, raw: Any, path: str, vocab: tuple[str, ...] | None,
             k: int | None) -> Profile | None:
    if not check.keys(raw, path, _PROFILE_KEYS, _PROFILE_KEYS):
        return None
    ok = True
    pid, name = raw.get("id"), raw.get("name")
    if "id" in raw and not (isinstance(pid, str) and _PROFILE_ID.match(pid)):
        check.fail(f"{path}.id", f"found {describe(pid)}; expected lower-case letters, digits and dashes, such as \"aligned\"")
        ok = False
    if "name" in raw and not (isinstance(name, str) and name.strip()):
        check.fail(f"{path}.name", f"found {describe(name)}; expected a non-empty string")
        ok = False
    draft = None
    if "draft" in raw and vocab is not None:
        draft = check.distributions(raw["draft"], f"{path}.draft", len(vocab), k)
    proposals = _proposals(check, raw.get("proposals"), f"{path}.proposals", vocab, k, draft) if "proposals" in raw else None
    if not ok or draft is None or proposals is None:
        return None
    return Profile(id=pid, name=name, proposals=proposals, draft=draft)


def _proposals(check: _Checker, value: Any, path: str, vocab: tuple[str, ...] | None, k: int | None,
               draft: tuple[Dist, ...] | None) -> tuple[int, ...] | None:
    if not isinstance(value, list) or (k is not None and len(value) != k):
        check.fail(path, f"found {describe(value)}; expected a list of {k if k is not None else 'k'} proposed tokens, one per position")
        return None
    if vocab is None:
        return None
    indices: list[int] = []
    for i, token in enumerate(value):
        if not isinstance(token, str) or token not in vocab:
            check.fail(f"{path}[{i}]", f"found {describe(token)}; expected a token from the vocabulary")
            continue
        idx = vocab.index(token)
        if draft is not None and draft[i][idx] == 0:
            check.fail(f"{path}[{i}]", f"found {describe(token)}, which the draft gives probability 0 at position {i + 1}; "
                                       "expected a token the draft could propose")
            continue
        indices.append(idx)
    return tuple(indices) if len(indices) == len(value) else None


def _cost(check: _Checker, raw: Any) -> CostModel | None:
    if not check.keys(raw, "cost_model", _COST_KEYS, _COST_KEYS):
        return None
    # costs are in target steps, not probabilities, so they may exceed 1
    step = check.fraction(raw.get("draft_step"), "cost_model.draft_step", probability=False) if "draft_step" in raw else None
    verify = raw.get("verify_round")
    verify_frac = check.fraction(verify, "cost_model.verify_round", probability=False) if "verify_round" in raw else None
    if verify_frac == 0:
        check.fail("cost_model.verify_round", "found 0; expected a positive cost")
        verify_frac = None
    compare = raw.get("compare_draft_steps")
    steps: list[Fraction | None] = []
    if not isinstance(compare, list) or not compare:
        check.fail("cost_model.compare_draft_steps", f"found {describe(compare)}; expected a non-empty list of draft-step costs")
    else:
        steps = [check.fraction(c, f"cost_model.compare_draft_steps[{i}]", probability=False) for i, c in enumerate(compare)]
    if step is None or verify_frac is None or not steps or any(s is None for s in steps):
        return None
    return CostModel(draft_step=step, verify_round=verify_frac, compare_draft_steps=tuple(steps))


def _monte_carlo(check: _Checker, raw: Any) -> MonteCarlo | None:
    if not check.keys(raw, "monte_carlo", _MC_KEYS, _MC_KEYS):
        return None
    rounds = check.integer(raw.get("rounds"), "monte_carlo.rounds", 1, 10_000_000) if "rounds" in raw else None
    seed = check.integer(raw.get("seed"), "monte_carlo.seed", 0, 2**32 - 1) if "seed" in raw else None
    return None if rounds is None or seed is None else MonteCarlo(rounds=rounds, seed=seed)


def parse(text: str, source: str) -> Dataset:
    """Returns the Dataset in `text`, or raises DataError listing every problem found."""
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as err:
        raise DataError(source, [(f"line {err.lineno}, column {err.colno}",
                                  f"found invalid JSON ({err.msg}); expected a JSON object")]) from None
    check = _Checker()
    if not check.keys(raw, "$", _TOP_KEYS, _TOP_REQUIRED):
        raise DataError(source, check.problems)
    if "version" in raw and raw["version"] != 1:
        check.fail("version", f"found {describe(raw['version'])}; expected 1 for profiles.v1.json")
    vocab = _vocabulary(check, raw["vocabulary"]) if "vocabulary" in raw else None
    size = len(vocab) if vocab else None
    target = check.distributions(raw["target"], "target", size, None) if size and "target" in raw else None
    k = len(raw["target"]) if isinstance(raw.get("target"), list) and raw["target"] else None
    bonus = check.distribution(raw["bonus_target"], "bonus_target", size) if size and "bonus_target" in raw else None
    profiles = _profiles(check, raw.get("profiles"), vocab, k) if "profiles" in raw else None
    seed = check.integer(raw.get("walkthrough_seed"), "walkthrough_seed", 0, 2**32 - 1) if "walkthrough_seed" in raw else None
    cost = _cost(check, raw["cost_model"]) if "cost_model" in raw else None
    mc = _monte_carlo(check, raw["monte_carlo"]) if "monte_carlo" in raw else None
    if check.problems:
        raise DataError(source, check.problems)
    return Dataset(vocabulary=vocab, target=target, bonus_target=bonus, profiles=profiles,
                   walkthrough_seed=seed, cost=cost, monte_carlo=mc)


def _profiles(check: _Checker, value: Any, vocab: tuple[str, ...] | None, k: int | None) -> tuple[Profile, ...] | None:
    if not isinstance(value, list) or not value:
        check.fail("profiles", f"found {describe(value)}; expected a non-empty list of draft profiles")
        return None
    parsed = [_profile(check, raw, f"profiles[{i}]", vocab, k) for i, raw in enumerate(value)]
    seen: set[str] = set()
    for i, raw in enumerate(value):
        pid = raw.get("id") if isinstance(raw, dict) else None
        if isinstance(pid, str) and pid in seen:
            check.fail(f"profiles[{i}].id", f"found {describe(pid)} again; expected every profile id to be unique")
        seen.add(pid)
    return None if any(p is None for p in parsed) else tuple(parsed)


def load(path: str, source: str | None = None) -> Dataset:
    """Returns the Dataset read from `path`; raises DataError (with `source` as the file's name) on any problem."""
    name = source or str(path)
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as err:
        raise DataError(name, [("$", f"could not read the file ({err.__class__.__name__}: {err.strerror or err})")]) from None
    return parse(text, name)

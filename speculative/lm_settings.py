"""The generator's settings: the optional `language_model` object of the data file, checked like the rest of it.

The loader (profiles.py) calls `settings` with its own checker, which collects every problem with its JSON path."""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .errors import Refused, describe
from .limits import MAX_SEED

MAX_ORDER = 4  # of the target: a 4-gram model of a few thousand tokens is already mostly unseen contexts
MAX_K = 8  # tokens drafted per round that the figure offers
MAX_TEMPERATURES = 6
MAX_TEMPERATURE = Fraction(4)
KEYS = {"target_order", "draft_orders", "discount", "k", "default_draft", "temperatures", "default_temperature", "seed"}


@dataclass(frozen=True)
class LanguageModel:
    """How the generator's models are counted and what its controls offer."""

    target_order: int = 3  # the target is a trigram model
    draft_orders: tuple[int, ...] = (1, 2)  # unigram and bigram drafts; the target itself is always offered too
    discount: Fraction = Fraction(3, 4)  # Kneser-Ney's one absolute discount d
    k: int = 4  # tokens drafted per round, to start with
    default_draft: int = 2  # an order of draft_orders, or target_order for the target itself
    temperatures: tuple[Fraction, ...] = (Fraction(0), Fraction(1, 2), Fraction(1), Fraction(3, 2))
    default_temperature: Fraction = Fraction(1)
    seed: int = 2026  # seeds the page's precomputed run (what readers without scripting see)


DEFAULT = LanguageModel()


def settings(check: Any, raw: Any) -> LanguageModel:
    """Returns the settings in `raw` (defaults for absent keys), or raises Refused after reporting every problem to
    `check`: each key is checked, and the chosen draft and temperature against whatever of the rest is known."""
    path = "language_model"
    if not check.keys(raw, path, KEYS, set()):
        raise Refused(path)
    found = len(check.problems)
    values = _values(check, raw, path)
    known = {key: value for key, value in values.items() if value is not None}
    chosen = check.attempt(_defaults, check, raw, LanguageModel(**known), path, set(values) - set(known))
    if len(check.problems) > found or chosen is None:
        raise Refused(path)
    return chosen


def _values(check: Any, raw: dict, path: str) -> dict[str, Any]:
    """Returns each key's value given in raw, None where it was refused (its problem reported to `check`)."""
    values: dict[str, Any] = {}
    if "target_order" in raw:
        values["target_order"] = check.attempt(check.integer, raw["target_order"], f"{path}.target_order", 2, MAX_ORDER)
    order = values.get("target_order") or DEFAULT.target_order  # a wrong order is reported above; check against 3
    if "draft_orders" in raw:
        values["draft_orders"] = check.attempt(_orders, check, raw["draft_orders"], f"{path}.draft_orders", order)
    if "discount" in raw:
        values["discount"] = check.attempt(_discount, check, raw["discount"], f"{path}.discount")
    if "k" in raw:
        values["k"] = check.attempt(check.integer, raw["k"], f"{path}.k", 1, MAX_K)
    if "temperatures" in raw:
        values["temperatures"] = check.attempt(_temperatures, check, raw["temperatures"], f"{path}.temperatures")
    if "seed" in raw:
        values["seed"] = check.attempt(check.integer, raw["seed"], f"{path}.seed", 0, MAX_SEED)
    return values


def _defaults(check: Any, raw: dict, out: LanguageModel, path: str, refused: set[str]) -> LanguageModel:
    """Returns the settings with their chosen draft and temperature, each checked against what is offered; where
    what is offered was refused (`refused` names those keys), a chosen one is checked as far as it can be."""
    draft = check.attempt(_default_draft, check, raw, out, path, bool(refused & {"target_order", "draft_orders"}))
    chosen = check.attempt(_default_temperature, check, raw, out, path, "temperatures" in refused)
    if draft is None or chosen is None or refused:
        raise Refused(path)
    return LanguageModel(out.target_order, out.draft_orders, out.discount, out.k, draft, out.temperatures, chosen,
                         out.seed)


def _default_temperature(check: Any, raw: dict, out: LanguageModel, path: str, unknown: bool) -> Fraction:
    """Returns the chosen temperature: one of those offered, or, when those were refused, one from 0 to 4."""
    temps = out.temperatures
    if "default_temperature" not in raw:
        return out.default_temperature if out.default_temperature in temps else temps[0]
    value = raw["default_temperature"]
    chosen = check.fraction(value, f"{path}.default_temperature", probability=False)
    if unknown and chosen > MAX_TEMPERATURE:
        raise check.refuse(f"{path}.default_temperature", f"found {describe(value)}; expected a temperature from 0 to "
                                                          f"{MAX_TEMPERATURE}")
    if not unknown and chosen not in temps:
        raise check.refuse(f"{path}.default_temperature", f"found {describe(value)}; expected one of the temperatures "
                                                          f"offered ({', '.join(map(str, temps))})")
    return chosen


def _default_draft(check: Any, raw: dict, out: LanguageModel, path: str, unknown: bool) -> int:
    """Returns the chosen draft order: one of the drafts offered, or, when those were refused, a whole number."""
    if unknown:
        return check.integer(raw["default_draft"], f"{path}.default_draft", 1, MAX_ORDER) if "default_draft" in raw else 0
    drafts = (*out.draft_orders, out.target_order)
    # left out: the bigram draft where one is offered, else the largest draft below the target, never the target itself
    draft = raw.get("default_draft", out.default_draft if out.default_draft in out.draft_orders else drafts[-2])
    if isinstance(draft, bool) or draft not in drafts:
        raise check.refuse(f"{path}.default_draft", f"found {describe(draft)}; expected one of the draft orders "
                                                   f"({', '.join(map(str, drafts))}; {out.target_order} is the target itself)")
    return draft


def shown(value: list) -> str:
    """Returns a short list as written, such as [2, 1] or ["1", "0"]."""
    return json.dumps(value, ensure_ascii=False)


def _orders(check: Any, value: Any, path: str, order: int) -> tuple[int, ...]:
    if not isinstance(value, list) or not value or len(value) >= order + 1:
        raise check.refuse(path, f"found {describe(value)}; expected at least one draft order in a list, each from 1 "
                                 f"to {order - 1}")
    orders = check.each([check.attempt(check.integer, v, f"{path}[{i}]", 1, order - 1) for i, v in enumerate(value)],
                        path)
    if len(set(orders)) != len(orders) or orders != sorted(orders):
        raise check.refuse(path, f"found {shown(value)}; expected each order once, smallest first")
    return tuple(orders)


def _discount(check: Any, value: Any, path: str) -> Fraction:
    d = check.fraction(value, path)
    if not 0 < d < 1:
        raise check.refuse(path, f"found {describe(value)}; expected a discount strictly between 0 and 1, such as \"3/4\"")
    return d


def _temperatures(check: Any, value: Any, path: str) -> tuple[Fraction, ...]:
    if not isinstance(value, list) or not value or len(value) > MAX_TEMPERATURES:
        raise check.refuse(path, f"found {describe(value)}; expected a list of 1 to {MAX_TEMPERATURES} temperatures")
    temps = [check.attempt(check.fraction, v, f"{path}[{i}]", probability=False) for i, v in enumerate(value)]
    for i, t in enumerate(temps):
        if t is not None and t > MAX_TEMPERATURE:
            check.fail(f"{path}[{i}]", f"found {describe(value[i])}; expected a temperature from 0 to {MAX_TEMPERATURE}")
            temps[i] = None
    kept = check.each(temps, path)
    if kept != sorted(set(kept)):
        raise check.refuse(path, f"found {shown(value)}; expected each temperature once, lowest first")
    return tuple(kept)

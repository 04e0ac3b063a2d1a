"""The generator's settings: the optional `language_model` object of the data file.

The schema checks each key's shape and range; `problems` checks what depends on another key (a draft below the
target's order, the chosen draft and temperature among those offered), and `settings` fills in the defaults."""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .errors import describe
from .limits import MAX_TEMPERATURE, SCHEMA

ORDERS = SCHEMA["properties"]["language_model"]["properties"]["draft_orders"]


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


def settings(raw: dict) -> LanguageModel:
    """Returns the settings of a checked `language_model` object, with the default of each key left out."""
    order = raw.get("target_order", DEFAULT.target_order)
    orders = tuple(raw.get("draft_orders", DEFAULT.draft_orders))
    temps = tuple(Fraction(t) for t in raw.get("temperatures", DEFAULT.temperatures))
    # left out: the bigram draft where one is offered, else the largest draft below the target, never the target itself
    draft = raw.get("default_draft", DEFAULT.default_draft if DEFAULT.default_draft in orders else orders[-1])
    temp = Fraction(raw.get("default_temperature", DEFAULT.default_temperature if DEFAULT.default_temperature in temps
                                                   else temps[0]))
    return LanguageModel(order, orders, Fraction(raw.get("discount", DEFAULT.discount)), raw.get("k", DEFAULT.k), draft,
                         temps, temp, raw.get("seed", DEFAULT.seed))


def problems(raw: dict, bad: set[str]) -> list[tuple[tuple, str]]:
    """Returns each (JSON path, message) of what one key of `raw` gets wrong about another, the draft orders checked
    whole; `bad`: the keys whose own problems are already reported, not checked against (a chosen draft or
    temperature is then checked as far as it can be). A message here replaces the schema's at its path."""
    order = DEFAULT.target_order if "target_order" in bad else raw.get("target_order", DEFAULT.target_order)
    found = _orders(raw["draft_orders"], order) if "draft_orders" in raw else []
    known = not found and "target_order" not in bad  # the drafts offered, so the chosen one can be checked against them
    orders = raw.get("draft_orders", list(DEFAULT.draft_orders))
    temps = [Fraction(t) for t in raw.get("temperatures", DEFAULT.temperatures)] if "temperatures" not in bad else None
    if temps is not None and temps != sorted(set(temps)):
        found.append((("temperatures",), f"found {shown(raw['temperatures'])}; expected each temperature once, lowest first"))
        temps = None
    drafts = (*orders, order) if known else ()
    draft = raw.get("default_draft", order)
    if known and (isinstance(draft, bool) or draft not in drafts):
        found.append((("default_draft",), f"found {describe(draft)}; expected one of the draft orders "
                                          f"({', '.join(map(str, drafts))}; {order} is the target itself)"))
    temp = Fraction(raw["default_temperature"]) if "default_temperature" in raw.keys() - bad else None
    if temp is not None and (temp not in temps if temps is not None else temp > MAX_TEMPERATURE):
        offered = (f"one of the temperatures offered ({', '.join(map(str, temps))})" if temps is not None else
                   f"a temperature from 0 to {MAX_TEMPERATURE}")
        found.append((("default_temperature",), f"found {describe(raw['default_temperature'])}; expected {offered}"))
    return [(("language_model", *path), message) for path, message in found]


def _orders(value: Any, order: int) -> list[tuple[tuple, str]]:
    """Returns the problems of the draft orders: a list of whole numbers below the target's order, smallest first."""
    low = ORDERS["items"]["minimum"]
    if not isinstance(value, list) or not 0 < len(value) <= order:
        return [(("draft_orders",), f"found {describe(value)}; expected at least one draft order in a list, each from "
                                    f"{low} to {order - 1}")]
    found: list[tuple[tuple, str]] = [(("draft_orders", i), f"found {describe(o)}; expected a whole number from "
                                                             f"{low} to {order - 1}")
             for i, o in enumerate(value) if isinstance(o, bool) or not isinstance(o, int) or not low <= o < order]
    if not found and value != sorted(set(value)):
        found.append((("draft_orders",), f"found {shown(value)}; expected each order once, smallest first"))
    return found


def shown(value: Any) -> str:
    """Returns a short list as written, such as [2, 1] or ["1", "0"]."""
    return json.dumps(value, ensure_ascii=False)

"""The generator's settings: the optional `language_model` object of the data file.

The schema checks each key's shape and range; `problems` checks what depends on another key (a draft below the
target's order, the chosen draft and temperature among those offered), and `settings` fills in the defaults."""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .errors import describe


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
    """Returns each (JSON path, message) of what one key of `raw` gets wrong about another; `bad`: the keys whose own
    problems are already reported, which are not checked against (a chosen draft is then checked as far as it can)."""
    found: list[tuple[tuple, str]] = []
    order = DEFAULT.target_order if "target_order" in bad else raw.get("target_order", DEFAULT.target_order)
    orders = raw.get("draft_orders", list(DEFAULT.draft_orders))
    if "draft_orders" not in bad:
        found += [(("draft_orders", i), f"found {o}; expected a whole number from 1 to {order - 1}")
                  for i, o in enumerate(orders) if o >= order]
        if not found and orders != sorted(set(orders)):
            found.append((("draft_orders",), f"found {shown(orders)}; expected each order once, smallest first"))
    temps = [Fraction(t) for t in raw.get("temperatures", DEFAULT.temperatures)] if "temperatures" not in bad else None
    if temps is not None and temps != sorted(set(temps)):
        found.append((("temperatures",), f"found {shown(raw['temperatures'])}; expected each temperature once, lowest first"))
    drafts = (*orders, order)
    draft = raw.get("default_draft")
    if draft is not None and not bad & {"target_order", "draft_orders", "default_draft"} and draft not in drafts:
        found.append((("default_draft",), f"found {describe(draft)}; expected one of the draft orders "
                                          f"({', '.join(map(str, drafts))}; {order} is the target itself)"))
    temp = raw.get("default_temperature")
    if temp is not None and temps is not None and "default_temperature" not in bad and Fraction(temp) not in temps:
        found.append((("default_temperature",), f"found {describe(temp)}; expected one of the temperatures offered "
                                                f"({', '.join(map(str, temps))})"))
    return [(("language_model", *path), message) for path, message in found]


def shown(value: Any) -> str:
    """Returns a short list as written, such as [2, 1] or ["1", "0"]."""
    return json.dumps(value, ensure_ascii=False)

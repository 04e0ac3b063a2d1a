"""Valid edits an author might make to data/profiles.v1.json, each a function on the parsed file.

tests/test_edited_data.py runs the README's fast test command on a copy of the project for each one: the suite must
pass on any valid data file, with the tests of the shipped file's hand-worked figures skipped, saying why."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

Raw = dict[str, Any]


def nudge_the_aligned_first_position(raw: Raw) -> None:
    """A first-time author's edit: the aligned draft, position 1, "the" 3/8 -> 4/8 and "sat" 1/8 -> 0."""
    row = raw["profiles"][0]["draft"][0]
    vocab = raw["vocabulary"]
    row[vocab.index("the")], row[vocab.index("sat")] = "4/8", "0"


def p_equals_q_at_a_position(raw: Raw) -> None:
    """The aligned draft copies the target at position 2: every proposal there passes."""
    raw["profiles"][0]["draft"][1] = list(raw["target"][1])


def a_one_hot_target_row(raw: Raw) -> None:
    """The target is sure at position 3: all its mass on the first token the aligned draft proposes there."""
    vocab, token = raw["vocabulary"], raw["profiles"][0]["proposals"][2]
    raw["target"][2] = ["1" if t == token else "0" for t in vocab]


def ten_tokens(raw: Raw) -> None:
    """Four more words, each given an eighth somewhere, so the tables, charts and the lab grow to ten columns."""
    extra = ["dog", "ran", "in", "hat"]
    rows = [raw["bonus_target"], *raw["target"], *(row for p in raw["profiles"] for row in p["draft"])]
    for row in rows:
        row += ["0"] * len(extra)
    raw["vocabulary"] += extra
    last = len(extra) + 1  # the old last word, "mat", gives an eighth to a new word in some rows
    for i, row in enumerate(rows):
        if row[-last] != "0" and i % 2 == 0:
            row[-last], row[-len(extra) + i % len(extra)] = subtract_eighth(row[-last]), "1/8"


def subtract_eighth(value: str) -> str:
    from fractions import Fraction

    left = Fraction(value) - Fraction(1, 8)
    return "0" if left == 0 else str(left)


def a_third_profile(raw: Raw) -> None:
    """A third draft, flatter than both shipped ones."""
    flat = ["2/8", "2/8", "1/8", "1/8", "1/8", "1/8"]
    raw["profiles"].append({"id": "flat", "name": "a flat draft", "proposals": raw["vocabulary"][:len(raw["target"])],
                            "draft": [list(flat) for _ in raw["target"]]})


EDITS: dict[str, Callable[[Raw], None]] = {
    "nudged": nudge_the_aligned_first_position,
    "p-equals-q": p_equals_q_at_a_position,
    "one-hot-target": a_one_hot_target_row,
    "ten-tokens": ten_tokens,
    "third-profile": a_third_profile,
}


def written(raw: Raw) -> str:
    """Returns the file as an author's editor would keep it: indented, each distribution's row on one line."""
    import re

    text = json.dumps(raw, indent=2, ensure_ascii=False)
    return re.sub(r"\[\s*((?:(?:\"[^\"\n]*\"|-?[\d.]+),\s*)*(?:\"[^\"\n]*\"|-?[\d.]+))\s*\]",
                  lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text) + "\n"


def write_edited(data: Path, name: str) -> None:
    """Rewrites the data file at `data` with edit `name` applied, keeping it valid JSON."""
    raw = json.loads(data.read_text(encoding="utf-8"))
    EDITS[name](raw)
    data.write_text(written(raw), encoding="utf-8")

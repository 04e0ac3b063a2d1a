"""Valid data files an author might write, generated from the schema's limits: the suite's any-data tier runs on each.

Every test that does not check the shipped file's hand-worked figures (those carry the mark `shipped`) must hold for
any valid `data/profiles.v1.json`. conftest.py parametrises the data fixtures over the shipped file and over the
files here, so a new test that assumes a shipped number fails on the developer's own machine, in the fast tier.

Between them, the files vary everything the schema lets an author vary:
- the vocabulary from 2 tokens to the limit, with non-ASCII labels and one label at the length limit;
- denominators other than 8, mixed within one file and from file to file;
- any target cell and the bonus row;
- the number of positions from 1 to the limit, and of profiles from 1 to the limit;
- proposals with p = 0, p = q, 0 < p/q < 1 and p > q (each file has every kind its positions allow);
- the walkthrough seed, the drawn rounds, the Monte Carlo run's size and seed, and the costs.

Three fixed cases are the edits a first-time author made on the shipped file (each built a correct page, and each
once broke the tests): a renamed token, an eighth moved between two target cells of position 1, and a third draft
written in sixths. A fourth makes all three at once and puts the target in 24ths."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

from speculative.limits import MAX_LABEL, MAX_POSITIONS, MAX_PROFILES, MAX_TOKENS

Raw = dict[str, Any]

# Labels an author might use: ASCII words, accented Latin, Greek, Cyrillic, CJK, an emoji and one at the length limit.
LABELS = ("the", "cat", "café", "naïve", "σοφία", "мир", "猫", "犬", "ñandú", "🙂", "über", "on", "mat", "dog",
          "x" * MAX_LABEL, "wörterbuchen"[:MAX_LABEL])
IDS = ("close", "far", "flat", "sixths", "draft-b", "tiny")
NAMES = ("a close draft", "a far draft", "a flat draft", "a draft in sixths", "another draft", "a tiny draft")
DENOMINATORS = (2, 3, 4, 5, 6, 8, 10, 12, 16, 24)
KINDS = ("p = 0", "p = q", "0 < p/q < 1", "p > q")


def composition(rng: random.Random, size: int, denom: int, zeros: bool) -> list[Fraction]:
    """Returns a random distribution over `size` tokens in multiples of 1/denom, some cells 0 when `zeros`."""
    alive = [i for i in range(size) if not zeros or rng.random() > 0.3] or [rng.randrange(size)]
    counts = [0] * size
    for _ in range(denom):
        counts[rng.choice(alive)] += 1
    return [Fraction(c, denom) for c in counts]


def kind_of(p: Fraction, q: Fraction) -> str | None:
    """Returns which of KINDS a proposal with target p and draft q > 0 is."""
    if q == 0:
        return None
    return "p = 0" if p == 0 else "p = q" if p == q else "0 < p/q < 1" if p < q else "p > q"


def draft_row(rng: random.Random, p: list[Fraction], want: str) -> tuple[list[Fraction], int]:
    """Returns a draft row and a proposal index whose kind is `want` if a few tries find one, else any kind."""
    size = len(p)
    for attempt in range(60):
        q = list(p) if want == "p = q" and attempt % 2 == 0 else \
            composition(rng, size, rng.choice(DENOMINATORS), zeros=rng.random() < 0.5)
        fits = [y for y in range(size) if kind_of(p[y], q[y]) == want]
        if fits:
            return q, rng.choice(fits)
    return q, rng.choice([y for y in range(size) if q[y] > 0])


def target_row(rng: random.Random, size: int) -> list[Fraction]:
    """Returns a target distribution; about half of them leave some token at 0, so p = 0 proposals exist."""
    return composition(rng, size, rng.choice(DENOMINATORS), zeros=rng.random() < 0.6)


def generated(seed: int) -> Raw:
    """Returns a valid data file drawn at random within the limits; seeds 0 and 1 take the smallest and largest
    vocabulary, positions and profile count."""
    rng = random.Random(seed)
    size = (2, MAX_TOKENS)[seed] if seed < 2 else rng.randint(2, MAX_TOKENS)
    k = (1, MAX_POSITIONS)[seed] if seed < 2 else rng.randint(1, MAX_POSITIONS)
    n_profiles = (1, MAX_PROFILES)[seed] if seed < 2 else rng.randint(1, MAX_PROFILES)
    vocab = rng.sample(LABELS, size)
    target = [target_row(rng, size) for _ in range(k)]
    profiles = []
    for j in range(n_profiles):
        rows, proposals = [], []
        for i, p in enumerate(target):
            q, x = draft_row(rng, p, KINDS[(i + j + seed) % len(KINDS)])
            rows.append(q)
            proposals.append(vocab[x])
        profiles.append({"id": IDS[j], "name": NAMES[j], "proposals": proposals, "draft": [strings(r) for r in rows]})
    raw: Raw = {
        "$schema": "./profiles.v1.schema.json", "version": 1, "vocabulary": vocab,
        "target": [strings(r) for r in target], "bonus_target": strings(target_row(rng, size)), "profiles": profiles,
        "walkthrough_seed": rng.randrange(2**32), "drawn_rounds": rng.choice((1, 7, 24, 100)),
        "cost_model": {"draft_step": "1/10", "verify_round": "1",
                       "compare_draft_steps": ["1/100", "1/20", "1/10", "1/4", "1"], "verify_costs": ["0", "1/20"]},
        "monte_carlo": {"rounds": rng.choice((20_000, 50_000)), "seed": rng.randrange(2**32)},
    }
    if seed % 3 == 2:  # a dearer draft, whose best k and speedups differ; the generator's models are counted again
        raw["cost_model"]["draft_step"] = "1/4"
    if seed < 2:  # the batching figure's choices, fewest and most, longest names and largest numbers at the limits
        raw["roofline"] = roofline_at_limit(rng, seed)
    return raw


def roofline_at_limit(rng: random.Random, seed: int) -> Raw:
    """Returns a roofline object with one of everything (seed 0) or six, each named with 40 characters ending in one
    long word (seed 1), the hardest to fit a phone's column."""
    n = (1, 6)[seed]
    named = [(f"Accelerator {i + 1} " + "wide" * 10)[:40] if seed else "One GPU" for i in range(n)]
    return {"hardware": [{"name": named[i], "bandwidth_gb_s": rng.choice((1, 300, 3350, 100000)),
                          "tflops": rng.choice((1, 121, 989, 100000))} for i in range(n)],
            "model_pairs": [{"name": named[i].replace("Accelerator", "Model pair"),
                             "target_millions": (t := rng.choice((2, 8000, 70000, 10000000))),
                             "draft_millions": rng.randint(1, t - 1)} for i in range(n)],
            "bytes_per_parameter": ("2", "1/2")[seed], "table_batches": [[1], [1, 2, 8, 64, 256, 4096]][seed]}


def strings(row: list[Fraction]) -> list[str]:
    return [str(x) for x in row]


def shipped_copy(fixture: Path) -> Raw:
    return json.loads(fixture.read_text(encoding="utf-8"))


def renamed_token(raw: Raw) -> None:
    """A first-time author's edit: "cat" becomes "chat" in the vocabulary and wherever a draft proposes it."""
    raw["vocabulary"] = ["chat" if t == "cat" else t for t in raw["vocabulary"]]
    for profile in raw["profiles"]:
        profile["proposals"] = ["chat" if t == "cat" else t for t in profile["proposals"]]


def moved_eighth(raw: Raw) -> None:
    """A first-time author's edit: position 1 of the target moves 1/8 from its first token to its second."""
    row = [Fraction(x) for x in raw["target"][0]]
    row[0], row[1] = row[0] - Fraction(1, 8), row[1] + Fraction(1, 8)
    raw["target"][0] = strings(row)


def draft_in_sixths(raw: Raw) -> None:
    """A first-time author's edit: a third draft written in sixths (the shipped six tokens), which proposes each
    position's likeliest token that it can propose."""
    base = [Fraction(2, 6), Fraction(1, 6), Fraction(1, 6), Fraction(1, 6), Fraction(1, 6), Fraction(0)]
    rows = [base[-i % 6:] + base[:-i % 6] for i in range(len(raw["target"]))]  # [k][6], rotated by position
    proposals = []
    for p, q in zip(raw["target"], rows, strict=True):
        best = max((y for y in range(6) if q[y] > 0), key=lambda y: (Fraction(p[y]), -y))
        proposals.append(raw["vocabulary"][best])
    raw["profiles"].append({"id": "sixths", "name": "a draft in sixths", "proposals": proposals,
                            "draft": [strings(r) for r in rows]})


def all_at_once(raw: Raw) -> None:
    """The three edits together, and then 1/24 moved between the likeliest and the least likely nonzero target cells
    of position 2, so the target is in 24ths beside drafts in eighths and sixths (built and tested from a clone, this
    file once failed ten tests that the three single edits passed)."""
    for edit in (renamed_token, moved_eighth, draft_in_sixths):
        edit(raw)
    row = [Fraction(x) for x in raw["target"][1]]
    hi = max(range(len(row)), key=lambda y: row[y])
    lo = min((y for y in range(len(row)) if row[y] > 0 and y != hi), key=lambda y: row[y], default=hi)
    row[hi], row[lo] = row[hi] - Fraction(1, 24), row[lo] + Fraction(1, 24)
    raw["target"][1] = strings(row)


FIXED: dict[str, Callable[[Raw], None]] = {
    "renamed-token": renamed_token,
    "moved-eighth": moved_eighth,
    "draft-in-sixths": draft_in_sixths,
    "all-at-once": all_at_once,
}
SEEDS = range(5)
NAMES_OF_FILES = (*FIXED, *(f"generated-{s}" for s in SEEDS))


def variant(name: str, fixture: Path) -> Raw:
    """Returns the valid data file called `name` (one of NAMES_OF_FILES)."""
    if name in FIXED:
        raw = shipped_copy(fixture)
        FIXED[name](raw)
        return raw
    return generated(int(name.rsplit("-", 1)[1]))


def written(raw: Raw) -> str:
    """Returns the file as an author's editor would keep it: indented, each distribution's row on one line."""
    text = json.dumps(raw, indent=2, ensure_ascii=False)
    return re.sub(r"\[\s*((?:(?:\"[^\"\n]*\"|-?[\d.]+),\s*)*(?:\"[^\"\n]*\"|-?[\d.]+))\s*\]",
                  lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text) + "\n"


def write_variant(name: str, fixture: Path, to: Path) -> Path:
    """Writes the valid data file `name` to `to` and returns `to`."""
    to.write_text(written(variant(name, fixture)), encoding="utf-8")
    return to

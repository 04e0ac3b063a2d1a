"""When checking several guesses stops being free: a first-order roofline model of one forward pass, and what it
makes of speculative decoding's speedup as a server batches more requests. Exact fractions throughout.

A pass of a model with P parameters at b bytes each, scoring T tokens on hardware with memory bandwidth B and dense
throughput F, takes about max(P·b / B, 2·P·T / F) seconds (the roofline: Williams, Waterman & Patterson, "Roofline:
an insightful visual performance model for multicore architectures", CACM 52(4), 2009). Reading the weights once
costs the same however many tokens the pass scores, so scoring more is free up to the knee T = F·b / (2·B); past it,
the arithmetic dominates and the time grows in proportion to T. Left out: reading the KV cache, attention's own
arithmetic, and every overhead (kernel launches, sampling, the scheduler).

The optional `roofline` object of the data file holds the hardware and model pairs offered; `settings` fills in
the defaults below, and `problems` checks what the schema cannot say."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

GIGA, TERA, MEGA = 10**9, 10**12, 10**6
MAX_BATCH = 1 << 16  # the largest batch the crossing is looked for at


@dataclass(frozen=True)
class Hardware:
    """One accelerator, from its vendor's datasheet."""

    name: str
    bandwidth_gb_s: int  # memory bandwidth, in 10^9 bytes per second
    tflops: int  # dense 16-bit tensor throughput, in 10^12 operations per second (no sparsity)

    @property
    def bandwidth(self) -> Fraction:
        """Returns B in bytes per second."""
        return Fraction(self.bandwidth_gb_s * GIGA)

    @property
    def flops(self) -> Fraction:
        """Returns F in operations per second."""
        return Fraction(self.tflops * TERA)


@dataclass(frozen=True)
class ModelPair:
    """A target and its draft, by parameter count."""

    name: str
    target_millions: int
    draft_millions: int

    @property
    def target(self) -> Fraction:
        return Fraction(self.target_millions * MEGA)

    @property
    def draft(self) -> Fraction:
        return Fraction(self.draft_millions * MEGA)

    @property
    def ratio(self) -> Fraction:
        """Returns the draft's parameters over the target's: a draft pass's cost in target passes below the knee."""
        return Fraction(self.draft_millions, self.target_millions)


@dataclass(frozen=True)
class Roofline:
    """What the figure offers: the hardware, the model pairs, the weights' bytes per parameter, and the batch sizes
    of its table for readers without scripting."""

    hardware: tuple[Hardware, ...]
    pairs: tuple[ModelPair, ...]
    bytes_per_parameter: Fraction = Fraction(2)
    table_batches: tuple[int, ...] = (1, 8, 64, 256)


DEFAULT = Roofline(
    hardware=(Hardware("NVIDIA H100 SXM", 3350, 989),  # NVIDIA H100 Tensor Core GPU datasheet: 3.35 TB/s, BF16 989 TFLOPS dense
              Hardware("NVIDIA A100 SXM 80GB", 2039, 312),  # NVIDIA A100 datasheet: 2,039 GB/s, BF16 312 TFLOPS dense
              Hardware("NVIDIA L4", 300, 121),  # NVIDIA L4 datasheet: 300 GB/s, BF16 121 TFLOPS dense (242 sparse)
              Hardware("AMD Instinct MI300X", 5300, 1307)),  # AMD MI300X data sheet: 5.3 TB/s, BF16 1,307.4 TFLOPS dense
    pairs=(ModelPair("a 70B target with a 7B draft", 70000, 7000),
           ModelPair("an 8B target with a 1B draft", 8000, 1000)))


def settings(raw: dict) -> Roofline:
    """Returns the settings of a checked `roofline` object, with the default of each key left out."""
    hardware = tuple(Hardware(h["name"], h["bandwidth_gb_s"], h["tflops"]) for h in raw["hardware"]) \
        if "hardware" in raw else DEFAULT.hardware
    pairs = tuple(ModelPair(m["name"], m["target_millions"], m["draft_millions"]) for m in raw["model_pairs"]) \
        if "model_pairs" in raw else DEFAULT.pairs
    return Roofline(hardware, pairs, Fraction(raw.get("bytes_per_parameter", DEFAULT.bytes_per_parameter)),
                    tuple(raw.get("table_batches", DEFAULT.table_batches)))


def problems(raw: dict, known: set[tuple]) -> list[tuple[tuple, str]]:
    """Returns each (JSON path, message) of what the schema cannot check in a `roofline` object: a draft that is not
    smaller than its target, batch sizes out of order. `known`: the paths of problems already found, whose values are
    not checked again (names, and their repeats, are checked with the profiles' names)."""
    def whole(value: object) -> bool:
        return isinstance(value, int) and not isinstance(value, bool)
    found: list[tuple[tuple, str]] = []
    pairs = raw.get("model_pairs")
    for i, m in enumerate(pairs if isinstance(pairs, list) else []):
        t, d = (m.get(key) if isinstance(m, dict) else None for key in ("target_millions", "draft_millions"))
        at = ("roofline", "model_pairs", i)
        checked = not {(*at, "target_millions"), (*at, "draft_millions")} & known
        if isinstance(t, int) and isinstance(d, int) and whole(t) and whole(d) and checked and d >= t:
            found.append(((*at, "draft_millions"), f"found a draft of {d:,} million parameters for a target of {t:,} "
                                                   f"million; expected a draft smaller than its target"))
    batches = raw.get("table_batches")
    if isinstance(batches, list) and all(whole(b) for b in batches) and batches != sorted(set(batches)):
        found.append((("roofline", "table_batches"), f"found {batches}; expected the batch sizes smallest first"
                      + (", each once" if len(set(batches)) < len(batches) else "")))
    return found


def knee(hw: Hardware, b: Fraction) -> Fraction:
    """Returns the tokens per pass at which arithmetic starts to cost more than reading the weights: F·b / (2·B)."""
    return hw.flops * b / (2 * hw.bandwidth)


def pass_time(params: Fraction, tokens: int | Fraction, hw: Hardware, b: Fraction) -> Fraction:
    """Returns the seconds one pass of a model with `params` parameters takes to score `tokens` tokens:
    max(P·b / B, 2·P·T / F)."""
    return max(params * b / hw.bandwidth, 2 * params * tokens / hw.flops)


def plain_time(pair: ModelPair, hw: Hardware, b: Fraction, n: int) -> Fraction:
    """Returns the seconds of one step of plain decoding at batch n: one target pass scoring n tokens."""
    return pass_time(pair.target, n, hw, b)


def scored(k: int, m: int = 1) -> int:
    """Returns the positions a round's check scores per sequence: the drafted nodes (k for a chain, m + m² + … + m^k
    for a full tree of width m) and the one after them, whose distribution gives the bonus token."""
    return sum(m ** i for i in range(1, k + 1)) + 1


def round_time(pair: ModelPair, hw: Hardware, b: Fraction, n: int, k: int, m: int = 1) -> Fraction:
    """Returns the seconds of one speculative round at batch n: k draft passes (depth i scores n·m^(i-1) tokens,
    the parents of the nodes it proposes) and one target pass scoring n·scored(k, m) tokens."""
    drafting = sum((pass_time(pair.draft, n * m ** i, hw, b) for i in range(k)), Fraction(0))
    return drafting + pass_time(pair.target, n * scored(k, m), hw, b)


def speedup(expected: Fraction, pair: ModelPair, hw: Hardware, b: Fraction, n: int, k: int, m: int = 1) -> Fraction:
    """Returns the speedup per sequence at batch n: E tokens per round, over the round's time in plain steps."""
    return expected * plain_time(pair, hw, b, n) / round_time(pair, hw, b, n, k, m)


def stops_paying(expected: Fraction, pair: ModelPair, hw: Hardware, b: Fraction, k: int, m: int = 1) -> int | None:
    """Returns the smallest batch size at which the speedup is below 1 (1 when speculation never pays), or None when
    it stays at 1 or above up to MAX_BATCH. The round's time over a plain step never falls as n grows (each pass is
    flat, then linear, and the plain step turns linear last), so the speedup never rises and a bisection finds it."""
    def loses(n: int) -> bool:
        return speedup(expected, pair, hw, b, n, k, m) < 1
    if not loses(MAX_BATCH):
        return None
    lo, hi = 0, MAX_BATCH  # loses(hi); lo = 0 or not loses(lo)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if loses(mid) else (mid, hi)
    return hi


def crossing(expected: Fraction, k: int, ratio: Fraction, t_knee: Fraction) -> Fraction | None:
    """Returns the batch size n* at which a chain's speedup reaches 1, in closed form, or None when it is below 1
    already at batch 1's flat part. Below T*/(k + 1) every pass is flat: the speedup is E / (1 + k·c), c the draft's
    share of the target's parameters. From there to T* the check is compute-bound while the plain step and the
    drafts are not: round / plain = k·c + n·(k + 1) / T*, which equals E at n* = T*·(E − k·c) / (k + 1). Past T*
    every pass is compute-bound and the speedup is E / (k + 1 + k·c), below 1. At E = 1 + k·c exactly the flat part's
    speedup is 1, not below it, and n* = T*/(k + 1) is where it falls below."""
    if expected < 1 + k * ratio:
        return None
    return t_knee * (expected - k * ratio) / (k + 1)


def expected_tokens(target: tuple, draft: tuple, k: int, m: int = 1) -> Fraction:
    """Returns E over a profile's first k positions with m candidates each, drawn without replacement (m = 1: the
    chain's E)."""
    from . import trees
    from .stats import expected_tokens as e_of

    return e_of([trees.position(p, q, m, trees.WITHOUT).acceptance for p, q in zip(target[:k], draft[:k], strict=True)])

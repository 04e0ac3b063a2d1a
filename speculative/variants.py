"""Broken samplers, the one home of the mistakes a reader may switch on and the suite's checks must catch.

Each variant is the rule with one wrong piece, named by four switches (a `Spec`): what the proposal is drawn from,
which ratio the test reads, which side of it u must fall, and what a rejection draws from. From the switches come
the exact distribution it commits at one position (in fractions), the sampler.Rule the Monte Carlo runs use, and the
script's own copy of the arithmetic (templates/js/variants.js reads the same switches from the trace).

At one position with target p and draft q, the rule commits min(p, q) + (1 - alpha) residual = p. A variant commits
  sum_x propose(x) kept(x) [x = y] + (1 - sum_x propose(x) kept(x)) fix(y),
where kept(x) is the chance its test keeps x. tests/test_variants.py checks this against each Rule's Monte Carlo.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the Rules need numpy; the page's figures read only the fractions, so a cached build never loads it
    import numpy as np

    from . import sampler

Dist = tuple[Fraction, ...]

# The switches' values, as the trace and variants.js spell them.
PROPOSE = ("q", "greedy")  # a proposal drawn from q, or the draft's most likely token
RATIO = ("p/q", "q/p")  # the test reads min(1, p/q), or the inverted min(1, q/p)
TEST = ("below", "at-or-above")  # x is kept when u < the ratio, or when u >= it
FIX = ("residual", "p", "p-where-above")  # a rejection draws from max(0, p - q), from p, or from p where p > q


@dataclass(frozen=True)
class Spec:
    propose: str = PROPOSE[0]
    ratio: str = RATIO[0]
    test: str = TEST[0]
    fix: str = FIX[0]


def normalised(weights: Sequence[Fraction]) -> Dist:
    """Returns weights / their sum; all zeros when they sum to 0 (a distribution that is never drawn)."""
    total = sum(weights, Fraction(0))
    return tuple(w / total if total else Fraction(0) for w in weights)


def residual(p: Dist, q: Dist) -> Dist:
    """Returns max(0, p - q) renormalised: the rule's replacement distribution."""
    return normalised([max(Fraction(0), a - b) for a, b in zip(p, q, strict=True)])


def ratio(p: Sequence, q: Sequence) -> list:
    """Returns min(1, p/q) per token (1 where q = 0: never proposed)."""
    return [min(1, a / b) if b else Fraction(1) for a, b in zip(p, q, strict=True)]


def top(q: Sequence) -> int:
    """Returns the draft's most likely token, the first in vocabulary order on a tie (as sampler.greedy)."""
    return max(range(len(q)), key=lambda y: (q[y], -y))


@dataclass(frozen=True)
class Pieces:
    """What a variant does at one position: the proposal's distribution, the ratio its test reads, the chance the
    test keeps each token, and the distribution a rejection draws from."""

    propose: tuple
    accept: tuple
    kept: tuple
    fix: tuple

    def committed(self) -> tuple:
        kept = [x * a for x, a in zip(self.propose, self.kept, strict=True)]
        rejected = 1 - sum(kept, Fraction(0))
        return tuple(k + rejected * f for k, f in zip(kept, self.fix, strict=True))


def pieces(spec: Spec, p: Sequence, q: Sequence) -> Pieces:
    """Returns the variant's pieces at a position, in fractions (or in floats, given float rows)."""
    one = Fraction(1)
    best = top(q) if spec.propose == "greedy" else None  # once: the comprehension below reads it V times
    propose = tuple(one * (y == best) for y in range(len(q))) if spec.propose == "greedy" else tuple(q)
    accept = tuple(ratio(p, q) if spec.ratio == "p/q" else ratio(q, p))
    kept = accept if spec.test == "below" else tuple(1 - a for a in accept)
    if spec.fix == "residual":
        fix = normalised([max(0 * a, a - b) for a, b in zip(p, q, strict=True)])
    elif spec.fix == "p":
        fix = tuple(p)
    else:
        fix = normalised([a if a > b else 0 * a for a, b in zip(p, q, strict=True)])
    if not any(fix):  # nothing left to draw from (p = q): the broken samplers draw from p (or_p)
        fix = tuple(p)
    return Pieces(propose, accept, kept, fix)


# The Rule's version of each switch, on numpy arrays [..., V].
def from_p(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Returns p itself as the replacement distribution."""
    import numpy as np
    return np.broadcast_to(p, np.broadcast_shapes(p.shape, q.shape))


def forgot_subtract(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Returns p clipped where p > q, renormalised: the residual that forgets to subtract the draft."""
    import numpy as np
    r = np.where(p > q, p, 0.0)
    return r / np.maximum(r.sum(-1, keepdims=True), 1e-300)


def or_p(fix: Any) -> Any:
    """Returns fix, with p itself in every row where fix leaves nothing to draw from (p = q): a rejection there
    can happen only in a broken sampler (the reversed test rejects everything), and p is what it then draws."""
    import numpy as np

    def guarded(p: np.ndarray, q: np.ndarray) -> np.ndarray:
        r = fix(p, q)
        return np.where(r.sum(-1, keepdims=True) > 0, r, np.broadcast_to(p, r.shape))
    return guarded


def inverted(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    from . import sampler
    return sampler.accept_prob(q, p)


@functools.cache
def rule_of(spec: Spec) -> sampler.Rule:
    """Returns the sampler.Rule that makes the spec's mistakes (one object per spec)."""
    import numpy as np

    from . import sampler
    r = sampler.RULE
    if spec.propose == "greedy":
        r = replace(r, draft_dist=sampler.greedy)
    if spec.ratio == "q/p":
        r = replace(r, accept_prob=inverted)
    if spec.test == "at-or-above":
        r = replace(r, accepts=np.greater_equal)
    if spec != Spec():
        fix = {"residual": sampler.residual, "p": from_p, "p-where-above": forgot_subtract}[spec.fix]
        r = replace(r, residual=or_p(fix))
    return r


@dataclass(frozen=True)
class Variant:
    """A sampler the reader may switch on: what it gets wrong, and why that moves the output away from p."""

    id: str
    name: str  # what it gets wrong, as the page names it
    spec: Spec
    why: str  # one clause: why the tokens it favours gain

    @property
    def rule(self) -> sampler.Rule:
        """Returns the sampler.Rule that makes this mistake, for the suite's Monte Carlo runs."""
        return rule_of(self.spec)

    def json(self) -> dict[str, str | int]:
        """Returns the trace's copy: the names, and each switch as its index in PROPOSE, RATIO, TEST and FIX, which
        templates/js/variants.js computes from."""
        s = self.spec
        return {"id": self.id, "name": self.name, "why": self.why, "propose": PROPOSE.index(s.propose),
                "ratio": RATIO.index(s.ratio), "test": TEST.index(s.test), "fix": FIX.index(s.fix)}

    def pieces(self, p: Sequence, q: Sequence) -> Pieces:
        return pieces(self.spec, p, q)

    def committed(self, p: Sequence, q: Sequence) -> tuple:
        """Returns the exact distribution it commits at a position with target p and draft q."""
        return pieces(self.spec, p, q).committed()


VARIANTS: tuple[Variant, ...] = (
    Variant("rule", "The rule", Spec(), "the replacement supplies exactly the share of p that acceptance missed"),
    Variant("from-p", "replacement drawn from p instead of the residual", Spec(fix="p"),
            "a rejection draws from all of p, which counts again the share min(p, q) that acceptance already "
            "delivered, so tokens the draft offers at least as much as p (q ≥ p) come too often and the ones it "
            "underrates too rarely"),
    Variant("forgot-q", "residual that forgets to subtract q", Spec(fix="p-where-above"),
            "the replacement weighs each token the draft underrates by all of p rather than by the missing part "
            "p − q, so the tokens it partly covers (0 < q < p) are over-supplied against those it misses entirely"),
    Variant("greedy", "greedy proposal checked against the sampled q", Spec(propose="greedy"),
            "the draft always proposes its top token (on a tie, whichever comes first in the vocabulary) but the "
            "test divides by q as if that token had been sampled, so it is kept with chance min(1, p/q) on every round instead of on a share q of them"),
    Variant("inverted", "ratio inverted to min(1, q/p)", Spec(ratio="q/p"),
            "min(1, q/p) always keeps a token the draft overrates and often rejects one it underrates, the "
            "opposite of what the rule needs"),
    Variant("reversed", "test reversed: x kept when u ≥ min(1, p/q)", Spec(test="at-or-above"),
            "a token is kept with chance 1 − min(1, p/q), never when p ≥ q, so the draft’s right guesses are "
            "thrown away and its wrong ones kept (where p = q everywhere, every proposal is rejected and the "
            "replacement, with an empty residual, is drawn from p)"),
)
THE_RULE, BROKEN = VARIANTS[0], VARIANTS[1:]
BY_ID = {v.id: v for v in VARIANTS}


def total_variation(a: Sequence, b: Sequence) -> Fraction:
    """Returns half the L1 distance between two distributions."""
    return sum((abs(x - y) for x, y in zip(a, b, strict=True)), Fraction(0)) / 2

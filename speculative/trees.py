"""Several candidates per position, verified by recursive rejection sampling: exact in fractions, sampled with numpy.

At one position the draft proposes m candidates, tried in turn against a target that shrinks. r starts as p;
candidate j is kept with chance min(1, r(x_j) / q_j(x_j)); on a rejection r becomes max(0, r - q_j) renormalised
and the next candidate is tried; if all m fail, the token is drawn from the last r.
- With replacement (SpecInfer's multi-step speculative sampling, Miao et al., arXiv 2305.09781): every q_j is q.
- Without replacement (Recursive Speculative Decoding, Jeon et al., arXiv 2402.14160): q_j is q with the earlier
  candidates removed, renormalised.
Each step is the one-candidate accept test with target r and draft q_j, which commits r, so the whole commits p.

The broken ways (BROKEN) are the mistakes a reader may switch on, each with its exact wrong distribution.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from .dataset import Dist
from .rules import overlap, top_token

if TYPE_CHECKING:  # the types only: the exact pieces serve a cached build, which never imports numpy
    import numpy as np

MAX_CANDIDATES = 4  # the most candidates per position the page offers
TYPICAL = (0.09, 0.3)  # Medusa's typical acceptance: a candidate passes when p(x) > min(eps, delta * exp(-H(p)))
ZERO = Fraction(0)


@dataclass(frozen=True)
class Spec:
    """How a position with several candidates is verified: a correct way, or one with a single mistake."""

    id: str  # what the trace and the script call it
    name: str  # what the page calls it
    replace: bool  # candidates drawn independently from q (True), or from q without the earlier ones (False)
    against_p: bool = False  # broken: every candidate checked against p, and the last draw from max(0, p - q)
    plain_q: bool = False  # broken: drawn without replacement, but checked and peeled with the whole q
    typical: bool = False  # broken: Medusa's typical acceptance, which keeps a likely enough candidate outright


WITH = Spec("with", "With replacement", True)
WITHOUT = Spec("without", "Without replacement", False)
SPECS = (WITH, WITHOUT)
BROKEN = (Spec("against-p", "Every candidate checked against p", True, against_p=True),
          Spec("plain-q", "Without replacement, checked with the whole q", False, plain_q=True),
          Spec("typical", "Typical acceptance (Medusa)", True, typical=True))
BY_ID = {s.id: s for s in (*SPECS, *BROKEN)}


def normalised(v: Sequence[Fraction]) -> Dist | None:
    """Returns v / sum(v), or None when v sums to 0."""
    total = sum(v, ZERO)
    return None if total == 0 else tuple(x / total for x in v)


def shrunk(r: Dist, q: Dist) -> Dist | None:
    """Returns max(0, r - q) renormalised: the target the next candidate is checked against; None when r <= q."""
    return normalised([max(ZERO, a - b) for a, b in zip(r, q, strict=True)])


def without(q: Dist, removed: frozenset[int]) -> Dist | None:
    """Returns q without the removed tokens, renormalised; None when nothing is left to draw."""
    return normalised([ZERO if y in removed else b for y, b in enumerate(q)])


@dataclass(frozen=True)
class Path:
    """One way typical acceptance can go: its chance, the candidates tried and the token committed."""

    chance: Fraction
    candidates: tuple[int, ...]  # the candidates drawn, in order; the last was kept when `kept`
    kept: bool  # a candidate was kept (else the token was drawn from what was left of the target)
    token: int


def typical_threshold(p: Dist) -> float:
    """Returns min(eps, delta * exp(-H(p))): the chance a candidate needs under typical acceptance."""
    entropy = -sum(float(a) * math.log(float(a)) for a in p if a)
    eps, delta = TYPICAL
    return min(eps, delta * math.exp(-entropy))


def _typical_paths(p: Dist, q: Dist, m: int) -> Iterator[Path]:
    """Yields the paths of typical acceptance: the first of m candidates drawn from q whose p passes the threshold is
    kept; if none does, the target's most likely token is taken (Medusa's greedy first token)."""
    passes = [Fraction(a) > Fraction(typical_threshold(p)) and b > 0 for a, b in zip(p, q, strict=True)]
    fail = sum((b for b, ok in zip(q, passes, strict=True) if not ok), ZERO)
    for j in range(m):
        yield from (Path(fail ** j * b, (), True, y) for y, b in enumerate(q) if passes[y])
    yield Path(fail ** m, (), False, top_token(p))


@dataclass(frozen=True)
class Position:
    """What verifying one position with m candidates commits, and how often one of them is kept."""

    committed: Dist  # [V] the chance of each token: p itself for a correct way
    acceptance: Fraction  # A: the chance some candidate is kept


def position(p: Dist, q: Dist, m: int, spec: Spec = WITH) -> Position:
    """Returns the exact committed distribution and acceptance of a position verified with m candidates (1 to
    MAX_CANDIDATES): positions(p, q, spec)[m - 1]."""
    return positions(p, q, spec)[m - 1]


# One state's outcome for each m from its own j up to MAX_CANDIDATES: [m - j] (committed [V], chance one is kept).
Outcomes = list[tuple[list[Fraction], Fraction]]


@functools.lru_cache(maxsize=1024)  # the lab, the explorer and the picture ask for the same positions
def positions(p: Dist, q: Dist, spec: Spec = WITH) -> tuple[Position, ...]:
    """Returns position(p, q, m, spec) for m = 1 to MAX_CANDIDATES [m - 1]: summed over every way the candidates can
    be drawn, kept and rejected, each state of the recursion (r, the candidates removed, how many were tried) worked
    out once for every m, since a round with more candidates goes through the same states as one with fewer."""
    if spec.typical:
        return tuple(_typical(p, q, m) for m in range(1, MAX_CANDIDATES + 1))
    memo: dict[tuple[Dist, frozenset[int], int], Outcomes] = {}

    def state(r: Dist, removed: frozenset[int], j: int) -> Outcomes:
        if (r, removed, j) not in memo:
            memo[r, removed, j] = _step(p, q, spec, r, removed, j, state)
        return memo[r, removed, j]

    return tuple(Position(tuple(committed), kept) for committed, kept in state(p, frozenset(), 0)[1:])


def _typical(p: Dist, q: Dist, m: int) -> Position:
    committed, kept = [ZERO] * len(p), ZERO
    for path in _typical_paths(p, q, m):
        committed[path.token] += path.chance
        kept += path.chance if path.kept else ZERO
    return Position(tuple(committed), kept)


def _step(p: Dist, q: Dist, spec: Spec, r: Dist, removed: frozenset[int], j: int,
          state: Callable[[Dist, frozenset[int], int], Outcomes]) -> Outcomes:
    """Returns what a round that reached candidate j + 1 with target r commits, and its chance of keeping one, for
    each m from j (no candidate left: the draw from r) to MAX_CANDIDATES."""
    qj = q if spec.replace else without(q, removed)
    end = (list((shrunk(p, q) or r) if spec.against_p and j else r), ZERO)
    if j == MAX_CANDIDATES or qj is None:
        return [end] * (MAX_CANDIDATES - j + 1)
    check = q if spec.plain_q else qj  # the draft the check and the peeling use
    own, own_kept, rejected = [ZERO] * len(p), ZERO, []
    for x, qx in enumerate(qj):
        if not qx:
            continue
        keep = min(Fraction(1), (p if spec.against_p else r)[x] / check[x])
        own[x] += qx * keep
        own_kept += qx * keep
        if keep < 1:
            nxt = r if spec.against_p else shrunk(r, check)
            w = qx * (1 - keep)
            rejected.append((w, state(nxt or r, removed if spec.replace else removed | {x}, j + 1)))
    out = [end]
    for i in range(MAX_CANDIDATES - j):  # m = j + 1 + i: the next state's outcome for the same m is its [i]
        committed, kept = own, own_kept
        for w, after in rejected:
            sub, sub_kept = after[i]
            committed = [c + w * t for c, t in zip(committed, sub, strict=True)]
            kept += w * sub_kept
        out.append((committed, kept))
    return out


def peeled(p: Dist, q: Dist, m: int) -> tuple[tuple[Fraction, Dist], ...]:
    """Returns, with replacement, each candidate's (alpha_j, r_j): r_1 = p, alpha_j = sum min(r_j, q), and r_j+1 =
    max(0, r_j - q) renormalised, then (0, the last r) for the draw after m rejections. The identity it shows:
    p = sum_j (1 - alpha_1)...(1 - alpha_j-1) min(r_j, q) + (1 - alpha_1)...(1 - alpha_m) r_m+1."""
    out, r = [], p
    for _ in range(m):
        alpha = overlap(r, q)
        out.append((alpha, r))
        nxt = shrunk(r, q)
        if nxt is None:  # r <= q: every candidate of this r is kept, so nothing is left to peel
            return tuple(out)
        r = nxt
    return (*out, (ZERO, r))


def acceptance_product(alphas: Sequence[Fraction]) -> Fraction:
    """Returns A = 1 - (1 - alpha_1)...(1 - alpha_m): the chance one of the candidates is kept."""
    miss = Fraction(1)
    for a in alphas:
        miss *= 1 - a
    return 1 - miss


def tree_nodes(m: int, k: int) -> int:
    """Returns the nodes of a full tree of width m and depth k, m + m^2 + ... + m^k: the positions one pass scores."""
    return sum(m ** i for i in range(1, k + 1))


# --- the numpy sampler: n draws of one position at once -----------------------------------------------------------

def sample(p: np.ndarray, q: np.ndarray, m: int, n: int, rng: np.random.Generator, spec: Spec = WITH) -> np.ndarray:
    """Returns [n] tokens committed at one position verified with m candidates, each draw on its own."""
    return sample_kept(p, q, m, n, rng, spec)[0]


def sample_kept(p: np.ndarray, q: np.ndarray, m: int, n: int, rng: np.random.Generator,
                spec: Spec = WITH) -> tuple[np.ndarray, np.ndarray]:
    """Returns ([n] tokens committed at one position verified with m candidates, [n] whether a candidate was kept)."""
    import numpy as np
    V = len(p)
    if spec.typical:
        passes = (p > typical_threshold(tuple(Fraction(float(a)) for a in p))) & (q > 0)
        cands = _draw(np.broadcast_to(q, (n, m, V)), rng.random((n, m)))  # [n, m]
        ok = passes[cands]  # [n, m]
        first = ok.argmax(1)
        return np.where(ok.any(1), cands[np.arange(n), first], int(np.argmax(p))), ok.any(1)
    r = np.broadcast_to(p, (n, V)).copy()  # [n, V] the target each draw's next candidate is checked against
    removed = np.zeros((n, V), bool)
    out, live = np.full(n, -1), np.ones(n, bool)
    for _ in range(m):
        qj = q if spec.replace else _rows(np.where(removed, 0.0, q))  # [V] or [n, V]
        qj = np.broadcast_to(qj, (n, V))
        live &= qj.sum(1) > 0  # nothing left to draw: the token comes from r
        x = _draw(qj, rng.random(n))  # [n]
        check = np.broadcast_to(q, (n, V)) if spec.plain_q else qj
        at = np.arange(n)
        against = p[x] if spec.against_p else r[at, x]
        keep = live & (rng.random(n) < np.minimum(1.0, against / np.where(check[at, x] > 0, check[at, x], 1.0)))
        out[keep] = x[keep]
        live &= ~keep
        if not spec.against_p:
            r = np.where(live[:, None], _rows(np.maximum(0.0, r - check), r), r)
        removed[at, x] = True
    last = np.broadcast_to(_rows(np.maximum(0.0, p - q), p), (n, V)) if spec.against_p else r
    rest = _draw(last, rng.random(n))
    return np.where(out >= 0, out, rest), out >= 0


def sample_rounds(target: np.ndarray, draft: np.ndarray, bonus: np.ndarray, m: int, n: int, rng: np.random.Generator,
                  spec: Spec = WITH) -> np.ndarray:
    """Returns [n, k + 1] the tokens of n tree rounds of depth k and width m (-1 past a round's end): at each depth the
    kept candidate's children are tried next, a depth where every candidate fails ends the round with its draw from
    the last r, and a round that keeps a candidate at every depth adds a bonus token from the bonus distribution."""
    import numpy as np
    k = len(target)
    out, alive = np.full((n, k + 1), -1), np.ones(n, bool)
    for i in range(k):
        tokens, kept = sample_kept(target[i], draft[i], m, n, rng, spec)
        out[alive, i] = tokens[alive]
        alive &= kept
    out[alive, k] = _draw(np.broadcast_to(bonus, (n, len(bonus))), rng.random(n))[alive]
    return out


def _rows(w: np.ndarray, fallback: np.ndarray | None = None) -> np.ndarray:
    """Returns each row of w [..., V] renormalised; a row that sums to 0 is `fallback`'s (or stays 0)."""
    import numpy as np
    total = w.sum(-1, keepdims=True)
    base = np.zeros_like(w) if fallback is None else np.broadcast_to(fallback, w.shape)
    return np.where(total > 0, w / np.where(total > 0, total, 1.0), base)


def _draw(rows: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Returns the token each uniform u [...] picks from its row [..., V] by the inverse CDF (u on a cut: the next)."""
    import numpy as np
    edges = np.cumsum(rows, -1)
    x = (u[..., None] >= edges).sum(-1)
    return np.minimum(x, rows.shape[-1] - 1 - np.argmax(rows[..., ::-1] > 0, -1))  # never past the last live token

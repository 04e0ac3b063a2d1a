"""Compute everything the page shows, once, then export it as the JSON trace."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import sampler
from .frames import Frame, common_denominator, round_frames
from .profiles import Dataset, Dist, MonteCarlo, Profile
from .stats import ProfileStats, decimal_str, prob_str, profile_stats

POINTS = ("capped", "zero", "drop", "residual")


@dataclass(frozen=True)
class ProfileResult:
    profile: Profile
    walk: sampler.Rounds  # the one authored round the walkthrough shows
    stats: ProfileStats
    frames: list[Frame]
    position_counts: np.ndarray  # [k+1, V] Monte Carlo committed-token counts
    length_counts: np.ndarray  # [k+1] Monte Carlo rounds committing n = 1..k+1 tokens
    convergence: dict[str, Any]  # those counts with N, TV distance and its bound per position


@dataclass(frozen=True)
class Explained:
    data: Dataset
    results: tuple[ProfileResult, ...]
    denom: int  # common denominator of the file's probabilities
    points: dict[str, str | None]  # point -> "profile-id/frame-number", or None if no frame shows it


def floats(rows: tuple[Dist, ...] | list[Dist]) -> np.ndarray:
    """Returns exact distributions as a float array [rows, V]: the numpy boundary."""
    return np.array([[float(x) for x in row] for row in rows])


def arrays(data: Dataset, profile: Profile) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Returns target [k, V], draft [k, V] and bonus target [V] as floats."""
    return floats(data.target), floats(profile.draft), floats([data.bonus_target])[0]


def walkthrough(data: Dataset, index: int) -> sampler.Rounds:
    """Returns the single authored round of profile `index`, seeded from the file."""
    profile = data.profiles[index]
    rng = np.random.default_rng([data.walkthrough_seed, index])
    return sampler.sample_rounds(*arrays(data, profile), 1, rng, proposals=np.array(profile.proposals))


def explain_profile(data: Dataset, index: int) -> ProfileResult:
    """Returns the walkthrough, frames, exact statistics and Monte Carlo counts of one profile."""
    profile = data.profiles[index]
    walk = walkthrough(data, index)
    stats = profile_stats(data, profile, [bool(x) for x in walk.passed[0, : int(walk.n_checked[0])]])
    positions, lengths = monte_carlo_counts(data.target, data.bonus_target, profile.draft, data.monte_carlo, index)
    return ProfileResult(profile=profile, walk=walk, stats=stats,
                         frames=round_frames(data, profile, walk, stats.residuals),
                         position_counts=positions, length_counts=lengths,
                         convergence=convergence(data, positions, lengths))


@functools.lru_cache(maxsize=16)  # an edit to one draft, or to the prose, reruns only what it changed
def monte_carlo_counts(target: tuple[Dist, ...], bonus: Dist, draft: tuple[Dist, ...], mc: MonteCarlo,
                       index: int) -> tuple[np.ndarray, np.ndarray]:
    """Returns the committed-token counts [k+1, V] and tokens-per-round counts [k+1] of drawn rounds (read-only)."""
    rounds = sampler.sample_rounds(floats(target), floats(draft), floats([bonus])[0], mc.rounds,
                                   np.random.default_rng([mc.seed, index]))
    positions, lengths = sampler.position_counts(rounds, len(bonus)), sampler.length_counts(rounds)
    positions.flags.writeable = lengths.flags.writeable = False
    return positions, lengths


def find_points(results: tuple[ProfileResult, ...]) -> dict[str, str | None]:
    """Returns, for each point worth noticing, the first frame that shows it."""
    found: dict[str, str | None] = {name: None for name in POINTS}
    for result in results:
        for frame in result.frames:
            for name in frame["shows"]:
                found[name] = found[name] or f"{result.profile.id}/{frame['index']}"
    return found


@functools.lru_cache(maxsize=4)  # a rebuild after a prose-only edit reuses the last data's results
def explain(data: Dataset) -> Explained:
    """Returns everything the page needs, computed before anything is written."""
    results = tuple(explain_profile(data, i) for i in range(len(data.profiles)))
    return Explained(data=data, results=results, denom=common_denominator(data), points=find_points(results))


def convergence(data: Dataset, position_counts: np.ndarray, length_counts: np.ndarray) -> dict[str, Any]:
    """Returns the Monte Carlo histograms of one profile with N, TV distance and its bound per position."""
    targets = list(data.target) + [data.bonus_target]
    rows = []
    for i, (counts, target) in enumerate(zip(position_counts, targets)):
        n = int(counts.sum())
        probs = np.array([float(x) for x in target])
        rows.append({"position": i + 1, "n": n, "counts": counts.tolist(),
                     "tv": round(sampler.total_variation(counts, probs), 6),
                     "tv_bound": round(sampler.tv_bound(n, len(target)), 6)})
    return {"rounds": int(length_counts.sum()), "positions": rows, "lengths": length_counts.tolist()}


def trace(ex: Explained) -> dict[str, Any]:
    """Returns the JSON-ready trace embedded in the page and written to trace.json."""
    data, d = ex.data, ex.denom
    profiles = []
    for r in ex.results:
        s = r.stats
        profiles.append({
            "id": r.profile.id,
            "name": r.profile.name,
            "positions": [{"target": [prob_str(x, d) for x in p], "draft": [prob_str(x, d) for x in q], "proposal": x}
                          for p, q, x in zip(data.target, r.profile.draft, r.profile.proposals)],
            "bonus_target": [prob_str(x, d) for x in data.bonus_target],
            "frames": r.frames,
            "stats": {
                "accept_probabilities": [prob_str(a, d) for a in s.alphas],
                "expected_tokens_per_round": float(s.expected),
                "expected_tokens_exact": str(s.expected),
                "expected_tokens_display": decimal_str(s.expected),
                "round_cost": str(s.round_cost),
                "speedup": float(s.speedup),
                "speedup_display": decimal_str(s.speedup),
                "tokens_per_round_distribution": [str(p) for p in s.distribution],
                "frame_count": s.frame_count,
            },
            "convergence": r.convergence,
        })
    return {
        "format": "speculative-decoding-trace/1",
        "vocabulary": list(data.vocabulary),
        "k": data.k,
        "cost_model": {"draft_step": str(data.cost.draft_step), "verify_round": str(data.cost.verify_round)},
        "points": ex.points,
        "profiles": profiles,
    }

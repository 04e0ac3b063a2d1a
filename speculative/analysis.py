"""Owns the analysis: every draw, frame and statistic the page shows, computed once from the dataset."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from math import lcm

import numpy as np

from . import sampler
from .frames import Frame, Round, round_frames
from .profiles import Dataset, Dist, MonteCarlo, Profile
from .stats import ProfileStats, profile_stats

POINTS = ("capped", "zero", "drop", "residual")


@dataclass(frozen=True)
class PositionCheck:
    """The Monte Carlo check at one position: committed-token counts against the target."""

    position: int  # 1-based; k + 1 is the bonus position
    target: Dist  # [V]
    counts: tuple[int, ...]  # [V]
    tv: float  # total-variation distance between observed frequencies and the target
    tv_bound: float  # what sampling noise alone stays under with probability 1 - 1e-6

    @property
    def n(self) -> int:
        """Returns the number of rounds that committed a token here."""
        return sum(self.counts)


@dataclass(frozen=True)
class ProfileResult:
    profile: Profile
    stats: ProfileStats
    walk: Round  # the one authored round the walkthrough shows
    frames: tuple[Frame, ...]
    checks: tuple[PositionCheck, ...]  # [k+1] Monte Carlo, bonus position last
    length_counts: tuple[int, ...]  # [k+1] Monte Carlo rounds committing n = 1..k+1 tokens

    @property
    def mc_rounds(self) -> int:
        """Returns the number of Monte Carlo rounds."""
        return sum(self.length_counts)


@dataclass(frozen=True)
class Explained:
    data: Dataset
    results: tuple[ProfileResult, ...]
    denom: int  # common denominator of the file's probabilities
    points: dict[str, tuple[int, int] | None]  # point -> (profile index, frame number), or None if no frame shows it
    identity_equal: int  # positions, over all profiles, where min(p, q) + (1 - α)·residual equals p for every token
    identity_total: int  # positions checked


def common_denominator(data: Dataset) -> int:
    """Returns the least common denominator of every probability in the file (8 for eighths)."""
    rows = list(data.target) + [data.bonus_target] + [row for prof in data.profiles for row in prof.draft]
    return lcm(*(x.denominator for row in rows for x in row))


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


def round_of(rounds: sampler.Rounds, j: int) -> Round:
    """Returns round j of a batch as plain data."""
    checked = int(rounds.n_checked[j])
    rep = int(rounds.replacements[j, checked - 1]) if not rounds.passed[j, checked - 1] else None
    bonus = int(rounds.bonus[j])
    return Round(proposals=tuple(int(x) for x in rounds.proposals[j]),
                 uniforms=tuple(float(u) for u in rounds.uniforms[j, :checked]),
                 passed=tuple(bool(ok) for ok in rounds.passed[j, :checked]),
                 replacement=rep, bonus=bonus if bonus >= 0 else None)


@functools.lru_cache(maxsize=16)  # an edit to one draft, or to the prose, reruns only what it changed
def monte_carlo_counts(target: tuple[Dist, ...], bonus: Dist, draft: tuple[Dist, ...], mc: MonteCarlo,
                       index: int) -> tuple[np.ndarray, np.ndarray]:
    """Returns the committed-token counts [k+1, V] and tokens-per-round counts [k+1] of drawn rounds (read-only)."""
    rounds = sampler.sample_rounds(floats(target), floats(draft), floats([bonus])[0], mc.rounds,
                                   np.random.default_rng([mc.seed, index]))
    positions, lengths = sampler.position_counts(rounds, len(bonus)), sampler.length_counts(rounds)
    positions.flags.writeable = lengths.flags.writeable = False
    return positions, lengths


def position_checks(data: Dataset, counts: np.ndarray) -> tuple[PositionCheck, ...]:
    """Returns the Monte Carlo check of every position of one profile, bonus last."""
    out = []
    for i, (row, target) in enumerate(zip(counts, list(data.target) + [data.bonus_target]), start=1):
        n = int(row.sum())
        probs = np.array([float(x) for x in target])  # [V]
        out.append(PositionCheck(position=i, target=target, counts=tuple(int(c) for c in row),
                                 tv=round(sampler.total_variation(row, probs), 6),
                                 tv_bound=round(sampler.tv_bound(n, len(target)), 6)))
    return tuple(out)


def explain_profile(data: Dataset, index: int) -> ProfileResult:
    """Returns the walkthrough, frames, exact statistics and Monte Carlo check of one profile."""
    profile = data.profiles[index]
    stats = profile_stats(data, profile)
    walk = round_of(walkthrough(data, index), 0)
    positions, lengths = monte_carlo_counts(data.target, data.bonus_target, profile.draft, data.monte_carlo, index)
    return ProfileResult(profile=profile, stats=stats, walk=walk,
                         frames=round_frames(walk, stats.records, data.vocabulary),
                         checks=position_checks(data, positions), length_counts=tuple(int(c) for c in lengths))


def find_points(results: tuple[ProfileResult, ...]) -> dict[str, tuple[int, int] | None]:
    """Returns, for each point worth noticing, the first frame that shows it."""
    found: dict[str, tuple[int, int] | None] = {name: None for name in POINTS}
    for i, result in enumerate(results):
        for frame in result.frames:
            for name in frame.shows:
                found[name] = found[name] or (i, frame.index)
    return found


@functools.lru_cache(maxsize=4)  # a rebuild after a prose-only edit reuses the last data's results
def explain(data: Dataset) -> Explained:
    """Returns everything the page needs, computed before anything is written."""
    results = tuple(explain_profile(data, i) for i in range(len(data.profiles)))
    records = [rec for r in results for rec in r.stats.records]
    equal = sum(all(t.commit == t.p for t in rec.tokens) for rec in records)
    return Explained(data=data, results=results, denom=common_denominator(data), points=find_points(results),
                     identity_equal=equal, identity_total=len(records))

"""Owns the analysis: every draw, frame and statistic the page shows, computed once from the dataset."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction
from math import lcm

import numpy as np

from . import language, sampler, sequence
from .dataset import CostModel, Dataset, Dist, MonteCarlo, Profile
from .frames import Frame, Round, VerifyFrame, by_chance, round_frames
from .language import LanguageRun
from .stats import ProfileStats, best_k, profile_stats, round_cost, speedup_curve

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

    @property
    def freq(self) -> tuple[Fraction, ...]:
        """Returns the observed frequency of each token [V], exact; all 0 when no round reached the position."""
        return tuple(Fraction(c, self.n) if self.n else Fraction(0) for c in self.counts)


@dataclass(frozen=True)
class Checkpoint:
    """The Monte Carlo check after the first `rounds` rounds of the one run: a prefix, not a fresh sample."""

    rounds: int
    checks: tuple[PositionCheck, ...]  # [k+1], bonus position last
    length_counts: tuple[int, ...]  # [k+1] rounds committing n = 1..k+1 tokens

    @property
    def length_freq(self) -> tuple[Fraction, ...]:
        """Returns the observed share of rounds committing n = 1..k+1 tokens, exact."""
        return tuple(Fraction(c, self.rounds) for c in self.length_counts)


@dataclass(frozen=True)
class ProfileResult:
    profile: Profile
    stats: ProfileStats
    walk: Round  # the one authored round the walkthrough shows
    frames: tuple[Frame, ...]
    drawn: tuple[tuple[Frame, ...], ...]  # [R] frames of the first R rounds drawn from the draft
    drawn_rounds: tuple[Round, ...]  # [R]
    checkpoints: tuple[Checkpoint, ...]  # growing prefixes of the Monte Carlo run, the whole run last

    def frames_of(self, round_: int) -> tuple[Frame, ...]:
        """Returns the frames of the authored round (0) or of drawn round `round_` (1-based)."""
        return self.drawn[round_ - 1] if round_ else self.frames

    @property
    def drawn_with_chance(self) -> int:
        """Returns how many drawn rounds hold a check whose accept probability is strictly between 0 and 1."""
        return len(self.chance_rounds)

    @property
    def chance_rounds(self) -> tuple[int, ...]:
        """Returns the drawn rounds (1-based) that hold a check chance decides (accept probability in (0, 1))."""
        return tuple(j for j, frames in enumerate(self.drawn, start=1) if any(by_chance(f) for f in frames))

    @property
    def walk_by_chance(self) -> bool:
        """Returns True when the authored round holds a check chance decides."""
        return any(by_chance(f) for f in self.frames)

    @property
    def walk_chance_check(self) -> VerifyFrame | None:
        """Returns the authored round's check the lab opens on: its rejection if chance decides it, so u shows on the
        rejecting side, else its first check chance decides; None when chance decides none of them."""
        checks = [f for f in self.frames if isinstance(f, VerifyFrame) and f.chance]
        return next((f for f in checks if f.verdict == "rejected"), checks[0] if checks else None)

    @property
    def has_chance(self) -> bool:
        """Returns True when some token the draft can propose has an accept probability strictly in (0, 1)."""
        return any(t.by_chance for rec in self.stats.records for t in rec.tokens)

    def own_peak(self, cost: CostModel) -> tuple[int, Fraction, Fraction | None]:
        """Returns, at the file's own costs (its draft step need not be a compared one), the best k (the smallest on a
        tie), its speedup, and the speedup at k + 1 (None past the end)."""
        values = speedup_curve(self.stats.alphas, cost)  # [k]
        k = best_k(values)
        return k, values[k - 1], values[k] if k < len(values) else None

    @property
    def drawn_mean(self) -> Fraction:
        """Returns the mean number of tokens the drawn rounds committed, bonus included."""
        return Fraction(sum(len(r.committed) for r in self.drawn_rounds), len(self.drawn_rounds))

    @property
    def checks(self) -> tuple[PositionCheck, ...]:
        """Returns the Monte Carlo check of every position over the whole run, bonus last."""
        return self.checkpoints[-1].checks

    @property
    def length_counts(self) -> tuple[int, ...]:
        """Returns how many rounds of the whole run committed n = 1..k+1 tokens."""
        return self.checkpoints[-1].length_counts

    @property
    def mc_rounds(self) -> int:
        """Returns the number of Monte Carlo rounds."""
        return self.checkpoints[-1].rounds


@dataclass(frozen=True)
class Explained:
    data: Dataset
    results: tuple[ProfileResult, ...]
    denom: int  # common denominator of the file's probabilities
    points: dict[str, tuple[int, int, int] | None]  # point -> (profile index, frame number, round), None if none shows it
    identity_equal: int  # positions, over all profiles, where min(p, q) + (1 - α)·residual equals p for every token
    identity_total: int  # positions checked
    chance: tuple[int, int, int] | None  # the first (profile, position, token) whose accept probability is in (0, 1)
    round_costs: tuple[tuple[Fraction, ...], ...]  # [cost][k] k·c + verify, in target passes, per compared cost c
    sequence: tuple[float, float]  # joint TV of the first tokens of texts from the context-dependent toy, and its bound
    language: LanguageRun | None = None  # the generator's model pair, counted from the prose (None: no prose given)

    @property
    def opening(self) -> int:
        """Returns the profile the player and the lab open on: the first, in file order, whose authored round holds a
        check chance decides (0 < accept < 1), else the first."""
        return next((i for i, r in enumerate(self.results) if r.walk_by_chance), 0)

    @property
    def cost_index(self) -> int | None:
        """Returns the column of the page's own draft-step cost among the compared costs, if it is one of them."""
        costs = list(self.data.cost.compare_draft_steps)
        return costs.index(self.data.cost.draft_step) if self.data.cost.draft_step in costs else None

    # How the page writes a probability: each distribution over its own group's common denominator, so the target's
    # eighths stay eighths beside a draft in sixths; what is built from p and q together is over both.
    @property
    def target_denom(self) -> int:
        """Returns the common denominator of the target's rows, the bonus row included."""
        return lcm(*(x.denominator for row in (*self.data.target, self.data.bonus_target) for x in row))

    def draft_denom(self, i: int) -> int:
        """Returns the common denominator of profile i's draft rows."""
        return lcm(*(x.denominator for row in self.data.profiles[i].draft for x in row))

    def position_denom(self, i: int) -> int:
        """Returns the denominator of values built from the target and profile i's draft: min(p, q), α, residuals."""
        return lcm(self.target_denom, self.draft_denom(i))


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
                 replacement=rep, bonus=bonus if bonus >= 0 else None,
                 rep_u=None if rep is None else float(recorded(rounds.rep_uniforms)[j]),
                 bonus_u=float(recorded(rounds.bonus_uniforms)[j]) if bonus >= 0 else None)


def recorded(draws: np.ndarray | None) -> np.ndarray:
    """Returns a batch's draws r [n], which sample_rounds records (only round_chunks leaves them out)."""
    assert draws is not None
    return draws


def checkpoint_sizes(total: int) -> tuple[int, ...]:
    """Returns 10, 30, 100, 300, ... below `total`, then `total` itself."""
    sizes, n = [], 10
    while n < total:
        sizes.append(n)
        n = n * 3 if str(n)[0] == "1" else n * 10 // 3
    return tuple(sizes) + (total,)


@functools.lru_cache(maxsize=16)  # an edit to one draft, or to the prose, reruns only what it changed
def monte_carlo_counts(target: tuple[Dist, ...], bonus: Dist, draft: tuple[Dist, ...], mc: MonteCarlo,
                       index: int) -> tuple[tuple[int, np.ndarray, np.ndarray], ...]:
    """Returns, at each checkpoint, (rounds, committed-token counts [k+1, V], tokens-per-round counts [k+1]).

    Every checkpoint counts a prefix of the same run of drawn rounds (arrays are read-only), counted by the one
    counting path `speculative check` uses too, so memory stays flat however many rounds the run has.
    """
    sizes = checkpoint_sizes(mc.rounds)
    counts = sampler.prefix_counts(floats(target), floats(draft), floats([bonus])[0], sizes,
                                   np.random.default_rng([mc.seed, index]))
    for positions, lengths in counts:
        positions.flags.writeable = lengths.flags.writeable = False
    return tuple((n, positions, lengths) for n, (positions, lengths) in zip(sizes, counts, strict=True))


def position_checks(data: Dataset, counts: np.ndarray) -> tuple[PositionCheck, ...]:
    """Returns the Monte Carlo check of every position of one profile, bonus last."""
    out = []
    for i, (row, target) in enumerate(zip(counts, list(data.target) + [data.bonus_target], strict=True), start=1):
        n = int(row.sum())
        probs = np.array([float(x) for x in target])  # [V]
        out.append(PositionCheck(position=i, target=target, counts=tuple(int(c) for c in row),
                                 tv=sampler.total_variation(row, probs),
                                 tv_bound=sampler.tv_bound(n, len(target))))
    return tuple(out)


def drawn_rounds(data: Dataset, index: int) -> tuple[Round, ...]:
    """Returns the first R rounds of profile `index` with proposals drawn from the draft: no cherry-picking."""
    rng = np.random.default_rng([data.walkthrough_seed, index, 1])
    count = data.drawn_rounds
    rounds = sampler.sample_rounds(*arrays(data, data.profiles[index]), count, rng)
    return tuple(round_of(rounds, j) for j in range(count))


def explain_profile(data: Dataset, index: int) -> ProfileResult:
    """Returns the walkthrough, drawn rounds, frames, exact statistics and Monte Carlo checks of one profile."""
    profile = data.profiles[index]
    stats = profile_stats(data, profile)
    walk = round_of(walkthrough(data, index), 0)
    drawn = drawn_rounds(data, index)
    runs = monte_carlo_counts(data.target, data.bonus_target, profile.draft, data.monte_carlo, index)
    checkpoints = tuple(Checkpoint(rounds=n, checks=position_checks(data, positions),
                                   length_counts=tuple(int(c) for c in lengths)) for n, positions, lengths in runs)
    return ProfileResult(profile=profile, stats=stats, walk=walk,
                         frames=round_frames(walk, stats.records, data.bonus_target),
                         drawn=tuple(round_frames(r, stats.records, data.bonus_target) for r in drawn),
                         drawn_rounds=drawn, checkpoints=checkpoints)


def find_points(results: tuple[ProfileResult, ...]) -> dict[str, tuple[int, int, int] | None]:
    """Returns, for each point worth noticing, the first frame that shows it as (profile index, frame number, round):
    in an authored round (round 0) if one does, else in the first drawn round (1-based) that does."""
    found: dict[str, tuple[int, int, int] | None] = {name: None for name in POINTS}
    rounds = [(i, j) for j in range(max(len(r.drawn) for r in results) + 1) for i, r in enumerate(results)
              if j <= len(r.drawn)]  # every authored round first, then drawn round 1 of each draft, ...
    for i, j in rounds:
        for frame in results[i].frames_of(j):
            for name in frame.shows:
                found[name] = found[name] or (i, frame.index, j)
    return found


@functools.lru_cache(maxsize=4)  # a rebuild after a prose-only edit reuses the last data's results
def explain(data: Dataset, corpus: tuple[str, ...] | None = None, rates: language.Rates | None = None) -> Explained:
    """Returns everything the page needs, computed before anything is written; corpus: the prose's tokens, which the
    generator's models are counted from (language.explain raises CorpusError when they are too few); rates: the
    model pair's, when a cache holds them (language.rates_of)."""
    results = tuple(explain_profile(data, i) for i in range(len(data.profiles)))
    records = [rec for r in results for rec in r.stats.records]
    equal = sum(all(t.commit == t.p for t in rec.tokens) for rec in records)
    return Explained(data=data, results=results, denom=common_denominator(data), points=find_points(results),
                     identity_equal=equal, identity_total=len(records), chance=chance_example(results),
                     round_costs=tuple(tuple(round_cost(k, data.cost, c) for k in range(1, data.k + 1))
                                       for c in data.cost.compare_draft_steps),
                     sequence=sequence_figures(),
                     language=None if corpus is None else language.explain(corpus, data.language_model, data.cost, rates))


@functools.lru_cache(maxsize=1)  # the toy and its seed are fixed, so one run serves every build
def sequence_figures() -> tuple[float, float]:
    """Returns the sequence-level check the page quotes: joint TV of the toy's first tokens, and its bound."""
    return sequence.figures()


def chance_example(results: tuple[ProfileResult, ...]) -> tuple[int, int, int] | None:
    """Returns the first (profile index, 1-based position, token) in data order that chance decides, if any."""
    for i, r in enumerate(results):
        for rec in r.stats.records:
            for y, t in enumerate(rec.tokens):
                if t.by_chance:
                    return i, rec.position, y
    return None

"""What the data file becomes: frozen dataclasses of exact fractions, which everything after the loader reads."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .lm_settings import DEFAULT as LM_DEFAULT
from .lm_settings import LanguageModel
from .roofline import DEFAULT as ROOFLINE_DEFAULT
from .roofline import Roofline

Dist = tuple[Fraction, ...]


@dataclass(frozen=True)
class Profile:
    id: str
    name: str
    proposals: tuple[int, ...]  # [k] vocabulary indices
    draft: tuple[Dist, ...]  # [k][V]


@dataclass(frozen=True)
class CostModel:
    draft_step: Fraction  # cost of one draft step, in target passes
    verify_round: Fraction  # cost of verifying all k positions at once, in target passes
    compare_draft_steps: tuple[Fraction, ...]
    verify_costs: tuple[Fraction, ...] = (Fraction(0),)  # cost of verifying one drafted position, in target passes


@dataclass(frozen=True)
class MonteCarlo:
    rounds: int
    seed: int


@dataclass(frozen=True)
class Dataset:
    vocabulary: tuple[str, ...]
    target: tuple[Dist, ...]  # [k][V]
    bonus_target: Dist  # [V]
    profiles: tuple[Profile, ...]
    walkthrough_seed: int
    drawn_rounds: int  # how many rounds with proposals drawn from the draft the player offers, per profile
    cost: CostModel
    monte_carlo: MonteCarlo
    language_model: LanguageModel = LM_DEFAULT  # the generator's settings
    roofline: Roofline = ROOFLINE_DEFAULT  # the hardware and model pairs of "What one pass costs"

    @property
    def k(self) -> int:
        """Returns the number of positions a round proposes."""
        return len(self.target)


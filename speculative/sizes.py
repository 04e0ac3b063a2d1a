"""How much the checks and the generator's expected-tokens run draw: the one home of these counts.

The standard library only (no numpy), so the command line states the check's defaults in --help, and the page's
generator figure states its own, without loading the modules that run them (checks, lm_checks, language)."""

from __future__ import annotations

ROUNDS = 6_400_000  # rounds per shipped profile in the check: its least-reached position gets enough for DETECTABLE_TV
SEQUENCE_TEXTS = 1_000_000  # texts for the sequence check
CONTEXTS = 20  # the generator pair's check: the most frequent contexts of the prose it starts from
REPEATS = 400  # ... generations from each context, per check, in `speculative check --model` (its --generations)
KS = (1, 2)  # ... tokens drafted per round: the bonus is the second token at k = 1, a dropped proposal's place at k = 2
PROFILE_ROUNDS = 600  # rounds the build runs per draft and temperature for the expected tokens per round
PROFILE_K = 8  # ... each drafting this many tokens, the most the generator figure offers

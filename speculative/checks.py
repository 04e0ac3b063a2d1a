"""The statistical checks of the sampler, and the one home of the suite's constants (its sizes are sizes.py's).

The tests, `python -m speculative check` and the page all read the constants below. Every check compares
what the sampler drew with exact probabilities: a chi-square p-value (scipy, imported only when a p-value
is asked for, so the build never loads it) and the total-variation distance against its bound.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np

from . import sampler, trees, variants
from .rules import BY_ID

# SEED: the suite's seed, shared with the page's sequence run; the correct sampler must also pass at SEED + 1 ...
from .sequence import LENGTH as SEQUENCE_LENGTH  # noqa: F401
from .sequence import PAGE_TEXTS as PAGE_SEQUENCE_TEXTS  # noqa: F401
from .sequence import SEED, TOY, Chain, chain_probs, text_counts  # noqa: F401  (the toy the sequence checks use)
from .sizes import ROUNDS, SEQUENCE_TEXTS  # noqa: F401  (the suite reads them here too)
from .stats import tokens_distribution

P_MIN = 1e-6  # a check fails when its chi-square p-value is below this
DETECTABLE_TV = 0.005  # the smallest error, in total variation at one position, the suite must catch
POWER = 0.95  # ... with this probability at every position of the shipped profiles
POWER_TRIALS = 400  # draws of the least-reached position's counts on which the power test measures its catch rate
QUIET_SEEDS = 3  # seeds from SEED on at which the correct sampler must pass every check of the shipped profiles
RANDOM_PROFILES = 12
RANDOM_TOKENS = (2, 300)  # both ends included, so int8 and int32 token paths both run
RANDOM_POSITIONS = (1, 12)
RANDOM_ROUNDS = 500_000
RANDOM_MIN_OVERLAP = 5 / 8  # the draft keeps at least this share of the target, so position 12 is reached
IDENTITY_PAIRS = 5000  # random exact pairs on which min(p, q) + (1 - alpha) * residual = p is checked
MIN_EXPECTED = 5  # chi-square cells expected fewer times than this are pooled
TREE_WIDTHS = (2, 3)  # candidates per position the tree rows of the check command draw
TREE_SHARE = 64  # ... each row drawing the check's rounds / TREE_SHARE positions (100,000 at the default size)



def rejected_token(rounds: sampler.Rounds) -> np.ndarray:
    """Returns [n] the rejected proposal of each round that had one, else its last committed token."""
    n = rounds.committed_pm.shape[1]
    rejected = ~rounds.passed_pm[rounds.n_checked - 1, np.arange(n)]  # [n]
    return np.where(rejected, rounds.proposals_pm[rounds.n_checked - 1, np.arange(n)], sampler.last_committed(rounds))


def proposed(proposal: np.ndarray, target_draw: np.ndarray) -> np.ndarray:
    """Returns the proposal x: what an exact match that keeps x on a mismatch commits."""
    return proposal  # [m]


def keeps_proposal(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Returns p itself as the residual: a one-hot draft's replacement that can be the rejected x again."""
    return np.broadcast_to(p, np.broadcast_shapes(p.shape, q.shape))  # [..., V]


@dataclass(frozen=True)
class ShuffledTexts(sampler.Rule):
    """The rule, whose texts then have each position's tokens dealt out to the texts in a shuffled order.

    Every position then holds exactly the tokens the right sampler wrote, so each position's marginal is right,
    but a text's tokens no longer come from one text: only a check of the joint distribution can see it.
    """


R = sampler.RULE
GREEDY, EXACT = BY_ID["greedy-draft"].sampling, BY_ID["exact-match"].sampling
# The greedy-draft and exact-match rules, each broken; each must fail both the per-position and the sequence checks.
# Kept out of BROKEN and SEQUENCE_BROKEN while the page's colophon, which lists those, does not explain the rules.
RULE_BROKEN: dict[str, sampler.Rule] = {
    "exact match that keeps x on a mismatch": replace(EXACT, on_mismatch=proposed),
    "greedy draft verified with the sampled q": replace(GREEDY, verify_dist=sampler.draft_dist),
    "one-hot residual that keeps x": replace(GREEDY, residual=keeps_proposal),
}
GREEDY_PROPOSALS = variants.BY_ID["greedy"]
BROKEN: dict[str, sampler.Rule] = {  # each must fail the per-position and tokens-per-round checks
    **{v.name: v.rule for v in variants.BROKEN},  # the mistakes the page's lab lets a reader switch on
    "no drop after a rejection": replace(R, drop_after_reject=False),
    "bonus drawn from the draft": replace(R, bonus_dist=lambda bonus, draft: draft[-1]),
}
SEQUENCE_BROKEN: dict[str, sampler.Rule] = {  # each must fail the sequence check
    "no drop after a rejection": replace(R, drop_after_reject=False),
    "residual given the rejected token": replace(R, residual_given=sampler.at),
    "next round continued from the rejected token": replace(R, next_context=rejected_token),
    "bonus drawn after the second-to-last token, not the last": replace(R, bonus_given=sampler.before),
    GREEDY_PROPOSALS.name: GREEDY_PROPOSALS.rule,
    "tokens shuffled between texts at each position": ShuffledTexts(),  # every marginal exactly right
}
HARMLESS: dict[str, sampler.Rule] = {"accepting when u equals the accept probability too": replace(R, accepts=np.less_equal)}


@dataclass(frozen=True)
class Check:
    """One check's outcome: its name, sample size, chi-square p-value, TV distance and that distance's bound."""

    name: str
    n: int
    p_value: float
    tv: float
    bound: float
    problem: str | None  # why it failed, or None

    @property
    def ok(self) -> bool:
        """Returns whether the check passed."""
        return self.problem is None


def pooled(counts: np.ndarray, expected: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Returns counts and expected counts with every cell expected fewer than MIN_EXPECTED times merged into one."""
    small = expected < MIN_EXPECTED  # [C]
    if not small.any():
        return counts, expected
    c = np.append(counts[~small], counts[small].sum())  # [C']
    e = np.append(expected[~small], expected[small].sum())
    if e[-1] < MIN_EXPECTED and len(e) > 1:  # still too small: fold it into the smallest of the rest
        j = int(np.argmin(e[:-1]))
        c[j], e[j] = c[j] + c[-1], e[j] + e[-1]
        c, e = c[:-1], e[:-1]
    return c, e


def p_value(counts: np.ndarray, probs: np.ndarray) -> float:
    """Returns the chi-square p-value of counts [C] drawn from probs [C]; 0 when a probability-0 cell was drawn."""
    from scipy.stats import chi2  # lazily: the build never needs it

    if ((probs == 0) & (counts > 0)).any():
        return 0.0
    live = probs > 0
    c, e = pooled(counts[live], probs[live] / probs[live].sum() * counts.sum())
    if len(c) < 2:
        return 1.0
    return float(chi2.sf(((c - e) ** 2 / e).sum(), len(c) - 1))


def check(name: str, counts: np.ndarray, probs: np.ndarray) -> Check:
    """Returns the check of counts against exact probs: failed when unreached, improbable, or past the TV bound."""
    n = int(counts.sum())
    if n == 0:
        return Check(name, 0, float("nan"), float("nan"), float("nan"), f"{name}: no round reached it")
    pv, tv, bound = p_value(counts, probs), sampler.total_variation(counts, probs), sampler.tv_bound(n, len(probs))
    return judged(name, n, pv, tv, bound)


def judged(name: str, n: int, pv: float, tv: float, bound: float) -> Check:
    """Returns the check with its verdict: failed when the p-value is below P_MIN or the TV is past its bound."""
    problem = (f"{name}: chi-square p = {pv:.2e} < {P_MIN:g}" if pv < P_MIN else
               f"{name}: TV {tv:.4f} above its bound {bound:.4f}" if tv > bound else None)
    return Check(name, n, pv, tv, bound, problem)


def profile_checks(target: np.ndarray, draft: np.ndarray, bonus: np.ndarray, rounds: int, rng: np.random.Generator,
                   rule: sampler.Rule = sampler.RULE, name: str = "",
                   progress: Callable[[int], None] | None = None) -> list[Check]:
    """Returns one check per position, bonus included, and one of the tokens-per-round histogram.

    A position the rule reaches with chance exactly 0 (an acceptance of 0 before it), or so rarely that no round
    reaching it is likely (at least P_MIN) in `rounds`, has nothing to compare: it passes while no round reaches it,
    and the histogram fails should one get there more often than its exact chance allows.
    """
    [(positions, lengths)] = sampler.prefix_counts(target, draft, bonus, (rounds,), rng, rule, progress)
    targets = np.vstack([target, bonus[None]])  # [k+1, V]
    dist = tokens_dist(target, draft, rule)  # [k+1] P(N = n)
    reach = [1 - sum(dist[:i]) for i in range(len(dist))]  # [k+1] the chance a round gets to each position
    names = [f"{name} position {i + 1}".strip() for i in range(len(targets))]
    out = [check(n, c, p) if c.any() or (1 - float(r)) ** rounds < P_MIN else unreachable(n)
           for n, c, p, r in zip(names, positions, targets, reach, strict=True)]
    return out + [check(f"{name} tokens per round".strip(), lengths, np.array([float(x) for x in dist]))]


def tree_checks(target: np.ndarray, draft: np.ndarray, draws: int, rng: np.random.Generator, name: str = "",
                specs: tuple[trees.Spec, ...] = trees.SPECS) -> list[Check]:
    """Returns one check per position, width in TREE_WIDTHS and way of drawing the candidates: `draws` positions
    verified with m candidates (trees.sample), their committed tokens against the target's own p."""
    return [check(f"{name} m={m} {spec.id} pos {i + 1}".strip(),
                  np.bincount(trees.sample(p, q, m, draws, rng, spec), minlength=len(p)), p)
            for m in TREE_WIDTHS for spec in specs for i, (p, q) in enumerate(zip(target, draft, strict=True))]


def tokens_dist(target: np.ndarray, draft: np.ndarray, rule: sampler.Rule = sampler.RULE) -> tuple[Fraction, ...]:
    """Returns [k+1] P(N = n), tokens per round, under rule, from the exact value of each float acceptance."""
    return tokens_distribution([Fraction(float(a)) for a in rule.acceptance(target, draft)])


def unreachable(name: str) -> Check:
    """Returns the passed check of a position the rule never or too rarely reaches to check, which no round reached."""
    return Check(name, 0, float("nan"), float("nan"), float("nan"), None)


def draw_texts(chain: Chain, texts: int, length: int, rng: np.random.Generator, rule: sampler.Rule) -> np.ndarray:
    """Returns [n, length] the first tokens of texts the rule wrote (for ShuffledTexts, each column then shuffled)."""
    drawn = sampler.sample_texts(*chain.tables(), texts, length, rng, chain.start, rule)  # [n, L]
    return rng.permuted(drawn, axis=0) if isinstance(rule, ShuffledTexts) else drawn  # each column on its own


def sequence_check(chain: Chain, texts: int, rng: np.random.Generator, rule: sampler.Rule = sampler.RULE,
                   length: int = SEQUENCE_LENGTH) -> Check:
    """Returns the check of the first `length` tokens of drawn texts against the exact chain, over all V**L cells."""
    counts = text_counts(draw_texts(chain, texts, length, rng, rule), len(chain.vocabulary))
    return check(f"first {length} tokens of {texts:,} texts", counts, chain_probs(chain, length).ravel())


def chain_marginals(chain: Chain, length: int) -> np.ndarray:
    """Returns [length, V] the exact distribution of each of the toy's first tokens on its own: p(x_t)."""
    rows = [chain.target[chain.start]]  # [V] p(x1)
    for _ in range(length - 1):
        rows.append(rows[-1] @ chain.target)  # p(x_t+1) = sum over x_t of p(x_t) p(x_t+1 | x_t)
    return np.array(rows)


def marginal_checks(chain: Chain, texts: int, rng: np.random.Generator, rule: sampler.Rule = sampler.RULE,
                    length: int = SEQUENCE_LENGTH) -> list[Check]:
    """Returns one check per text position of the first `length` tokens, each against its own marginal alone."""
    drawn = draw_texts(chain, texts, length, rng, rule)  # [n, L]
    size = len(chain.vocabulary)
    return [check(f"token {t + 1} of {texts:,} texts", np.bincount(drawn[:, t], minlength=size), probs)
            for t, probs in enumerate(chain_marginals(chain, length))]


def random_profile(rng: np.random.Generator, size: int, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Returns target [k, V], draft [k, V] and bonus [V] with some zeros and every overlap >= RANDOM_MIN_OVERLAP."""
    def dist(rows: int) -> np.ndarray:
        w = rng.dirichlet(np.full(size, 0.7), rows) * (rng.random((rows, size)) > 0.2)  # [rows, V] some zeros
        w[w.sum(-1) == 0, 0] = 1
        return w / w.sum(-1, keepdims=True)

    target = dist(k)  # [k, V]
    share = RANDOM_MIN_OVERLAP + (1 - RANDOM_MIN_OVERLAP) * rng.random((k, 1))  # [k, 1] min(p, q) >= share * p
    return target, share * target + (1 - share) * dist(k), dist(1)[0]


def random_profiles(seed: int = SEED) -> Iterator[tuple[str, np.ndarray, np.ndarray, np.ndarray]]:
    """Yields (name, target, draft, bonus): RANDOM_PROFILES profiles whose sizes include both ends of each range."""
    rng = np.random.default_rng(seed)
    (v0, v1), (k0, k1) = RANDOM_TOKENS, RANDOM_POSITIONS
    sizes = [v0, v1, 200] + [int(x) for x in np.exp(rng.uniform(np.log(v0), np.log(v1), RANDOM_PROFILES - 3)).round()]
    positions = [k1, k0, 3] + [int(x) for x in rng.integers(k0, k1 + 1, RANDOM_PROFILES - 3)]
    for j, (size, k) in enumerate(zip(sizes, positions, strict=True)):
        yield (f"random-{j} ({size} tokens, {k} positions)", *random_profile(rng, size, k))


# The noncentrality detectable_tv solves for at P_MIN and POWER, by degrees of freedom 1 to 9 (2 to 10 tokens), so
# the build can tell whether the check keeps its power without importing scipy; a test solves them again.
NONCENTRALITY = (42.7257, 46.4808, 49.3045, 51.6791, 53.7735, 55.6705, 57.4183, 59.0481, 60.5814)


def detectable_tv_tabled(n: int, categories: int) -> float:
    """Returns detectable_tv(n, categories) at P_MIN and POWER from NONCENTRALITY (2 to 10 categories)."""
    return float(np.sqrt(NONCENTRALITY[categories - 2] / (4 * n)))


def detectable_tv(n: int, categories: int, p_min: float = P_MIN, power: float = POWER) -> float:
    """Returns the smallest TV error at a position reached n times that the chi-square check catches with `power`.

    The hardest error of a given TV to see moves mass d = tv * (p/P(A) - p/P(B)) between two halves A, B of
    the tokens; its chi-square noncentrality is n * tv^2 * (1/P(A) + 1/P(B)) >= 4 n tv^2.
    """
    from scipy.optimize import brentq
    from scipy.stats import chi2, ncx2

    critical = chi2.isf(p_min, categories - 1)
    lam = brentq(lambda x: ncx2.sf(critical, categories - 1, x) - power, 1e-9, 1e6)
    return float(np.sqrt(lam / (4 * n)))


def plant(probs: np.ndarray, tv: float) -> np.ndarray:
    """Returns probs [V] moved by exactly `tv` in total variation, in the shape a chi-square sees least."""
    order = np.argsort(-probs)  # fill half A greedily from the most likely token down
    half = np.zeros(len(probs), bool)
    for y in order:
        if probs[half].sum() + probs[y] / 2 <= 0.5 + 1e-12:
            half[y] = True
    a, b = probs[half].sum(), probs[~half].sum()
    return probs + tv * np.where(half, probs / a, -probs / b)  # [V]


def problems(checks: list[Check]) -> list[str]:
    """Returns the reason of every failed check."""
    return [c.problem for c in checks if c.problem]


def planted(tv: float) -> sampler.Rule:
    """Returns the rule with an error of exactly `tv` planted at the bonus position, the one fewest rounds reach."""
    return replace(sampler.RULE, bonus_dist=lambda bonus, draft: plant(bonus, tv))


def catch_rate(target: np.ndarray, draft: np.ndarray, bonus: np.ndarray, tv: float, rng: np.random.Generator,
               rounds: int = ROUNDS, trials: int = POWER_TRIALS) -> float:
    """Returns the share of `trials` at which the check of the bonus position, the one fewest rounds reach, catches
    an error of `tv` planted there (0: the share of false alarms).

    Each trial draws what `rounds` rounds of the right rule give that check, without drawing the rounds: the number
    of rounds that reach it, Binomial(rounds, alpha1...alphak), then their bonus tokens from the planted
    distribution. A test shows, once, that the sampler hands a planted error to this check (`caught`).
    """
    reach = float(tokens_dist(target, draft)[-1])  # P(N = k + 1): every proposal accepted
    drawn = plant(bonus, tv) if tv else bonus
    hits = [check("bonus", rng.multinomial(rng.binomial(rounds, reach), drawn), bonus).problem is not None
            for _ in range(trials)]
    return float(np.mean(hits))


def caught(profiles: list[tuple[str, np.ndarray, np.ndarray, np.ndarray]], rule: sampler.Rule, seed: int,
           rounds: int = ROUNDS) -> list[bool]:
    """Returns, per profile, whether its checks at `rounds` found a problem with the given rule and seed."""
    rng = np.random.default_rng(seed)
    return [bool(problems(profile_checks(t, d, b, rounds, rng, rule, name))) for name, t, d, b in profiles]

"""The guarantee at the generator's scale: speculative generation with the n-gram pair commits the next token, and
the next two, exactly as the target's own one-at-a-time generation does, from the prose's most frequent contexts.

Each check runs `repeats` generations from each of CONTEXTS contexts and compares the first two committed tokens
with p(t1 | c) p(t2 | c, t1): one chi-square over every context's cells (each context's cells expected fewer than
checks.MIN_EXPECTED times pooled), and the total variation of the pooled cells against its bound. k = 1 puts the
bonus in the second token; k = 2 puts a rejection's dropped proposal there. The tree rows (tree_language_checks) check
generate.tree_round the same way, with TREE_MS candidates per position drawn with and without replacement."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from . import checks, generate, sampler, trees
from .language import LanguageRun
from .rules import sampling_rules
from .sizes import CONTEXTS, KS, REPEATS


@dataclass(frozen=True)
class Pair:
    """The first two tokens of `n` generations from one context, and their exact distribution."""

    counts: np.ndarray  # [C] observed cells (t1, t2), pooled
    expected: np.ndarray  # [C] probabilities of those cells


def first_two(p: generate.Rows, q: generate.Rows, context: tuple[int, ...], k: int, u: Iterator[float],
              rule: sampler.Rule) -> tuple[int, int]:
    """Returns the first two tokens speculative generation commits after `context` (a second round if need be)."""
    r = generate.one_round(p, q, context, k, u, rule)
    if len(r.committed) >= 2:
        return r.committed[0], r.committed[1]
    second = generate.one_round(p, q, (*context[1:], r.committed[0]), k, u, rule)
    return r.committed[0], second.committed[0]


def exact_pairs(p: generate.Rows, context: tuple[int, ...]) -> np.ndarray:
    """Returns [V, V] p(t1 | context) p(t2 | context, t1): the target's own next two tokens."""
    first = p(context)  # [V]
    return first[:, None] * np.array([p((*context[1:], t)) for t in range(len(first))])  # [V, V]


def pooled_pair(drawn: list[tuple[int, int]], probs: np.ndarray) -> Pair:
    """Returns one context's cells: drawn pairs counted, cells expected fewer than MIN_EXPECTED times merged
    (checks.pooled, as every other check pools)."""
    n, flat = len(drawn), probs.ravel()  # [V*V]
    # The same cells as checks.pooled(counts over every cell, flat * n), without its passes over V*V counts: only
    # the cells expected MIN_EXPECTED times or more are counted one by one, and the rest join as one cell.
    big = np.flatnonzero(flat * n >= checks.MIN_EXPECTED)  # [B] sorted
    cells = np.array([a * probs.shape[1] + b for a, b in drawn], dtype=np.int64)  # [n]
    at = np.minimum(np.searchsorted(big, cells), max(len(big) - 1, 0))  # [n]
    hit = at[big[at] == cells] if len(big) else at[:0]
    counts, expected = np.bincount(hit, minlength=len(big)), flat[big] * n
    if len(big) < flat.size:
        counts = np.append(counts, n - counts.sum())
        expected = np.append(expected, (flat.sum() - flat[big].sum()) * n)
    c, e = checks.pooled(counts, expected)
    return Pair(counts=c, expected=e / n)


def pair_check(name: str, pairs: list[Pair]) -> checks.Check:
    """Returns one check over several contexts' cells: chi-square with one degree of freedom lost per context."""
    from scipy.stats import chi2

    n = int(sum(x.counts.sum() for x in pairs))
    stat, dof = 0.0, 0
    for x in pairs:
        m, live = x.counts.sum(), x.expected > 0
        if (x.counts[~live] > 0).any():
            stat = float("inf")
        e = x.expected[live] * m
        stat += float(((x.counts[live] - e) ** 2 / e).sum())
        dof += int(live.sum()) - 1
    pv = float(chi2.sf(stat, max(dof, 1)))
    counts = np.concatenate([x.counts for x in pairs])
    probs = np.concatenate([x.expected * x.counts.sum() / n for x in pairs])
    tv, bound = sampler.total_variation(counts, probs), sampler.tv_bound(n, len(counts))
    return checks.judged(name, n, pv, tv, bound)


def targets(run: LanguageRun, contexts: int = CONTEXTS) -> dict[tuple[int, ...], np.ndarray]:
    """Returns each top context's exact next two tokens [V, V], for every check to share."""
    p = generate.rows(run.target, 1.0)
    return {c: exact_pairs(p, c) for c in run.top_contexts[:contexts]}


def language_check(run: LanguageRun, draft: int, k: int, rule: sampler.Rule, repeats: int, seed: int,
                   exact: dict[tuple[int, ...], np.ndarray], name: str = "") -> checks.Check:
    """Returns the check of one draft, k and rule: `repeats` generations from each context of `exact`."""
    p, q = generate.rows(run.target, 1.0), generate.rows(run.drafts[draft], 1.0)
    u = generate.uniforms(seed)
    return pair_check(name, [pooled_pair([first_two(p, q, c, k, u, rule) for _ in range(repeats)], probs)
                             for c, probs in exact.items()])


def language_checks(run: LanguageRun, repeats: int = REPEATS, seed: int = checks.SEED,
                    rules: dict[str, sampler.Rule] | None = None,
                    progress: Callable[[int], None] | None = None) -> list[checks.Check]:
    """Returns one check per draft, rule and k: every draft (the target itself last) under each verification rule."""
    out: list[checks.Check] = []
    exact = targets(run)
    names = [f"{m}-gram" for m in run.settings.draft_orders] + ["target"]
    for i, draft in enumerate(names):
        for rule_name, rule in (rules or sampling_rules()).items():
            for k in KS:
                out.append(language_check(run, i, k, rule, repeats, seed + len(out), exact,
                                          name=f"lm {draft} {rule_name} k={k}"))
                if progress:
                    progress(1)
    return out


# --- several candidates per position (speculative trees): generate.tree_round's rows ------------------------------

TREE_MS = (2, 3)  # the candidates per position the tree rows check, each with and without replacement


def tree_first_two(p: generate.Rows, q: generate.Rows, context: tuple[int, ...], k: int, m: int, spec: trees.Spec,
                   u: Iterator[float]) -> tuple[int, int]:
    """Returns the first two tokens tree rounds of depth k and width m commit after `context` (a second round if need
    be); `spec` is trees.WITH or WITHOUT, or a broken way (not typical acceptance)."""
    broken = None if spec in trees.SPECS else spec
    r = generate.tree_round(p, q, context, k, m, spec.replace, u, broken)
    if len(r.committed) >= 2:
        return r.committed[0], r.committed[1]
    return r.committed[0], generate.tree_round(p, q, (*context[1:], r.committed[0]), k, m, spec.replace, u, broken).committed[0]


def tree_check(run: LanguageRun, draft: int, k: int, m: int, spec: trees.Spec, repeats: int, seed: int,
               exact: dict[tuple[int, ...], np.ndarray], name: str = "") -> checks.Check:
    """Returns the check of one draft, k, width and way: `repeats` tree generations from each context of `exact`."""
    p, q = generate.rows(run.target, 1.0), generate.rows(run.drafts[draft], 1.0)
    u = generate.uniforms(seed)
    return pair_check(name, [pooled_pair([tree_first_two(p, q, c, k, m, spec, u) for _ in range(repeats)], probs)
                             for c, probs in exact.items()])


def tree_language_checks(run: LanguageRun, repeats: int = REPEATS, seed: int = checks.SEED,
                         progress: Callable[[int], None] | None = None) -> list[checks.Check]:
    """Returns one check per k, width (TREE_MS) and way (with and without replacement) with the page's default draft."""
    out: list[checks.Check] = []
    exact, draft = targets(run), run.draft_index(run.settings.default_draft)
    for k, m, spec in itertools.product(KS, TREE_MS, trees.SPECS):
        out.append(tree_check(run, draft, k, m, spec, repeats, seed + 1000 + len(out), exact,
                              name=f"lm-tree {run.settings.default_draft}-gram m={m} {spec.id} k={k}"))
        if progress:
            progress(1)
    return out

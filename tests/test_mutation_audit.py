"""Fast tests for the gaps a second mutation audit found (sampler, trees, generator, roofline and their script twins):
each test's docstring names the mutation it was seen to kill, in a copy of the tree, and it passes on the tree as it is.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from speculative import generate, limits, roofline, sampler, trees

from .conftest import random_dist
from .test_mutants import needs_node, run_js

# --- sampler.Rounds.accept_probs with a previous-token axis -----------------------------------------------------

def test_accept_probs_read_each_proposal_given_its_own_previous_token_the_start_first():
    """Rounds.accept_probs is min(1, p/q) of each proposal given the token before it: the round's start at position 1,
    the proposal before it after that. Mutation killed: `np.vstack([self.starts[None], ...])` ->
    `np.vstack([self.proposals_pm[:1], ...])` (position 1 read given its own proposal)."""
    rng = np.random.default_rng(11)
    k, size, n = 3, 4, 2000
    target, draft = rng.dirichlet(np.ones(size), (k, size)), rng.dirichlet(np.ones(size), (k, size))  # [k, V, V]
    bonus = rng.dirichlet(np.ones(size), size)  # [V, V]
    start = rng.integers(size, size=n)
    r = sampler.sample_rounds(target, draft, bonus, n, np.random.default_rng(12), start=start)
    previous = np.column_stack([start, r.proposals[:, :-1]])  # [n, k]
    want = np.array([[min(1.0, target[i, previous[j, i], x] / draft[i, previous[j, i], x])
                      for i, x in enumerate(r.proposals[j])] for j in range(n)])
    assert np.allclose(r.accept_probs, want, rtol=0, atol=1e-12)


# --- trees.sample_kept once q is used up without replacement -----------------------------------------------------

@pytest.mark.parametrize("seed", range(4))
def test_without_replacement_a_used_up_draft_leaves_the_token_to_r_and_keeps_no_candidate(seed):
    """Drawn without replacement, a draft with fewer tokens than candidates runs out: no later candidate is drafted,
    none is kept, and the token comes from what is left of the target, so the sampler keeps one as often as
    trees.position's exact A says and commits p. Mutation killed: in trees.sample_kept, the line
    `live &= qj.sum(1) > 0` removed (a candidate then drawn from an empty row and checked)."""
    rng = np.random.default_rng(seed)
    size, n = 5, 40_000
    p = random_dist(rng, size, zeros=False)
    support = sorted(rng.choice(size, int(rng.integers(1, 3)), replace=False).tolist())  # one or two tokens
    q = tuple(Fraction(1, len(support)) if y in support else Fraction(0) for y in range(size))
    for m in range(len(support) + 1, trees.MAX_CANDIDATES + 1):
        exact = trees.position(p, q, m, trees.WITHOUT)
        tokens, kept = trees.sample_kept(np.array(p, float), np.array(q, float), m, n, np.random.default_rng(seed + 100),
                                         trees.WITHOUT)
        assert abs(kept.mean() - float(exact.acceptance)) < 0.02, (m, kept.mean(), exact.acceptance)
        counts = np.bincount(tokens, minlength=size)
        assert sampler.total_variation(counts, np.array(p, float)) < sampler.tv_bound(n, size), m


# --- generate.race and generate.tree_race stop as soon as the goal is reached -------------------------------------

def race_and_goal(run, tree: bool):
    """Returns (a race's rounds to a goal that a round boundary of a longer race lands on exactly, that goal)."""
    p, q = generate.rows(run.target, 1.0), generate.rows(run.drafts[0], 1.0)
    k = run.settings.k

    def race(goal: int):
        if tree:
            return generate.tree_race(p, q, run.prompt, k, 2, False, generate.mulberry32(7), goal)
        return generate.race(p, q, run.prompt, k, generate.mulberry32(7), goal)
    long = race(60)
    written = list(itertools.accumulate(len(r.committed) for r in long))
    return race, written


@pytest.mark.parametrize("tree", [False, True], ids=["chain", "tree"])
def test_a_race_whose_rounds_land_exactly_on_the_goal_stops_there(explained, tree):
    """A race runs rounds until they have committed at least `goal` tokens, so a round that ends exactly at the goal
    is its last; the page's seeded race seldom lands there, so the boundary is set here at each round's end of a
    longer race. Mutation killed: in generate.race, `while len(text) - width < goal` -> `<= goal`."""
    race, written = race_and_goal(explained.language, tree)
    for i, goal in enumerate(written[:8], start=1):
        got = race(goal)
        assert len(got) == i and sum(len(r.committed) for r in got) == goal, (goal, len(got))


# --- the lab's tally of several candidates (lab_trees.js's drawTree) ----------------------------------------------

TREE_TALLY_JS = """return data.cases.map(([p, q, m, way]) => {
  const d = drawTree(treeSetup(p, q, m, way, data.typical), data.n, shared.uniformSource(data.seed));
  return [d.acc, d.rep];
});"""


@needs_node
def test_the_labs_tree_tally_draws_the_last_token_with_a_fresh_uniform_and_commits_p(tmp_path):
    """The lab's tally of m candidates per position (drawTree) reads 2m + 1 uniforms a run: one to draw each candidate,
    one to check it, and a fresh one for the token drawn from what is left of the target after every rejection, so
    both correct ways commit p and keep a candidate as often as trees.position says. Here the draft covers one token
    and the target spreads over the rest, where a reused uniform (already known to have failed its check) skews the
    last draw. Mutation killed: in treeDraw, `u[i + 2 * c.m]` -> `u[i + 2 * c.m - 1]` (the last check's u reused)."""
    rng = np.random.default_rng(21)
    n, cases = 20_000, []
    for spec, m in itertools.product(trees.SPECS, (1, 2)):
        size = 4
        p = random_dist(rng, size, zeros=False)
        q = tuple(Fraction(int(y == 0)) for y in range(size))  # one token: every rejection leaves r spread
        cases.append((p, q, m, spec))
    payload = {"n": n, "seed": 5, "typical": list(trees.TYPICAL),
               "cases": [([float(a) for a in p], [float(b) for b in q], m,
                          {"replace": s.replace, "against_p": s.against_p, "plain_q": s.plain_q, "typical": s.typical})
                         for p, q, m, s in cases]}
    got = run_js(tmp_path, ("core.js", "variants.js", "lab_trees.js"), TREE_TALLY_JS, payload)
    for (p, q, m, spec), (acc, rep) in zip(cases, got, strict=True):
        exact = trees.position(p, q, m, spec)
        counts = np.array(acc) + np.array(rep)
        assert abs(sum(acc) / n - float(exact.acceptance)) < 0.02, (spec.id, m)
        assert sampler.total_variation(counts, np.array(exact.committed, float)) < sampler.tv_bound(n, len(p)), (spec.id, m)


# --- roofline.stops_paying where the speedup is exactly 1 ------------------------------------------------------------

def test_where_the_speedup_is_exactly_one_the_stop_is_the_first_batch_below_one():
    """stops_paying is the smallest batch whose speedup is below 1. At E = 1 + k·c the speedup is exactly 1 at every
    batch of the flat part, which is not below 1, so the stop lies past it, one batch past the closed form's n*.
    Mutations killed: in roofline.stops_paying, `speedup(...) < 1` -> `<= 1` (the stop then 1); in roofline.crossing,
    `expected < 1 + k·c` -> `<=` (no n* where the stop is finite)."""
    b = Fraction(2)
    for hw, pair, k in itertools.product(roofline.DEFAULT.hardware, roofline.DEFAULT.pairs, (1, 3, 5)):
        e = 1 + k * pair.ratio
        assert roofline.speedup(e, pair, hw, b, 1, k) == 1
        stop = roofline.stops_paying(e, pair, hw, b, k)
        assert stop is not None and stop > 1
        assert roofline.speedup(e, pair, hw, b, stop, k) < 1 <= roofline.speedup(e, pair, hw, b, stop - 1, k)
        n_star = roofline.crossing(e, k, pair.ratio, roofline.knee(hw, b))  # T*/(k + 1): where the flat part ends
        assert n_star is not None and stop == math.floor(n_star) + 1, (hw.name, pair.name, k, n_star, stop)


# --- the lab's own position, started from a shipped position that is not in eighths ---------------------------------

OWN_START_JS = """return data.sizes.map(size => {
  const pos = { target: Array(size).fill('0'), draft: Array(size).fill('1/' + size) };
  pos.target[0] = '1/3'; pos.target[1] = '2/3';  // thirds: never whole eighths
  const own = ownStart(pos, size);
  return [own.p, own.q];
});"""


@needs_node
def test_the_labs_own_position_starts_from_eight_eighths_spread_evenly_when_the_shipped_one_is_not_in_eighths(tmp_path):
    """A data file whose position is not in whole eighths (a target in 24ths, say) gives the reader's own position an
    even spread instead: each of p and q eight eighths, no two tokens more than one eighth apart, the extra eighths
    to p's first tokens and q's last. The shipped file is in eighths, so the page never takes this path on it.
    Mutation killed: in lab.js's spread, `y < 8 % size` -> `y <= 8 % size` (nine eighths)."""
    sizes = list(range(3, limits.MAX_TOKENS + 1))
    got = run_js(tmp_path, ("core.js", "variants.js", "eighths.js", "tally.js", "lab.js"), OWN_START_JS, {"sizes": sizes})
    for size, (p, q) in zip(sizes, got, strict=True):
        assert len(p) == len(q) == size and sum(p) == sum(q) == 8, (size, p, q)
        assert max(p) - min(p) <= 1 and p == sorted(p, reverse=True) and q == p[::-1], (size, p, q)

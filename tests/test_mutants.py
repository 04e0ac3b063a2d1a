"""Fast tests for the behaviours a 45-mutant audit of the sampler, the generator and their script twins found guarded
only by slow tests, the browser, a golden draw-for-draw hash, or nothing (issue "A lighter build", item 6).

Each test's docstring names the mutation it was seen to kill: the product file was edited by hand, the test run and
seen to fail, and the edit undone (in a copy of the tree). The script twins run in Node (templates/js joined as the
page joins them); those tests skip where `node` is not on PATH, and their behaviours are then guarded only as before.

Part 8 holds the gaps a second audit found (65 mutants of the sampler, the trees, the generator, the roofline and
their script twins), in the same way.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
from collections import Counter
from fractions import Fraction
from math import floor, prod

import numpy as np
import pytest

from speculative import generate, language, limits, ngram, roofline, rules, sampler, trees, variants
from speculative.figures.generator import probability

from .conftest import random_dist, script_source
from .test_rules import outcomes

NODE = shutil.which("node")
NO_NODE = ("node is not on PATH: these tests run the page's script functions in Node, outside a browser (Debian: "
           "apt-get install nodejs; scripts/test.sh installs it with npm as root)")
# Skipped without Node on a developer's machine; under CI=true, where scripts/test.sh installs it, they must run.
needs_node = pytest.mark.skipif(NODE is None and os.environ.get("CI") != "true", reason=NO_NODE)


def script_twin(test):
    """Marks a comparison of a page script's arithmetic with Python's, run in Node (skipped without it): not a
    browser test, so the fast tier runs it, on data-file alone (conftest.py)."""
    return pytest.mark.script_twin(needs_node(test))


def run_js(tmp_path, names: tuple[str, ...], body: str, data) -> object:
    """Returns what `body` returns, run in Node as a function of `data` after the named script files, joined as the
    page joins them (strict, each file in a block; the last file's own names are in scope); no names, no files."""
    assert NODE is not None, NO_NODE
    script = tmp_path / "mutants.js"
    script.write_text("'use strict';\n" + (script_source(*names) if names else "") + "\nconst data = JSON.parse("
                      "require('fs').readFileSync(0, 'utf8'));\nconsole.log(JSON.stringify((() => {" + body + "})()));\n",
                      encoding="utf-8")
    done = subprocess.run([NODE, str(script)], input=json.dumps(data), capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return json.loads(done.stdout)


def call_js(tmp_path, function: str, arg) -> object:
    """Returns what the JavaScript function expression `function` returns for `arg`, run in Node, as Playwright's
    page.evaluate(function, arg) returns it in the page (a JSON value)."""
    return run_js(tmp_path, (), f"return ({function})(data);", arg)


# --- 1. the expected tokens per round: target and draft tempered alike at every offered temperature ------------

def own_tempered(model, t: Fraction):
    """Returns context -> p^(1/T) renormalised (T = 0: one-hot at the first top token), written here from the
    definition, so a test of the build's rows does not read them through generate.rows or ngram.tempered."""
    cache: dict = {}

    def row(context):
        if context not in cache:
            p = model.row(context)
            if t == 0:
                cache[context] = np.zeros(len(p))
                cache[context][int(np.argmax(p))] = 1.0
            elif t == 1:
                cache[context] = p
            else:
                w = p ** (1.0 / float(t))
                cache[context] = w / w.sum()
        return cache[context]
    return row


def own_alpha(run, draft, t: Fraction) -> float:
    """Returns the mean of sum_y min(p(y), q(y)) over the prose's contexts, weighted by how often each occurs, with
    both rows tempered here from the definition."""
    seen = language.contexts(run.ids, run.settings.target_order - 1)
    weight = np.array(list(seen.values()), float) / sum(seen.values())  # [C]
    p, q = (np.stack([own_tempered(m, t)(c) for c in seen]) for m in (run.target, draft))  # [C, V] each
    return float(weight @ np.minimum(p, q).sum(-1))


@pytest.mark.data_independent
@pytest.mark.parametrize("i", range(4))  # data/profiles.v1.json offers four temperatures: 0, 1/2, 1, 3/2
def test_the_expected_tokens_per_round_temper_the_target_and_the_draft_alike_at_each_temperature(explained, i):
    """The pass profiles (and the mean accept rates beside them) are those of the target and the draft both
    tempered at T, rows tempered here. Mutations killed (each confirmed by hand): in language.explain, the pass
    profile's target rows untempered (generate.rows(target, 1.0)) or its draft's (generate.rows(q, 1.0)); in
    generate.rows, the row returned untempered (m.row(context)); in language.mean_alphas, the target untempered
    (p = [rows for t in temperatures]). At T = 1 an untempered row is the tempered one, so only T != 1 shows them."""
    run = explained.language
    temperatures = run.settings.temperatures
    if i >= len(temperatures):
        pytest.skip(f"the data file offers {len(temperatures)} temperatures")
    t = temperatures[i]
    for d, draft in enumerate(run.drafts[:-1]):
        want = language.pass_profile(own_tempered(run.target, t), own_tempered(draft, t), run.prompt,
                                     run.settings.seed + 2)
        assert run.passes[d][i] == want, (d, t)
        assert run.alphas[d][i] == pytest.approx(own_alpha(run, draft, t), abs=1e-12), (d, t)


# --- 2. in the page's script, a draw exactly on a cut point belongs to the next token ----------------------------

def eighths_cases() -> list[list[float]]:
    """Returns distributions in whole eighths (2 to 6 tokens, zeros among them): every cut point falls on the 0.001
    grid of the lab's sliders, and many on 0.500, where the r slider starts."""
    rng = np.random.default_rng(6)
    cases = [[4 / 8, 4 / 8], [3 / 8, 1 / 8, 4 / 8], [4 / 8, 0.0, 4 / 8], [0.0, 8 / 8, 0.0], [1 / 8, 3 / 8, 0.0, 4 / 8]]
    for _ in range(40):
        size = int(rng.integers(2, 7))
        cases.append((rng.multinomial(8, rng.dirichlet(np.full(size, 0.5))) / 8).tolist())
    return cases


@needs_node
def test_the_scripts_draws_give_a_uniform_on_a_cut_point_to_the_next_token_as_python_does(tmp_path):
    """tally.js's segmentAt (the lab's replacement strip and exact-match draw, and the tally) and variants.js's
    inverseCdf (the generator and the broken samplers) against sampler.categorical (u >= edge moves on) at every u on
    the 0.001 grid. Mutations killed: `r < cuts[y]` -> `r <= cuts[y]` in segmentAt, `u < acc` -> `u <= acc` in
    inverseCdf, and the lab's accept-test check `u < pos.accept_f[x]` -> `u <= pos.accept_f[x]` (LAB_CHECKS)."""
    cases, grid = eighths_cases(), [i / 1000 for i in range(1000)]
    body = """return data.cases.map(p => {
      const cuts = []; let run = 0; p.forEach(x => { run += x; cuts.push(run); });
      return [data.grid.map(u => segmentAt(cuts, u)), data.grid.map(u => shared.inverseCdf(p, u)),
              p.map(a => LAB_CHECKS['accept-test']({ accept_f: p }, p.indexOf(a), a).y)];
    });"""
    got = run_js(tmp_path, ("core.js", "variants.js", "eighths.js", "tally.js", "lab.js"), body,
                 {"cases": cases, "grid": grid})
    on_a_cut = 0
    for p, (segment, inverse, checks) in zip(cases, got, strict=True):
        want = sampler.categorical(sampler.edges(np.array(p)), np.array(grid)).tolist()
        assert segment == want and inverse == want, p
        on_a_cut += sum(u in np.cumsum(p)[:-1] for u in grid if u > 0)
        accepted = sampler.RULE.accepts(np.array(p), np.array(p))  # u equal to the accept probability: rejected
        assert [y != -1 for y in checks] == accepted.tolist() == [False] * len(p), p
    assert on_a_cut > 50  # the boundaries themselves were drawn, 0.5 among them


# --- 3 and 4. the generator's script: the bonus's context, and the replacement's own draw ------------------------

def tiny_pair(seed: int, size: int = 3, width: int = 2) -> tuple[dict, dict]:
    """Returns (target, draft) rows of a tiny model of order width + 1: context -> [V], the draft near the target so
    that many rounds pass every check, and every row different."""
    rng = np.random.default_rng(seed)
    contexts = [tuple(int(c) for c in np.unravel_index(i, (size,) * width)) for i in range(size ** width)]
    p = {c: rng.dirichlet(np.ones(size)) for c in contexts}
    return p, {c: 0.7 * p[c] + 0.3 * rng.dirichlet(np.ones(size)) for c in contexts}


def in_script(rows: dict) -> dict:
    return {" ".join(map(str, c)): row.tolist() for c, row in rows.items()}


GENERATE_JS = """const P = ctx => data.p[ctx.join(' ')], Q = ctx => data.q[ctx.join(' ')];
  let i = 0;
  const fig = { P, Q, prompt: data.prompt, drawSpec: () => data.u[i++], drawPlain: () => 0.5,
    state: { k: data.k, sampler: 0 }, trace: { samplers: [data.spec], generator: { order: data.prompt.length + 1, cost: { c: 0.1, v: 1 } } },
    run: { text: data.prompt.slice(), plain: data.prompt.slice(), rounds: [], tokens: [], time: 0, steps: 0 } };
  for (let n = 0; n < data.rounds; n++) stepOnce(fig);
  return fig.run.rounds.map(r => ({ context: r.context, committed: r.committed, bonusCtx: r.bonusCtx || null, r: r.r }));"""


def script_rounds(tmp_path, p: dict, q: dict, prompt: tuple, k: int, u: list[float], rounds: int) -> list[dict]:
    """Returns the script's rounds under the rule, as the figure's stepOnce runs them (generator.js: each round
    continues from the end of the text the last one wrote), from the draws u in order."""
    data = {"p": in_script(p), "q": in_script(q), "prompt": list(prompt), "k": k, "u": u, "rounds": rounds,
            "spec": variants.THE_RULE.json()}
    return run_js(tmp_path, ("core.js", "variants.js", "generator_text.js", "generator_tree.js", "generator.js"), GENERATE_JS, data)


@needs_node
def test_the_scripts_bonus_is_explained_in_the_context_after_the_rounds_last_proposal(tmp_path):
    """The figure explains a bonus token with p at round.bonusCtx (renderCheck): it must be the context after the
    last proposal, the one generate.one_round draws the bonus in. Also holds the script's rounds to Python's, draw
    for draw. Mutation killed: in generator.js, `round.bonusCtx = ctx` -> `round.bonusCtx = round.checks[k - 1].ctx`
    (the context the last proposal was checked in), and -> `round.bonusCtx = context` (the round's start); in
    stepOnce, `run.text.concat(round.committed)` -> `run.text.concat(round.bonusCtx ? round.committed.slice(0, -1) :
    round.committed)` (the next round continuing as if the bonus were not written)."""
    p, q = tiny_pair(3)
    prompt, k, u = (0, 1), 3, np.random.default_rng(4).random(4000).tolist()
    got = script_rounds(tmp_path, p, q, prompt, k, u, 150)
    rounds = generate.generate(lambda c: p[c], lambda c: q[c], prompt, k, iter(u), 150)
    full = 0
    for js, py in zip(got, rounds, strict=True):
        assert tuple(js["context"]) == py.context and tuple(js["committed"]) == py.committed and js["r"] == py.last_draw
        if py.kinds[-1] == generate.BONUS:
            after = (*py.context, *py.proposals)[-len(prompt):]
            assert tuple(js["bonusCtx"]) == after, py
            full += after != (*py.context, *py.proposals)[-len(prompt) - 1:-1]
    assert full > 20  # rounds where the context before the last proposal differs from the one after it


def rejecting_pair() -> tuple[np.ndarray, np.ndarray]:
    """Returns (p, q) where chance decides: q proposes token 0 only, kept with chance p(0)/q(0) = 1/4; the residual
    is 1/2 on each of tokens 1 and 2, so a draw r < 1/2 replaces with 1 and one above with 2."""
    return np.array([0.25, 0.375, 0.375]), np.array([1.0, 0.0, 0.0])


# (the check's u, the replacement's r): u just above the threshold 1/4 with r from both halves of the residual
REJECTIONS = [(u, r) for u in (0.25, 0.2500001, 0.3, 0.49, 0.5, 0.74, 0.99) for r in (0.01, 0.3, 0.5, 0.6, 0.99)]


def test_a_generator_replacement_draws_a_fresh_uniform_not_the_checks():
    """generate.checked draws the replacement with the next uniform r, whatever the check's u was. Mutation killed:
    in generate.checked, `r = next(u)` -> `r = ui` (the rejected check's own draw, which is at least p/q, so the
    replacement would favour the residual's later tokens)."""
    p, q = rejecting_pair()
    for ui, r in REJECTIONS:
        round_ = generate.one_round(lambda c: p, lambda c: q, (0,), 1, iter([0.0, ui, r]))
        assert round_.kinds == (generate.REPLACED,) and round_.uniforms == (ui,) and round_.last_draw == r
        assert round_.committed == (1 if r < 0.5 else 2,), (ui, r)


@needs_node
def test_the_scripts_generator_and_tally_draw_a_replacement_with_a_fresh_uniform(tmp_path):
    """generator.js's generatorRound and tally.js's accept-test draw (the lab's tally) read a third uniform for the
    replacement. Mutations killed: in generatorRound, `round.r = draw()` -> `round.r = u`; in DRAW_RULES
    ['accept-test'], `segmentAt(pos.cuts, u[i + 2])` -> `segmentAt(pos.cuts, u[i + 1])`."""
    p, q = rejecting_pair()
    flat = [x for ui, r in REJECTIONS for x in (0.0, ui, r)]
    same = [(c,) for c in range(len(p))]  # the same rows after every token
    got = script_rounds(tmp_path, dict.fromkeys(same, p), dict.fromkeys(same, q), (0,), 1, flat, len(REJECTIONS))
    assert [g["committed"] for g in got] == [[1 if r < 0.5 else 2] for _, r in REJECTIONS]
    pos = {"q_cuts": [1, 1, 1], "accept_f": [0.25, 1, 1], "cuts": [0, 0.5, 1]}
    body = """return data.u.map(three => drawPosition(data.pos, 1, out => { out.set(three); return out; }, 'accept-test'));"""
    tallies = run_js(tmp_path, ("core.js", "variants.js", "tally.js"), body, {"pos": pos, "u": [[0.0, *d] for d in REJECTIONS]})
    for (ui, r), tally in zip(REJECTIONS, tallies, strict=True):
        assert tally["rep"] == [0, int(r < 0.5), int(r >= 0.5)] and tally["acc"] == [0, 0, 0], (ui, r)


def test_a_samplers_replacement_is_drawn_independently_of_the_rejected_checks_u():
    """Where chance decides (p/q = 1/4), the rounds rejected with u just above the threshold (1/4 <= u < 1/2) still
    draw replacements over the whole residual, half of each token, and each replacement's recorded draw r is not
    its check's u. (The shipped profiles reject only tokens of p = 0, which no fast test samples this way.)
    Mutation killed: in sampler.accept_test, `r = rng.random(np.count_nonzero(failed))` -> `r = u[failed]`."""
    p, q = rejecting_pair()
    rounds = sampler.sample_rounds(p[None], q[None], p, 20_000, np.random.default_rng(12))
    rejected = ~rounds.passed[:, 0]
    near = rejected & (rounds.uniforms[:, 0] < 0.5)  # [n] rejected with u in [1/4, 1/2): the reused u draws token 1
    shares = np.bincount(rounds.replacements[near, 0], minlength=3) / near.sum()
    assert near.sum() > 3000 and shares[0] == 0 and abs(shares[1] - 0.5) < 0.05 and abs(shares[2] - 0.5) < 0.05
    assert not np.any(rounds.rep_uniforms[rejected] == rounds.uniforms[rejected, 0])
    residual = sampler.residual(p, q)
    assert (sampler.categorical(sampler.edges(residual), rounds.rep_uniforms[rejected]) ==
            rounds.replacements[rejected, 0]).all()


# --- 5. the generator's rounds, exactly: every path of a tiny model's uniforms, enumerated ------------------------

# An order-2 model of two tokens in quarters: context (the last token) -> row. Every threshold a round reads (the
# rows' cut points, min(1, p/q), p at the draft's top token, and the residuals' cut points) is a multiple of 1/4.
TINY_P = {0: (Fraction(1, 4), Fraction(3, 4)), 1: (Fraction(3, 4), Fraction(1, 4))}
TINY_Q = {0: (Fraction(1, 2), Fraction(1, 2)), 1: (Fraction(1), Fraction(0))}


class MoreDraws(Exception):
    """A run asked for a uniform past the prefix it was given."""


def fed(prefix):
    yield from prefix
    raise MoreDraws


def cells() -> list[tuple[float, Fraction]]:
    """Returns (midpoint, width) of each interval between the thresholds: a round's every comparison and inverse CDF
    gives the same answer anywhere inside one, so one draw per interval, weighted by its width, is exact."""
    cuts = set()
    for c in TINY_P:
        p, q = TINY_P[c], TINY_Q[c]
        top = q.index(max(q))
        rest = [Fraction(0) if y == top else a for y, a in enumerate(p)]  # a greedy draft's residual, unnormalised
        residual = [max(Fraction(0), a - b) for a, b in zip(p, q, strict=True)]  # the accept test's
        cuts |= {*itertools.accumulate(p), *itertools.accumulate(q), p[top]}
        cuts |= {min(Fraction(1), a / b) for a, b in zip(p, q, strict=True) if b}
        cuts |= {s / sum(r) for r in (rest, residual) if sum(r) for s in itertools.accumulate(r)}
    edges = sorted({Fraction(0), Fraction(1), *cuts})
    assert all(e.denominator in (1, 2, 4) for e in edges)
    return [(float((a + b) / 2), b - a) for a, b in itertools.pairwise(edges)]


def implemented(run) -> Counter:
    """Returns the exact distribution of run(uniforms): every path of draws, one per cell, explored as far as the
    run asks for draws, each weighted by the product of its cells' widths."""
    found, stack, grid = Counter(), [()], cells()
    while stack:
        prefix = stack.pop()
        try:
            outcome = run(fed([mid for mid, _ in prefix]))
        except MoreDraws:
            stack.extend((*prefix, c) for c in grid)
            continue
        found[outcome] += prod((w for _, w in prefix), start=Fraction(1))
    return found


def defined(rule: str, c: int, k: int) -> Counter:
    """Returns the exact distribution of what one round from context c commits, from the rule's definition
    (test_rules.outcomes): each reached check keeps its proposal or commits its replacement and stops; after k kept
    proposals, the bonus comes from the target in the context after the last of them."""
    found: Counter = Counter()

    def walk(ctx: int, chance: Fraction, committed: tuple, left: int) -> None:
        if not left:
            for y, py in enumerate(TINY_P[ctx]):
                found[(*committed, y)] += chance * py
            return
        for share, kept, y in outcomes(rule, TINY_P[ctx], TINY_Q[ctx]):
            if kept:
                walk(y, chance * share, (*committed, y), left - 1)
            else:
                found[(*committed, y)] += chance * share
    walk(c, Fraction(1), (), k)
    return +found  # paths of chance 0 left out


def tiny_rows(rows: dict) -> generate.Rows:
    floats = {c: np.array([float(x) for x in row]) for c, row in rows.items()}
    return lambda context: floats[context[-1]]


@pytest.mark.parametrize("rule", list(rules.BY_ID))
def test_a_generator_round_commits_exactly_what_the_rule_defines_bonus_included(rule):
    """Every path of a round's uniforms on a tiny model, against the rule's definition, exactly: the bonus is drawn
    from p after the last proposal, and exact match's own draw y from p where the proposal was checked. Mutations
    killed: in one_round, the bonus's context `rule.bonus_given(before, ctx)` -> `before` and its row `p(where)` ->
    `q(where)`; in checked, exact match's `inverse_cdf(p(at), ui)` -> `inverse_cdf(q(at), ui)`, and one_round's
    `rule.residual_given(ctx, after)` -> `after` (exact match's draw read past the proposal; with two tokens the
    other rules' residuals are one-hot, so only exact match shows it)."""
    p, q, sampling = tiny_rows(TINY_P), tiny_rows(TINY_Q), rules.BY_ID[rule].sampling
    for c, k in itertools.product(TINY_P, (1, 2)):
        got = implemented(lambda u, c=c, k=k: generate.one_round(p, q, (c,), k, u, sampling).committed)
        assert +got == defined(rule, c, k), (c, k)
        assert sum(got.values()) == 1


@pytest.mark.parametrize("rule", list(rules.BY_ID))
def test_a_generators_second_round_continues_from_the_first_rounds_last_token_bonus_included(rule):
    """Two rounds of one draft each, every path exactly: the pair of what they commit is the first round's chance
    times the second's from the context after the first round's last token (its bonus, when every check passed),
    and the text's first two tokens follow the target's own generation. Mutation killed: in generate.generate,
    `text += r.committed` -> `text += r.committed[:-1] if r.kinds[-1] == BONUS else r.committed` (the next round
    continuing from the last proposal, as if the bonus were not written)."""
    p, q, sampling = tiny_rows(TINY_P), tiny_rows(TINY_Q), rules.BY_ID[rule].sampling
    for c in TINY_P:
        got = implemented(lambda u, c=c: tuple(r.committed for r in generate.generate(p, q, (c,), 1, u, 2, sampling)))
        first = defined(rule, c, 1)
        assert +got == +Counter({(a, b): first[a] * pb for a in first for b, pb in defined(rule, a[-1], 1).items()})
        text = Counter()
        for (a, b), chance in got.items():
            text[(*a, *b)[:2]] += chance
        assert text == {(y, z): TINY_P[c][y] * TINY_P[y][z] for y in (0, 1) for z in (0, 1)}


# --- 6. the smallest temperatures the data file may offer -----------------------------------------------------

@needs_node
def test_python_and_the_script_temper_and_print_alike_down_to_the_smallest_temperature(tmp_path):
    """A fuzzing audit's finds: at a temperature of 1/263 or below (the schema allows down to 1/1000) every entry of a
    row as p^(1/T) underflowed to 0, so the build crashed on 0/0; and at 1/60 a probability below 1e-98 made the
    script's toFixed throw. Both sides now temper over the row's largest entry and print such a probability in
    exponent form, and agree, value for value."""
    rng = np.random.default_rng(3)
    rows = [rng.dirichlet(np.ones(30)).tolist() for _ in range(4)]
    temps, tiny = [1 / 1000, 1 / 263, 1 / 60, 0.5, 2.0, 4.0], [2.05e-190, 1e-300, 1.23e-7, 9.99e-7, 5e-6, 0.00123]
    got = run_js(tmp_path, ("core.js", "generator_model.js", "generator_text.js"), """return {
      rows: data.rows.flatMap(p => data.temps.map(t => Array.from(shared.tempered(Float64Array.from(p), t)))),
      text: data.tiny.map(x => shared.probText(x)) };""", {"rows": rows, "temps": temps, "tiny": tiny})
    want = [ngram.tempered(np.array(p), t) for p in rows for t in temps]
    assert all(np.isfinite(w).all() and abs(w.sum() - 1) < 1e-12 for w in want)
    assert all(np.allclose(g, w, rtol=1e-12, atol=0) for g, w in zip(got["rows"], want, strict=True))
    assert got["text"] == [probability(x) for x in tiny]
    assert got["text"][:4] == ["2.05e-190", "1.00e-300", "1.23e-7", "9.99e-7"] and got["text"][4] == "0.00000500"


# --- 7. the race's ticks at the costs' extremes -------------------------------------------------------------------

@needs_node
def test_once_the_speculative_lane_is_done_a_tick_covers_at_least_a_whole_pass(tmp_path):
    """An audit of extreme valid data files: at a round cost of 1/1000 of a pass, the plain lane, after the
    speculative lane had finished, wrote a token every 1,000 ticks (60,000 ticks at the browser's 4 ms floor: over
    four minutes). A tick then covers at least one pass; before the speculative lane finishes, it is one round."""
    got = run_js(tmp_path, ("core.js", "generator_text.js"), """
      const g = { cost: { c: data.c, v: data.v }, tree_costs: [] }, s = { k: 4, m: 1 };
      return [null, 0.5].map(specAt => shared.tickPasses(g, s, { specAt }));""", {"c": 0, "v": 0.001})
    assert got == [0.001, 1]
    dear = run_js(tmp_path, ("core.js", "generator_text.js"), """
      const g = { cost: { c: 1, v: 1000 }, tree_costs: [] }, s = { k: 4, m: 1 };
      return [null, 0.5].map(specAt => shared.tickPasses(g, s, { specAt }));""", {})
    assert dear == [1004, 1004]


# --- 8. a second audit's gaps ---------------------------------------------------------------------------------

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
        assert n_star is not None and stop == floor(n_star) + 1, (hw.name, pair.name, k, n_star, stop)


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

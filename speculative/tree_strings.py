"""The reader-facing words of several candidates per position (speculative trees): one table per figure, as in
strings.py, which re-exports them so that every table is still read as strings.<TABLE>."""

from __future__ import annotations

from typing import Any

__all__ = ["PEEL", "GENERATOR_TREES", "GENERATOR_TREES_PAGE", "EXPLORER_TREES", "TREES", "TREES_STATIC"]  # every table here: strings.py re-exports them

# p peeled one residual after another, E by width, and the broken ways (figures/peel.py, build only)
PEEL = {"peel_where": "{profile}, position {position}, with {m} candidates drawn with replacement",
        "peel_title": "p peeled by {m} candidates: what each keeps, and what is drawn after all of them fail",
        "peel_layer": "kept at candidate {j}", "peel_rest": "drawn after every candidate failed",
        "peel_broken_where": "{profile}, position {position}", "peel_head": "cand. {j}", "peel_head_rest": "last draw",
        "peel_heads_key": "cand. j: kept at candidate j; last draw: drawn after all {m} failed",
        "peel_broken": "{name}, at {where}: {diffs}.", "peel_diff": "“{token}” {got} where p is {p}"}
PEEL_BUILD_ONLY = frozenset(PEEL)  # the trace leaves these out: only the build fills them

# Watch it generate with several candidates per position (figures/generator.py, templates/js/generator_tree*.js):
# the words its script reads
GENERATOR_TREES: dict[str, Any] = {
    "only_one": "Only the accept test takes several candidates here; every other sampler checks one per position.",
    "ways": {"true": "with replacement", "false": "without replacement"},
    "tree_title": "Round {round}’s tree: {m} candidates drafted at each depth ({way}), each checked in turn against the "
                  "target’s remainder until one is kept; the kept one’s context drafts the next depth.",
    "depth": "depth {d}",
    "bonus_label": "bonus",
    "drawn_cell": "none kept: “{tok}”",
    "cand": "“{tok}”",
    "sep": ", ",
    "alt_cand": "“{tok}” {state}",
    "states": {"kept": "kept", "rejected": "rejected", "untried": "never tried"},
    "alt_kept": "Depth {d}: {list}; the first {j} of {n} tried, and “{tok}” kept.",
    "alt_failed": "Depth {d}: {list}; all {n} failed, so “{tok}” came from the target’s remainder.",
    "alt_bonus": "Every depth kept a candidate, so the bonus “{tok}” came from the target.",
    "check_kept": "{n} candidates were drafted here ({list}) and tried in turn; “{x}” was candidate {j}: against the "
                  "target’s remainder after the earlier rejections, r(x) = {r} and qⱼ(x) = {q}, so its chance to "
                  "pass was min(1, r/qⱼ) = {a}, and the draw u = {u} < {a} kept it.",
    "check_failed": "{n} candidates were drafted here ({list}) and every one failed its check, and “{y}” came "
                    "from the last residual, max(0, r − qⱼ) renormalised, by a uniform draw of {draw}.",
    "tally": "Measured in this race, {m} candidates per position ({way}): {per} tokens per round and {pass} tokens per "
             "target pass on the clock; the chain (one candidate per position), run alongside from the same seed: "
             "{chain_per} and {chain_pass}. Each reads its own draws from that seed (a tree round drafts k · m "
             "candidates, a chain round k), so either can lead by chance.",
    "better": "The tree did better per target pass on the clock.",
    "worse": "The chain did better per target pass on the clock.",
    "same": "Both did the same per target pass on the clock, to two places.",
    "expected_chain": "Those expected values are the chain’s, one candidate per position; the tree’s own are the "
                      "measured ones above.",
}

# ... and the words only the build writes (its markup and the page without scripting): no figure's WORDS names this
GENERATOR_TREES_PAGE: dict[str, Any] = {
    "m_label": "Candidates per position",
    "way_label": "Candidates drawn",
    "static_title": "The same seeded race with several candidates per position, each against the chain from the same "
                    "seed ({chain_per} tokens per round, {chain_pass} per target pass on the clock); each reads its own "
                    "draws from it, so either can lead by chance:",
    # the key of the last tree round's drawing, by the page's swatch role whose mark each node wears (style.css)
    "tree_key": {"accepted": "kept", "rejected": "rejected", "dropped": "never tried (dropped unchecked)",
                 "replacement": "drawn from what the target had left", "bonus": "bonus"},
    "static_row": "{m} candidates, {way}: {per} tokens per round, {pass} per target pass on the clock. {verdict}",
}

# The speedup explorer's tree width m under the accept test (figures/explorer.py, templates/js/explorer.js): its
# controls, a round's cost, each draft's best (k, m) and its speedup by width at the chosen k
EXPLORER_TREES = {
    "m_value": "m = {m}", "way_with": "with replacement (SpecInfer)",
    "way_without": "without replacement (Recursive Speculative Decoding)",
    "nodes": "A tree of width {m} and depth {k} has {nodes} nodes, all scored in one target pass.",  # then EXPLORER's readout
    "readout_verify": "With a draft step at {cost} and each node checked at {verify}, one round costs {k} · {c} + {one} + "
                      "{nodes} · {v} = {round_cost} {steps}.",
    "best": "Best tree: depth k = {k}, width m = {m} ({value}×).",
    "none": "No tree up to width {max} beats 1× here.",
    "widths": " At k = {k}, by width: {list}; {stop}",
    "item": "{value}× at m = {m}",
    "sep": ", ",
    "stop": "no width past m = {m} does better.",
    "widest": "the widest, m = {m}, does best.",
    "off": "Tree width applies under the accept test only: {rule} checks one candidate per position.",
}


# The accept-test lab with several candidates per position (figures/lab.py, js/lab_trees.js): the words its script
# fills (the lab reads this table as strings.TREES).
TREES: dict[str, Any] = {
    "ways": {"with": "with replacement, each from q",
             "without": "without replacement, each from q with the earlier candidates left out"},
    "rate": "With {m} candidates per position, drawn {way}, one of them is kept with probability A = {a}; a single "
            "candidate is kept with α = {alpha}. Either way the token committed follows p exactly.",
    "how": "Each Draw draws up to {m} candidates in turn, each from its own draft qⱼ (q, or q without the earlier "
           "candidates). A candidate is checked against what is left of the target, r (at first p itself): it is kept "
           "when u < min(1, r/qⱼ); on a rejection r shrinks to max(0, r − qⱼ), renormalised, and the next candidate "
           "is tried.",
    # d is the draft's draw: a uniform draw mapped through the running total of the chances it draws from
    "head": "Candidate {j} of {m}: “{tok}”, drawn from {source} by a uniform draw d = {d}: with the chances laid end to "
            "end from 0 to 1, d lands in the segment of “{tok}”, [{lo}, {hi}). It is checked against {target}.",
    "source_q": "q",
    "source_without": "q without {removed}, renormalised",
    "target_p": "p",
    "target_r": "what is left of the target, r = {r}",
    "numbers": "r {p} · q {q}",
    "item": "“{tok}” {p}",
    "sep": ", ",
    "final_head": "All {m} rejected: the token is drawn from what is left of the target, r = {r}.",
    "kept": "Candidate {j} of {m}, “{tok}”, is kept and committed; no later candidate is drawn.",
    "all_rejected": "All {m} candidates were rejected, so “{tok}” was drawn from what was left of the target.",
    "seen": " Positions where a candidate was kept: {acc} ({seen}); exactly, A = {rate}.",
    "tally_empty": "No draws yet with {m} candidates. The buttons Draw 100 times and Draw 10,000 times above verify the "
                   "whole position afresh that many times: new candidates, their checks in turn, and the last draw "
                   "when all are rejected.",
    # the tally's column heads with several candidates: short, so that the table fits a phone; counts says what each is
    "heads": ["drawn", "kept", "kept ÷ drawn", "last draw", "freq."],
    "counts": "Per token: drawn, how often it was drawn as a candidate; kept, how often such a candidate was kept; "
              "kept ÷ drawn, the two divided (a later candidate is checked against a shrunken r, so this is not "
              "min(1, p/q)); last draw, how often it was drawn from what was left of the target after every candidate "
              "was rejected; freq., the share of the draws that committed it. ",
    "caption": "Beneath every freq.: on top, the exact shares, a kept candidate solid and the last draw hatched, adding "
               "up to p; below, the tally, divided in the same two routes.",
    "caption_broken": "Beneath every freq.: on top, the exact shares this broken sampler commits, a kept candidate solid and "
                      "the last draw hatched; below, the tally, divided in the same two routes.",
    # a control that another one set, said in a sentence beside them when it happens (templates/js/lab.js)
    "resets": {
        "rule_for_m": "Only the accept test checks several candidates, so the verification rule was set to it.",
        "m_for_rule": "Only the accept test checks several candidates, so Candidates was set to 1.",
        "rule_for_sampler": "Broken samplers bend the accept test, so the verification rule was set to it.",
        "sampler_for_rule": "Broken samplers bend the accept test, so Sampler was set back to “{rule}”.",
        "m_for_one": "The broken sampler “{name}” checks one candidate per position, so Candidates was set to 1.",
        "sampler_for_one": "The broken sampler “{name}” checks one candidate per position, so Sampler was set back to "
                           "“{rule}”.",
        "m_for_tree": "Broken samplers with several candidates need 2 or more, so Candidates was set to {m}.",
        "sampler_for_tree": "Broken samplers with several candidates need 2 or more, so Sampler was set back to “{rule}”.",
        "way_for_tree": "“{name}” draws in its own way, so the draw menu is locked on “{way}”.",
    },
    # why each broken way of trees.BROKEN moves the committed token away from p, by its id
    "why": {
        "against-p": "every candidate is held to min(1, p/q) again instead of to the shrinking r, so a token whose q "
                     "covers its p is kept with its whole p at every try, and such tokens come too often",
        "plain-q": "a candidate drawn without replacement is more likely than q says, but the check divides by q, "
                   "so candidates pass too easily and the tokens the draft favours come too often",
        "typical": "a candidate is kept whenever the target gives it enough probability, with no draw against "
                   "min(1, p/q), so likely proposals crowd out the rest, and when none passes the target’s top token "
                   "is taken outright",
    },
}

# The same, in the page without scripting: a table of A for every number of candidates, both ways.
TREES_STATIC = {
    "caption": "Several candidates at position {pos} of {name}: the chance A that one of m candidates is kept, "
               "exactly. Both ways commit p.",
    "rule": "With several candidates, the draft proposes m tokens at one position and the target tries them in turn: "
            "candidate j, drawn from qⱼ, is kept with chance min(1, r/qⱼ), where r starts as p and, after each "
            "rejection, becomes max(0, r − qⱼ) renormalised; if all m are rejected the token is drawn from the last "
            "r. With replacement every qⱼ is q; without, qⱼ is q with the earlier candidates left out, "
            "renormalised.",
    "col_m": "m",
    "approx": "{a} ≈ {f}",
}

"""Owns every reader-facing sentence pattern, kind and state name, one table per figure.

Patterns use {name} fields. Python fills them (text.fill) for the no-JS page; the same patterns travel in the trace
and the script fills them in the browser, so each sentence has exactly one source.
"""

from __future__ import annotations

from typing import Any

from .roofline_strings import *  # noqa: F403  (the batching figure's tables: roofline_strings.__all__)
from .tree_strings import *  # noqa: F403  (the trees' own tables, read here as strings.<TABLE>: tree_strings.__all__)
from .tree_strings import PEEL_BUILD_ONLY

KIND_NAMES = {"propose": "the draft proposes", "verify": "check", "bonus": "bonus draw", "done": "round done"}

STATE_NAMES = {"proposed": "proposed", "accepted": "accepted", "rejected": "rejected",
               "dropped": "dropped, never checked", "pending": "bonus if all pass", "none": "no bonus", "bonus": "bonus"}

# Frame captions: a frame's caption is a list of (pattern, fields) parts, joined by spaces.
CAPTIONS = {
    "propose": "The draft proposes {tokens_count}, one per position, all before any is checked: {proposals}. "
               "One pass of the target will now score every position.",
    "propose_one": "The draft proposes {tokens_count}: {proposals}. One pass of the target will now score it.",
    "verify": "Position {pos}: the target gives “{tok}” p = {p}; the draft gave it q = {q}. "
              "Accept with probability {worked}.",
    "capped": "Since p > q, the ratio is capped at 1: accepted outright (u = {u} cannot fail).",
    "equal": "Since p = q, the ratio is exactly 1: accepted outright (u = {u} cannot fail).",
    "chance_pass": "The draw u = {u} is below {accept}, so “{tok}” is accepted.",
    "zero": "The target never produces “{tok}”, so no draw can pass: u = {u} is not below 0. Rejected.",
    "chance_fail": "The draw u = {u} is not below {accept}: rejected.",
    "residual": "The replacement is drawn from the residual max(0, p − q): {res_raw}, every other token 0; "
                "divided by their sum {res_total}: {res_norm}.",
    "own_above": "“{tok}” itself gets max(0, {p} − {q}) = 0: it was rejected because q > p, and the residual "
                 "subtracts the draft’s share from every token, this one included.",
    "own_zero": "“{tok}” itself gets max(0, 0 − {q}) = 0, as does any token the target never produces.",
    "rep_draw": "The replacement draw r = {rep_u}, a fresh uniform separate from u, falls in [{rep_lo}, {rep_hi}), the residual’s segment for “{rep}”.",
    "drawn": "Drawn: “{rep}”.",
    "dropped_one": "The proposal at position {dropped} is dropped, never checked.",
    "dropped_many": "The proposals at positions {dropped} are dropped, never checked.",
    "bonus_one": "The proposal passed. The same target pass also scored position {pos}, "
                 "so one more token is drawn there, straight from the target: “{tok}”.",
    "bonus_many": "All {k} proposals passed. The same target pass also scored position {pos}, "
                  "so one more token is drawn there, straight from the target: “{tok}”.",
    "bonus_draw": "A fresh uniform draw r = {bonus_u} falls in [{bonus_lo}, {bonus_hi}), the target’s segment for “{tok}”.",
    "done": "The round commits {committed_count}: {committed}, for one pass of the target.",
    "lost_one": "The dropped proposal ({lost}) cost a draft step and was never checked.",
    "lost_one_sure": "The dropped proposal ({lost}) cost a draft step and was never checked, though in this toy, "
                     "where positions do not depend on one another, the target would have accepted it with probability 1.",
    "lost_many": "The dropped proposals ({lost}) cost a draft step each and were never checked.",
    "lost_many_all_sure": "The dropped proposals ({lost}) cost a draft step each and were never checked, though in "
                          "this toy, where positions do not depend on one another, the target would have accepted them "
                          "with probability 1.",
    "lost_many_sure": "The dropped proposals ({lost}) cost a draft step each and were never checked, though in "
                      "this toy, where positions do not depend on one another, the target would have accepted {sure} "
                      "with probability 1.",
}

# The player's own words: headings, labels and notes it writes around a frame.
WALKTHROUGH = {
    "quoted": "“{tok}”",  # one token of a caption's list; the list joins them with spaces (quoted(), the player's)
    "token_one": "{n} token",  # how many tokens a round proposes or commits (token_count(), the player's)
    "tokens": "{n} tokens",
    "head": "Frame {i} of {n}: {kind}",
    "head_verify": "Frame {i} of {n}: {kind} position {pos}",
    "counter": "Frame {i} of {n}",
    "point": "{name}, frame {i} of {n}",
    "point_drawn": "{name}, drawn round {r}, frame {i} of {n}",
    "play": "Play",
    "pause": "Pause",
    "test_title": "Position {pos}: is “{tok}” accepted?",
    "ratio": "{p}/{q} = {ratio}",
    "accept": "min(1, {ratio}) = {accept}",
    "u": "u = {u}",
    "accepted": "Accepted",
    "rejected": "Rejected",
    "below": ": u = {u} is below {accept}.",
    "not_below": ": u = {u} is not below {accept}.",
    "residual_title": "The replacement, drawn from the residual at position {pos}",
    "bonus_title": "The bonus token, drawn from the target at position {pos}",
    "col_token": "token",
    "col_p": "p",
    "col_q": "q",
    "col_raw": "max(0, p − q)",
    "col_norm": "÷ {res_total}",
    "note_drawn": "drawn",
    "note_rejected": "rejected",
    "chip_replacement": " (replacement)",
    "chip_bonus": " (bonus)",
    "chip_dropped": " · in this toy, accepted with probability {accept} had it been checked",
    "nothing_yet": "nothing yet: no position has been checked",
    # beside a frame that checks nothing, where a check's accept test stands (wide screens only)
    "idle_propose": "Next step: the target scores all {k} positions in a single pass; then each is checked in "
                    "turn from position 1, and its accept test appears here.",
    "idle_bonus": "No check at this step: every proposal passed, so the target’s one pass yields one more token, "
                  "drawn from its own distribution.",
    "idle_done": "The round is over. Step back to any frame with the controls above, or draw another round.",
    "slot_bonus": "{pos} bonus",
    "slot_instead": ": “{rep}” instead",
    "no_token": "–",
    "drawn_counter": "Drawn round {i} of {n}",
    "chance": "Decided by chance: the accept probability {accept} is strictly between 0 and 1, so the draw u settles it.",
    "bar_numbers": "p {p} · q {q}",
}

WORST = {
    "slower": {"which": "which is slower", "so": "it loses to plain decoding"},
    "same": {"which": "which is no faster", "so": "it only ties with plain decoding"},
    "faster": {"which": "which is still faster", "so": "it still beats plain decoding at these costs"},
}

# A speedup after its figure: "≈ 2.62× faster", "≈ 0.65×: slower than plain decoding".
PACE = {"faster": " faster", "same": ": no faster than plain decoding", "slower": ": slower than plain decoding"}

# The identity: its table's summary and caption's place (the build's), and the picture's words (the script's), which
# follow the token picked in the lab.
IDENTITY = {
    "check_summary": "The same sum, done in exact fractions for every token at every position of {drafts}, "
                     "matches the target {scope}.",
    "scope_all": "at all {n}",
    "scope_only": "at only {equal} of {n}",
    "drafts_1": "the draft",
    "drafts_2": "both drafts",
    "drafts_many": "all {n} drafts",
    "at_rejection": ", where the walkthrough below meets a rejection",
    "fig_title": "How p splits, at the position and for the token picked in the lab",
    "key_min": "min(p, q): by acceptance",
    "key_fix": "max(0, p − q): as a replacement",
    "key_p": "p",
    "key_accept": "min(1, p/q)",
    "key_bars": "Every token at this position: p as an outline, min(p, q) solid inside it, max(0, p − q) hatched",
    # the script's: {tok} a token's label, {where} a position, and the exact fractions the build (or, at the reader's
    # own position, eighths.js) wrote
    "at": "{name}, position {pos}",
    "own": "your own position",
    "none": "–",
    "head": "“{tok}” at {where}: p = {p} is min(p, q) = {min}, committed by acceptance, plus "
            "max(0, p − q) = (1 − α) · residual = {fix}, committed as a replacement.",
    "sum": "{min} + {fix} = {p}",
    "alpha": "α = Σ min(p, q) = {alpha}",
    "accept": "min(1, p/q) for “{tok}” = {accept}",
    "rates": "The first bar is α, the chance that a proposal drawn from q passes (every token’s min(p, q), end to end); "
             "the second, the chance that “{tok}” passes once it is the proposal.",
}

RULE_PHRASES = {"accept-test": "the accept test", "greedy-draft": "a greedy draft", "exact-match": "exact match"}
SERVERS = {
    "slow_rule": "{rule} ({x}×)",
    "yes": "{pos} {target} = {draft}",
    "no": "{pos} {target} ≠ {draft}",
    "t0": "At temperature 0 (E = {e}), the target’s top token against the draft’s, by position: {list}.",
    "stops": "≈ {cost}",
    "stops_even": "{cost}",
    "stops_line": "Exactly, in target passes per position checked: {list}.",
    "stops_item": "{rule} stops paying at {exact}",
    "stops_now": "0 (already 1×)",
    "never": "never pays",
}

# The accept-test lab's words.
LAB = {
    "option": "{name}, position {pos}",
    "back": "Back to where you were",
    "accepted": "Accepted",
    "rejected": "Rejected",
    "replacement": "The replacement draw r = {r} lands in the segment of “{rep}”, [{lo}, {hi}): “{rep}” is committed instead.",
    "no_chance": "No proposal in this data is decided by chance: every accept probability here is 0 or 1.",
    "r_text": "replacement draw r = {r}",
    "tally_empty": "No draws yet (Draw u tries one check by hand, untallied). Draw 100 times and Draw 10,000 times "
                   "each run the whole position under the chosen rule: a fresh proposal from the draft (not the token "
                   "picked above), its check, and the token committed when the check fails.",
    "tally": "{n} draws: the committed tokens are {tv} in total variation from p, {rel} the bound {bound} that "
             "sampling noise alone stays under with probability 1 − 10⁻⁶.",
    "tally_vacuous": "{n} draws: the committed tokens are {tv} in total variation from p; too few draws for the "
                     "noise bound to rule anything out yet.",
    "tally_counts": "Per token: how often the draft proposed it, how often that proposal was accepted, and the "
                    "two divided, the token’s own acceptance rate (the accept test’s is min(1, p/q)). ",
    "col_prop": "proposed",
    "col_acc": "accepted",
    "col_kept": "accepted ÷ proposed",
    "no_share": "–",
    "col_rep": "replaced",
    "col_freq": "observed",
    "group": ",",
    # the Sampler choice: the rule, or a broken sampler (speculative/variants.py names them and says why)
    "broken_caption": "What each sampler commits at position {pos} of {name}, worked out exactly: ▲ where it commits "
                      "more than p, ▼ where less. Only the rule commits p.",
    "broken_why": "Why each broken sampler moves",
    "variant_caption": "Exactly what “{name}” commits at this position, beside p. Its total variation from p is "
                       "{tv} ≈ {tv_f}.",
    "col_commits": "this sampler commits",
    "variant_change": "Here {gain} {gain_verb} and {lose} {lose_verb}: {why}.",
    "variant_gain_only": "Here {gain} {gain_verb}: {why}.",
    "gains": "gains", "gain": "gain", "loses": "loses", "lose": "lose",
    "quoted": "“{tok}”", "list_sep": ", ", "and": " and ",
    "variant_numbers": "p {p} · this sampler {q}",
    "variant_same": "At this position “{name}” commits p exactly, so it cannot show its fault. {where} shows it "
                    "(total variation {tv} from p); so can a position of your own.",
    "variant_never": "At this position “{name}” commits p exactly, so it cannot show its fault; no shipped position "
                     "shows it, but a position of your own can.",
    "variant_where": "Position {pos} of {name}",
    "variant_rule_only": " Broken samplers are variants of the accept test: choosing one switches the rule back to it.",
    "broken": " This sampler is broken: TV {tv} from p is {far} the {bound} that chance alone reaches at {n} draws.",
    "far": "far beyond",
    "beyond": "beyond",
    "own_tv": " The draws are {tv} from what this sampler commits, {rel} that bound: they gather around its "
              "distribution, not around p.",
    "own_tv_unseen": " They are also {tv} from what this sampler commits: {n} draws cannot yet tell the two apart, "
                     "since the sampler misses p here by only {exact} in total variation. Draw more.",
    "tally_empty_broken": "No draws yet. Draw 100 times and Draw 10,000 times each run the whole position under this "
                          "broken sampler: its proposal, its test, and its replacement when the test fails.",
    "still_p": " At this position this sampler commits p, so its draws cannot tell it from the rule.",
    "seen_broken": " Accepted proposals: {acc} ({seen}).",
    "tally_caption_broken": "Every token the draws committed, by acceptance and as a replacement. Under each observed "
                            "frequency, the upper bar is what this broken sampler commits exactly, kept by its test "
                            "solid and as its replacement hatched; the lower bar is the draws, split the same way.",
}
# The convergence figure's words.
CONVERGENCE = {
    "position": "position {pos}",
    "bonus": "bonus position {pos}",
    "short": "bonus {pos}",
    "rounds": "{n} rounds",
    "round_one": "{n} round",  # how many rounds reached a position, when one did
    "readout": "After {rounds}: {reached} committed a token at {where}. Total variation from the target {tv}, "
               "{rel} the bound {bound} that sampling noise alone stays under with probability 1 − 10⁻⁶.",
    "vacuous": "After {rounds}: {reached} committed a token at {where}. Total variation from the target {tv}; "
               "too few rounds reached it for the noise bound to rule anything out yet.",
    "within": "within",
    "above": "above",
    "few": "too few rounds",  # a bound of 1 or more rules nothing out
    "target": "exact: p, or P(N = n)",
    "observed": "observed frequency",
    "n": "n = {n}",
    "pair": "{target} · {observed}",
}

# The speedup explorer's words.
EXPLORER = {
    "readout": "With {k_text} drafted and a draft step costing {cost}, a round costs {round_cost} {steps}.",
    "profile": "For {name}, drafting k = {k} gives {value}×{slower}; the best k is {best} ({best_value}×).",
    "profile_none": "For {name}, drafting k = {k} gives {value}×; at this cost no k beats decoding one token at a time.",
    "slower": ", slower than decoding one token at a time",
    "k_one": "1 position",
    "k_many": "{k} positions",
    "k_value": "k = {k}",
    "times": "{value}×",
    # the rule and verification-cost controls
    "free": "free (0)",
    "under": "Checked by {rule}:",
    "readout_verify": "With {k_text} drafted, a draft step costing {cost} and checking each drafted position costing "
                      "{verify}, a round costs {k} · {c} + {one} + {k} · {v} = {round_cost} {steps}.",
    # a round's cost in target passes takes its noun as cost_phrase gives it: 1, under 1, or more
    "step_one": "target pass",
    "step_part": "of a target pass",
    "step_many": "target passes",
}

# "Your own position" in the accept-test lab (templates/js/eighths.js fills the worked ratio as ratio_text does),
# and what the lab says under a rule other than the accept test.
OWN = {
    "col_p": "p, eighths",
    "col_q": "q, eighths",
    "option": "Your own position",
    "p_label": "p({tok}) in eighths",
    "q_label": "q({tok}) in eighths",
    "off": "{d} sums to {sum}/8: add {gap}/8 to a token",
    "over": "{d} sums to {sum}/8: take {gap}/8 from a token",
    "worked": "min(1, {top}/{bottom}) = {accept}",
    "worked_capped": "min(1, {top}/{bottom}) = min(1, {ratio}) = {accept}",
    "item": "“{tok}” {accept}",
    "sep": ", ",
    "key_other": " The bars’ legend names the accept test’s split of p (shared, the residual’s share); this rule "
                 "reads only the heights of p and q.",
    "rate_seen": " Accepted proposals: {acc} ({seen}); the rule’s exact rate is {rate}.",
}

# Each verification rule's words in the lab, by its id in rules.py: how often it passes, its pass and its fail, and the
# tally's caption.
RULE_WORDS = {
    "accept-test": {
        "rate": "Accept test: a proposal drawn from q passes with probability α = {rate}. "
                "Each token’s accept probability min(1, p/q): {list}.",
        "pass": ": u = {u} is below {worked}, so “{tok}” is kept.",
        "fail": ": u = {u} is not below {worked}, so “{tok}” is rejected and a replacement is drawn.",
        "caption": "Every token the draws committed, by acceptance and as a replacement. Under each observed "
                   "frequency, the upper bar is the exact share, min(p, q) solid and max(0, p − q) hatched, "
                   "which sum to p; the lower bar is the draws, by acceptance solid and as a replacement hatched.",
    },
    "greedy-draft": {
        "rate": "Greedy draft: the draft always proposes its likeliest token, “{tok}” (ties go to the earlier one), "
                "and it passes with probability p(“{tok}”) = {rate}.",
        "pass": ": u = {u} is below p(“{tok}”) = {accept}, so the draft’s top token stands.",
        "fail": ": u = {u} is not below p(“{tok}”) = {accept}; the replacement comes from p with “{tok}” left out, "
                "renormalised.",
        "caption": "Every token the draws committed. Upper bar, exact: p at the top token, accepted (solid), "
                   "and p elsewhere, as a replacement (hatched); lower bar: the draws, split the same way.",
    },
    "exact-match": {
        "rate": "Exact match: the target draws its own y from p and keeps the proposal x only when y = x. Below, u "
                "is that draw of y: it picks the token of p whose segment it lands in. So the proposal shown stays "
                "with chance p(x), the width of its segment; averaged over proposals drawn from q that is "
                "Σ p·q = {rate}.",
        "pass": ": u = {u} draws “{tok}” from p, the proposal itself, so it stays.",
        "fail": ": u = {u} draws “{rep}” from p, not the proposal “{tok}”: “{rep}” is committed in its place.",
        "caption": "Every token the draws committed. Upper bar, exact: p·q, the target’s draw matching the proposal "
                   "(solid), and p·(1 − q), a mismatch (hatched); lower bar: the draws, split the same way.",
    },
}

# The player's draws and the rounds chance decides.
DRAWS = {
    "chance_mark": "· chance decides a check",
    "chance_one": "Chance decides a check in drawn round {rounds} only.",
    "chance_many": "Chance decides a check in drawn rounds {rounds}.",
    "chance_none_data": "Chance decides no check of this draft: every token it can propose is accepted with "
                        "probability 0 or 1.",
    "chance_none_drawn": "Chance decides no check in the {n} of this draft: no round there reaches a check of a "
                         "token the target accepts with a probability other than 0 or 1.",
    "draw_hint": "Draw another round moves to drawn round {i} of {n}.",
}

# "Watch it generate": the generator figure's words (templates/js/generator.js fills the same patterns).
GENERATOR: dict[str, Any] = {
    "drafts": {1: "a unigram model (word frequencies alone)", 2: "a bigram model (the previous word)",
               3: "a trigram model (the previous two words)", 0: "the target itself (a perfect draft)"},
    "short": {1: "the unigram draft", 2: "the bigram draft", 3: "the trigram draft"},
    "plain": "Plain decoding",
    "spec": "Speculative decoding",
    "how": "A race to {goal} tokens: play it, or step one round at a time; choose a coloured token to see its check.",
    "how_still": "A race to {goal} tokens. Motion is reduced here, so nothing plays: step one round at a time, and "
                 "choose a coloured token to see its check.",
    "plain_stats": "{tokens} of {goal} · {passes} · {time} on the clock",
    "spec_stats": "{tokens} of {goal} · {passes} · {steps} · {time} on the clock · {per} tokens per round",
    "passes_one": "1 target pass",
    "passes": "{n} target passes",
    "steps_one": "1 draft step",
    "steps": "{n} draft steps",
    "measured": "This race so far: {per} tokens per round, {speedup}× plain decoding’s tokens per target pass of the "
                "clock (counted under the assumed costs, not timed).",
    "expected": "Expected at these settings, from {rounds} rounds: ≈ {per} ± {pm} tokens per round, ≈ {speedup} ± "
                "{speedup_pm}× (± the half-width of a 95% interval).",
    "expected_exact": "Expected at these settings: exactly {per} tokens per round, {speedup}×, since the target as "
                      "its own draft passes every check.",
    "why": "Speed follows how often the draft’s guesses match the target’s: a closer draft matches more often, and at a "
           "lower temperature both models put their mass on the same likeliest tokens, so more proposals pass per "
           "target pass; a larger k drafts more per round, but the first rejection drops every proposal after it.",
    "expected_note": "Expected: one token, plus the share of the {rounds} rounds (each drafting {kmax} tokens, "
                     "continuing the text) whose first check passed, plus the share whose first two passed, and so on "
                     "up to k; ± is 1.96 standard errors. Plain decoding spends one target pass per token; a round is "
                     "assumed to cost {k} × {c} + {v} = {cost}, whichever draft runs (the target itself, as a draft, "
                     "shows the ceiling, not a real option).",
    "verdict_spec": "Speculative decoding reached {goal} tokens first: {passes} and {steps}, {time} on the clock, "
                    "where plain decoding needs {goal_passes}: {fewer}× fewer target passes, {ratio}× faster under "
                    "the assumed costs.",
    "verdict_plain": "Plain decoding reached {goal} tokens first, in {goal_passes}; speculative decoding took {passes} "
                     "and {steps}, {time} on the clock: {fewer}× fewer target passes, but {ratio}× slower under the "
                     "assumed costs.",
    "verdict_tie": "Both reached {goal} tokens at {time} on the clock: speculative decoding in {passes} and {steps}, "
                   "plain decoding in {goal_passes}: {fewer}× fewer target passes, and no faster under the assumed "
                   "costs.",
    "pass_part": "{n} of a target pass",
    "token_one": "1 token",
    "tokens": "{n} tokens",
    "accepted": "accepted proposal",
    "replaced": "replacement after a rejection",
    "bonus": "bonus from the target",
    "dropped": "dropped unchecked",
    "prompt": "the prompt every run starts from",
    "unit": "The clock counts target passes: a target pass is one forward pass of the target model, which scores "
            "every position of a round at once.",
    "clock": "The strip above each lane is the last {window} target passes of the shared clock, now at its right "
             "end: a block in the target’s colour is one target pass, one in the draft’s colour the draft’s steps in "
             "a round.",
    "play": "Play",
    "pause": "Pause",
    "new": "New race",
    "pick": "Choose a coloured token of the speculative lane to see its check.",
    "ctx": "Round {round}, position {pos}, after “{context}”.",
    "check_accept": "The draft proposed “{x}”: q = {q}, p = {p}, so it passes with probability min(1, p/q) = {a}. "
                    "The check drew a uniform number u = {u} < {a}: accepted.",
    "check_capped": "The draft proposed “{x}”: q = {q}, p = {p}. The target rates it at least as high as the draft, "
                    "so min(1, p/q) = 1 and it is accepted whatever the draw (u = {u}): no chance decides it.",
    "check_reject": "The draft proposed “{x}”: q = {q}, p = {p}, so it passes with probability min(1, p/q) = {a}. "
                    "The check drew a uniform number u = {u} ≥ {a}: rejected. The replacement “{y}” was drawn from "
                    "the residual max(0, p − q), renormalised, by a second uniform draw, r = {r}.",
    "check_dropped": " The {dropped} after it {were} dropped unchecked.",
    "check_broken_keep": "Under the broken sampler “{name}”, the draft proposed “{x}” (q = {q}, p = {p}); its test "
                         "read {a} and, with u = {u}, kept the token.",
    "check_broken_reject": "Under the broken sampler “{name}”, the draft proposed “{x}” (q = {q}, p = {p}); its test "
                           "read {a} and, with u = {u}, rejected the token: “{y}” came from its replacement "
                           "distribution by a second draw, r = {r}.",
    "expected_broken": "The expected values are the rule’s; a broken sampler’s own are the measured ones, and any "
                       "speed it gains over them is bought by keeping tokens the target would not have written.",
    "broken_ctx": "This panel reads one fixed context, not the lanes’ text: “{context}”, the {size} the prose most "
                  "often continues from. After it, the first token a round commits under “{name}” is {tv} in total "
                  "variation from the target’s next-token distribution (the rule’s is 0). The bars: p against what "
                  "this sampler commits there, for the six tokens likeliest under either.",
    "broken_ctx_same": "This panel reads one fixed context, not the lanes’ text: “{context}”, the {size} the prose "
                       "most often continues from. After it, the first token a round commits under “{name}” matches "
                       "the target’s next-token distribution at this draft and temperature, so this context cannot "
                       "show the fault here; another draft or temperature can.",
    "broken_numbers": "p {p} · this sampler {q}",
    "check_bonus": "Every proposal of this round passed, so “{y}” was drawn from the target’s own p at the next "
                   "position (p = {p}) by a uniform draw, r = {r}: the same target pass scored it.",
    "bar_numbers": "p {p} · q {q}",
    "proposals_one": "1 proposal",
    "proposals": "{n} proposals",
    "were_one": "was",
    "were": "were",
    # the last round's checks, one small accept strip each (ACCEPT), shown as the race steps or plays
    "checks_title": "Round {round}’s checks, 0 to 1: the tick is u; it keeps the proposal in the shaded part.",
    "cell_dropped": "“{tok}”: dropped, never checked",
}

# The accept strip (templates/accept_strip.html.j2, drawn by core.js's acceptStrip), one picture of a check wherever
# one happens (the lab, the round player, the generator): its tick's label and the words that say what it shows.
ACCEPT = {
    "u": "u = {u}",
    "r": "r = {u}",
    "test": "u = {u} {rel} {bound}: {verdict}",
    "range": "u = {u} {rel} [{lo}, {hi}): {verdict}",
    "drawn": "r = {u} in [{lo}, {hi}): “{tok}”",
    "named": "“{tok}”: {test}",
    "lt": "<",
    "ge": "≥",
    "in": "in",
    "out": "outside",
    "kept": "kept",
    "rejected": "rejected",
}
SPACE_BEFORE_NOT = ",.;:!?)]}%’”"  # a token that opens with one of these joins the text before it
SPACE_AFTER_NOT = "([{“‘#"  # ... and after one of these the next token joins it

# The keys of the tables above that only the build fills, in the no-script page and the prose: the trace, which
# carries every table a figure's script reads (figures.common.Figure.WORDS), leaves them out.
BUILD_ONLY = {*PEEL_BUILD_ONLY,  # figures/peel.py's (tree_strings.py)
              "option", "no_chance", "short", "target", "observed", "back", "point", "point_drawn", "free", "few",
              "broken_caption", "broken_why", "col_commits", "variant_rule_only", "drafts",
              # the identity's, which figures/identity.py writes into its table, summary and key
              "check_summary", "scope_all", "scope_only", "drafts_1", "drafts_2", "drafts_many", "at_rejection", "fig_title",
              "key_min", "key_fix", "key_p", "key_accept", "key_bars",
              "chance_one", "chance_many", "chance_none_data", "chance_none_drawn",
              # the generator's, which figures/generator.py writes into its markup and the no-script race
              "plain", "spec", "why", "pass_part", "prompt", "unit", "clock", "new"}

"""The reader-facing words of "When checking several guesses stops being free" (figures/roofline.py,
templates/roofline.html.j2, templates/js/roofline*.js): one table the script reads and one only the build fills, as in
strings.py, which re-exports them so that every table is still read as strings.<TABLE>."""

from __future__ import annotations

from typing import Any

__all__ = ["ROOFLINE", "ROOFLINE_PAGE"]  # every table here: strings.py re-exports them

# The words the figure's script reads (text.roofline in the trace); the build fills the same patterns for the page
# without scripting, so each sentence has one source. Numbers arrive formatted as roofline_charts.py's docstring says.
ROOFLINE: dict[str, Any] = {
    # the controls' outputs
    "k_out": "k = {k}",
    "m_out": "m = {m}",
    "batch_out": "n = {n}",
    "hardware_out": "{bandwidth} GB/s, {tflops} TFLOPS",
    "pair_out": "draft/target = {ratio}",
    "profile_out": "tokens per round E = {e}",
    # a time: the largest unit in which it is at least 1 (the last one below that), 3 significant figures
    "time": "{value}\u00a0{unit}",
    "units": [{"unit": "s", "exp": 0}, {"unit": "ms", "exp": -3}, {"unit": "µs", "exp": -6}, {"unit": "ns", "exp": -9}],
    "group": ",",  # between each three digits of a whole number: 4,096
    "knee_tiny": "less than 0.01",  # a knee below 0.005 tokens per pass, which 2 decimals would show as 0.00
    "times": "{value}×",
    "below": "<\u00a0{value}",  # a speedup below 0.01 (value: 0.01), which 2 decimals would write as 0.00
    "tokens_one": "1 token",
    "tokens_many": "{n} tokens",
    "passes_one": "one draft pass",
    "passes_many": "{k} draft passes",
    # the setting the charts are drawn for (p data-roofline-shown: the build's line without scripting, the script's
    # on paper, where the controls are not printed)
    "shown": "Drawn for {hardware} with {pair}, {profile}, {positions} drafted with {candidates}, and {batch}.",
    "positions_one": "1 position",
    "positions_many": "{k} positions",
    "candidates_one": "one candidate each",
    "candidates_many": "{m} candidates each",
    "batch_one": "one request at a time",
    "batch_many": "{n} requests at a time",
    # what one step and one round cost at the chosen batch (p data-roofline-words)
    "step": "At a batch of {n}, one plain step (the target scoring {plain_tokens}) takes {plain}. One round ({drafts}, "
            "then one check scoring {check_tokens}) takes {round} and commits {e} tokens per request on average, so "
            "the speedup is {value}×.",
    "flat": " The check stays below the knee of {knee} tokens per pass, so it costs what reading the weights costs.",
    "steep": " The check is past the knee of {knee} tokens per pass: its arithmetic, not reading the weights, sets "
             "its time.",
    # where speculation stops paying (p data-roofline-stop)
    "stop_at": "With these settings speculation stops paying at a batch of {n}: from there on, plain decoding is "
               "faster.",
    "stop_never": "With these settings speculation never pays: even at a batch of 1, plain steps would "
                  "commit as many tokens as a round in less time.",
    "stop_beyond": "With these settings speculation still pays at a batch of {n}, the largest this model looks at.",
    # inside the charts (the axes' tick labels come ready-made in the trace)
    "knee_label": "knee",
    "cross_label": "stops: {n}",
    "pass_desc": "One pass’s time against the tokens it scores, both on log scales, on {hardware}: the target’s line "
                 "and the draft’s are flat up to the knee at {knee} tokens and rise in proportion past it. At a batch "
                 "of {n}, a plain step scores {plain_tokens} and takes {plain}; the check scores {check_tokens} and "
                 "takes {check}.",
    "speedup_desc": "The speedup against the batch size, on a log scale, for {profile} with k = {k} and m = {m}: "
                    "{first}× at a batch of 1 and {last}× at {max}; the dashed line is 1×.",
}

# ... and the words only the build writes (the markup, the table for readers without scripting): no figure's WORDS
# names this table.
ROOFLINE_PAGE: dict[str, Any] = {
    "never_cell": "never pays",
    "beyond_cell": "beyond {n}",
    "pass_title": "One pass: its time against tokens scored",
    "speedup_title": "Speedup against batch size",
    "pass_x": "tokens scored in one pass",
    "speedup_x": "requests in the batch",
}

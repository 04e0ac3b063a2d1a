"""The reader-facing words of several candidates per position (speculative trees): one table per figure, as in
strings.py, which re-exports them so that every table is still read as strings.<TABLE>."""

from __future__ import annotations

__all__ = ["PEEL"]  # every table here: strings.py re-exports them

# p peeled one residual after another, E by width, and the broken ways (figures/peel.py, build only)
PEEL = {"peel_where": "{profile}, position {position}, with {m} candidates drawn with replacement",
        "peel_title": "p peeled by {m} candidates: what each keeps, and what is drawn after all of them fail",
        "peel_layer": "kept at candidate {j}", "peel_rest": "drawn after every candidate failed",
        "peel_broken_where": "{profile}, position {position}"}
PEEL_BUILD_ONLY = frozenset(PEEL)  # the trace leaves these out: only the build fills them

"""The view joins the figures' parts: the trace the script reads and the context the prose reads, formatted
once from the analysis, never read back from the trace."""

from __future__ import annotations

import json
import re
from fractions import Fraction

import pytest

from speculative import figures, strings, text, view
from speculative.figures import common

ROOT_TEMPLATES = "templates"


def test_trace_and_context_are_pure_functions_of_the_analysis(explained):
    first = json.dumps(view.trace(explained), ensure_ascii=False)
    assert json.dumps(view.trace(explained), ensure_ascii=False) == first
    assert view.context(explained) == view.context(explained)


def test_every_figure_has_its_template_and_is_placed_by_a_section():
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    sections = " ".join(p.read_text(encoding="utf-8") for p in (root / "content").glob("*.md"))
    for fig in figures.FIGURES:
        assert (root / ROOT_TEMPLATES / f"{figures.name(fig)}.html.j2").is_file(), figures.name(fig)
        assert re.search(r"^\{\{ " + figures.name(fig) + r" \}\}$", sections, re.M), figures.name(fig)


def test_every_figure_module_is_found_by_the_registry_with_its_one_figure(explained):
    """Adding a figure lists it nowhere: each module in speculative/figures but the shared one is a figure."""
    from pathlib import Path

    modules = {p.stem for p in Path(figures.__file__).parent.glob("*.py")} - {"__init__", "common"}
    assert set(figures.COMPONENTS) == modules
    assert all(len([c for c in figures.FIGURES if figures.name(c) == m]) == 1 for m in modules)
    assert {"walkthrough.css"} <= set(figures.STYLES)


def test_a_misspelt_hook_fails_as_the_figure_is_defined():
    with pytest.raises(TypeError, match="contxt is no figure hook"):
        class Misspelt(common.Figure):
            def contxt(self) -> dict:
                return {"x": 1}

    class Helped(common.Figure):  # a helper with a leading _ is allowed, and the hooks it does not define give {}
        def _helper(self) -> int:
            return 1

        def context(self) -> dict:
            return {"x": self._helper()}

    assert Helped(None, ()).context() == {"x": 1} and Helped(None, ()).trace() == {}


def test_two_figures_giving_one_key_is_refused(explained):
    class One(common.Figure):
        def context(self) -> dict:
            return {"lab": 1}

    figs = view.figures(explained)
    assert "lab" in figs.parts("context")
    with pytest.raises(ValueError, match="One.context gives lab"):
        view.Figures(figs.facts, (*figs.models, One(explained, figs.facts))).parts("context")


def test_the_trace_carries_the_words_each_script_reads_and_none_only_the_build_fills(trace):
    """The word table is built from the figures' WORDS; every text.<table> a script reads is in it."""
    import re as re_
    from pathlib import Path

    js = " ".join(p.read_text(encoding="utf-8") for p in (Path(figures.__file__).parents[2] / "templates" / "js").glob("*.js"))
    read = set(re_.findall(r"\btext\.([a-z_]+)\b", js)) - {"fill", "py", "decimal_str", "ratio_text", "length", "slice",
                                                               "concat", "text", "trim", "char", "quoted", "and_list"}
    assert read <= set(trace["text"]), read - set(trace["text"])
    assert not any(k in strings.BUILD_ONLY for name, table in trace["text"].items() if name != "state_names" for k in table)


def test_page_ids_hold_every_figures_ids_and_prefixes():
    ids = figures.page_ids()
    for fig in figures.FIGURES:
        assert ids >= fig.IDS and ids >= fig.PREFIXES
    assert {"main", "trace"} <= ids


def test_every_id_on_the_page_is_reserved_so_no_profile_id_can_collide(built_site, data_file):
    from speculative import checkout, pipeline

    _, sections, _ = pipeline.parse_inputs(checkout.ROOT / "data" / "profiles.v1.json", checkout.ROOT / "content",
                                        checkout.ROOT / "templates")
    reserved = pipeline.reserved_ids(sections)
    html = (built_site / "index.html").read_text(encoding="utf-8")
    profile_ids = set(re.findall(r'data-lab-open="([a-z0-9-]+)/', html))
    assert profile_ids == {p["id"] for p in json.loads(data_file.read_text(encoding="utf-8"))["profiles"]}
    for found in set(re.findall(r'\bid="([^"]+)"', html)):
        if found.startswith("walkthrough/") and found.split("/")[1] in profile_ids:  # a frame of the no-JS list
            continue
        stem = found[: -len("-h")] if found.endswith("-h") else found  # a section's heading
        assert stem in reserved or any(stem.startswith(f"{prefix}-") for prefix in reserved), found


def test_peak_view_is_the_analysis_best_k_at_the_page_cost(explained):
    c = explained.cost_index  # the page's draft step is one the explorer compares: the two must agree
    for r in explained.results:
        v = view.peak_view(explained, r)
        k, value, after = r.own_peak(explained.data.cost)
        table = r.stats.speedup_table
        assert v["peak_k"] == k == max(range(1, explained.data.k + 1), key=lambda j: (table[j - 1][c], -j))
        assert value == table[k - 1][c] and after == (table[k][c] if k < len(table) else None)
        assert Fraction(v["peak"]) == round(value, 3)
        assert v["peak_after"] == k + 1


def test_frames_are_plain_objects_that_name_their_kind_states_and_captions(explained):
    tr = view.trace(explained)
    for p in tr["profiles"]:
        for rnd in [p["walk"], *p["drawn"]]:
            for f in rnd["frames"]:
                assert set(f) == {"kind", "pos", "slots", "caption", "u", "chance"}
                assert f["kind"] in strings.KIND_NAMES and set(f["slots"]) <= set(strings.STATE_NAMES)
                assert set(f["caption"]) <= set(strings.CAPTIONS) and isinstance(f["chance"], bool)


def test_the_authored_walkthroughs_certainty_sentence_follows_the_data(explained):
    ctx = view.context(explained)
    assert ctx["authored_chance"] == text.and_list([r.profile.name for r in explained.results if r.walk_by_chance])

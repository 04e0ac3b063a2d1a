"""The page's figures, one module each: a typed model built once from the analysis gives the figure's trace
slice, its template context (what readers without scripting see) and its element ids.

A figure's one name is its module's: its template `templates/<name>.html.j2`, the `{{ <name> }}` line that places it,
its script `templates/js/<name>.js`, its words `strings.<NAME>` (`text.<name>` in the trace), its key in the trace and
the prefix of its ids, data- hooks and classes. To add a figure: write its module here, its template and its script,
and add it to FIGURES below."""

from __future__ import annotations

from types import ModuleType

from . import convergence, explorer, generator, identity, lab, positions, servers, walkthrough

FIGURES = (generator, lab, walkthrough, positions, identity, convergence, explorer, servers)  # in the order the page renders them


def name(figure: ModuleType) -> str:
    """Returns a figure's one name, its module's: "explorer" for figures.explorer."""
    return figure.__name__.rsplit(".", 1)[-1]


COMPONENTS = tuple(name(f) for f in FIGURES)
# The page's script files in the order they join: the shared ones first (core.js, and variants.js, the samplers'
# arithmetic the generator and the lab both run), then each figure's own, then the page's folds and print, and boot.js,
# which starts them. A figure's files take what they use from `shared` and give nothing to another figure's.
SHARED_SCRIPTS = ("js/core.js", "js/variants.js")
SCRIPTS = (*SHARED_SCRIPTS, *(file for f in FIGURES for file in f.SCRIPTS), "js/folds.js", "js/print.js", "js/boot.js")
SHELL_IDS = frozenset({"main", "trace"})  # the page template's own element ids
STYLES = ("style.css", "charts.css", "walkthrough.css", "figures.css")  # joined, in this order, into the page's one style


def needed_templates() -> tuple[str, ...]:
    """Returns the template files the page cannot be built without: the page, each component, each stylesheet."""
    return ("page.html.j2", *(f"{component}.html.j2" for component in COMPONENTS), *STYLES, *SCRIPTS)


def page_ids() -> frozenset[str]:
    """Returns every element id and id prefix the figures and the page's shell use: no profile id may be one."""
    return SHELL_IDS.union(*(f.IDS | f.PREFIXES for f in FIGURES))

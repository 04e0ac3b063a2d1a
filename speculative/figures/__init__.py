"""The page's figures, one module each: its one subclass of common.Figure, built once from the analysis, gives the
figure's trace slice, its template context (what readers without scripting see) and its element ids.

A figure's one name is its module's: its template `templates/<name>.html.j2`, the `{{ <name> }}` line that places it,
its script `templates/js/<name>.js`, its words `strings.<NAME>` (`text.<name>` in the trace), its stylesheet
`templates/<name>.css` if it has one, its key in the trace and the prefix of its ids, data- hooks and classes. The
registry below finds every module here, so adding a figure lists it nowhere (docs/authoring.md has the steps)."""

from __future__ import annotations

import importlib
import pkgutil

from .common import Figure


def _found() -> tuple[type[Figure], ...]:
    """Returns every figure module's Figure subclass, by the module's name."""
    out = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        out += [c for c in vars(module).values()
                if isinstance(c, type) and issubclass(c, Figure) and c is not Figure and c.__module__ == module.__name__]
    return tuple(out)


FIGURES = _found()


def name(figure: type[Figure]) -> str:
    """Returns a figure's one name, its module's: "explorer" for figures.explorer's Explorer."""
    return figure.__module__.rsplit(".", 1)[-1]


COMPONENTS = tuple(name(f) for f in FIGURES)
# The page's script files in the order they join: the shared ones first (core.js, and variants.js, the samplers'
# arithmetic the generator and the lab both run), then each figure's own, then the page's folds and print, and boot.js,
# which starts them (in the order of their roots on the page). A figure's files take what they use from `shared` and
# give nothing to another figure's.
SHARED_SCRIPTS = ("js/core.js", "js/variants.js")
SCRIPTS = (*SHARED_SCRIPTS, *(file for f in FIGURES for file in f.SCRIPTS), "js/folds.js", "js/print.js", "js/boot.js")
SHELL_IDS = frozenset({"main", "trace"})  # the page template's own element ids
# Joined, in this order, into the page's one style: the page's and the charts' rules, the stylesheet of each figure
# that has its own (Figure.STYLESHEET), and the rules the figures share.
STYLES = ("style.css", "charts.css", *(f"{name(f)}.css" for f in FIGURES if f.STYLESHEET), "figures.css")


def needed_templates() -> tuple[str, ...]:
    """Returns the template files the page cannot be built without: the page, each component, each stylesheet."""
    return ("page.html.j2", *(f"{component}.html.j2" for component in COMPONENTS), *STYLES, *SCRIPTS)


def page_ids() -> frozenset[str]:
    """Returns every element id and id prefix the figures and the page's shell use: no profile id may be one."""
    return SHELL_IDS.union(*(f.IDS | f.PREFIXES for f in FIGURES))

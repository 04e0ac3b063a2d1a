"""Owns what the build checks of the authors' input as it renders: the prose's template expressions, template errors
as "file: line N: found …; expected …", and the finished page's own consistency (every internal link resolves, every
id once). The templates are the project's own code: the tests check their markup, styles and scripts."""

from __future__ import annotations

import functools
import html
import re
import traceback
from collections import Counter
from collections.abc import Iterable, Mapping
from html.parser import HTMLParser

import jinja2
from jinja2 import nodes

from .errors import GONE, OWN_ID

TOP_TARGETS = {"", "top"}  # href="#" and "#top" scroll to the top in every browser
PROSE_FILE = "<template>"  # the file name Jinja gives a section's compiled code (Environment.from_string)

# --- the prose: it fills in the view's values and computes nothing -----------------------------------------------

# The filters a section may use: none makes text much longer than its input (the stock sandbox bounds range() alone,
# not "x" * 10**9 or "x"|center(10**9)).
PROSE_FILTERS = frozenset({"cap", "subscript", "e", "escape", "join", "length", "lower", "upper", "first", "last",
                           "default", "round", "abs"})


def _short_join(node: nodes.Filter) -> bool:
    """Returns whether a join joins a value of the page's (not text another filter made, which a join would multiply)
    with a separator of at most 10 characters."""
    sep = node.args[0] if node.args else nodes.Const("")
    return isinstance(node.node, (nodes.Name, nodes.Getattr, nodes.Getitem)) and not node.kwargs and \
        isinstance(sep, nodes.Const) and isinstance(sep.value, str) and len(sep.value) <= 10


def _refused(node: nodes.Node, macros: set[str]) -> str | None:
    """Returns "found …; expected …" for what prose may not hold, or None."""
    if isinstance(node, (nodes.BinExpr, nodes.Concat)):
        return (f"found the operator {getattr(node, 'operator', '~')}; expected the page's values as they are, such "
                "as {{ p.aligned.expected }} (prose computes nothing: the view computes every number)")
    if isinstance(node, nodes.Filter) and node.name not in PROSE_FILTERS:
        return f"found the filter |{node.name}; expected only the filters {', '.join(sorted(PROSE_FILTERS))}"
    if isinstance(node, nodes.Filter) and node.name == "join" and not _short_join(node):
        return ("found a join of another filter's text or with a long separator; expected a join of the page's values "
                "with a separator of at most 10 characters, such as {{ vocab|join(', ') }}")
    if isinstance(node, nodes.Call) and not (isinstance(node.node, nodes.Name) and node.node.name in macros):
        callee = getattr(node.node, "name", None) or getattr(node.node, "attr", "a value")
        return f"found a call of {callee}(); expected calls of the section's own macros alone"
    if isinstance(node, nodes.For) and not isinstance(node.iter, (nodes.Name, nodes.Getattr, nodes.Getitem, nodes.Call)):
        return "found a loop over a literal; expected a loop over the page's values, such as {% for v in profiles %}"
    if isinstance(node, (nodes.Include, nodes.Import, nodes.FromImport, nodes.Extends)):
        return "found an include, import or extends; expected a figure placed by its name on a line of its own, such " \
               "as {{ lab }}"
    return None


def prose_problems(tree: nodes.Template) -> list[tuple[int, str]]:
    """Returns (line, message) for each expression in a section that computes rather than fills in a value: each of
    these could make text without bound ({{ "x" * 10**9 }}, nested range() loops); a call is named, not its loop."""
    macros = {m.name for m in tree.find_all(nodes.Macro)}
    return [(node.lineno, found) for node in tree.find_all(nodes.Node) if (found := _refused(node, macros))]


# --- template errors: the file, the line, what was found and what was expected ---------------------------------

RENDER_ERRORS = (jinja2.TemplateError, ArithmeticError, LookupError, TypeError, ValueError, AttributeError, RecursionError)


def template_problem(err: Exception, file: str, files: Iterable[str], names: Iterable[str]) -> str | None:
    """Returns "file: line N: found …; expected …" for an error raised while rendering `file`, or None when it arose
    outside every template (files, their shown paths): a bug in the build. names: the names the context defines."""
    if isinstance(err, jinja2.TemplateSyntaxError):
        where: tuple[str, int | None] = (err.filename or file, err.lineno)
    else:
        known = {*files, PROSE_FILE}
        inside = [(f.filename, f.lineno) for f in traceback.extract_tb(err.__traceback__) if f.filename in known]
        if not inside and not isinstance(err, jinja2.TemplateError):
            return None
        if isinstance(err, RecursionError):  # the include or call that repeats, not the deepest one
            inside = [Counter(inside).most_common(1)[0][0]]
        where = inside[-1] if inside else (file, None)
    shown = file if where[0] == PROSE_FILE else where[0]
    return f"{shown}: " + (f"line {where[1]}: " if where[1] else "") + _what(err, names)


LOOPS = "found an include or macro that leads back to itself; expected includes and macros that end"


def include_loops(env: jinja2.Environment, templates: Mapping[str, str], folder: str) -> list[str]:
    """Returns "folder/name: line N: found an include … that leads back to itself" for each include, named by a
    constant, that starts a loop of includes: found before rendering, which would otherwise render each template
    again at every level until Python's recursion limit (12 s for a template that includes itself)."""
    edges = {name: out for name, text in templates.items() if (out := _includes(env, name, text)) is not None}
    found: list[str] = []
    covered: set[str] = set()
    for name in edges:
        for target, line in edges[name]:
            if name in _reachable(edges, target) and name not in covered:  # one line per loop: its first include
                found.append(f"{folder}/{name}: line {line}: {LOOPS}")
                covered |= {n for n in _reachable(edges, target) if name in _reachable(edges, n)}
    return found


@functools.lru_cache(maxsize=256)  # a template's text parsed once per process: a rebuild parses only what changed
def _includes(env: jinja2.Environment, name: str, text: str) -> tuple[tuple[str, int], ...] | None:
    """Returns (the template named, line) of each include in a template's text named by a constant, or None when it
    does not parse (rendering names that, with its line)."""
    try:
        tree = env.parse(text, name)
    except jinja2.TemplateSyntaxError:
        return None
    return tuple((n.template.value, n.lineno) for n in tree.find_all(nodes.Include)
                 if isinstance(n.template, nodes.Const) and isinstance(n.template.value, str))


def _reachable(edges: Mapping[str, tuple[tuple[str, int], ...]], start: str) -> set[str]:
    """Returns every template an include chain from `start` reaches, `start` included."""
    seen, todo = set(), [start]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += [target for target, _ in edges.get(name, [])]
    return seen


def _what(err: Exception, names: Iterable[str]) -> str:
    if isinstance(err, jinja2.TemplateNotFound):
        return (f"found {err.name!r} named in an include, import or extends, but no such template; expected a "
                "template file of that name in the templates folder")
    if isinstance(err, jinja2.TemplateSyntaxError):
        return f"found a template syntax error: {err.message}"
    if isinstance(err, jinja2.UndefinedError) and str(err).endswith(" is undefined"):
        return f"found {err}; expected one of the names the page defines: {', '.join(sorted(set(names)))}"
    if isinstance(err, jinja2.UndefinedError):
        return f"found {err}; expected a name it has"
    if isinstance(err, jinja2.exceptions.SecurityError):
        return f"found {str(err).rstrip('.')}; expected only the data's own values (prose runs in Jinja's sandbox)"
    if isinstance(err, RecursionError):
        return LOOPS
    return f"found {type(err).__name__}: {err}; expected an expression that works on the page's values"


# --- the finished page ------------------------------------------------------------------------------------------

class _Anchors(HTMLParser):
    """Collects every element's id and every link's href in some HTML, as a browser reads them: attribute values are
    parsed (so a '<script>' inside one is text, not a tag) and unescaped (href="&#35;x" is #x), and a script's or a
    style's text holds no elements (a script's own id counts, the trace's)."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.found: dict[str, list[str]] = {"id": [], "href": []}
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is not None and name in self.found:
                self.found[name].append(value)

    handle_startendtag = handle_starttag


_DRAWN_FRAME = re.compile(r"walkthrough/[a-z0-9]+(?:-[a-z0-9]+)*/r[1-9][0-9]*/[1-9][0-9]*")
_HREFS = re.compile(r"\shref\s*=\s*(?:\"([^\"]*)\"|'([^']*)')", re.I)  # in a source text, to find a link's line


def link_problems(page: str, parts: Mapping[str, tuple[str, str]],
                  sections: Mapping[str, tuple[str, int]]) -> list[tuple[str, str]]:
    """Returns (file, message) for every link to an id that no element has, or an id more than one has; parts maps
    a file to (its source, its HTML), so a problem names its file and line, sections an id to (its file, its line)."""
    found = _Anchors(page).found
    ids = Counter(found["id"])  # a script's own id counts (the trace's), its text not
    problems: list[tuple[str, str]] = []
    of_part = functools.cache(lambda name: _Anchors(parts[name][1]).found)  # each part parsed once, if a problem needs it
    targets = {href[1:] for href in found["href"] if href.startswith("#")}
    for target in sorted(targets - set(ids) - TOP_TARGETS):
        if _DRAWN_FRAME.fullmatch(target):  # a frame of a drawn round: the player opens it; no element has its id
            continue
        owners = [name for name in parts if "#" + target in of_part(name)["href"]] or ["the page"]
        for name in owners:
            problems.append((name, f"{_line_of(parts.get(name, ('', ''))[0], '#' + target)}found a link to "
                                   f"#{target}, but no element on the page has id=\"{target}\"; expected a section "
                                   f"or figure with that id {GONE}"))
    for dup in sorted(i for i, n in ids.items() if n > 1):
        owners = [name for name in parts if dup in of_part(name)["id"]]
        written = [name for name in owners if name in {file for file, _ in sections.values()}]
        if dup in sections and written:  # an element in some section's prose takes a section's id: that file is named
            problems += [(name, f"{_line_of(parts[name][0], f'id={chr(34)}{dup}{chr(34)}')}found id=\"{dup}\", the id of "
                                f"the section in {sections[dup][0]}; expected another id (each id names one element)")
                         for name in written]
            continue
        if dup in sections:
            problems.append((sections[dup][0], f"line {sections[dup][1]}: id: found \"{dup}\", which another element "
                                               f"on the page has too; {OWN_ID}"))
            continue
        owners = owners or ["the page"]
        problems.append((", ".join(owners), f"found id=\"{dup}\" on {ids[dup]} elements; expected each id on one "
                                            "element only (choose another id)"))
    return problems


def _line_of(source: str, needle: str) -> str:
    """Returns "line N: " for the first place source has needle, or an HTML link to it however written (&#35;x)."""
    at = source.find(needle)
    if at < 0 and needle.startswith("#"):
        at = next((m.start() for m in _HREFS.finditer(source) if html.unescape(m.group(1) or m.group(2)) == needle), -1)
    return f"line {source.count(chr(10), 0, at) + 1}: " if at >= 0 else ""

"""Owns rendering: sections and the view's finished values into one HTML string (markdown-it-py, Jinja2, CSP). It
computes nothing. The templates, our own code, render in a plain Jinja environment (the tests check them); the prose
in Jinja's stock sandbox, once page_checks.prose_problems has refused any expression that computes."""

from __future__ import annotations

import base64
import functools
import hashlib
import itertools
import json
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import jinja2
import rcssmin
import rjsmin
from jinja2.sandbox import SandboxedEnvironment
from markdown_it import MarkdownIt
from markdown_it.rules_core.smartquotes import process_inlines
from markdown_it.rules_core.state_core import StateCore
from markupsafe import Markup

from . import figures, page_checks, prose
from .cache import compact_json
from .errors import GONE, Problems, lines_of
from .sections import Section, html_problems, markdown_problems
from .text import subscript


def script_json(obj: Any) -> str:
    """Returns JSON (of a value, or JSON text from compact_json) that no string can end inside <script>."""
    text = obj if isinstance(obj, str) else compact_json(obj)
    for raw, escaped in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(raw, escaped)
    return text


def sha256_source(text: str) -> str:
    """Returns the CSP source expression that allows exactly this inline block."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def content_security_policy(scripts: list[str], styles: list[str]) -> str:
    """Returns a policy that allows only these inline scripts and styles, and data: images (the favicon)."""
    return (f"default-src 'none'; script-src {' '.join(map(sha256_source, scripts))}; style-src "
            f"{' '.join(map(sha256_source, styles))}; img-src data:; base-uri 'none'; form-action 'none'")


COMPONENTS, STYLES = figures.COMPONENTS, figures.STYLES
# The page's one classic script: these fragments, in this order, inside one strict function; boot.js starts the figures.
SCRIPTS = figures.SCRIPTS


def joined_source(texts: Iterable[str], names: Iterable[str] = ()) -> str:
    """Returns script files joined, each in a try block of its own: what it declares stays its own, what it shares
    goes on `shared`, and an error its top-level code throws is logged under its name while the next files run."""
    named = itertools.zip_longest(texts, names, fillvalue="")
    return "const shared = {};\n" + "".join(f"try {{\n{text}\n}} catch (error) {{ console.error("
                                            f"{json.dumps(name + ':')}, error); }}\n" for text, name in named)


def joined_script(templates: Mapping[str, str]) -> str:
    """Returns the SCRIPTS joined into one minified classic script (a page from file:// may not load modules) in one
    strict function. The build does not parse them: the browser tests fail on a syntax or load error."""
    return rjsmin.jsmin("(() => {\n'use strict';\n" + joined_source((templates[n] for n in SCRIPTS), SCRIPTS) + "})();\n")


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~])")
_OPTIONS: dict[str, Any] = {"autoescape": True, "undefined": jinja2.StrictUndefined, "trim_blocks": True,
                            "lstrip_blocks": True}


def _markdown_text(value: Any) -> Any:
    """Backslash-escapes Markdown in strings a section takes from the data, so a label stays text; refuses to print a
    function, a method or a class (as Python would write it: "<built-in method bit_length of int object at 0x…>")."""
    if callable(value) and not isinstance(value, jinja2.Undefined):  # an undefined name is named as such
        kind = "class" if isinstance(value, type) else "function or method"
        name = getattr(value, "__name__", None) or getattr(value, "name", "")  # a macro has a name, not a __name__
        raise jinja2.exceptions.SecurityError(f"the Python {kind} {name}".rstrip()
                                              + ", which prints as Python's own description of it")
    return _MARKDOWN_SPECIAL.sub(r"\\\1", value) if isinstance(value, str) and not isinstance(value, Markup) else value


def environments(templates: Mapping[str, str], folder: str = "templates") -> tuple[jinja2.Environment, SandboxedEnvironment]:
    """Returns a Jinja2 environment over the template texts (a template's file is folder/name in tracebacks, so in
    messages), and Jinja's own sandbox for the prose, which loads no template and escapes Markdown in the data's
    strings; both autoescape and fail on undefined names. The environments live as long as the process, so a
    rebuild under --watch compiles only the templates whose text changed (compiling them all takes ~0.1 s)."""
    env, texts = _ENVIRONMENTS.get(folder) or _ENVIRONMENTS.setdefault(folder, _environment(folder))
    env.parsed.clear()
    texts.clear()
    texts.update(templates)
    return env, _PROSE_ENV


def _environment(folder: str) -> tuple[_Environment, dict[str, str]]:
    """Returns an environment whose loader reads `texts` as they are at each build (a template is compiled again
    once its text differs from the text it was compiled from), and that dict."""
    texts: dict[str, str] = {}

    def load(name: str) -> tuple[str, str, Callable[[], bool]] | None:
        if name not in texts:
            return None
        source = texts[name]
        return source, f"{folder}/{name}", lambda: texts.get(name) == source
    return _with_filters(_Environment(loader=jinja2.FunctionLoader(load), **_OPTIONS)), texts


class _Environment(jinja2.Environment):
    """jinja2's Environment, which parses a template's text once per build, not twice: include_loops parses every
    template before anything renders, and the compile that follows takes that tree (once: compiling may change it;
    a tree holds no file name, which only messages use). environments() forgets the trees no compile took."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.parsed: dict[tuple[str, str | None], Any] = {}

    def parse(self, source: str, name: str | None = None, filename: str | None = None) -> Any:
        tree = super().parse(source, name, filename)
        self.parsed[source, name] = tree
        return tree

    def _parse(self, source: str, name: str | None, filename: str | None) -> Any:
        return self.parsed.pop((source, name), None) or super()._parse(source, name, filename)


def _with_filters(env: Any) -> Any:
    env.filters.update(cap=lambda text: text[:1].upper() + text[1:], subscript=subscript)
    return env


_ENVIRONMENTS: dict[str, tuple[_Environment, dict[str, str]]] = {}
_PROSE_ENV: SandboxedEnvironment = _with_filters(SandboxedEnvironment(finalize=_markdown_text, **_OPTIONS))
_PROSE_ENV.globals.clear()  # Jinja's own range, dict, lipsum, cycler, joiner and namespace: the prose has the data's values


MAX_SMART_QUOTES = 300  # straight quotes in one paragraph that become curly; past this, they stay straight


def bounded_smartquotes(state: StateCore) -> None:
    """markdown-it's smart quotes, for each paragraph with at most MAX_SMART_QUOTES quotes: the pass is quadratic
    in their number (900 KB of "' pairs never finished)."""
    for token in state.tokens:
        if token.type == "inline" and token.children:
            quotes = token.content.count("'") + token.content.count('"')
            if 0 < quotes <= MAX_SMART_QUOTES:
                process_inlines(token.children, state)


def _markdown() -> MarkdownIt:
    """Returns the Markdown parser: CommonMark, tables, typographic replacements and bounded smart quotes."""
    md = MarkdownIt("commonmark", {"html": True, "typographer": True}).enable(["table", "replacements", "smartquotes"])
    md.core.ruler.at("smartquotes", bounded_smartquotes)
    # every link becomes a link, so markdown_problems refuses a javascript: or file: one by name; markdown-it's own
    # check would leave it on the page as plain text, unnoticed
    md.validateLink = lambda url: True  # type: ignore[method-assign]  # markdown-it's documented way to set it
    return md


def section_html(env: SandboxedEnvironment, md: MarkdownIt, section: Section, ctx: Mapping[str, Any]) -> str:
    """Returns one section's HTML with a marker where each figure goes: Jinja fills in the values, then markdown-it
    renders the prose; raises Problems for an expression that computes, or raw HTML not allowed or not balanced."""
    problems, template = _prose(env, section.template_text(), section.source)
    if template is not None:
        tokens = md.parse(template.render(ctx, **{n: Markup(f"\n<!--component:{n}-->\n") for n in COMPONENTS}))
        fragments = [(t.map[0] + 1 if t.map else 0, t.content) for t in tokens if t.type == "html_block"]
        fragments += [(t.map[0] + 1 if t.map else 0, c.content) for t in tokens if t.type == "inline"
                      for c in t.children or [] if c.type == "html_inline"]
        problems = sorted(html_problems(sorted(fragments, key=lambda f: f[0])) + markdown_problems(tokens),
                          key=lambda p: p[0])
    if problems:
        raise Problems.in_files([(section.source, f"line {line}: {message}") for line, message in problems])
    return md.renderer.render(tokens, md.options, {})


TOO_DEEP = ("found an expression nested or chained too deeply, or a number too long, to compile; expected the data's "
            "values as {{ name }}, {{ name.part }} or {{ name|filter }}")


@functools.lru_cache(maxsize=64)  # a rebuild under --watch compiles only the sections whose text changed
def _prose(env: SandboxedEnvironment, text: str, source: str) -> tuple[list[tuple[int, str]], jinja2.Template | None]:
    """Returns a section's (line, message) for each expression that computes, and its compiled template if none.
    An expression Python cannot compile (40 nested {{, 500 filters in a chain, 300 minus signs, a number of over
    4,300 digits) is one problem, at the line of the section's longest tag."""
    try:
        tree = env.parse(text, source, source)
        problems = page_checks.prose_problems(tree)
        return problems, None if problems else env.from_string(tree)
    except (RecursionError, SyntaxError, ValueError):
        tags = [(len(m.group()), text.count("\n", 0, m.start()) + 1)
                for m in re.finditer(r"\{[{%](?:(?![}%]\}).)*(?:[}%]\}|$)", text, re.M)]
        return [(max(tags)[1] if tags else 1, TOO_DEEP)], None


def _place(html: str, components: Mapping[str, str]) -> Markup:
    """Returns a section's HTML with each figure in its place: after Markdown, so a figure is never read as prose."""
    return Markup(re.sub(r"<!--component:(\w+)-->", lambda m: components.get(m.group(1), m.group()), html))


def _render(file: str, problems: list[str], call: Callable[[], Any], files: Iterable[str] = (),
            names: Iterable[str] = ()) -> Any:
    """Returns call(), or records its error by the file and line it names (`file` if none) and returns None."""
    try:
        return call()
    except Problems as err:
        problems += err.lines
    except page_checks.RENDER_ERRORS as err:
        problem = page_checks.template_problem(err, file, files, names)
        if problem is None:  # raised outside every template: a bug in the build, not in its input
            raise
        problems.append(problem)
    return None


_TWICE = "more than once"


def placement_problems(bodies: Mapping[str, str], folder: str, texts: Mapping[str, str]) -> list[tuple[str, str]]:
    """Returns a problem for each component that no section places, or more than one does: one per place, at its
    line where the section's text writes {{ name }} (texts: each section's source), else one naming every file."""
    problems = []
    for name in COMPONENTS:
        placed = [source for source, html in bodies.items() if f"<!--component:{name}-->" in html]
        if not placed:
            problems.append((f"{folder}/{name}.html.j2", f"found no section that places {{{{ {name} }}}}; expected "
                             f"one section in content/ to hold it {GONE}"))
        elif len(placed) > 1 or bodies[placed[0]].count(f"<!--component:{name}-->") > 1:
            at = [(source, texts.get(source, "").count("\n", 0, m.start()) + 1) for source in placed
                  for m in re.finditer(r"\{\{-?\s*" + name + r"\s*-?\}\}", texts.get(source, ""))]
            if len(at) < 2:  # placed some other way ({% set x = name %}{{ x }}): the files, without lines
                problems.append((", ".join(placed), f"found {{{{ {name} }}}} {_TWICE}; expected it in one place"))
                continue
            problems += [(source, f"line {line}: found {{{{ {name} }}}} {_TWICE} (also at "
                                  + ", ".join(f"{s} line {n}" if s != source else f"line {n}" for s, n in at
                                              if (s, n) != (source, line)) + "); expected it in one place")
                         for source, line in at]
    return problems


def render_page(sections: list[Section], templates: Mapping[str, str], ctx: Mapping[str, Any], trace_text: str,
                folder: str = "templates") -> str:
    """Returns the page's HTML from sections in order, template texts, the view's context and the trace's JSON;
    raises Problems naming the file and line of every problem, the page's broken links included."""
    (env, prose_env), md, problems = environments(templates, folder), _markdown(), list[str]()
    files = [f"{folder}/{name}" for name in templates]
    loops = page_checks.include_loops(env, templates, folder)
    if loops:
        raise Problems(loops)
    components = {name: _render(f"{folder}/{name}.html.j2", problems, functools.partial(
        lambda name: env.get_template(f"{name}.html.j2").render(ctx), name), files, ctx) for name in COMPONENTS}
    bodies = {s.source: _render(s.source, problems, functools.partial(section_html, prose_env, md, s, ctx), files,
                                (*ctx, *COMPONENTS)) for s in sections}
    if problems:
        raise Problems(problems)
    css, js = rcssmin.cssmin("\n".join(templates[n] for n in STYLES)), joined_script(templates)
    rendered = [{"id": s.id, "title": s.title, "html": _place(bodies[s.source], components),
                 "corpus": " ".join(prose.section_tokens(s.body))} for s in sections]  # its words, for gzip to reuse
    page = _render(f"{folder}/page.html.j2", problems, lambda: env.get_template("page.html.j2").render(
        ctx, sections=rendered, css=Markup(css), js=Markup(js), trace_json=Markup(trace_text),
        csp=content_security_policy([js], [css])), files, (*ctx, "sections", "css", "js", "trace_json", "csp"))
    placed = placement_problems(bodies, folder, {s.source: s.template_text() for s in sections})
    problems += lines_of(placed)
    if page is not None and not any(_TWICE in message for _, message in placed):  # else its ids are all doubled
        parts = {**{s.source: (s.template_text(), bodies[s.source]) for s in sections},
                 **{f"{folder}/{n}.html.j2": (templates[f"{n}.html.j2"], components[n]) for n in COMPONENTS}}
        problems += lines_of(page_checks.link_problems(page, parts, {s.id: (s.source, s.id_line) for s in sections}))
    if problems:
        raise Problems(problems)
    return page

"""Owns rendering: sections and the view's finished values into one HTML string (markdown-it-py, Jinja2, CSP).

It computes nothing: every figure arrives as a finished string in the context."""

from __future__ import annotations

import base64
import functools
import hashlib
import itertools
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import jinja2
import rcssmin
import rjsmin
from markdown_it import MarkdownIt
from markdown_it.rules_core.smartquotes import process_inlines
from markdown_it.rules_core.state_core import StateCore
from markupsafe import Markup

from . import figures, page_checks, prose
from .cache import compact_json
from .errors import GONE, Problems, lines_of
from .sections import Section, control_problems, html_problems, markdown_problems
from .text import subscript


def script_json(obj: Any) -> str:
    """Returns JSON that is safe inside <script type="application/json">: no string can close the element.

    obj may be a value, or JSON text already made by compact_json.
    """
    text = obj if isinstance(obj, str) else compact_json(obj)
    for raw, escaped in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(raw, escaped)
    return text


def sha256_source(text: str) -> str:
    """Returns the CSP source expression that allows exactly this inline block."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def content_security_policy(scripts: list[str], styles: list[str]) -> str:
    """Returns a policy that allows only these inline scripts and styles, and data: images (the favicon)."""
    return ("default-src 'none'; "
            f"script-src {' '.join(sha256_source(s) for s in scripts)}; "
            f"style-src {' '.join(sha256_source(s) for s in styles)}; "
            "img-src data:; base-uri 'none'; form-action 'none'")


COMPONENTS = figures.COMPONENTS
STYLES = figures.STYLES
# The page's one classic script: these fragments, in this order, inside one strict function; boot.js starts the figures.
SCRIPTS = figures.SCRIPTS


def joined_source(texts: Iterable[str], names: Iterable[str] = ()) -> str:
    """Returns script files joined, each in a block of its own: what a file declares is its own, and what it shares
    it puts on `shared`, from which the files after it name what they use (the page stays one classic script, which
    a page opened from file:// may run, where it may not load modules)."""
    named = itertools.zip_longest(texts, names, fillvalue="")
    return "const shared = {};\n" + "".join(page_checks.in_block(text, name) for text, name in named)


def joined_script(templates: Mapping[str, str], folder: str = "templates") -> str:
    """Returns the SCRIPTS fragments joined into one minified classic script, inside one strict function that exposes
    nothing (rjsmin removes comments and spaces, renaming nothing); raises Problems naming a file that holds text
    that would end the inline element. The scripts are the project's own reviewed code, and the build does not parse
    them: a syntax error, or an error thrown as they load, fails the browser tests (tests/conftest.py's pages)."""
    source = "(() => {\n'use strict';\n" + joined_source((templates[n] for n in SCRIPTS), SCRIPTS) + "})();\n"
    found = rjsmin.jsmin(source)
    if _RAW_END.search(found):
        raise Problems.in_files([raw_end_problem(templates, SCRIPTS, folder, "script")])
    return found


# Text that ends (or, for a script, confuses) the inline element it stands in: the HTML parser reads it as markup.
_RAW_END = re.compile(r"</script|<!--|<script|</style", re.I)
_RAW_HINT = {"script": "expected it split, such as '<\\/script' or '<' + '!--'",
             "style": "expected its < escaped, such as '\\3c /style'"}


def raw_end_problem(templates: Mapping[str, str], names: Iterable[str], folder: str, element: str) -> tuple[str, str]:
    """Returns (file, message) naming the first of `names` that holds text which would end its inline element."""
    for name in names:
        found = _RAW_END.search(templates[name])
        if found:
            line = templates[name].count("\n", 0, found.start()) + 1
            return (f"{folder}/{name}", f"line {line}: found {found.group(0)!r}, which would end the page's inline "
                                        f"{element} there; {_RAW_HINT[element]}")
    return (f"{folder}/", f"found text that would end the page's inline {element}; expected none")


def _placeholder(name: str) -> Markup:
    """Returns the marker a section's Markdown holds where a component goes (an HTML comment passes through)."""
    return Markup(f"\n<!--component:{name}-->\n")


needed_templates = figures.needed_templates


def shown_name(name: str, folder: str) -> str:
    """Returns how a template's file is named in messages."""
    return name if "/" in name or name.endswith(".md") else f"{folder}/{name}"


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~])")


@jinja2.pass_context
def _finalize(ctx: jinja2.runtime.Context, value: Any) -> Any:
    """Backslash-escapes Markdown in strings that a Markdown section takes from the data, so a label stays text."""
    if isinstance(value, str) and not isinstance(value, Markup) and (ctx.name or "").endswith(".md"):
        return _MARKDOWN_SPECIAL.sub(r"\\\1", value)
    return value


class CompiledTemplates(jinja2.BytecodeCache):
    """Keeps each template's compiled code for the process, by its name, file and source (nothing on disk): each
    build makes a new environment, which, in --watch, compiles only the texts no earlier build compiled (compiling
    them all takes about 60 ms; every environment is made alike, by environment())."""

    MAX = 256  # codes kept; the oldest goes first

    def __init__(self) -> None:
        self.codes: dict[tuple[str, str], Any] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        bucket.code = self.codes.get((bucket.key, bucket.checksum))

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.codes[(bucket.key, bucket.checksum)] = bucket.code
        while len(self.codes) > self.MAX:
            self.codes.pop(next(iter(self.codes)), None)


_COMPILED = CompiledTemplates()


def environment(templates: Mapping[str, str], folder: str = "templates") -> page_checks.Sandbox:
    """Returns a sandboxed Jinja2 environment over the given template texts, autoescaping, failing on undefined names.

    A template's file name in errors is folder/name; a name with a "/" (a section's file) is shown as it is.
    """
    texts = dict(templates)

    def load(name: str):  # the file name makes tracebacks, so messages, name the template's own file and line
        return (texts[name], shown_name(name, folder), lambda: True) if name in texts else None
    env = page_checks.Sandbox(loader=jinja2.FunctionLoader(load), autoescape=True, undefined=page_checks.Undefined,
                              trim_blocks=True, lstrip_blocks=True, finalize=_finalize, bytecode_cache=_COMPILED)
    env.filters["cap"] = lambda text: text[:1].upper() + text[1:]
    env.filters["subscript"] = subscript
    env.files = {shown_name(name, folder) for name in texts}
    return env


MAX_SMART_QUOTES = 300  # straight quotes in one paragraph that become curly; past this, they stay straight


def bounded_smartquotes(state: StateCore) -> None:
    """markdown-it's smart quotes, for each paragraph with at most MAX_SMART_QUOTES quotes: the pass is quadratic
    in a paragraph's quotes (900 KB of "' pairs never finished), so a longer run of quotes stays as typed."""
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


def section_html(env: jinja2.Environment, md: MarkdownIt, section: Section, ctx: Mapping[str, Any]) -> str:
    """Returns one section's HTML with a marker where each component goes: Jinja fills in the figures, then
    markdown-it renders the prose; raises Problems for raw HTML that is not allowed or not balanced."""
    filled = page_checks.generate(env.get_template(section.source), ctx,
                                  **{name: _placeholder(name) for name in COMPONENTS})
    return _prose_html(md, filled, section.source)


def _prose_html(md: MarkdownIt, filled: str, source: str) -> str:
    """Returns the HTML of a section's filled Markdown, or raises Problems naming `source`."""
    tokens = md.parse(filled)
    fragments = [(t.map[0] + 1 if t.map else 0, t.content) for t in tokens if t.type == "html_block"]
    fragments += [(t.map[0] + 1 if t.map else 0, c.content) for t in tokens if t.type == "inline"
                  for c in t.children or [] if c.type == "html_inline"]
    problems = sorted(html_problems(sorted(fragments, key=lambda f: f[0])) + markdown_problems(tokens),
                      key=lambda p: p[0])
    if problems:
        raise Problems.in_files([(source, f"line {line}: {message}") for line, message in problems])
    return md.renderer.render(tokens, md.options, {})


def _place(html: str, components: Mapping[str, str]) -> Markup:
    for name, block in components.items():  # after Markdown, so a component's HTML is never parsed as prose
        html = html.replace(f"<!--component:{name}-->", block)
    return Markup(html)


def render_section(env: jinja2.Environment, md: MarkdownIt, section: Section, ctx: Mapping[str, Any],
                   components: Mapping[str, str]) -> Markup:
    """Returns one section's HTML: Jinja fills in the figures, markdown-it renders the prose, then components go in."""
    return _place(section_html(env, md, section, ctx), components)


def _render(env: page_checks.Sandbox, name: str, problems: list[str], call: Callable[[], Any],
            names: tuple[str, ...] = ()) -> Any:
    """Returns call(), or records its error against the file and line it names (`name` if none) and returns None."""
    try:
        return call()
    except jinja2.TemplateError as err:
        problems += lines_of([page_checks.template_problem(err, name, env.files, names)])
    except Problems as err:
        problems += err.lines
    except KeyError as err:
        problems.append(f"{name}: missing template {err}; expected it in templates/")
    except (ArithmeticError, TypeError, ValueError, AttributeError, IndexError, RecursionError) as err:
        problem = page_checks.runtime_problem(err, env.files, name)
        if problem is None:
            raise
        problems += lines_of([problem])
    return None


def _components(env: page_checks.Sandbox, ctx: Mapping[str, Any], folder: str,
                problems: list[str]) -> dict[str, str]:
    return {name: _render(env, f"{folder}/{name}.html.j2", problems, functools.partial(
        lambda name: page_checks.generate(env.get_template(f"{name}.html.j2"), ctx), name), tuple(ctx))
        for name in COMPONENTS}


_TWICE = "more than once"


def placement_problems(bodies: Mapping[str, str], folder: str) -> list[tuple[str, str]]:
    """Returns a problem for each component that no section places, or more than one does."""
    problems = []
    for name in COMPONENTS:
        placed = [source for source, html in bodies.items() if f"<!--component:{name}-->" in html]
        if not placed:
            problems.append((f"{folder}/{name}.html.j2", f"found no section that places {{{{ {name} }}}}; expected "
                             f"one section in content/ to hold it {GONE}"))
        elif len(placed) > 1 or bodies[placed[0]].count(f"<!--component:{name}-->") > 1:
            problems.append((", ".join(placed), f"found {{{{ {name} }}}} {_TWICE}; expected it in one place"))
    return problems


def _texts(sections: list[Section], templates: Mapping[str, str]) -> dict[str, str]:
    """Returns every text Jinja compiles, by the name its loader knows: each template file, then each section."""
    return {**templates, **{s.source: s.template_text() for s in sections}}


def _refuse_before_rendering(sections: list[Section], templates: Mapping[str, str], texts: Mapping[str, str],
                             folder: str) -> None:
    """Raises Problems for what must not reach Jinja: control characters in a template file, includes that
    never end, and includes of a prose section."""
    controls = [(f"{folder}/{name}", f"line {line}: {message}") for name, text in sorted(templates.items())
                for line, message in control_problems(text)]
    if controls:
        raise Problems.in_files(controls)
    shown = functools.partial(shown_name, folder=folder)
    wrong = (page_checks.include_cycles(texts, shown)
             + page_checks.section_includes(texts, [s.source for s in sections], shown))
    if wrong:
        raise Problems.in_files(wrong)


def _sections_view(sections: list[Section], bodies: Mapping[str, str], components: Mapping[str, str]) -> list[dict]:
    """Returns what the page template shows of each section: its id, title and HTML, and its own tokens of the
    generator's corpus, which sit just before its prose, where gzip finds them again."""
    return [{"id": s.id, "title": s.title, "html": _place(bodies[s.source], components),
             "corpus": " ".join(prose.section_tokens(s.body))} for s in sections]


def render_page(sections: list[Section], templates: Mapping[str, str], ctx: Mapping[str, Any], trace_text: str,
                folder: str = "templates") -> str:
    """Returns the page's HTML from sections in order, template texts, the view's context and the trace's JSON;
    raises Problems naming the file and line of every problem, the page's broken links included."""
    texts = _texts(sections, templates)
    _refuse_before_rendering(sections, templates, texts, folder)
    env = environment(texts, folder)
    env.steps = 0
    md, problems = _markdown(), list[str]()  # one printable line each
    components = _components(env, ctx, folder, problems)
    problems += [f"{folder}/{n}.html.j2: {p}" for n, html in components.items()
                 if html is not None and (p := page_checks.markup_problem(templates[f"{n}.html.j2"], html))]
    problems += [f"{folder}/{n}: {p}" for n in STYLES if n in templates and (p := page_checks.css_problem(templates[n]))]
    css = _render(env, f"{folder}/", problems, lambda: rcssmin.cssmin("\n".join(templates[n] for n in STYLES)))
    if css and _RAW_END.search(css):
        problems += lines_of([raw_end_problem(templates, STYLES, folder, "style")])
    missing = [n for n in SCRIPTS if n not in templates]
    js = _render(env, f"{folder}/{missing[0] if missing else 'js/'}", problems, lambda: joined_script(templates, folder))
    bodies = {s.source: _render(env, s.source, problems, functools.partial(section_html, env, md, s, ctx),
                                (*ctx, *COMPONENTS)) for s in sections}
    if problems:
        raise Problems(problems)
    rendered = _sections_view(sections, bodies, components)
    page = _render(env, f"{folder}/page.html.j2", problems, lambda: page_checks.generate(
        env.get_template("page.html.j2"), ctx, sections=rendered, css=Markup(css), js=Markup(js),
        trace_json=Markup(trace_text), csp=content_security_policy([js], [css])),
        (*ctx, "sections", "css", "js", "trace_json", "csp"))
    placed = placement_problems(bodies, folder)
    problems += lines_of(placed)
    if page is not None and (unbalanced := page_checks.markup_problem(templates["page.html.j2"], page)):
        problems.append(f"{folder}/page.html.j2: {unbalanced}")  # sections and figures are balanced: the page is not
    if page is not None and not any(_TWICE in message for _, message in placed):  # else its ids are all doubled
        parts = {**{s.source: (s.template_text(), bodies[s.source]) for s in sections},
                 **{f"{folder}/{n}.html.j2": (templates[f"{n}.html.j2"], components[n]) for n in COMPONENTS}}
        problems += lines_of(page_checks.link_problems(page, parts, {s.id: (s.source, s.id_line) for s in sections}))
    if problems:
        raise Problems(problems)
    return page


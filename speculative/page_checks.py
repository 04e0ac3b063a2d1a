"""Owns what render.py checks: template errors as "file: line N: found …; expected …", the sandbox the templates
run in, and the finished page's own consistency (every internal link resolves, every id once, every component
placed once)."""

from __future__ import annotations

import functools
import html
import json
import re
import traceback
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from html.parser import HTMLParser
from typing import Any

import jinja2
from jinja2 import nodes
from jinja2.compiler import CodeGenerator, Frame
from jinja2.sandbox import SandboxedEnvironment
from jinja2.utils import missing

from .errors import GONE, IN_ORDER, OWN_ID, own_end
from .sections import VOID_TAGS, Balance, Tags

MAX_OUTPUT_CHARS = 4_000_000  # one template's output; the shipped page is about 180,000
MAX_LOOP_STEPS = 1_000_000  # range() items in one build, across every template
TOP_TARGETS = {"", "top"}  # href="#" and "#top" scroll to the top in every browser

_HREFS = re.compile(r"\shref\s*=\s*(?:\"([^\"]*)\"|'([^']*)')", re.I)  # in a source text, to find a link's line


class TooLarge(jinja2.TemplateError):
    """A template made more output, or more loop steps, than a page could need."""


class Undefined(jinja2.StrictUndefined):
    """Fails on use, as StrictUndefined does, and lists what the object it was looked up on does have."""

    @property
    def _undefined_message(self) -> str:
        message = super()._undefined_message
        obj = self._undefined_obj
        if obj is missing or self._undefined_hint:
            return message
        names = sorted(map(str, obj)) if isinstance(obj, Mapping) else \
            [n for n in dir(obj) if not n.startswith("_") and not callable(getattr(obj, n, None))]
        return f"{message}; it has {_listed(names)}" if names else message


def _listed(names: list[str], most: int = 25) -> str:
    return ", ".join(names[:most]) + (f" and {len(names) - most} more" if len(names) > most else "")


class _BoundedJoins(CodeGenerator):
    """Compiles `a ~ b` to a join the environment bounds, so text doubled in a loop stops at MAX_OUTPUT_CHARS."""

    def visit_Concat(self, node: nodes.Concat, frame: Frame) -> None:
        self.write("environment.bounded(")
        super().visit_Concat(node, frame)
        self.write(")")


class Sandbox(SandboxedEnvironment):
    """Jinja's sandbox (no access to Python internals, so no os.popen), with output, loop steps and the text that
    ~, + and * make bounded."""

    intercepted_binops = frozenset({"*", "**", "+"})
    code_generator_class = _BoundedJoins

    def __init__(self, **options: Any):
        super().__init__(**options)
        self.steps = 0
        self.files: set[str] = set()  # the template files, as messages name them
        self.globals["range"] = self.bounded_range
        self.filters = {name: self._bounded_filter(f) for name, f in self.filters.items()}

    def _bounded_filter(self, f: Callable[..., Any]) -> Callable[..., Any]:
        """Returns f, raising TooLarge when it makes text over MAX_OUTPUT_CHARS ("x"|center(10**8), |replace)."""
        @functools.wraps(f)  # keeps jinja_pass_arg, which tells Jinja what to pass first
        def bounded(*args: Any, **kwargs: Any) -> Any:
            out = f(*args, **kwargs)
            return self.bounded(out) if isinstance(out, str) else out
        return bounded

    def bounded_range(self, *args: int) -> range:
        numbers = range(*args)
        self.steps += len(numbers)
        if self.steps > MAX_LOOP_STEPS:
            raise TooLarge(f"found loops over more than {MAX_LOOP_STEPS:,} numbers; expected loops over the data")
        return numbers

    def call_binop(self, context, operator: str, left: Any, right: Any) -> Any:
        if operator == "**" and isinstance(right, int) and abs(right) > 64:
            raise TooLarge(f"found a power of {right}; expected exponents of at most 64")
        if operator == "*" and _repeated_size(left, right) > MAX_OUTPUT_CHARS:
            raise TooLarge(f"found a repetition longer than {MAX_OUTPUT_CHARS:,}; expected text a page could hold")
        if operator == "+" and isinstance(left, (str, list, tuple)) and isinstance(right, (str, list, tuple)):
            self.bounded(left, right)
        return super().call_binop(context, operator, left, right)

    def bounded(self, joined: Any, *more: Any) -> Any:
        """Returns joined (text a template made with ~), or raises TooLarge once it, with more, passes MAX_OUTPUT_CHARS."""
        if sum(len(x) for x in (joined, *more) if isinstance(x, (str, list, tuple))) > MAX_OUTPUT_CHARS:
            raise TooLarge(f"found text of over {MAX_OUTPUT_CHARS:,} characters; expected text a page could hold")
        return joined


def _repeated_size(left: Any, right: Any) -> int:
    for seq, times in ((left, right), (right, left)):
        if isinstance(seq, (str, list, tuple)) and isinstance(times, int) and not isinstance(times, bool):
            return len(seq) * times
    return 0


def generate(template: jinja2.Template, *args: Any, **kwargs: Any) -> str:
    """Returns the template's output, or raises TooLarge as soon as it passes MAX_OUTPUT_CHARS."""
    parts, size = [], 0
    for part in template.generate(*args, **kwargs):
        size += len(part)
        if size > MAX_OUTPUT_CHARS:
            raise TooLarge(f"found output over {MAX_OUTPUT_CHARS:,} characters; expected a page of a few hundred "
                           "thousand at most")
        parts.append(part)
    return "".join(parts)


# --- the markup a figure's template makes ---------------------------------------------------------------------

# Elements whose end tag the HTML parser may imply: the balance check skips them, as it skips void elements.
_OPTIONAL_END = frozenset({"li", "dt", "dd", "p", "tr", "td", "th", "thead", "tbody", "tfoot", "option", "optgroup",
                           "colgroup", "caption", "rt", "rp", "html", "head", "body"})


def markup_problem(source: str, html: str) -> str | None:
    """Returns why a figure's template cannot go on the page: it is empty (the prose around it would describe
    nothing), or its markup leaves an element open or closes one it did not open (one of the page's own)."""
    if not source.strip():
        return "found an empty file; expected the figure's markup"
    parser = Tags()
    parser.feed(html)
    balance = Balance(VOID_TAGS | _OPTIONAL_END)
    for kind, tag, _ in parser.events:
        if not balance.feed(kind, tag):
            return f"found </{tag}>, but <{balance.open[-1][0]}> is open; {IN_ORDER}" if balance.open else \
                own_end(tag, "the template opens")
    last = balance.open[-1][0] if balance.open else None
    return f"found <{last}> with no </{last}>; expected every element the template opens to be closed in it" \
        if last else None


# --- template errors: the file, the line, what was found and what was expected ---------------------------------

def template_problem(err: Exception, fallback: str, files: Iterable[str], names: Iterable[str]) -> tuple[str, str]:
    """Returns (file, "line N: message") for an error raised while rendering; files are the templates' shown
    paths, names the names the context defines."""
    file, line = _where(err, fallback, set(files))
    if isinstance(err, jinja2.TemplateNotFound) and line is None:
        return file, f"found no template named {err.name!r}; expected it in the templates folder"
    return _through_section(err, fallback, file, (f"line {line}: " if line else "") + _what(err, names))


def _through_section(err: Exception, section: str, file: str, message: str) -> tuple[str, str]:
    """Returns (file, message) for an error, blamed on the prose section when it arose in a template the section
    includes (imports, extends): the include, at the section's line, is what the author wrote, not the template."""
    if not section.endswith(".md") or file == section or isinstance(err, jinja2.TemplateSyntaxError):
        return file, message
    lines = [f.lineno for f in traceback.extract_tb(err.__traceback__) if f.filename == section]
    if not lines:
        return file, message
    inner = message.split("; expected")[0].replace("found ", "", 1)
    return section, (f"line {lines[0]}: found an include of {file}, which fails when the section renders it "
                     f"({inner}); expected only templates a section can render (a figure is placed by its name on a "
                     "line of its own, such as {{ lab }})")


def _where(err: Exception, fallback: str, files: set[str]) -> tuple[str, int | None]:
    if isinstance(err, jinja2.TemplateSyntaxError) and err.filename:
        return err.filename, err.lineno
    inside = [f for f in traceback.extract_tb(err.__traceback__) if f.filename in files]
    return (inside[-1].filename, inside[-1].lineno) if inside else (fallback, None)


def _what(err: Exception, names: Iterable[str]) -> str:
    if isinstance(err, jinja2.TemplateNotFound):
        return (f"found {err.name!r} named in an include, import or extends, but no such template; expected a "
                "template file of that name in the templates folder")
    if isinstance(err, jinja2.TemplateSyntaxError):
        return f"found a template syntax error: {err.message}"
    if isinstance(err, jinja2.UndefinedError) and str(err).endswith(" is undefined"):
        return f"found {err}; expected one of the names the page defines: {_listed(sorted(set(names)), 60)}"
    if isinstance(err, jinja2.UndefinedError):
        return f"found {err}; expected a name it has"
    if isinstance(err, jinja2.exceptions.SecurityError):
        return f"found {str(err).rstrip('.')}; expected only the data's own values (templates run in a sandbox)"
    if isinstance(err, TooLarge):
        return str(err)
    return f"found a template error: {err}"


def _include_line(source: str, name: str) -> str:
    """Returns "line N: " for the first place source names the template `name` in quotes, or "" if it does not."""
    return _line_of(source, f"'{name}'") or _line_of(source, f'"{name}"')


def section_includes(texts: Mapping[str, str], sections: Iterable[str],
                     shown: Callable[[str], str]) -> list[tuple[str, str]]:
    """Returns (file, "line N: message") for each include (import, extends) of a prose section's file: the build
    renders each section once, itself, so an include would paste its raw Markdown a second time."""
    problems, prose = [], set(sections)
    for name in sorted(texts):
        for ref in (r for r in _references(texts[name]) if r in prose):
            problems.append((shown(name), f"{_include_line(texts[name], ref)}found an include of {ref!r}, a prose section; expected a template "
                                          "file from the templates folder (each section is placed on the page once, "
                                          "by its order)"))
    return problems


def include_cycles(texts: Mapping[str, str], shown: Callable[[str], str]) -> list[tuple[str, str]]:
    """Returns (file, "line N: message") for each template whose includes (imports, extends) lead back to itself,
    which would render without end; texts maps a template's name to its source (one with a syntax error is left to
    the render, which names it)."""
    refs = {name: [r for r in _references(source) if r in texts] for name, source in texts.items()}
    problems = []
    for name in sorted(texts):
        first = next((r for r in refs[name] if name in _reachable(r, refs)), None)
        if first is not None:
            problems.append((shown(name), f"{_include_line(texts[name], first)}found an include of {first!r}, which "
                                          f"leads back to {name}; expected includes that end (a template may not "
                                          "include itself, directly or through others)"))
    return problems


# Lexes as the page's environment does (render.environment), so both share one lexer and its compiled patterns.
_PARSER = jinja2.Environment(trim_blocks=True, lstrip_blocks=True)
# The only text that can make an include, import or extends: a block tag that starts with one of their keywords.
_INCLUDE_TAG = re.compile(r"\{%[-+]?\s*(?:include|import|from|extends)\b")


def _references(source: str) -> tuple[str, ...]:
    """Returns the names of the templates a template's source includes, imports or extends by a constant name
    (parsing only a source with such a tag: parsing every file took about 30 ms of each build)."""
    from jinja2 import meta

    if not _INCLUDE_TAG.search(source):
        return ()
    try:
        return tuple(r for r in meta.find_referenced_templates(_PARSER.parse(source)) if r)
    except jinja2.TemplateSyntaxError:
        return ()


def _reachable(start: str, refs: Mapping[str, list[str]]) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += refs.get(name, [])
    return seen


def runtime_problem(err: Exception, files: Iterable[str], section: str = "") -> tuple[str, str] | None:
    """Returns (file, "line N: message") for an error a template's own expression raised ({{ 1/0 }}), or None when
    the error arose outside every template (a bug in the build, not in its input); blamed on `section`, the prose
    section being rendered, when it arose in a template the section includes."""
    file, line = _where(err, "", set(files))
    if not file:
        return None
    return _through_section(err, section, file, (f"line {line}: " if line else "") + (
        f"found {type(err).__name__}: {err}; expected an expression that works on the page's values"))


# --- the finished page --------------------------------------------------------------------------------------

class _Anchors(HTMLParser):
    """Collects every element's id and every link's href in some HTML, as a browser reads them: attribute values are
    parsed (so a '<script>' inside one is text, not a tag) and unescaped (href="&#35;x" is #x), and a script's or a
    style's text holds no elements (a script's own id counts, the trace's)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: list[str] = []
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is not None and name in ("id", "href"):
                (self.ids if name == "id" else self.hrefs).append(value)

    handle_startendtag = handle_starttag


def _anchors(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Returns (the ids, the hrefs) in text, in order."""
    parser = _Anchors()
    parser.feed(text)
    parser.close()
    return tuple(parser.ids), tuple(parser.hrefs)


def _targets(text: str) -> list[str]:
    """Returns the id each link in text leads to."""
    return [href[1:] for href in _anchors(text)[1] if href.startswith("#")]


def page_ids(page: str) -> Counter:
    """Returns how many elements carry each id on the page: a script's own id counts (the trace's), its text not."""
    return Counter(_anchors(page)[0])


_DRAWN_FRAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*/r[1-9][0-9]*/[1-9][0-9]*")


def link_problems(page: str, parts: Mapping[str, tuple[str, str]],
                  sections: Mapping[str, tuple[str, int]]) -> list[tuple[str, str]]:
    """Returns (file, message) for every link to an id that no element has, or an id more than one has.

    parts maps a file to (its source text, its HTML), so each problem names the file, and a line where it can;
    sections maps a section's id to (its file, the line of its id).
    """
    ids = page_ids(page)
    problems = []
    of_part = functools.cache(lambda name: _anchors(parts[name][1]))  # each part parsed once, if a problem needs it
    for target in sorted(set(_targets(page)) - set(ids) - TOP_TARGETS):
        if _DRAWN_FRAME.fullmatch(target):  # a frame of a drawn round: the player opens it; no element has its id
            continue
        owners = [name for name in parts if "#" + target in of_part(name)[1]] or ["the page"]
        for name in owners:
            problems.append((name, f"{_line_of(parts.get(name, ('', ''))[0], '#' + target)}found a link to "
                                   f"#{target}, but no element on the page has id=\"{target}\"; expected a section "
                                   f"or figure with that id {GONE}"))
    for dup in sorted(i for i, n in ids.items() if n > 1):
        if dup in sections:
            problems.append((sections[dup][0], f"line {sections[dup][1]}: id: found \"{dup}\", which another element "
                                               f"on the page has too; {OWN_ID}"))
            continue
        owners = [name for name in parts if dup in of_part(name)[0]] or ["the page"]
        problems.append((", ".join(owners), f"found id=\"{dup}\" on {ids[dup]} elements; expected each id on one "
                                            "element only (choose another id)"))
    return problems


def _line_of(source: str, needle: str) -> str:
    """Returns "line N: " for the first place source has needle, or an HTML link to it however written (&#35;x)."""
    at = source.find(needle)
    if at < 0 and needle.startswith("#"):
        at = next((m.start() for m in _HREFS.finditer(source) if html.unescape(m.group(1) or m.group(2)) == needle), -1)
    return f"line {source.count(chr(10), 0, at) + 1}: " if at >= 0 else ""


_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_CSS_QUIET = re.compile(r"/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.S)  # comments and strings
_CSS_FETCH = re.compile(r"@import\b|\burl\(\s*(?![\"']?\s*data:)", re.I)


def describe_css(text: str, at: int) -> str:
    """Returns the CSS from `at` to the end of its line, at most 40 characters, quoted."""
    line = text[at:].split("\n", 1)[0].strip()
    return f"“{line[:40]}{'…' if len(line) > 40 else ''}”"


def css_problem(text: str) -> str | None:
    """Returns "line N: ..." for the first brace a style file leaves open or closes unopened (the files are joined,
    so an open rule would swallow the next file's rules), or for anything it fetches (@import, a url() that is not
    data:, since the page loads nothing); None when there is none."""
    def blanked(pattern: re.Pattern) -> str:  # the same lines and columns, with nothing in them to misread
        return pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)

    fetch = _CSS_FETCH.search(blanked(_CSS_COMMENT))
    if fetch:
        return (f"line {text.count(chr(10), 0, fetch.start()) + 1}: found {describe_css(text, fetch.start())}; "
                "expected no @import and no url() other than data:, since the page loads nothing")
    quiet = blanked(_CSS_QUIET)
    opened: list[int] = []
    for at, ch in ((m.start(), m.group()) for m in re.finditer(r"[{}]", quiet)):
        if ch == "{":
            opened.append(at)
        elif not opened:
            return f"line {quiet.count(chr(10), 0, at) + 1}: found }} that closes no {{; expected braces in pairs"
        else:
            opened.pop()
    if opened:
        return (f"line {quiet.count(chr(10), 0, opened[-1]) + 1}: found {{ that no }} closes; expected braces in "
                "pairs (the next style file would be read as part of this rule)")
    return None


# --- the page's scripts: each file in a block of its own ----------------------------------------------------

def in_block(text: str, name: str = "") -> str:
    """Returns a script file as the page joins it: in a try block of its own, so what it declares stays its own, and
    an error its top-level code throws is logged under its name while the files after it still run."""
    return f"try {{\n{text}\n}} catch (error) {{ console.error({json.dumps(name + ':')}, error); }}\n"

"""Owns the prose's parsing: content/*.md files into Sections (YAML front matter, then Markdown), checked as
strictly as the data file: typed front matter, no duplicate keys or aliases, a size limit, balanced raw HTML."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any

import yaml

from .checker import forbidden as forbidden_char  # the data file's rule for labels and names, shared
from .errors import IN_ORDER, OWN_ID, PLAIN, Problems, char_name, describe, lines_of, own_end

MAX_SECTION_CHARS = 30_000  # a section's Markdown; ten times the longest shipped section, and it builds in < 2 s
MAX_TITLE = 80  # characters in a section title, so it fits a heading on a phone
MAX_ID = 40
ORDER_RANGE = (-9999, 9999)
FRONT_KEYS = ("title", "order", "id")

# The raw HTML a section may hold: text-level and block elements that the page's styles and CSP allow.
ALLOWED_TAGS = frozenset({
    "a", "abbr", "b", "bdi", "bdo", "blockquote", "br", "caption", "cite", "code", "dd", "del", "details", "dfn",
    "div", "dl", "dt", "em", "figcaption", "figure", "hr", "i", "ins", "kbd", "li", "mark", "ol", "p", "pre", "q",
    "s", "samp", "small", "span", "strong", "sub", "summary", "sup", "table", "tbody", "td", "th", "thead", "time",
    "tr", "u", "ul", "var", "wbr"})
# Elements with no end tag (HTML's void elements): a section may write only br, hr and wbr of them, and the figure
# templates' balance check (tests/test_templates.py) skips them all.
VOID_TAGS = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"})
_SAFE_HREF = re.compile(r"(#|https://|mailto:)", re.I)
PAGE_FILES = ("index.html", "trace.json")  # what a build writes, side by side: a section may link to either
LINK_RULE = f"a link starting with #, https:// or mailto:, or to {' or '.join(PAGE_FILES)}"  # raw HTML and Markdown alike


@dataclass(frozen=True)
class Section:
    id: str
    title: str
    order: int
    body: str  # Markdown with Jinja expressions
    source: str
    first_line: int = 1  # the body's first line in the file, so messages name the file's own lines
    id_line: int = 1  # the line of `id:` in the file

    def template_text(self) -> str:
        """Returns the body as a template whose line numbers are the file's: the front matter as blank lines."""
        return "\n" * (self.first_line - 1) + self.body


_FRONT = re.compile(r"\A---[ \t]*\n(.*?)\n---[ \t]*\n(.*)\Z", re.S)
_SLUG = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*\Z")


class _FrontLoader(yaml.SafeLoader):
    """YAML's safe loader, refusing aliases: an alias can expand a few bytes into millions."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            raise yaml.composer.ComposerError(None, None, "found an alias (*name); expected plain values, without "
                                              "YAML anchors and aliases", self.peek_event().start_mark)
        return super().compose_node(parent, index)


def _yaml_problem(err: yaml.YAMLError) -> tuple[int, str]:
    mark = getattr(err, "problem_mark", None)
    line = mark.line + 2 if mark is not None else 2
    problem = getattr(err, "problem", None) or "text that is not YAML"
    if problem.startswith("found an alias"):
        return line, problem
    return line, (f"found YAML that does not parse ({problem}); expected title, order and id, one per line, "
                  "such as title: Why it is faster")


def _front_values(text: str) -> tuple[dict[str, tuple[Any, int]], list[tuple[int, str]]]:
    """Returns each front matter key's (value, file line), and (line, message) for every problem in the YAML."""
    loader = _FrontLoader(text)
    try:
        root = loader.get_single_node()
    except yaml.YAMLError as err:
        return {}, [_yaml_problem(err)]
    finally:
        loader.dispose()
    if not isinstance(root, yaml.MappingNode):
        found = "nothing" if root is None else "a list" if isinstance(root, yaml.SequenceNode) else "one value"
        return {}, [(2, f"found {found}; expected title, order and id, one per line")]
    values: dict[str, tuple[Any, int]] = {}
    problems: list[tuple[int, str]] = []
    for key_node, value_node in root.value:
        key, line = str(key_node.value), key_node.start_mark.line + 2
        if key in values:
            problems.append((line, f"{key}: found the key a second time (first on line {values[key][1]}); "
                                   "expected each key once"))
        elif key not in FRONT_KEYS:
            problems.append((line, f"found the key {describe(key)}; expected only {', '.join(FRONT_KEYS)}"))
        elif _TAG.match(value_node.tag) is None:  # !!python/object/apply:..., !custom: the safe loader knows none
            problems.append((line, f"{key}: found the YAML tag {value_node.tag.replace(_STANDARD, '!!')}; expected a "
                                   "plain value, without tags"))
        else:
            values[key] = (_order(loader, value_node) if key == "order" else _construct(loader, value_node), line)
    return values, problems


def _order(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    """Returns an order written in decimal digits as that number ("010" is 10, not YAML 1.1's octal 8), and any other
    spelling YAML reads as a whole number (0x4, 1:30 for 90, 1_0) as its text, which _order_problem then refuses."""
    if node.tag == _STANDARD + "int" and isinstance(node.value, str):
        sign = node.value[:1] if node.value[:1] in "+-" else ""
        digits = node.value[len(sign):]
        if digits.isascii() and digits.isdigit() and len(digits) <= 30:  # longer: past any order, and int() refuses 4,300
            return int(node.value)
        return node.value
    return _construct(loader, node)


_STANDARD = "tag:yaml.org,2002:"
_TAG = re.compile(re.escape(_STANDARD) + r"(str|int|float|bool|null|seq|map|timestamp|binary)\Z")


def _construct(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    try:
        return loader.construct_object(node, deep=True)
    except (ValueError, yaml.YAMLError):  # a number too long for Python to convert, say
        return node.value if isinstance(node.value, str) else None


def _title_problem(value: Any) -> str | None:
    expected = f"expected a title of at most {MAX_TITLE} characters on one line"
    if not isinstance(value, str) or not value.strip():
        return f"found {describe(value)}; {expected}"
    bad = next((ch for ch in value if forbidden_char(ch)), None)
    if bad is not None:
        return (f"found {describe(value)}, which has {char_name(bad)}; {expected}, {PLAIN}")
    if len(value) > MAX_TITLE:
        shown = describe(value)
        return f"found {shown if shown.endswith(' characters)') else f'{shown} ({len(value)} characters)'}; {expected}"
    return None


def _order_problem(value: Any) -> str | None:
    low, high = ORDER_RANGE
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        return f"found {describe(value)}; expected a whole number from {low} to {high}, such as 3"
    return None


def _id_problem(value: Any) -> str | None:
    if not isinstance(value, str) or not _SLUG.match(value) or len(value) > MAX_ID:
        return (f"found {describe(value)}; expected lower-case letters, digits and single dashes, starting with a "
                f"letter, at most {MAX_ID} characters, such as walkthrough-section")
    return None


_CHECKS = {"title": _title_problem, "order": _order_problem, "id": _id_problem}


def _meta_problems(values: dict[str, tuple[Any, int]]) -> list[tuple[int, str]]:
    """Returns (line, message) for every missing or mistyped front matter value."""
    missing = [key for key in FRONT_KEYS if key not in values]
    problems = [(2, f"found no {', '.join(missing)}; expected title, order and id, one per line")] if missing else []
    for key, (value, line) in values.items():
        problem = _CHECKS[key](value)
        if problem:
            problems.append((line, f"{key}: {problem}"))
    return problems


# Characters the HTML standard makes a parse error wherever they stand (control-character-in-input-stream): C0
# controls other than tab, line feed, form feed and carriage return, DEL, and the C1 controls. A paste from a
# terminal leaves ESC; a bad conversion leaves NUL.
_CONTROLS = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]")


def control_problems(text: str) -> list[tuple[int, str]]:
    """Returns (line, message) for the first control character on each line of text that has one."""
    problems, seen = [], set()
    for found in _CONTROLS.finditer(text):
        line = text.count("\n", 0, found.start()) + 1
        if line not in seen:
            seen.add(line)
            column = found.start() - text.rfind("\n", 0, found.start())
            problems.append((line, f"found {char_name(found.group())} at character {column}; expected text without "
                                   "control characters (HTML does not allow them; a paste from a terminal leaves ESC)"))
    return problems


@functools.lru_cache(maxsize=128)  # --watch: an unchanged file is not parsed again (a refusal is never cached)
def parse_section(name: str, text: str) -> Section:
    """Returns the Section in one content file, or raises Problems naming the file, line, found and expected."""
    text = text.replace("\r\n", "\n")
    controls = control_problems(text)
    if controls:
        raise Problems.in_files([(name, f"line {line}: {message}") for line, message in controls])
    match = _FRONT.match(text)
    if not match:
        raise Problems.in_files([(name, "line 1: found no front matter; expected the file to start with ---, then title, "
                                   "order and id, one per line, then ---")])
    front, body = match.group(1), match.group(2)
    values, problems = _front_values(front)
    problems = sorted(problems + (_meta_problems(values) if not problems else []))
    first_line = front.count("\n") + 4
    if len(body) > MAX_SECTION_CHARS:
        problems.append((first_line, f"found a section of {len(body):,} characters; expected at most "
                                     f"{MAX_SECTION_CHARS:,} (split it into two sections)"))
    if problems:
        raise Problems.in_files([(name, f"line {line}: {message}") for line, message in problems])
    return Section(id=values["id"][0], title=values["title"][0], order=values["order"][0], body=body, source=name,
                   first_line=first_line, id_line=values["id"][1])


def parse_sections(texts: Mapping[str, str], folder: str) -> list[Section]:
    """Returns every section in page order, or raises Problems listing every file's problem."""
    sections, lines, problems = [], [], []
    for name, body in texts.items():
        try:
            sections.append(parse_section(name, body))
        except Problems as err:
            lines += err.lines
    if not texts:
        problems.append((folder, "found no *.md sections; expected at least one"))
    first: dict[str, Section] = {}
    for s in sorted(sections, key=lambda s: s.source):
        if s.id in first:
            problems.append((s.source, f"line {s.id_line}: id: found {describe(s.id)}, which {first[s.id].source} "
                                       f"uses too; {OWN_ID}"))
        first.setdefault(s.id, s)
    if lines or problems:
        raise Problems(lines + lines_of(problems))
    return sorted(sections, key=lambda s: (s.order, s.source))


# --- raw HTML in a section: allowed tags only, every element closed, every comment closed ---------------------

class Tags(HTMLParser):
    """Collects the tags in a fragment of raw HTML, in order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.events: list[tuple[str, str, list]] = []

    def handle_starttag(self, tag, attrs):
        self.events.append(("start", tag, attrs))

    def handle_startendtag(self, tag, attrs):
        self.events.append(("void", tag, attrs))

    def handle_endtag(self, tag):
        self.events.append(("end", tag, []))

    def unfinished(self) -> str:
        """Returns the raw text the parser could not finish, such as a comment with no end."""
        return self.rawdata[self.rawdata.find("<"):] if "<" in self.rawdata else ""


class Balance:
    """The elements open so far in some markup, innermost last as (tag, line): the one balance check, of a section's
    raw HTML and of a figure's template's markup. Tags in `skip` (void elements, and any whose end tag may be
    implied) neither open nor close anything."""

    def __init__(self, skip: frozenset[str] = VOID_TAGS) -> None:
        self.open: list[tuple[str, int]] = []
        self.skip = skip

    def feed(self, kind: str, tag: str, line: int = 0) -> bool:
        """Opens or closes tag (kind "start", "end" or "void", as Tags records it); returns False for an end tag that
        does not close the innermost open element, which it then leaves open."""
        if kind == "void" or tag in self.skip:
            return True
        if kind == "start":
            self.open.append((tag, line))
        elif self.open and self.open[-1][0] == tag:
            self.open.pop()
        else:
            return False
        return True


def _tag_problem(tag: str, attrs: list) -> str | None:
    if tag not in ALLOWED_TAGS:
        return f"found <{tag}>; expected only the HTML tags docs/authoring.md lists, such as <span> or <em>"
    for name, value in attrs:
        if name.startswith("on") or name in ("style", "src", "srcdoc"):
            return f"found <{tag} {name}=…>; expected no {name} attribute (the page allows no inline script or style)"
        if name == "href" and value is not None and not _safe_link(value):
            return f"found <a href=\"{value[:40]}\">; expected {LINK_RULE}"
    return None


def markdown_problems(tokens: list) -> list[tuple[int, str]]:
    """Returns (line, message) for Markdown that makes what raw HTML may not: an image (the page loads nothing, and
    its policy shows no image from a file or the network), or a link that leaves the page other than by https:// or
    mailto: (a relative or http:// address breaks on GitHub Pages or offline)."""
    problems = []
    for token in tokens:
        line = token.map[0] + 1 if token.map else 0
        for child in token.children or [] if token.type == "inline" else []:
            if child.type == "image":
                problems.append((line, f"found the image ![{child.content[:30]}]({str(child.attrGet('src'))[:40]}); "
                                       "expected no images: draw a picture as SVG in a figure's template instead"))
            elif child.type == "link_open" and not _safe_link(str(child.attrGet("href") or "")):
                problems.append((line, f"found a link to {describe(str(child.attrGet('href')), 40)}; expected {LINK_RULE}"))
    return problems


def _safe_link(href: str) -> bool:
    """Returns whether a link, raw or Markdown, works wherever the page is read: within it, out by https:// or
    mailto:, or to a file the build writes beside it."""
    return bool(_SAFE_HREF.match(href.strip())) or href.split("#")[0] in PAGE_FILES


def _end_problem(tag: str) -> str | None:
    """Returns why an end tag is refused: one for an element a section may not open (</section>, </main>) would
    close the page's own element early."""
    if tag not in ALLOWED_TAGS:
        return own_end(tag, "opened in the section")
    return None


def html_problems(fragments: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Returns (line, message) for raw HTML that is not allowed or not balanced, given each fragment and its line."""
    balance = Balance()
    problems = []
    for line, text in fragments:
        parser = Tags()
        parser.feed(text)
        problems += _events_problems(parser.events, line, balance)
        rest = parser.unfinished()
        if rest.startswith("<!--"):
            problems.append((line, "found <!-- with no --> after it; expected every HTML comment to be closed"))
        elif rest:
            problems.append((line, f"found {describe(rest, 30)}, an unfinished tag; expected it to end with >"))
    problems += [(at, f"found <{tag}> with no </{tag}>; expected every element opened in a section to be closed "
                      "in it") for tag, at in balance.open]
    return problems


def _events_problems(events: list, line: int, balance: Balance) -> list[tuple[int, str]]:
    problems: list[tuple[int, str]] = []
    refused: list[str] = []  # the disallowed elements refused at their start, whose end is no problem
    for kind, tag, attrs in events:
        if kind == "end" and tag in refused:
            refused.remove(tag)
            continue
        problem = _tag_problem(tag, attrs) if kind != "end" else _end_problem(tag)
        if problem:
            problems.append((line, problem))
        if tag not in ALLOWED_TAGS:
            if kind == "start":
                refused.append(tag)
            continue
        if not balance.feed(kind, tag, line):
            inner = balance.open[-1] if balance.open else None
            open_one = f"<{inner[0]}> from line {inner[1]} is open" if inner else "no element is open"
            problems.append((line, f"found </{tag}>, but {open_one}; {IN_ORDER}"))
    return problems

"""The page's script: every fragment render.SCRIPTS joins keeps its functions short and speaks no English.

A small scanner blanks comments, strings and regular expressions, then matches braces, which is enough for the
style the fragments use (a template string's ${...} holds no braces or backticks of its own). Every word the script shows comes
from the trace's text table instead (speculative/text.py); the only words a string literal may hold are names
the page's markup and styles define (classes, ids, data- hooks, custom properties), the trace's kind, state and rule
keys, and the short list of DOM names below.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from speculative import figures, render, strings
from speculative.rules import NAMES

from .conftest import DATA, ROOT

TEMPLATES = ROOT / "templates"
LIMIT = 40

# DOM names a script needs that no template or stylesheet spells: tags it creates or finds, events it listens
# to, attribute names and values, media queries, the values of the round radios, the player's data-walkthrough-kind and
# the id of the tally's caption, which the lab makes only while it has draws.
DOM_NAMES = frozenset("""
    a div span tr th td li bdi strong small label legend input select textarea template noscript figure button number
    table caption thead tbody role region aria-labelledby tally-cap
    href contenteditable
    click keydown change input hashchange beforeprint afterprint details not open folds
    aria-disabled aria-valuetext aria-label aria-pressed true radio row col transform translate scope start center auto smooth
    print prefers-reduced-motion reduce lab-token drawn residual
""".split())

# a function: a declaration or expression, or an arrow function with a block body
_START = re.compile(r"(?:\bfunction\s*([A-Za-z_$][\w$]*)?\s*\([^)]*\)|(?:\([^()]*\)|[A-Za-z_$][\w$]*)\s*=>)\s*\{")
_REGEX_BEFORE = set("(,=:[!&|?{};+-*%<>~^") | {"", "return"}


def _regex_may_start(before: str) -> bool:
    """A slash starts a regular expression after an operator, a bracket or `return`; after a value it divides."""
    before = before.rstrip()
    return before[-1:] in _REGEX_BEFORE or before.endswith("return")


def scan(source: str) -> tuple[str, list[tuple[int, str]]]:
    """Returns the source with comments, strings and regexes blanked (newlines kept) and each string literal with its line."""
    out, literals, i, n = [], [], 0, len(source)
    while i < n:
        c, end = source[i], None
        if source.startswith("//", i) or source.startswith("/*", i):
            close = "\n" if source[i + 1] == "/" else "*/"
            end = source.find(close, i + 2)
            end = n if end < 0 else end + (0 if close == "\n" else 2)
        elif c in "'\"`" or (c == "/" and _regex_may_start("".join(out))):
            end = i + 1
            while end < n and source[end] != c:
                end += 2 if source[end] == "\\" else 1
            end += 1
            if c != "/":  # a template string's ${...} holds code, not words
                literals.append((source.count("\n", 0, i) + 1, re.sub(r"\$\{[^}]*\}", " ", source[i + 1:end - 1])))
        if end is None:
            out.append(c)
            i += 1
        else:
            out.append(re.sub(r"[^\n]", " ", source[i:end]))
            i = end
    return "".join(out), literals


def function_lengths(source: str) -> list[tuple[str, int, int]]:
    """Returns (name, first line, lines) for every function, nested ones included; a nested one counts in its outer one too."""
    code, _ = scan(source)
    found = []
    for m in _START.finditer(code):
        depth, j = 0, m.end() - 1
        while j < len(code):
            depth += {"{": 1, "}": -1}.get(code[j], 0)
            if depth == 0:
                break
            j += 1
        first, last = code.count("\n", 0, m.start()) + 1, code.count("\n", 0, j) + 1
        found.append((m.group(1) or "(anonymous)", first, last - first + 1))
    return found


def page_names() -> frozenset[str]:
    """Returns every name the templates and stylesheets define: classes, ids, data- hooks, custom properties."""
    names: set[str] = set()
    for path in [*TEMPLATES.iterdir(), *(ROOT / "speculative").glob("*.py")]:  # charts.py writes SVG hooks
        source = path.read_text(encoding="utf-8") if path.is_file() else ""
        for classes in re.findall(r'class="([^"{}]*)"', source):
            names.update(classes.split())
        names.update(re.findall(r"\.([A-Za-z][\w-]*)", source) if path.suffix == ".css" else ())
        names.update(re.findall(r"\b(data-[a-z][\w-]*)", source))
        names.update(re.findall(r'\bid="([a-z][\w-]*)"', source))
        names.update(re.findall(r"(--[a-z][\w-]*)", source) if path.suffix == ".css" else ())
        names.update(re.findall(r'\bdata-[\w-]+="([a-z][\w-]*)"', source))
    return frozenset(names | set(strings.KIND_NAMES) | set(strings.STATE_NAMES) | set(NAMES) | DOM_NAMES)


def allowed_piece(piece: str, names: frozenset[str], spaced: bool) -> bool:
    """A piece of a literal is a known name or a class prefix such as "is-"; a lone letter passes only in a
    literal without spaces (the "r" of "#aligned/r2/3"), since "u = " is words."""
    if not re.search(r"[A-Za-z]{2}" if not spaced else r"[A-Za-z]", piece):
        return True
    return piece in names or (piece.endswith("-") and any(name.startswith(piece) for name in names))


def english_literals(source: str, names: frozenset[str]) -> list[tuple[int, str]]:
    """Returns the string literals that hold anything but names: words, or any character outside ASCII (a dash, ×, “)."""
    bad = []
    for line, literal in scan(source)[1]:
        pieces = [p for p in re.split(r"[\s\[\]=:(),>\"'#^*]+", literal) if p]
        if "\\u" in literal or not literal.isascii() or not all(allowed_piece(p, names, " " in literal) for p in pieces):
            bad.append((line, literal))
    return bad


def fragments() -> list[str]:
    return list(render.SCRIPTS)


@pytest.mark.parametrize("name", fragments())
def test_no_function_in_the_script_is_over_40_lines(name):
    source = (TEMPLATES / name).read_text(encoding="utf-8")
    long = [(f, line, n) for f, line, n in function_lengths(source) if n > LIMIT]
    assert long == [], f"templates/{name}: functions over {LIMIT} lines (name, line, lines): {long}"


@pytest.mark.parametrize("name", fragments())
def test_the_script_holds_no_english(name):
    source = (TEMPLATES / name).read_text(encoding="utf-8")
    assert english_literals(source, page_names()) == []


def test_every_file_in_the_script_folder_is_joined_into_the_page():
    assert sorted(p.relative_to(TEMPLATES).as_posix() for p in (TEMPLATES / "js").glob("*.js")) == sorted(render.SCRIPTS)


def test_the_length_scan_sees_a_planted_long_function_past_braces_in_strings_and_regexes():
    body = "\n".join(f"  var x{i} = '{{' + /}}/.source;" for i in range(LIMIT - 1))
    planted = f"function short() {{ return '}}'; }}\nfunction long() {{\n{body}\n}}\n"
    assert function_lengths(planted) == [("short", 1, 1), ("long", 2, LIMIT + 1)]


@pytest.mark.parametrize("literal", ["'Proposed token'", "'u = '", "'replacement draw '", "'\u2013'", "'\\u201c'",
                                     "'\u00d7'", "'Pause'", "'is-accepted and more'"])
def test_the_english_scan_catches_a_planted_literal(literal):
    source = (TEMPLATES / "js" / "core.js").read_text(encoding="utf-8")
    planted = source + f"\nfunction planted() {{ return node('p', 'is-accepted', {literal}); }}\n"
    assert english_literals(planted, page_names()) == [(planted.count("\n"), literal[1:-1])]


def test_the_english_scan_lets_names_through():
    planted = "var a = node('li', 'slot is-' + s, '[data-lab-u]'); b.setAttribute('aria-valuetext', x);"
    assert english_literals(planted, page_names()) == []


# Each figure's live part, which its script shows once it has started (the generator's at once, the others on render).
LIVE = {"generator": "[data-generator]", "lab": "[data-lab]", "walkthrough": "[data-walkthrough]", "convergence": "[data-convergence]",
        "explorer": "[data-explorer]", "identity": "[data-identity]"}


@pytest.mark.browser
@pytest.mark.parametrize("left_out", [f for f in figures.FIGURES if f.SCRIPTS], ids=figures.name)
def test_a_page_without_one_figures_script_runs_every_other_figure(page, tmp_path, monkeypatch, left_out):
    """Each file names what it takes from `shared` and no figure's file takes from another figure's, so a figure whose
    script is left out of the page stops nothing else: no error, and every other figure starts."""
    from speculative import pipeline

    monkeypatch.setattr(render, "SCRIPTS", tuple(n for n in render.SCRIPTS if n not in left_out.SCRIPTS))
    files = pipeline.build_files(DATA, ROOT / "content", TEMPLATES)
    own = re.search(r"^function (\w+)", (TEMPLATES / left_out.SCRIPTS[-1]).read_text(encoding="utf-8"), re.M).group(1)
    assert f"function {own}(" not in files["index.html"].decode("utf-8")
    (tmp_path / "index.html").write_bytes(files["index.html"])
    page.goto((tmp_path / "index.html").as_uri())
    name = figures.name(left_out)
    for other, selector in LIVE.items():
        live = page.locator(selector).first
        if other == name:
            expect(live).to_be_hidden()
        else:
            expect(live).to_be_visible()
    assert page.pool_errors == []  # uncaught exceptions and console errors, which the pages fixture records

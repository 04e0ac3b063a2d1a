"""Templates and the page's parts: the sandbox, file-and-line errors, the files the page needs, and a page whose
internal links all resolve. Each case runs the real build on a copy of the project and checks the refusal."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from speculative import figures, render
from speculative.page_checks import PROSE_FILTERS, link_problems
from speculative.sections import VOID_TAGS, Balance, Tags, control_problems

from .conftest import ROOT
from .test_publish import ARGS, hint, project, refused  # noqa: F401  (project: the published-site fixture)

pytestmark = pytest.mark.data_independent


def append(relative: str, text: str):
    def edit(root: Path) -> None:
        path = root / relative
        path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")
    return edit


def lines_of(relative: str) -> int:
    return (ROOT / relative).read_text(encoding="utf-8").count("\n")


WHY, LAB = "content/12-limits.md", "templates/lab.html.j2"
AFTER_WHY, AFTER_LAB = lines_of(WHY) + 2, lines_of(LAB) + 1
# where the prose places the lab (the shipped prose: content/04-rule.md), found, not assumed
LAB_AT = [(f"content/{p.name}", n) for p in sorted((ROOT / "content").glob("*.md"))
          for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if line.strip() == "{{ lab }}"]
LAB_FILE, RULE_LAB = LAB_AT[0] if LAB_AT else ("content/04-rule.md", 8)
LAB_JS = "templates/js/lab.js"

PROSE = "expected the page's values as they are, such as {{ p.aligned.expected }} (prose computes nothing: the view " \
        "computes every number)"
CALL = "expected calls of the section's own macros alone"
CYCLE = "found an include or macro that leads back to itself; expected includes and macros that end"
NO_TEMPLATE = "but no such template; expected a template file of that name in the templates folder"

CASES = [
    ("syntax error in prose", append(WHY, "\n{% if x %}\n"),
     [f"{WHY}: line {AFTER_WHY}: found a template syntax error: Unexpected end of template. Jinja was looking for "
      "the following tags: 'elif' or 'else' or 'endif'. The innermost block that needs to be closed is 'if'."]),
    ("syntax error in a template", append(LAB, "{% for %}\n"),
     [f"{LAB}: line {AFTER_LAB}: found a template syntax error: Expected an expression, got 'end of statement block'"]),
    ("missing include", append(LAB, '{% include "nope.html" %}\n'),
     [f"{LAB}: line {AFTER_LAB}: found 'nope.html' named in an include, import or extends, {NO_TEMPLATE}"]),
    ("missing base template", append(LAB, '{% extends "base.html" %}\n'),
     [f"{LAB}: line {AFTER_LAB}: found 'base.html' named in an include, import or extends, {NO_TEMPLATE}"]),
    # the prose runs in Jinja's stock sandbox: no way to Python's internals
    ("python's internals through prose", append(WHY, "\n{{ ''.__class__ }}\n"),
     [f"{WHY}: line {AFTER_WHY}: found access to attribute '__class__' of 'str' object is unsafe; expected only the "
      "data's own values (prose runs in Jinja's sandbox)"]),
    ("a call to python through prose", append(WHY, '\n{{ cycler.__init__.__globals__.os.popen("id").read() }}\n'),
     [f"{WHY}: line {AFTER_WHY}: found a call of read(); {CALL}", f"{WHY}: line {AFTER_WHY}: found a call of popen(); {CALL}"]),
    # prose computes nothing, so it cannot make text without bound: "x" * 10**9 once took all the machine's memory
    ("huge repetition", append(WHY, '\n{{ "x" * 10**9 }}\n'),
     [f"{WHY}: line {AFTER_WHY}: found the operator *; {PROSE}",
      f"{WHY}: line {AFTER_WHY}: found the operator **; {PROSE}"]),
    ("a huge loop", append(WHY, "\n{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}{% endfor %}\n"),
     [f"{WHY}: line {AFTER_WHY}: found a call of range(); {CALL}"] * 2),
    ("text doubled by ~", append(WHY, '\n{% for v in profiles %}{% set s = v.name ~ v.name %}{% endfor %}\n'),
     [f"{WHY}: line {AFTER_WHY}: found the operator ~; {PROSE}"]),
    ("text widened by a filter", append(WHY, '\n{{ "x"|center(50000000)|length }}\n'),
     [f"{WHY}: line {AFTER_WHY}: found the filter |center; expected only the filters abs, "
      "cap, default, e, escape, first, join, last, length, lower, round, subscript, upper"]),
    ("text multiplied by chained joins", append(WHY, '\n{{ vocab|join("xxxxxxxxxxxxxxxxxxxx")|join("yy")|join("zz") }}\n'),
     [f"{WHY}: line {AFTER_WHY}: found a join of another filter's text or with a long separator; expected a join of "
      "the page's values with a separator of at most 10 characters, such as {{ vocab|join(', ') }}"] * 3),
    ("a loop over a literal", append(WHY, '\n{% for c in "abc" %}{{ c }}{% endfor %}\n'),
     [f"{WHY}: line {AFTER_WHY}: found a loop over a literal; expected a loop over the page's values, such as "
      "{% for v in profiles %}"]),
    ("an include in prose", append(WHY, "\n{% include 'lab.html.j2' %}\n"),
     [f"{WHY}: line {AFTER_WHY}: found an include, import or extends; expected a figure "
      "placed by its name on a line of its own, such as {{ lab }}"]),
    ("a macro that calls itself", append(WHY, "\n{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}\n"),
     [f"{WHY}: line {AFTER_WHY}: {CYCLE}"]),
    ("a division in prose", append(WHY, "\nE is {{ 1 / 0 }}.\n"),
     [f"{WHY}: line {AFTER_WHY}: found the operator /; {PROSE}"]),
    ("a removed section", lambda root: (root / "content" / "09-speedup.md").unlink(),
     ["templates/explorer.html.j2: found no section that places {{ explorer }}; expected one section in content/ to "
      "hold it (was its section removed or renamed?)",
      "content/08-guarantee.md: line 6: found a link to #round-length, but no element on the page has "
      "id=\"round-length\"; expected a section or figure with that id (was its section removed or renamed?)",
      "content/01-what.md: line 20: found a link to #speedup, but no element on the page has id=\"speedup\"; expected "
      "a section or figure with that id (was its section removed or renamed?)"]),
    ("a section renamed .markdown", lambda root: (root / "content" / "09-speedup.md").rename(
        root / "content" / "09-speedup.markdown"),
     ["content/09-speedup.markdown: found a section file whose name does not end in .md; expected the suffix .md "
      "in lower case, such as 09-speedup.md"]),
    ("a section renamed .MD", lambda root: (root / "content" / "09-speedup.md").rename(
        root / "content" / "09-speedup.MD"),
     ["content/09-speedup.MD: found a section file whose name does not end in .md; expected the suffix .md in "
      "lower case, such as 09-speedup.md"]),
    ("a link to nowhere", append(WHY, "\nSee [the appendix](#appendix).\n"),
     [f"{WHY}: line {AFTER_WHY}: found a link to #appendix, but no element on the page has id=\"appendix\"; "
      "expected a section or figure with that id (was its section removed or renamed?)"]),
    ("a link to nowhere written as a character reference", append(WHY, '\nSee <a href="&#35;appendix">it</a>.\n'),
     [f"{WHY}: line {AFTER_WHY}: found a link to #appendix, but no element on the page has id=\"appendix\"; "
      "expected a section or figure with that id (was its section removed or renamed?)"]),
    ("a component placed twice", append(WHY, "\n{{ lab }}\n"),  # each place named at its line
     [f"{LAB_FILE}: line {RULE_LAB}: found {{{{ lab }}}} more than once (also at {WHY} line {AFTER_WHY}); "
      "expected it in one place",
      f"{WHY}: line {AFTER_WHY}: found {{{{ lab }}}} more than once (also at {LAB_FILE} line {RULE_LAB}); "
      "expected it in one place"]),
    ("a component placed twice in one file, another way", append(WHY, "\n{% set x = lab %}{{ x }}\n\n{{ x }}\n"),
     [f"{LAB_FILE}, {WHY}: found {{{{ lab }}}} more than once; expected it in one place"]),
    # a runtime error in a template's own expression is named by file and line
    ("a type error in a template", append(LAB, "{{ 'abc'|int + [] }}\n"),
     [f"{LAB}: line {AFTER_LAB}: found TypeError: unsupported operand type(s) for +: 'int' and 'list'; expected an "
      "expression that works on the page's values"]),
    # includes that never end: named by the include that repeats (they printed Python's recursion traceback)
    ("a template that includes itself", append(LAB, "{% include 'lab.html.j2' %}\n"), [f"{LAB}: line {AFTER_LAB}: {CYCLE}"]),
    ("two templates that include each other", lambda root: (
        append(LAB, "{% include 'a.html.j2' %}\n")(root), (root / "templates" / "a.html.j2").write_text(
            "{% include 'b.html.j2' %}\n"), (root / "templates" / "b.html.j2").write_text("\n{% include 'a.html.j2' %}\n")),
     [f"templates/a.html.j2: line 1: {CYCLE}"]),
    # HTML makes a control character a parse error wherever it stands: NUL and ESC reached the page as typed
    ("control characters in prose", append(WHY, "\nA \x00 and an \x1b[31m escape.\n"),
     [f"{WHY}: line {AFTER_WHY}: found U+0000 (null) at character 3; expected text without control characters "
      "(HTML does not allow them; a paste from a terminal leaves ESC)"]),
    # a prose section is placed once, by its order: templates cannot include one
    ("a template that includes a section", append(LAB, "{% include 'content/12-limits.md' %}\n"),
     [f"{LAB}: line {AFTER_LAB}: found 'content/12-limits.md' named in an include, import or extends, {NO_TEMPLATE}"]),
    ("a missing stylesheet", lambda root: (root / "templates" / "walkthrough.css").unlink(),
     ["templates/walkthrough.css: found no such file; expected the template file walkthrough.css, which the page needs"]),
    ("a missing page template", lambda root: (root / "templates" / "page.html.j2").unlink(),
     ["templates/page.html.j2: found no such file; expected the template file page.html.j2, which the page needs"]),
    ("a folder named like a template", lambda root: ((root / "templates" / "lab.html.j2").unlink(),
                                                     (root / "templates" / "lab.html.j2").mkdir()),
     ["templates/lab.html.j2: found a folder; expected a regular file"]),  # read, and refused, as any input
]


@pytest.mark.parametrize("edit, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_template_or_layout_problem_is_one_line_naming_the_file(edit, expected, project, run_build):
    edit(project)
    assert refused(run_build, project) == expected + hint(expected)


def test_an_undefined_name_lists_the_defined_names(project, run_build):
    append(WHY, "\nE is {{ nothere }}.\n")(project)
    (line,) = refused(run_build, project)[:-2]
    assert line.startswith(f"{WHY}: line {AFTER_WHY}: found 'nothere' is undefined; expected one of the names the "
                           "page defines: ")
    defined = line.split("defines: ")[1].split(", ")
    assert {"profiles", "vocab", "lab", "explorer"} <= set(defined) and len(defined) == len(set(defined))


def test_an_undefined_attribute_is_named_with_its_line(project, run_build):
    append(WHY, "\nE is {{ p.nonexistent.expected }}.\n")(project)
    assert refused(run_build, project)[:-2] == [
        f"{WHY}: line {AFTER_WHY}: found 'dict object' has no attribute 'nonexistent'; expected a name it has"]


def test_files_the_page_does_not_use_are_ignored(project, run_build):
    (project / "templates" / "diagram.png").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe\x00")
    (project / "templates" / "notes.txt").write_bytes(b"\xff not UTF-8")
    (project / "content" / "README.txt").write_text("notes for authors")
    (project / "content" / "images").mkdir()
    code, _, err = run_build(*ARGS)
    assert (code, err) == (0, "")


def test_the_needed_templates_come_from_the_components_and_styles():
    needed = figures.needed_templates()
    assert needed[0] == "page.html.j2"
    assert {f"{name}.html.j2" for name in render.COMPONENTS} | set(render.STYLES) <= set(needed)
    assert all((ROOT / "templates" / name).is_file() for name in needed)


def test_every_internal_link_on_the_shipped_page_resolves(built_site):
    page = (built_site / "index.html").read_text(encoding="utf-8")
    assert link_problems(page, {}, {}) == []
    assert page.count(' id="speedup"') == 1


@pytest.mark.parametrize("page, expected", [
    ('<a href="#x">x</a>', [("the page", 'found a link to #x, but no element on the page has id="x"; expected a '
                                         "section or figure with that id (was its section removed or renamed?)")]),
    ("<p id='x'></p><a href='#x'>x</a><a href=\"#\">top</a>", []),
    ('<p id="a&amp;b"></p><a href="#a&amp;b">x</a>', []),
    ('<p id="x"></p><p id="x"></p>', [("the page", 'found id="x" on 2 elements; expected each id on one element '
                                                   "only (choose another id)")]),
    ('<script>document.write(\'<a href="#nowhere">\')</script>', []),
])
def test_link_check(page, expected):
    assert link_problems(page, {}, {}) == expected


def test_a_template_error_names_the_template_and_line_in_any_templates_folder(tmp_path, run_build):
    templates = tmp_path / "my-templates"
    shutil.copytree(ROOT / "templates", templates)
    (templates / "lab.html.j2").write_text("{{ lab_words.missing_name }}\n", encoding="utf-8")
    code, _, err = run_build("--templates", str(templates), "--out", str(tmp_path / "site"))
    assert code == 1
    assert re.match(rf"{re.escape(str(templates))}/lab\.html\.j2: line 1: found ", err)
    assert not (tmp_path / "site").exists()


def test_the_authoring_guide_lists_the_components_and_tags_the_code_allows():
    from speculative.sections import ALLOWED_TAGS

    guide = (ROOT / "docs" / "authoring.md").read_text(encoding="utf-8")
    table = re.findall(r"^\| `\{\{ (\w+) \}\}` \| `templates/(\w+)\.html\.j2` \|", guide, re.M)
    assert sorted(name for name, _ in table) == sorted(render.COMPONENTS)
    assert all(name == template for name, template in table)
    tags = guide.split("2. Only these tags:")[1].split(". No `script`")[0]
    assert sorted(re.findall(r"`(\w+)`", tags)) == sorted(ALLOWED_TAGS)
    assert all(f"`{name}`" in guide for name in render.STYLES)
    filters = guide.split("any filter but ")[1].split(".\n")[0]
    assert sorted(re.findall(r"`(\w+)`", filters)) == sorted(PROSE_FILTERS)
    assert "docs/authoring.md" in (ROOT / "README.md").read_text(encoding="utf-8")


# --- the scripts: the build does not parse them; a syntax error fails the browser tests ------------------------

SCRIPT_ERRORS = [("an unclosed function", "\nfunction broken( {\n"), ("an operator with nothing after it", "\nconst twice = 2 *;\n"),
                 ("an unclosed parenthesis", "\nif (lab {\n}\n"), ("a module import", "\nimport x from './x.js';\n")]


@pytest.mark.browser
@pytest.mark.allow_page_errors
@pytest.mark.parametrize("planted", [s[1] for s in SCRIPT_ERRORS], ids=[s[0] for s in SCRIPT_ERRORS])
def test_a_syntax_error_in_a_script_is_built_and_caught_by_the_browser_tests_page_error_check(pages, project, planted):
    """The scripts are the project's own reviewed code, which the build joins without parsing: a syntax error in one
    builds, and the browser tier's pages fixture (conftest.Pages) records it as an uncaught SyntaxError, failing any
    browser test that loads the page."""
    from speculative import pipeline

    append(LAB_JS, planted)(project)
    files = pipeline.build_files(project / "data" / "profiles.v1.json", project / "content", project / "templates")
    (project / "index.html").write_bytes(files["index.html"])
    page = pages.open()
    with page.expect_event("pageerror"):
        page.goto((project / "index.html").as_uri())
    assert [e for e in page.pool_errors if e.startswith("uncaught SyntaxError: ")] == page.pool_errors != [], \
        page.pool_errors
    assert pages.give_back() == page.pool_errors  # what the pages fixture fails an unmarked test on


# --- the project's own templates: reviewed code, checked here and not by the build -------------------------------

TEMPLATE_FILES = sorted(p for p in (ROOT / "templates").rglob("*") if p.suffix in (".j2", ".css", ".js"))
# Text the HTML parser reads as the end (or, in a script, a confusing start) of the inline element it stands in.
RAW_END = re.compile(r"</script|<!--|<script|</style", re.I)


@pytest.mark.parametrize("path", TEMPLATE_FILES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_a_template_file_holds_no_control_characters_nor_text_that_ends_its_inline_element(path):
    text = path.read_text(encoding="utf-8")
    assert control_problems(text) == []  # HTML makes a control character a parse error wherever it stands
    if path.suffix in (".css", ".js"):  # the page's one script and one style stand inline
        assert [f"line {text.count(chr(10), 0, m.start()) + 1}: {m.group()}" for m in RAW_END.finditer(text)] == []


_CSS_QUIET = r"/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'"  # comments and strings
_CSS_FETCH = re.compile(r"@import\b|\burl\(\s*(?![\"']?\s*data:)", re.I)


def css_problem(text: str) -> str | None:
    """Returns "line N: found …" for the first thing a style file fetches (@import, a url() that is not data:: the
    page loads nothing) or the first brace it leaves open or closes unopened (the files are joined, so an open rule
    would swallow the next file's rules); None when there is none."""
    def blank(pattern: str) -> str:  # the same lines, with nothing in comments (and strings) to misread
        return re.sub(pattern, lambda m: re.sub(r"[^\n]", " ", m.group()), text, flags=re.S)

    def line(at: int) -> int:
        return text.count("\n", 0, at) + 1

    fetch = _CSS_FETCH.search(blank(r"/\*.*?\*/"))
    if fetch:
        return f"line {line(fetch.start())}: found {fetch.group().strip()}"
    quiet = blank(_CSS_QUIET)
    opened: list[int] = []
    for m in re.finditer(r"[{}]", quiet):
        if m.group() == "{":
            opened.append(m.start())
        elif not opened:
            return f"line {line(m.start())}: found }} that closes no {{"
        else:
            opened.pop()
    return f"line {line(opened[-1])}: found {{ that no }} closes" if opened else None


@pytest.mark.parametrize("name", figures.STYLES)
def test_a_style_file_closes_every_brace_and_fetches_nothing(name):
    assert css_problem((ROOT / "templates" / name).read_text(encoding="utf-8")) is None


@pytest.mark.parametrize("text, expected", [
    ("a {}\n.zzz { color: red\n", "line 2: found { that no } closes"), ("a {}\n}\n", "line 2: found } that closes no {"),
    ("\n@import url(https://x.org/a.css);\n", "line 2: found @import"),
    (".a { background: url(https://x.org/a.png) }", "line 1: found url("),
    ('/* { url(x) */ .a::before { content: "}" }\n.b { background: url("data:image/png;base64,AA") }', None),
])
def test_the_style_check_sees_braces_and_urls_but_not_in_comments_and_strings(text, expected):
    assert css_problem(text) == expected


# Elements whose end tag the HTML parser may imply: the balance check skips them, as it skips void elements.
OPTIONAL_END = frozenset({"li", "dt", "dd", "p", "tr", "td", "th", "thead", "tbody", "tfoot", "option", "optgroup",
                          "colgroup", "caption", "rt", "rp", "html", "head", "body"})


def markup_problem(html: str) -> str | None:
    """Returns the first element some markup leaves open, or an end tag that closes no element it opened."""
    parser = Tags()
    parser.feed(html)
    balance = Balance(VOID_TAGS | OPTIONAL_END)
    for kind, tag, _ in parser.events:
        if not balance.feed(kind, tag):
            return f"found </{tag}>" + (f" while <{balance.open[-1][0]}> is open" if balance.open else "")
    return f"found <{balance.open[-1][0]}> never closed" if balance.open else None


@pytest.mark.parametrize("html, expected", [
    ("<div><p>a<br></div>", None), ("<div>\n", "found <div> never closed"), ("</section></main>", "found </section>"),
    ("<span><b></span></b>", "found </span> while <b> is open")])
def test_the_markup_check_finds_what_is_left_open_or_closed_out_of_order(html, expected):
    assert markup_problem(html) == expected


def test_each_figure_and_the_page_close_every_element_they_open(explained, built_site):
    """A figure that leaves an element open, or closes one of the page's, would swallow or break what follows."""
    from speculative import view

    figs = view.figures(explained)
    env, _ = render.environments({p.relative_to(ROOT / "templates").as_posix(): p.read_text(encoding="utf-8")
                                  for p in TEMPLATE_FILES})
    for name in render.COMPONENTS:
        html = env.get_template(f"{name}.html.j2").render(view.context(explained, figs))
        assert html.strip() and markup_problem(html) is None, name
    assert markup_problem((built_site / "index.html").read_text(encoding="utf-8")) is None

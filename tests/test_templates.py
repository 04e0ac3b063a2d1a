"""Templates and the page's parts: the sandbox, file-and-line errors, the files the page needs, and a page whose
internal links all resolve. Each case runs the real build on a copy of the project and checks the refusal."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from speculative import render
from speculative.page_checks import MAX_LOOP_STEPS, MAX_OUTPUT_CHARS, link_problems, page_ids

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
LAB_JS = "templates/js/lab.js"
STYLE = "templates/style.css"
FETCH = "expected no @import and no url() other than data:, since the page loads nothing"

CASES = [
    ("syntax error in prose", append(WHY, "\n{% if x %}\n"),
     [f"{WHY}: line {AFTER_WHY}: found a template syntax error: Unexpected end of template. Jinja was looking for "
      "the following tags: 'elif' or 'else' or 'endif'. The innermost block that needs to be closed is 'if'."]),
    ("syntax error in a template", append(LAB, "{% for %}\n"),
     [f"{LAB}: line {AFTER_LAB}: found a template syntax error: Expected an expression, got 'end of statement block'"]),
    ("missing include", append(LAB, '{% include "nope.html" %}\n'),
     [f"{LAB}: line {AFTER_LAB}: found 'nope.html' named in an include, import or extends, but no such template; "
      "expected a template file of that name in the templates folder"]),
    ("missing base template", append(LAB, '{% extends "base.html" %}\n'),
     [f"{LAB}: line {AFTER_LAB}: found 'base.html' named in an include, import or extends, but no such template; "
      "expected a template file of that name in the templates folder"]),
    ("python through jinja", append(WHY, '\n{{ cycler.__init__.__globals__.os.popen("id").read() }}\n'),
     [f"{WHY}: line {AFTER_WHY}: found access to attribute '__init__' of 'type' object is unsafe; expected only the "
      "data's own values (templates run in a sandbox)"]),
    ("huge repetition", append(WHY, '\n{{ "x" * 100000000 }}\n'),
     [f"{WHY}: line {AFTER_WHY}: found a repetition longer than {MAX_OUTPUT_CHARS:,}; expected text a page could "
      "hold"]),
    ("endless loops", append(WHY, "\n{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}{% endfor %}\n"),
     [f"{WHY}: line {AFTER_WHY}: found loops over more than {MAX_LOOP_STEPS:,} numbers; expected loops over the "
      "data"]),
    ("huge output", append(WHY, '\n{% for i in range(90000) %}{{ "x" * 99 }}{% endfor %}\n'),
     [f"{WHY}: found output over {MAX_OUTPUT_CHARS:,} characters; expected a page of a few hundred thousand at most"]),
    # text doubled 40 times (2**40 characters) once took all the machine's memory and died with no message
    ("text doubled by ~", append(WHY, '\n{% set s = namespace(v="x") %}{% for i in range(40) %}{% set s.v = s.v ~ s.v %}'
                                      "{% endfor %}{{ s.v|length }}\n"),
     [f"{WHY}: line {AFTER_WHY}: found text of over {MAX_OUTPUT_CHARS:,} characters; expected text a page could hold"]),
    ("text doubled by +", append(WHY, '\n{% set a = "x" * 3000000 %}{% set b = a + a %}{{ b|length }}\n'),
     [f"{WHY}: line {AFTER_WHY}: found text of over {MAX_OUTPUT_CHARS:,} characters; expected text a page could hold"]),
    ("text widened by a filter", append(WHY, '\n{{ "x"|center(50000000)|length }}\n'),
     [f"{WHY}: line {AFTER_WHY}: found text of over {MAX_OUTPUT_CHARS:,} characters; expected text a page could hold"]),
    ("an emptied figure template", lambda root: (root / "templates" / "servers.html.j2").write_text(""),
     ["templates/servers.html.j2: found an empty file; expected the figure's markup"]),
    ("an element a figure leaves open", append("templates/servers.html.j2", "<div>\n"),
     ["templates/servers.html.j2: found <div> with no </div>; expected every element the template opens to be "
      "closed in it"]),
    ("a figure closing the page's own elements", append("templates/servers.html.j2", "</section></main>\n"),
     ["templates/servers.html.j2: found </section>, which would close one of the page's own elements; expected only "
      "the end tags of elements the template opens"]),
    ("crossed elements in a figure", append(LAB, "<span><b></span></b>\n"),
     [f"{LAB}: found </span>, but <b> is open; expected elements closed in the order they were opened"]),
    ("an end tag too many in the page", lambda root: (root / "templates" / "page.html.j2").write_text(
        (ROOT / "templates" / "page.html.j2").read_text(encoding="utf-8").replace("</main>", "</main></div>")),
     ["templates/page.html.j2: found </div>, which would close one of the page's own elements; expected only the "
      "end tags of elements the template opens"]),
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
    # the style files are joined: a rule left open would swallow the next file's rules, and the page fetches nothing
    ("an unclosed rule in a style file", append(STYLE, "\n.zzz { color: red\n"),
     [f"{STYLE}: line {lines_of(STYLE) + 2}: found {{ that no }} closes; expected braces in pairs (the next style "
      "file would be read as part of this rule)"]),
    ("a stray brace in a style file", append(STYLE, "\n}\n"),
     [f"{STYLE}: line {lines_of(STYLE) + 2}: found }} that closes no {{; expected braces in pairs"]),
    ("an @import in a style file", append(STYLE, "\n@import url(https://x.org/a.css);\n"),
     [f"{STYLE}: line {lines_of(STYLE) + 2}: found “@import url(https://x.org/a.css);”; {FETCH}"]),
    ("a picture from the network in a style file", append(STYLE, "\n.a { background: url(https://x.org/a.png) }\n"),
     [f"{STYLE}: line {lines_of(STYLE) + 2}: found “url(https://x.org/a.png) }}”; {FETCH}"]),
    ("a component placed twice", append(WHY, "\n{{ lab }}\n"),
     ["content/04-rule.md, content/12-limits.md: found {{ lab }} more than once; expected it in one place"]),
    # a runtime error in a template's own expression is the input's problem, named by file and line
    ("a division by zero in prose", append(WHY, "\nE is {{ 1 / 0 }}.\n"),
     [f"{WHY}: line {AFTER_WHY}: found ZeroDivisionError: division by zero; expected an expression that works on "
      "the page's values"]),
    ("a type error in a template", append(LAB, "{{ 'abc'|int + [] }}\n"),
     [f"{LAB}: line {AFTER_LAB}: found TypeError: unsupported operand type(s) for +: 'int' and 'list'; expected an "
      "expression that works on the page's values"]),
    # includes that never end are refused before rendering (they printed Python's recursion traceback)
    ("a template that includes itself", append(LAB, "{% include 'lab.html.j2' %}\n"),
     [f"{LAB}: line {AFTER_LAB}: found an include of 'lab.html.j2', which leads back to lab.html.j2; expected "
      "includes that end (a template may not include itself, directly or through others)"]),
    ("two templates that include each other", lambda root: (append(LAB, "{% include 'strip.html.j2' %}\n")(root),
                                                            append("templates/strip.html.j2",
                                                                   "{% include 'lab.html.j2' %}\n")(root)),
     [f"{LAB}: line {AFTER_LAB}: found an include of 'strip.html.j2', which leads back to lab.html.j2; expected "
      "includes that end (a template may not include itself, directly or through others)",
      f"templates/strip.html.j2: line {lines_of('templates/strip.html.j2') + 1}: found an include of 'lab.html.j2', "
      "which leads back to strip.html.j2; expected includes that end (a template may not include itself, directly "
      "or through others)"]),
    # HTML makes a control character a parse error wherever it stands: NUL and ESC reached the page as typed
    ("control characters in prose", append(WHY, "\nA \x00 and an \x1b[31m escape.\n"),
     [f"{WHY}: line {AFTER_WHY}: found U+0000 (null) at character 3; expected text without control characters "
      "(HTML does not allow them; a paste from a terminal leaves ESC)"]),
    ("a control character in a script", append(LAB_JS, "\nvar bell = '\x07';\n"),
     [f"{LAB_JS}: line {lines_of(LAB_JS) + 2}: found U+0007 (a control character) at character 13; expected text "
      "without control characters (HTML does not allow them; a paste from a terminal leaves ESC)"]),
    # a prose section is placed once, by its order: an include would paste its raw Markdown again (it built)
    ("a template that includes a section", append(LAB, "{% include 'content/12-limits.md' %}\n"),
     [f"{LAB}: line {AFTER_LAB}: found an include of 'content/12-limits.md', a prose section; expected a template file "
      "from the templates folder (each section is placed on the page once, by its order)"]),
    # the script and the styles stand inline in the page: text the HTML parser reads as their end is refused
    ("an end tag in a script's string", append(LAB_JS, "\nvar tag = '</script>';\n"),
     [f"{LAB_JS}: line {lines_of(LAB_JS) + 2}: found '</script', which would end the page's inline script there; "
      "expected it split, such as '<\\/script' or '<' + '!--'"]),
    ("an end tag in a style", append("templates/figures.css", "\n.x::after { content: '</style>'; }\n"),
     [f"templates/figures.css: line {lines_of('templates/figures.css') + 2}: found '</style', which would end the "
      "page's inline style there; expected its < escaped, such as '\\3c /style'"]),
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


# the data file's profile ids, in its order: the names `p` has
PROFILE_IDS = ", ".join(p["id"] for p in json.loads((ROOT / "data" / "profiles.v1.json").read_text(encoding="utf-8"))["profiles"])


def test_an_undefined_attribute_lists_what_the_object_has(project, run_build):
    append(WHY, "\nE is {{ p.nonexistent.expected }}.\n")(project)
    assert refused(run_build, project)[:-2] == [
        f"{WHY}: line {AFTER_WHY}: found 'dict object' has no attribute 'nonexistent'; it has {PROFILE_IDS}; "
        "expected a name it has"]


def test_files_the_page_does_not_use_are_ignored(project, run_build):
    (project / "templates" / "diagram.png").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe\x00")
    (project / "templates" / "notes.txt").write_bytes(b"\xff not UTF-8")
    (project / "content" / "README.txt").write_text("notes for authors")
    (project / "content" / "images").mkdir()
    code, _, err = run_build(*ARGS)
    assert (code, err) == (0, "")


def test_the_needed_templates_come_from_the_components_and_styles():
    needed = render.needed_templates()
    assert needed[0] == "page.html.j2"
    assert {f"{name}.html.j2" for name in render.COMPONENTS} | set(render.STYLES) <= set(needed)
    assert all((ROOT / "templates" / name).is_file() for name in needed)


def test_every_internal_link_on_the_shipped_page_resolves(built_site):
    page = (built_site / "index.html").read_text(encoding="utf-8")
    assert link_problems(page, {}, {}) == []
    assert page_ids(page)["speedup"] == 1


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
    assert "docs/authoring.md" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_braces_and_urls_in_css_comments_and_strings_are_not_problems():
    from speculative.page_checks import css_problem

    assert css_problem('/* { url(x) */ .a::before { content: "}" }\n.b { background: url("data:image/png;base64,AA") }') is None
    assert css_problem(".a { content: '{' ").startswith("line 1: found { that no } closes")


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


@pytest.mark.parametrize("source, expected", [
    ("{% include 'a.html.j2' %}", ("a.html.j2",)),
    ('{%- import "a.html.j2" as a -%}', ("a.html.j2",)),
    ("{%+\n  from 'a.html.j2' import b %}", ("a.html.j2",)),
    ("{% extends 'a.html.j2' %}{% include 'b.html.j2' %}", ("a.html.j2", "b.html.j2")),
    ("Prose that may import from, include or extend 'a.html.j2' in words, {{ include }} {% if x %}{% endif %}", ()),
    ("{# {% include 'a.html.j2' %} #}", ()),  # a comment: parsed, and found to include nothing
])
def test_the_include_check_finds_every_include_import_and_extends_and_parses_only_sources_with_one(source, expected):
    from speculative.page_checks import _references

    assert _references(source) == expected

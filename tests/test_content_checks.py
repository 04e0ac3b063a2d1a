"""speculative/sections.py: a section's front matter is typed, its raw HTML allowed and balanced, its size bounded;
every problem names the file and line, what was found and what was expected."""

from __future__ import annotations

import json
import re

import pytest

from speculative import render
from speculative.errors import Problems
from speculative.sections import ALLOWED_TAGS, MAX_SECTION_CHARS, html_problems, parse_section, parse_sections

from .conftest import ROOT
from .test_publish import ARGS, hint, project, refused  # noqa: F401  (project: the published-site fixture)

pytestmark = pytest.mark.data_independent

EXPECTED_KEYS = "expected title, order and id, one per line"
TITLE = "expected a title of at most 80 characters on one line"
ORDER = "expected a whole number from -9999 to 9999, such as 3"
ID = ("expected lower-case letters, digits and single dashes, starting with a letter, at most 40 characters, "
      "such as walkthrough-section")


def front(*lines: str) -> str:
    return "---\n" + "\n".join(lines) + "\n---\nBody.\n"


FRONT_MATTER_CASES = [
    ("no front matter", "no front matter here",
     "line 1: found no front matter; expected the file to start with ---, then title, order and id, one per line, "
     "then ---"),
    ("missing keys", front("title: x"), f"line 2: found no order, id; {EXPECTED_KEYS}"),
    ("not YAML", front("title: [x"),
     "line 2: found YAML that does not parse (expected ',' or ']', but got '<stream end>'); expected title, order "
     "and id, one per line, such as title: Why it is faster"),
    ("a list", front("- a list"), f"line 2: found a list; {EXPECTED_KEYS}"),
    ("empty", "---\n\n---\nBody.\n", f"line 2: found nothing; {EXPECTED_KEYS}"),
    ("duplicate title", front("title: A", "title: B", "order: 1", "id: a"),
     "line 3: title: found the key a second time (first on line 2); expected each key once"),
    ("unknown key", front("title: a", "order: 1", "id: a", "tilte: b"),
     'line 5: found the key "tilte"; expected only title, order, id'),
    ("alias", front("x: &a [1, 2]", "title: *a", "order: 1", "id: a"),
     "line 3: found an alias (*name); expected plain values, without YAML anchors and aliases"),
    ("python tag", front("title: !!python/object/apply:os.system ['echo hi']", "order: 1", "id: a"),  # once "found null"
     "line 2: title: found the YAML tag !!python/object/apply:os.system; expected a plain value, without tags"),
    ("custom tag", front("title: x", "order: !year 3", "id: a"),
     "line 3: order: found the YAML tag !year; expected a plain value, without tags"),
    ("empty title", front("title:", "order: 1", "id: a"), f"line 2: title: found null; {TITLE}"),
    ("blank title", front("title: '  '", "order: 1", "id: a"), f'line 2: title: found "  "; {TITLE}'),
    ("mapping title", front("title: {a: 1}", "order: 1", "id: a"), f"line 2: title: found an object; {TITLE}"),
    ("number title", front("title: 12", "order: 1", "id: a"), f"line 2: title: found 12; {TITLE}"),
    ("two-line title", front('title: "a\\nb"', "order: 1", "id: a"),
     f'line 2: title: found "a<U+000A>b", which has U+000A (line feed); {TITLE}, without control characters, '
     "line breaks or bidi controls"),
    ("bidi title", front("title: a\u202eb", "order: 1", "id: a"),
     f'line 2: title: found "a<U+202E>b", which has U+202E (right-to-left override); {TITLE}, without control '
     "characters, line breaks or bidi controls"),
    ("long title", front("title: " + "t" * 81, "order: 1", "id: a"),
     f'line 2: title: found "{"t" * 30}…" (81 characters); {TITLE}'),
    ("word order", front("title: x", "order: first", "id: x"), f'line 3: order: found "first"; {ORDER}'),
    ("fraction order", front("title: x", "order: 1.5", "id: x"), f"line 3: order: found 1.5; {ORDER}"),
    ("boolean order", front("title: x", "order: true", "id: x"), f"line 3: order: found true; {ORDER}"),
    ("hexadecimal order", front("title: x", "order: 0x4", "id: x"), f'line 3: order: found "0x4"; {ORDER}'),
    ("order as minutes", front("title: x", "order: 1:30", "id: x"), f'line 3: order: found "1:30"; {ORDER}'),
    ("order with an underscore", front("title: x", "order: 1_0", "id: x"), f'line 3: order: found "1_0"; {ORDER}'),
    ("huge order", front("title: x", "order: " + "9" * 5000, "id: x"),
     f'line 3: order: found "{"9" * 30}…" (5000 characters); {ORDER}'),
    ("spaced id", front("title: x", "order: 1", "id: 2 words"), f'line 4: id: found "2 words"; {ID}'),
    ("capital id", front("title: x", "order: 1", "id: Player"), f'line 4: id: found "Player"; {ID}'),
    ("number id", front("title: x", "order: 1", "id: 7"), f"line 4: id: found 7; {ID}"),
    ("oversized section", "---\ntitle: a\norder: 1\nid: a\n---\n" + "x" * (MAX_SECTION_CHARS + 1),
     f"line 6: found a section of {MAX_SECTION_CHARS + 1:,} characters; expected at most {MAX_SECTION_CHARS:,} "
     "(split it into two sections)"),
]


@pytest.mark.parametrize("text, message", [c[1:] for c in FRONT_MATTER_CASES], ids=[c[0] for c in FRONT_MATTER_CASES])
def test_front_matter_problems_name_the_line_what_was_found_and_expected(text, message):
    with pytest.raises(Problems) as caught:
        parse_section("content/x.md", text)
    assert caught.value.lines == [f"content/x.md: {message}"]


def test_an_alias_never_expands():
    bomb = front('a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]', "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]",
                 "title: *b", "order: 1", "id: a")
    with pytest.raises(Problems) as caught:
        parse_section("content/x.md", bomb)
    assert caught.value.lines == ["content/x.md: line 3: found an alias (*name); expected plain values, without "
                                    "YAML anchors and aliases"]


def test_a_section_at_the_size_limit_is_accepted_and_its_lines_are_the_files():
    section = parse_section("content/x.md", "---\ntitle: a\norder: 1\nid: a\n---\n" + "x" * MAX_SECTION_CHARS)
    assert section.first_line == 6 and section.id_line == 4
    assert section.template_text().splitlines()[5] == "x" * MAX_SECTION_CHARS


def test_every_bad_section_is_listed_and_ids_must_be_unique():
    texts = {"a.md": "nothing", "b.md": front("title: B", "order: 1", "id: same"),
             "c.md": front("title: C", "order: 2", "id: same")}
    with pytest.raises(Problems) as caught:
        parse_sections(texts, "content")
    assert caught.value.lines == [
        "a.md: line 1: found no front matter; expected the file to start with ---, then title, order and id, one "
        "per line, then ---",
        'c.md: line 4: id: found "same", which b.md uses too; expected an id of its own',
    ]


# --- raw HTML -------------------------------------------------------------------------------------------------

HTML_CASES = [
    ("unclosed comment", [(3, "<!-- a note")],
     [(3, "found <!-- with no --> after it; expected every HTML comment to be closed")]),
    ("unclosed element", [(2, "<div>"), (9, "<span>x</span>")],
     [(2, "found <div> with no </div>; expected every element opened in a section to be closed in it")]),
    ("crossed elements", [(4, "<span>"), (4, "</em>")],
     [(4, "found </em>, but <span> from line 4 is open; expected elements closed in the order they were opened"),
      (4, "found <span> with no </span>; expected every element opened in a section to be closed in it")]),
    ("stray end", [(5, "</p>")],
     [(5, "found </p>, but no element is open; expected elements closed in the order they were opened")]),
    ("end of the page's own element", [(5, "Text.</section>"), (6, "</main>")],
     [(5, "found </section>, which would close one of the page's own elements; expected only the end tags of "
          "elements opened in the section"),
      (6, "found </main>, which would close one of the page's own elements; expected only the end tags of "
          "elements opened in the section")]),
    ("script", [(6, "<script>alert(1)</script>")],
     [(6, "found <script>; expected only the HTML tags docs/authoring.md lists, such as <span> or <em>")]),
    ("style element", [(6, "<style>p{}</style>")],
     [(6, "found <style>; expected only the HTML tags docs/authoring.md lists, such as <span> or <em>")]),
    ("event handler", [(7, '<span onclick="x()">a</span>')],
     [(7, "found <span onclick=…>; expected no onclick attribute (the page allows no inline script or style)")]),
    ("style attribute", [(7, '<p style="color:red">a</p>')],
     [(7, "found <p style=…>; expected no style attribute (the page allows no inline script or style)")]),
    ("script link", [(8, '<a href="javascript:alert(1)">a</a>')],
     [(8, 'found <a href="javascript:alert(1)">; expected a link starting with #, https:// or mailto:, or to '
          'index.html or trace.json')]),
    ("unfinished tag", [(8, "<span class='x'")],
     [(8, "found \"<span class='x'\", an unfinished tag; expected it to end with >")]),
]


@pytest.mark.parametrize("fragments, expected", [c[1:] for c in HTML_CASES], ids=[c[0] for c in HTML_CASES])
def test_raw_html_must_be_allowed_and_balanced(fragments, expected):
    assert html_problems(fragments) == expected


def test_the_shipped_raw_html_is_allowed():
    assert html_problems([(1, '<p class="js-only">Try <em>u</em><bdi>x</bdi><sub>1</sub><br>'
                              '<a href="#lab" data-lab-open="a/1">it</a></p><!-- a note -->')]) == []
    assert {"span", "em", "p", "a", "bdi", "sub"} <= ALLOWED_TAGS and not {"script", "style", "iframe"} & ALLOWED_TAGS


WHAT_END = (ROOT / "content" / "01-what.md").read_text(encoding="utf-8").count("\n") + 4  # a line added at its end
# The first profile's id in the data file (whatever an author's file names it), and the line it is on: a message
# about a value names its line.
_DATA_TEXT = (ROOT / "data" / "profiles.v1.json").read_text(encoding="utf-8-sig")
FIRST_ID = json.loads(_DATA_TEXT)["profiles"][0]["id"]
ID_LINE = next(i for i, line in enumerate(_DATA_TEXT.splitlines(), 1)
               if re.search(r'"id"\s*:\s*' + re.escape(json.dumps(FIRST_ID)), line))
CONTENT_BUILD_CASES = [
    ("unclosed comment", "01-what.md", lambda t: t + "\n<!-- the rest is hidden\n",
     [f"content/01-what.md: line {WHAT_END}: found <!-- with no --> after it; expected every HTML comment to be closed"]),
    ("unclosed div", "01-what.md", lambda t: t + "\n<div class=\"note\">\n\nA note.\n",
     [f"content/01-what.md: line {WHAT_END}: found <div> with no </div>; expected every element opened in a section to be "
      "closed in it"]),
    ("duplicate title", "01-what.md", lambda t: t.replace("title: What this is", "title: A\ntitle: B"),
     ["content/01-what.md: line 3: title: found the key a second time (first on line 2); expected each key once"]),
    ("id of the player", "01-what.md", lambda t: t.replace("id: what", "id: walkthrough-player"),
     ['content/01-what.md: line 4: id: found "walkthrough-player", which another element on the page has too; expected an id '
      "of its own"]),
    ("id of the trace", "01-what.md", lambda t: t.replace("id: what", "id: trace"),  # the scripts read it by id
     ['content/01-what.md: line 4: id: found "trace", which another element on the page has too; expected an id '
      "of its own"]),
    ("element with a section's id", "14-colophon.md", lambda t: t + '\n<span id="what">x</span>\n',
     ['content/14-colophon.md: line LINE: found id="what", the id of the section in content/01-what.md; expected '
      "another id (each id names one element)"]),
    ("element with the trace's id", "01-what.md", lambda t: t + '\n<span id="trace">x</span>\n',
     ['content/01-what.md: found id="trace" on 2 elements; expected each id on one element only (choose another id)']),
    ("id of a profile", "01-what.md", lambda t: t.replace("id: what", f"id: {FIRST_ID}"),  # the data file is told which file
     [f'data/profiles.v1.json: line {ID_LINE}: profiles[0].id: found "{FIRST_ID}", which content/01-what.md already gives an element on '
      "the page; expected another id (or change that one)"]),
    ("bidi title", "01-what.md", lambda t: t.replace("title: What", "title: What\u202e"),
     ['content/01-what.md: line 2: title: found "What<U+202E> this is", which has U+202E (right-to-left override); '
      f"{TITLE}, without control characters, line breaks or bidi controls"]),
]


@pytest.mark.parametrize("name, edit, expected", [c[1:] for c in CONTENT_BUILD_CASES],
                         ids=[c[0] for c in CONTENT_BUILD_CASES])
def test_a_content_problem_is_refused_by_the_build(name, edit, expected, project, run_build):
    path = project / "content" / name
    path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")
    line = str(path.read_text(encoding="utf-8").count("\n"))  # the last line's, where a case adds one
    expected = [e.replace("line LINE:", f"line {line}:") for e in expected]
    assert refused(run_build, project) == expected + hint(expected)


# --- smart quotes: bounded, because markdown-it's pass is quadratic in a paragraph's quotes -------------------

def test_smart_quotes_run_only_on_paragraphs_with_few_quotes():
    md = render._markdown()
    rule = next(r for r in md.core.ruler.__rules__ if r.name == "smartquotes")
    assert rule.enabled and rule.fn is render.bounded_smartquotes
    assert render.MAX_SMART_QUOTES <= 1000
    assert md.render("the model's \"draft\"") == "<p>the model’s “draft”</p>\n"
    many = "it's " * (render.MAX_SMART_QUOTES + 1)
    assert md.render(many).count("'") == render.MAX_SMART_QUOTES + 1, "past the bound, quotes stay as typed"


@pytest.mark.parametrize("body", ["\"'" * (MAX_SECTION_CHARS // 2), "it's " * (MAX_SECTION_CHARS // 5)],
                         ids=["quote pairs", "apostrophes"])
def test_the_worst_quotes_at_the_size_limit_build(body, project, run_build):
    (project / "content" / "14-quotes.md").write_text("---\ntitle: Quotes\norder: 14\nid: quotes\n---\n" + body)
    code, _, err = run_build(*ARGS)
    assert code == 0, err


def test_markdown_images_and_links_follow_the_rules_of_raw_html():
    """Markdown makes <img> and <a href> too: an image is refused (the page shows none from a file or the network),
    and so is a link that breaks once the page is served or downloaded."""
    from speculative.render import _markdown
    from speculative.sections import markdown_problems

    tokens = _markdown().parse("Text ![a](https://x.org/a.png)\n\n[b](notes.html) [c](#x) [d](https://e.org) "
                               "[e](trace.json#top) [f](mailto:a@b.c) [g](//e.org)\n")
    expected = "expected a link starting with #, https:// or mailto:, or to index.html or trace.json"
    assert markdown_problems(tokens) == [
        (1, "found the image ![a](https://x.org/a.png); expected no images: draw a picture as SVG in a figure's "
            "template instead"),
        (3, f'found a link to "notes.html"; {expected}'), (3, f'found a link to "//e.org"; {expected}')]


@pytest.mark.parametrize("href", ["http://e.org/", "javascript:alert(1)", "JavaScript:void(0)", "file:///etc/passwd",
                                  "vbscript:x", "data:text/html,x"])
def test_a_markdown_link_the_page_cannot_follow_is_refused_by_name_not_left_as_text(href):
    """http:// is refused as in raw HTML (GitHub Pages serves https). markdown-it on its own leaves a javascript:,
    file:, vbscript: or data: link on the page as plain "[x](…)" text; the build names it instead."""
    from speculative.render import _markdown
    from speculative.sections import markdown_problems

    assert markdown_problems(_markdown().parse(f"See [x]({href}).\n")) == [
        (1, f'found a link to "{href}"; expected a link starting with #, https:// or mailto:, or to index.html or '
            "trace.json")]


def test_raw_html_links_follow_the_same_rule_as_markdown_links():
    assert html_problems([(1, '<a href="trace.json">the trace</a> <a href="index.html#rule">the rule</a>')]) == []
    assert html_problems([(3, '<a href="http://e.org/">e</a>')]) == [
        (3, 'found <a href="http://e.org/">; expected a link starting with #, https:// or mailto:, or to index.html or '
            "trace.json")]
    assert html_problems([(2, '<a href="notes.html">notes</a>')]) == [
        (2, 'found <a href="notes.html">; expected a link starting with #, https:// or mailto:, or to index.html or '
            "trace.json")]


@pytest.mark.parametrize("expression", ["{{" * 40, "{{ 4" + "0" * 4300 + " }}",
                                        pytest.param("{{ " + "-" * 300 + "k }}", marks=pytest.mark.slow),  # about 5 s
                                        "{{ k" + "|e" * 500 + " }}"],
                         ids=["40 nested {{", "a 4,301-digit number", "300 minus signs", "500 filters"])
def test_an_expression_python_cannot_compile_is_refused_at_its_line(project, run_build, expression):
    """A fuzzing audit's finds: each of these crashed the build (RecursionError, ValueError, SyntaxError) instead of
    naming the file and the line."""
    section = project / "content" / "14-colophon.md"
    text = section.read_text(encoding="utf-8") + "\nSome words.\n\n" + expression + "\n"
    section.write_text(text, encoding="utf-8")
    lines = refused(run_build, project)
    assert len(lines) == 1 + len(hint(lines)) and "unexpected" not in lines[0], lines
    assert lines[0].startswith(f"content/14-colophon.md: line {text.count(chr(10))}: {render.TOO_DEEP[:40]}"), lines


@pytest.mark.parametrize("expression, found", [
    ("{{ lipsum }}", "found 'lipsum' is undefined; expected one of the names the page defines"),
    ("{{ k.bit_length }}", "found the Python function or method bit_length, which prints as Python's own description"),
    ("{% macro m() %}x{% endmacro %}{{ m }}", "found the Python function or method m, which prints as Python's own"),
], ids=["one of Jinja's own globals", "a method of a value", "a macro"])
def test_prose_prints_the_datas_values_and_never_pythons_own_objects(project, run_build, expression, found):
    """A fuzzing audit's find: these printed "<function generate_lorem_ipsum at 0x…>", "<built-in method bit_length of
    int object at 0x…>" and "<Macro 'm'>" on the page, though the docs say prose reads no Python internals."""
    section = project / "content" / "14-colophon.md"
    text = section.read_text(encoding="utf-8") + f"\n{expression} words.\n"
    section.write_text(text, encoding="utf-8")
    lines = refused(run_build, project)
    assert lines[0].startswith(f"content/14-colophon.md: line {text.count(chr(10))}: {found}"), lines

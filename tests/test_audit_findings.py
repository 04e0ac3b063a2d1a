"""Findings of an audit of the build's refusals, each through the real build (or the loader): every bad input gets
a clear error naming its own file and place, and good input is never refused by a check that misreads it."""

from __future__ import annotations

from pathlib import Path

import pytest

from speculative.limits import MAX_ROUNDS

from .conftest import edited_data, unlined
from .test_publish import ARGS, hint, project, refused  # noqa: F401  (project: the published-site fixture)

pytestmark = pytest.mark.data_independent


@pytest.fixture
def copied(request, built_site) -> Path:
    """Returns test_publish's project: a copy of the inputs with a built site/ (built_site's), made the current
    folder."""
    return request.getfixturevalue("project")


def add_to_section(folder: Path, name: str, text: str) -> int:
    """Appends text to a content file on a line of its own; returns that line's number."""
    path = folder / "content" / name
    before = path.read_text(encoding="utf-8")
    path.write_text(before + "\n" + text + "\n", encoding="utf-8")
    return before.count("\n") + 2


# --- (h) raw HTML attribute values are text, not markup -------------------------------------------------------

@pytest.mark.parametrize("markup", ["<span data-x='<script>'>x</span>", "<span title=\"<a href='#nowhere'>\">x</span>",
                                    "<abbr title='<b id=\"trace\">'>KN</abbr>"])
def test_markup_inside_an_allowed_attribute_value_is_not_read_as_tags(markup, copied, run_build):
    add_to_section(copied, "01-what.md", f"A note: {markup} here.")
    code, out, err = run_build(*ARGS)
    assert (code, err) == (0, ""), err
    assert "A note: <" in (copied / "site" / "index.html").read_text(encoding="utf-8")


def test_links_and_ids_after_such_an_attribute_are_still_checked(copied, run_build):
    line = add_to_section(copied, "01-what.md", "<span data-x='<script>'>x</span> [a link](#nowhere-at-all)")
    assert refused(run_build, copied) == [
        f'content/01-what.md: line {line}: found a link to #nowhere-at-all, but no element on the page has '
        'id="nowhere-at-all"; expected a section or figure with that id (was its section removed or renamed?)',
        *hint([""])]


# --- (i) an include in a section is the section's problem, at its line ----------------------------------------

INCLUDE = ("found an include, import or extends; expected a figure placed by its name on a line of its own, such as "
           "{{ lab }}")


def test_an_include_of_the_page_template_in_a_section_names_the_section_and_its_line(copied, run_build):
    """A section includes no template (the page's own, which would place the page inside itself, or any other)."""
    line = add_to_section(copied, "01-what.md", "{% include 'page.html.j2' %}")
    assert refused(run_build, copied) == [f"content/01-what.md: line {line}: {INCLUDE}", *hint([""])]


def test_an_include_of_a_template_that_fails_names_the_section_and_its_line(copied, run_build):
    (copied / "templates" / "note.html.j2").write_text("<p>a note</p>\n{{ 1 // 0 }}\n", encoding="utf-8")
    line = add_to_section(copied, "04-rule.md", "{% include 'note.html.j2' %}")
    assert refused(run_build, copied) == [f"content/04-rule.md: line {line}: {INCLUDE}", *hint([""])]


# --- (j) every problem of language_model is listed at once, with the rest of the file's -------------------------

LM_CASES = [
    ({"k": 0, "discount": "2", "temperatures": "warm"},  # in the file's order
     ["language_model.k: found 0; expected a whole number from 1 to 8",
      'language_model.discount: found "2"; expected a discount strictly between 0 and 1, such as "3/4"',
      'language_model.temperatures: found "warm"; expected a list of 1 to 6 temperatures']),
    ({"target_order": 9, "k": 9, "temperatures": ["1", "9"], "default_draft": 7, "default_temperature": "5"},
     ["language_model.target_order: found 9; expected a whole number from 2 to 4",
      "language_model.k: found 9; expected a whole number from 1 to 8",
      'language_model.temperatures[1]: found "9"; expected a temperature from 0 to 4',
      "language_model.default_draft: found 7; expected a whole number from 1 to 4",
      'language_model.default_temperature: found "5"; expected a temperature from 0 to 4']),
    ({"seed": -1, "default_draft": 4, "default_temperature": "3/4"},
     ["language_model.seed: found -1; expected a whole number from 0 to 4294967295",
      "language_model.default_draft: found 4; expected one of the draft orders (1, 2, 3; 3 is the target itself)",
      'language_model.default_temperature: found "3/4"; expected one of the temperatures offered (0, 1/2, 1, 3/2)']),
]


@pytest.mark.parametrize("settings, expected", LM_CASES)
def test_every_problem_of_the_language_model_is_listed_with_the_rest_of_the_file(settings, expected, copied, run_build):
    def edit(raw: dict) -> None:
        raw["language_model"] = settings
        raw["walkthrough_seed"] = "seven"
        raw["monte_carlo"]["rounds"] = 0
    edited_data(copied / "data", edit, "profiles.v1.json")
    lines = [f"data/profiles.v1.json: {line}" for line in
             ['walkthrough_seed: found "seven"; expected a whole number from 0 to 4294967295',
              f"monte_carlo.rounds: found 0; expected a whole number from 1 to {MAX_ROUNDS}", *expected]]
    assert unlined(refused(run_build, copied)) == lines + hint(lines)


# --- (k) a file name with a line break or a control character stays on its problem's line ---------------------

@pytest.mark.parametrize("name, shown", [("05-a\nb.md", "05-a<U+000A>b.md"), ("05-a\rb\tc.md", "05-a<U+000D>b<U+0009>c.md"),
                                         ("05-\u202eb.md", "05-<U+202E>b.md")])
def test_a_content_file_name_with_control_characters_is_shown_escaped_on_one_line(name, shown, copied, run_build):
    what = (copied / "content" / "01-what.md").read_text(encoding="utf-8")
    (copied / "content" / name).write_text(what, encoding="utf-8")
    (copied / "content" / f"{name}.markdown").write_text(what, encoding="utf-8")
    id_line = what.split("\n").index("id: what") + 1
    assert refused(run_build, copied) == [
        f"content/{shown}.markdown: found a section file whose name does not end in .md; expected the suffix .md in "
        f"lower case, such as {shown.split('.')[0]}.md",
        f'content/{shown}: line {id_line}: id: found "what", which content/01-what.md uses too; expected an id of its own',
        *hint(["", ""])]


# --- (g) an output path longer than the system allows is an output-folder problem, in one short line ----------

LONG_NAME, LONG_PATH = "a" * 300, "/".join(["b" * 200] * 30)


@pytest.mark.parametrize("out, found", [(LONG_NAME, "a name of 300 bytes"), (LONG_PATH, "a path of ")])
def test_an_output_path_longer_than_the_system_allows_is_refused_in_one_short_line(out, found, copied, run_build):
    lines = refused(run_build, copied, "--out", out)
    assert lines[0].startswith(f"{out[:40]}…{out[-40:]}: found {found}"), lines[0]
    assert ", longer than the system allows; expected a folder for the built page with names of at most " in lines[0]
    assert lines[0].endswith(" bytes (choose a shorter --out)") and len(lines[0]) < 300
    assert "unexpectedly" not in "".join(lines) and len(lines) == 3


def test_the_hint_after_a_long_output_path_is_short_too(copied, run_build):
    assert all(len(line) < 300 for line in refused(run_build, copied, "--out", LONG_NAME))


# --- (l) a folder is named with one slash, the root too ----------------------------------------------------

def test_folders_are_shown_with_one_slash():
    from speculative.errors import as_folder, short

    assert (as_folder("/"), as_folder("site"), as_folder("out/")) == ("/", "site/", "out/")
    assert short("x" * 81) == "x" * 81 and short("a" * 50 + "b" * 50) == "a" * 40 + "…" + "b" * 40


def test_the_root_as_output_folder_is_named_with_one_slash(copied, run_build):
    lines = refused(run_build, copied, "--out", "/")
    assert lines[0].startswith("/: found the folder that holds ")
    assert not any("//" in line for line in lines), lines


# --- (f) a loop of links at the data file is named, with the loop --------------------------------------------

def test_a_loop_of_two_links_at_the_data_file_is_named_with_the_loop(copied, run_build):
    data = copied / "data" / "profiles.v1.json"
    data.unlink()
    data.symlink_to("other.json")
    (copied / "data" / "other.json").symlink_to("profiles.v1.json")
    assert refused(run_build, copied) == [
        "data/profiles.v1.json: found a loop of symbolic links (profiles.v1.json -> other.json -> profiles.v1.json); "
        "expected the path of a readable file (point one of the links at a file)", *hint([""])]


def test_a_loop_at_the_clones_own_data_file_is_named_not_taken_for_a_missing_clone(copied, run_build, monkeypatch):
    from speculative import checkout

    monkeypatch.setattr(checkout, "ROOT", copied)
    data = copied / "data" / "profiles.v1.json"
    data.unlink()
    data.symlink_to("profiles.v1.json")
    code, out, err = run_build()
    assert (code, err.splitlines()[0]) == (1, "data/profiles.v1.json: found a loop of symbolic links (profiles.v1.json "
                                              "-> profiles.v1.json); expected the path of a readable file (point one "
                                              "of the links at a file)")

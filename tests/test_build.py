"""build.py: both files, deterministic, atomic, escaped, locked down by CSP, and every number follows the data."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from fractions import Fraction
from html import unescape

import pytest

from speculative.analysis import explain
from speculative.profiles import load
from speculative.text import decimal_str

from .conftest import FIGURES, FIXTURE, ROOT, edited_data, is_shipped, unlined


def build_process(*args: str) -> subprocess.CompletedProcess:
    """Runs build.py as its own process: for exit codes, stderr and byte-identical rebuilds."""
    return subprocess.run([sys.executable, str(ROOT / "build.py"), *args], cwd=ROOT, capture_output=True, text=True)


def embedded_trace(html: str) -> dict:
    match = re.search(r'<script type="application/json" id="trace">(.*?)</script>', html, re.S)
    return json.loads(match.group(1))


@pytest.fixture(scope="session")
def html(built_site) -> str:
    return (built_site / "index.html").read_text(encoding="utf-8")


def test_build_writes_the_page_and_the_trace(tmp_path, run_build):
    code, out, err = run_build("--out", str(tmp_path / "site"))
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "site").iterdir()) == [".speculative-site", "index.html", "trace.json"]
    assert re.fullmatch(r"built .*site/index\.html \(\d+\.\d KB, \d+\.\d KB gzipped\) and trace\.json in \d+\.\d\d s\n", out)


def test_help_names_the_options():
    out = build_process("--help")
    assert out.returncode == 0
    for option in ("--data", "--out", "--watch", "--serve"):
        assert option in out.stdout


def test_trace_is_embedded_and_published_identically(built_site, html, dataset):
    published = json.loads((built_site / "trace.json").read_text(encoding="utf-8"))
    assert embedded_trace(html) == published
    if is_shipped(dataset):  # the hand-worked frame counts (docs/figures.md)
        assert [len(p["walk"]["frames"]) for p in published["profiles"]] == [FIGURES[p["id"]]["frames"] for p in published["profiles"]]


def test_every_trace_statistic_equals_the_exact_value(built_site, dataset):
    published = json.loads((built_site / "trace.json").read_text(encoding="utf-8"))
    ex = explain(dataset)
    for tp, r in zip(published["profiles"], ex.results, strict=True):
        s, st = tp["stats"], r.stats
        assert [Fraction(a) for a in s["accept_probabilities"]] == list(st.alphas)
        assert Fraction(s["expected_tokens_exact"]) == st.expected
        assert s["expected_tokens_per_round"] == float(st.expected)
        assert s["speedup"] == float(st.speedup)
        assert [Fraction(x) for x in s["tokens_per_round_distribution"]] == list(st.distribution)
        assert len(tp["walk"]["frames"]) == len(r.frames)
        assert tp["convergence"]["rounds"] == dataset.monte_carlo.rounds == tp["convergence"]["checkpoints"][-1]
        for pos, p, q in zip(tp["positions"], dataset.target, r.profile.draft, strict=True):
            assert [Fraction(x) for x in pos["target"]] == list(p)
            assert [Fraction(x) for x in pos["draft"]] == list(q)


def test_two_builds_are_byte_identical(tmp_path):
    for name in ("a", "b"):
        assert build_process("--out", str(tmp_path / name)).returncode == 0
    for file in ("index.html", "trace.json"):
        assert (tmp_path / "a" / file).read_bytes() == (tmp_path / "b" / file).read_bytes()


def test_bad_data_lists_every_problem_and_leaves_the_old_site(tmp_path):
    out_dir = tmp_path / "site"
    assert build_process("--out", str(out_dir)).returncode == 0
    before = {p.name: p.read_bytes() for p in out_dir.iterdir()}

    def edit(raw):
        raw["target"][0][0] = "5/8"
        raw["profiles"][1]["proposals"][0] = "dog"
    bad = edited_data(tmp_path, edit, "bad.json")
    out = build_process("--data", str(bad), "--out", str(out_dir))
    assert out.returncode == 1
    assert "Traceback" not in out.stderr
    assert unlined(out.stderr.splitlines()) == [
        f"{bad}: target[0] (the target, position 1): sums to 9/8; each distribution must sum to 1",
        f'{bad}: profiles[1].proposals[0] (a divergent draft, position 1): found "dog"; expected a token from the vocabulary',
        "",
        f"Fix the problems above and build again; {out_dir}/ was left as it was.",
    ]
    assert {p.name: p.read_bytes() for p in out_dir.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json", "site"]  # no temporary folder left behind


def test_missing_data_file_is_a_clear_error(tmp_path, run_build):
    code, out, err = run_build("--data", str(tmp_path / "nope.json"), "--out", str(tmp_path / "site"))
    assert code == 1
    assert err.startswith(f"{tmp_path / 'nope.json'}: found no such file; expected the path of an existing file\n")
    assert not (tmp_path / "site").exists()


def test_data_content_and_template_problems_are_listed_together(tmp_path, run_build):
    content, templates = tmp_path / "content", tmp_path / "templates"
    shutil.copytree(ROOT / "content", content)
    shutil.copytree(ROOT / "templates", templates)
    (content / "98-bad.md").write_text("no front matter")
    (content / "99-latin1.md").write_bytes("---\ntitle: caf\xe9\n".encode("latin-1"))
    bad = edited_data(tmp_path, lambda raw: raw["target"][0].__setitem__(0, "5/8"))
    code, _, err = run_build("--data", str(bad), "--content", str(content), "--templates", str(templates),
                             "--out", str(tmp_path / "site"))
    assert code == 1
    first = err.splitlines()[:3]
    assert [first[0], *unlined(first[1:2]), first[2]] == [
        f"{content / '99-latin1.md'}: line 2, column 11 (byte offset 14): found the byte 0xE9, which is not valid "
        "UTF-8 here; expected UTF-8 text (save the file as UTF-8)",
        f"{bad}: target[0] (the target, position 1): sums to 9/8; each distribution must sum to 1",
        f"{content / '98-bad.md'}: line 1: found no front matter; expected the file to start with ---, then title, "
        "order and id, one per line, then ---",
    ]


def test_a_missing_template_is_named(tmp_path, run_build):
    templates = tmp_path / "templates"
    shutil.copytree(ROOT / "templates", templates)
    (templates / "js" / "walkthrough.js").unlink()
    code, _, err = run_build("--templates", str(templates), "--out", str(tmp_path / "site"))
    assert code == 1
    assert err.startswith(f"{templates / 'js' / 'walkthrough.js'}: found no such file; expected the template file "
                          "js/walkthrough.js, which the page needs\n")


def test_an_edited_data_file_changes_every_dependent_number(tmp_path, run_build):
    path = edited_data(tmp_path, lambda raw: raw["profiles"][0]["draft"].__setitem__(0, list(raw["target"][0])))
    assert run_build("--data", str(path), "--out", str(tmp_path / "site"))[0] == 0
    new_html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    old, new = explain(load(str(FIXTURE))).results[0].stats, explain(load(str(path))).results[0].stats
    assert new.expected != old.expected
    # the generator's figure is left out: its n-gram run's own figures ("2.62× plain decoding's tokens") do not
    # come from the profiles, and may match an old one by chance
    html = re.sub(r'<figure class="fig generator".*?</figure>', "", new_html.split('<script type="application/json"')[0], flags=re.S)
    assert "This run:" not in html
    text = re.sub(r"<[^>]+>", " ", html)
    for figure in (decimal_str(new.expected), str(new.expected), decimal_str(new.speedup) + "×"):
        assert figure in text
    for figure in (str(old.expected), decimal_str(old.speedup) + "×", decimal_str(old.expected) + " tokens"):
        assert figure not in text
    assert embedded_trace(new_html)["profiles"][0]["stats"]["expected_tokens_exact"] == str(new.expected)


def shipped_figures(dataset) -> set[str]:
    """Returns every computed figure of the shipped data as it could appear in prose."""
    figures = set()
    for r in explain(dataset).results:
        s = r.stats
        figures |= {decimal_str(s.expected), str(s.expected), decimal_str(s.speedup), str(s.round_cost)}
        figures |= {str(p) for p in s.distribution if p.denominator > 8}
        figures |= {decimal_str(x * 100, 1) + "%" for x in s.distribution}
    return figures


@pytest.mark.shipped  # another file's figures ("2", say) may well be a number the prose states for its own reasons
def test_no_computed_figure_is_typed_into_content_or_templates(dataset):
    figures = shipped_figures(dataset)
    for path in [*(ROOT / "content").glob("*.md"), *(ROOT / "templates").glob("*.j2")]:
        text = path.read_text(encoding="utf-8")
        for figure in figures:
            assert not re.search(rf"(?<![\w./]){re.escape(figure)}(?![\w/]|\.\d)", text), f"{path.name} types {figure}"


@pytest.mark.shipped
def test_figure_check_would_catch_a_typed_number(dataset):
    figures = shipped_figures(dataset)
    typed = "The aligned draft commits 3.92 tokens per round."
    assert any(re.search(rf"(?<![\w./]){re.escape(f)}(?![\w/]|\.\d)", typed) for f in figures)


def csp_sources(html: str, directive: str) -> set[str]:
    policy = unescape(re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', html).group(1))
    part = next(p.strip() for p in policy.split(";") if p.strip().startswith(directive + " "))
    return set(part.split()[1:])


def sha(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def test_csp_hashes_match_the_inline_blocks(html):
    scripts = re.findall(r"<script>(.*?)</script>", html, re.S)
    styles = re.findall(r"<style>(.*?)</style>", html, re.S)
    assert len(scripts) == 1 and len(styles) == 1
    assert csp_sources(html, "script-src") == {sha(scripts[0])}
    assert csp_sources(html, "style-src") == {sha(styles[0])}
    assert "'none'" in csp_sources(html, "default-src")
    markup = re.sub(r"<(script|style)\b[^>]*>.*?</\1>", "", html, flags=re.S)  # the script's `var one=` is no attribute
    assert not re.search(r"\sstyle=", markup), "inline style attributes would be blocked by the CSP"
    assert not re.search(r"\son[a-z]+=", markup), "inline event handlers would be blocked by the CSP"


def test_page_loads_nothing_from_anywhere(html):
    assert not re.search(r'src="(https?:)?//', html)
    assert not re.search(r'<link[^>]+href="(https?:)?//', html)  # a stylesheet, icon or preload would be fetched
    outbound = set(re.findall(r'<a href="(https://[^/"]+)/', html))  # links a reader may follow; nothing loads them
    assert outbound <= {"https://arxiv.org", "https://github.com"}
    assert not re.search(r"@import|url\(\s*['\"]?https?:", html)
    assert not re.search(r'(src|href)="/', html), "absolute paths break under a project subpath"


HOSTILE = "</script><b>"


def relabel(index: int, label: str) -> Callable[[dict], None]:
    """Returns an edit that renames vocabulary[index] to `label`, in the proposals too."""
    def edit(raw: dict) -> None:
        old = raw["vocabulary"][index]
        raw["vocabulary"][index] = label
        for profile in raw["profiles"]:
            profile["proposals"] = [label if t == old else t for t in profile["proposals"]]
    return edit


def test_hostile_token_label_is_shown_as_inert_text(tmp_path, run_build):
    path = edited_data(tmp_path, relabel(5, HOSTILE))
    assert run_build("--data", str(path), "--out", str(tmp_path / "site"))[0] == 0
    html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert HOSTILE not in html and "\u2028" not in html
    assert html.count("</script>") == 2  # only the trace and the player close a script element
    assert "&lt;/script&gt;&lt;b&gt;" in html
    assert embedded_trace(html)["vocabulary"][5] == HOSTILE


def test_script_json_escapes_everything_that_could_end_the_element():
    from speculative.render import script_json

    text = script_json({"a": "</script>&\u2028\u2029<!--"})
    assert not set("<>&\u2028\u2029") & set(text)
    assert json.loads(text) == {"a": "</script>&\u2028\u2029<!--"}


def test_markdown_in_a_token_label_stays_text(tmp_path, run_build):
    path = edited_data(tmp_path, relabel(4, "[x](e.c)*zq*"))
    assert run_build("--data", str(path), "--out", str(tmp_path / "site"))[0] == 0
    html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert 'href="e.c"' not in html and "<em>zq</em>" not in html
    assert "“[x](e.c)*zq*”" in html


@pytest.mark.parametrize("rounds", [1, 2, 10])
def test_the_smallest_monte_carlo_runs_build(rounds, tmp_path, run_build):
    data = edited_data(tmp_path, lambda raw: raw["monte_carlo"].update(rounds=rounds))
    code, _, err = run_build("--data", str(data), "--out", str(tmp_path / "site"))
    assert (code, err) == (0, "")
    trace = json.loads((tmp_path / "site" / "trace.json").read_text(encoding="utf-8"))
    assert [p["convergence"]["checkpoints"] for p in trace["profiles"]] == [[rounds]] * len(trace["profiles"])


def test_no_markdown_marks_reach_the_page_as_text(html):
    """Markdown inside a raw HTML block is not parsed: "**Your own position**" once reached the reader as asterisks."""
    prose = re.sub(r"<script\b.*?</script>|<style>.*?</style>", "", html, flags=re.S)
    assert not re.search(r"\*\*|(?<![\w\\])__\w", prose)

"""Every reader-facing sentence has one home: no run of six or more words is written in two source files.

Sources are the prose (content/*.md), the templates and the page script (templates/), and the string literals
of the package's Python. A run repeated in two files drifts when one is edited, so each must live in one place
(speculative/text.py for patterns, a template for fixed wording) and be filled from there."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUN = 6  # words
WORD = re.compile(r"[a-z][a-z0-9'’]*")

# Runs that may repeat, each with its reason. Keep this list short (under 10).
ALLOWED = {
    "decoding one token at a time": "the page's name for plain decoding, the baseline every speedup is against",
}


def python_strings(source: str) -> list[str]:
    """Returns the string literals of a Python source, docstrings and regular expressions left out."""
    tree = ast.parse(source)
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
            and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and id(n) not in docs and not re.search(r"\\[a-zA-Z]|\[[^\]]*-[^\]]*\]", n.value)]


def chunks(path: Path) -> list[str]:
    """Returns the reader-facing text of one source file, template code replaced by breaks."""
    source = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        return python_strings(source)
    if path.suffix == ".js":
        return [a or b for a, b in re.findall(r"'((?:[^'\\\n]|\\.)*)'|\"((?:[^\"\\\n]|\\.)*)\"", source)]
    source = re.sub(r"\{#.*?#\}|\{%.*?%\}|\{\{.*?\}\}", " | ", source, flags=re.S)
    source = re.sub(r"<script\b.*?</script>|<style\b.*?</style>", " | ", source, flags=re.S)
    return [re.sub(r"<[^>]+>", " ", source)]


def sources(root: Path) -> list[Path]:
    """Returns the files whose words reach the reader."""
    found = list(root.glob("content/**/*.md"))
    found += [p for p in root.glob("templates/**/*") if p.is_file() and p.suffix in (".j2", ".html", ".js")]
    found += list(root.glob("speculative/**/*.py")) + list(root.glob("build.py"))
    return sorted(found)


def repeated_runs(root: Path) -> dict[str, set[str]]:
    """Returns each run of RUN words found in more than one file, with the files."""
    where: dict[str, set[str]] = defaultdict(set)
    for path in sources(root):
        for chunk in chunks(path):
            for part in re.split(r"\s\|\s|\n\s*\n", chunk):
                words = WORD.findall(part.lower())
                for i in range(len(words) - RUN + 1):
                    where[" ".join(words[i:i + RUN])].add(str(path.relative_to(root)))
    return {run: files for run, files in where.items() if len(files) > 1}


def unexplained(repeats: dict[str, set[str]]) -> dict[str, set[str]]:
    """Returns the repeats that no allowed run covers."""
    return {run: files for run, files in repeats.items() if not any(run in ok or ok in run for ok in ALLOWED)}


def test_no_sentence_is_written_in_two_files():
    assert unexplained(repeated_runs(ROOT)) == {}


def test_the_allowed_list_stays_short():
    assert len(ALLOWED) < 10


def test_a_sentence_copied_into_a_second_file_is_found(tmp_path):
    (tmp_path / "content").mkdir()
    (tmp_path / "templates").mkdir()
    (tmp_path / "content" / "01-a.md").write_text("The draft proposes every token before any check.\n")
    (tmp_path / "templates" / "a.html.j2").write_text("<p>Here the draft proposes every token before {{ x }}.</p>\n")
    (tmp_path / "templates" / "a.js").write_text("var s = 'draft proposes every token before any';\n")
    found = repeated_runs(tmp_path)
    assert found == {"the draft proposes every token before": {"content/01-a.md", "templates/a.html.j2"},
                     "draft proposes every token before any": {"content/01-a.md", "templates/a.js"}}

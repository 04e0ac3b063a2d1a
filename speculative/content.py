"""Owns the prose's parsing: content/*.md files into Sections (YAML front matter, then Markdown)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping

import yaml


class ContentError(Exception):
    """Every problem found in content/ or templates/, each as a (file, message) pair."""

    def __init__(self, problems: list[tuple[str, str]]):
        self.problems = problems
        super().__init__("\n".join(self.lines()))

    def lines(self) -> list[str]:
        """Returns one printable line per problem: file, then message."""
        return [f"{source}: {message}" for source, message in self.problems]


@dataclass(frozen=True)
class Section:
    id: str
    title: str
    order: int
    body: str  # Markdown with Jinja expressions
    source: str


_FRONT = re.compile(r"\A---\n(.*?)\n---\n(.*)\Z", re.S)
_ID = re.compile(r"[A-Za-z][A-Za-z0-9_-]*\Z")


def _meta_problem(meta: object) -> str | None:
    """Returns what is wrong with a section's front matter, or None."""
    if not isinstance(meta, dict):
        return "front matter is not a mapping; expected title, order and id, one per line"
    missing = [key for key in ("title", "order", "id") if key not in meta]
    if missing:
        return f"front matter is missing {', '.join(missing)}"
    order = meta["order"]
    if isinstance(order, bool) or not isinstance(order, int):
        return f"front matter order is {order!r}; expected a whole number such as 3"
    if not _ID.match(str(meta["id"])):
        return f"front matter id is {str(meta['id'])!r}; expected letters, digits, _ and -, starting with a letter"
    return None


def parse_section(name: str, text: str) -> Section:
    """Returns the Section in one content file, or raises ContentError naming the file."""
    match = _FRONT.match(text.replace("\r\n", "\n"))
    if not match:
        raise ContentError([(name, "no front matter; expected the file to start with ---, then title, order and id, then ---")])
    try:
        meta = yaml.safe_load(match.group(1)) or {}
    except yaml.YAMLError as err:
        where = getattr(err, "problem_mark", None)
        line = f" at line {where.line + 2}" if where is not None else ""
        raise ContentError([(name, f"front matter is not valid YAML{line}; expected title, order and id, one per line")]) from None
    problem = _meta_problem(meta)
    if problem:
        raise ContentError([(name, problem)])
    return Section(id=str(meta["id"]), title=str(meta["title"]), order=meta["order"], body=match.group(2), source=name)


def parse_sections(texts: Mapping[str, str], folder: str) -> list[Section]:
    """Returns every section in page order, or raises ContentError listing every file's problem."""
    sections, problems = [], []
    for name, body in texts.items():
        try:
            sections.append(parse_section(name, body))
        except ContentError as err:
            problems += err.problems
    if not texts:
        problems.append((folder, "no *.md sections found; expected at least one"))
    ids = [s.id for s in sections]
    problems += [(s.source, f"id {s.id!r} is used by another section too; expected every id to be unique")
                 for s in sections if ids.count(s.id) > 1]
    if problems:
        raise ContentError(problems)
    return sorted(sections, key=lambda s: (s.order, s.source))

"""Builds the page's files in memory: read every input through one reader, parse, analyse (cached), view and
render. Nothing is written here but the caches, .cache/analysis/ and .cache/language/, which only ever save work;
publish.py writes the output folder.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
from pathlib import Path

from . import cache, checkout, figures, prose
from .checkout import shown
from .errors import Problems, decode
from .profiles import parse
from .publish import TEMP_SUFFIX
from .reading import read_bytes, unreadable
from .sections import parse_sections

# --- reading: every input file through one reader, with one message shape ----------------------------------

def read_text(path: Path) -> str:
    """Returns a file's UTF-8 text (a byte-order mark is dropped), or raises Problems with one line: the file,
    what was found and what was expected (a problem of the whole file has no JSON path or line to name)."""
    try:
        raw = read_bytes(path)
    except ValueError as err:
        raise Problems([f"{shown(path)}: {err}"]) from None
    return decode(raw, shown(path))


def read_all(paths: list[Path], data: Path) -> tuple[dict[str, str], list[str]]:
    """Returns the texts that could be read, keyed by shown name, and a line for each that could not."""
    texts, lines = {}, []
    for path in paths:
        try:
            texts[shown(path)] = read_text(path)
        except Problems as err:
            lines += err.lines
    return texts, lines


def listed(folder: Path, suffix: str = "") -> list[Path]:
    """Returns the folder's entries that end with suffix, sorted, skipping hidden names (editors' lock and swap
    files) and subfolders, unless a subfolder is named as an input would be (x.md, x.j2): an entry that is not a
    regular file is kept, so the reader can refuse it."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    return sorted(folder / e.name for e in entries if e.name.endswith(suffix) and not e.name.startswith(".")
                  and (e.name.endswith(INPUT_SUFFIXES) or not is_folder(e)))


def is_folder(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError:  # a loop of links: not a folder, so the reader names it
        return False


def reserved_ids(sections: list) -> frozenset[str]:
    """Returns the ids the page uses: the figures', the sections' and those written into the sections' HTML."""
    return figures.page_ids() | frozenset(id_owners(sections))


def id_owners(sections: list) -> dict[str, str]:
    """Returns each id a section gives an element (its own, or one written into its HTML) -> that section's file."""
    written = {m: s.source for s in sections for m in re.findall(r'\bid="([^"{}]+)"', s.body)}
    return {**written, **{s.id: s.source for s in sections}}


TEMPLATE_SUFFIXES = (".j2", ".css", ".js")  # the files in templates/ that are read; an image there is ignored
INPUT_SUFFIXES = (".md", *TEMPLATE_SUFFIXES)
NEAR_MD = (".markdown", ".mdown", ".mkd", ".mkdn", ".md.txt")  # a section under a name the build would not read


def unreadable_line(folder: Path, why: str, what: str) -> str:
    return (f"{shown(folder)}: found a folder that could not be read ({why}); expected a folder the build may read, "
            f"{what} (make it readable: chmod u+rx {shown(folder)})")


def layout_problems(content: Path, templates: Path, names: set[str]) -> list[str]:
    """Returns a line for each file the page needs that templates/ lacks (or holds as a folder), for each file
    in content/ that looks like a section but would not be read as one, and for a folder that cannot be read."""
    lines = []
    if not content.is_dir():
        lines.append(f"{shown(content)}: found {'a file' if content.exists() else 'no such folder'}; expected the "
                     "folder of the page's prose sections (*.md)")
    elif why := unreadable(content):
        lines.append(unreadable_line(content, why, "the page's prose sections (*.md)"))
    if not templates.is_dir():
        lines.append(f"{shown(templates)}: found {'a file' if templates.exists() else 'no such folder'}; expected the "
                     "folder of the page's templates")
    elif why := unreadable(templates):
        lines.append(unreadable_line(templates, why, "the page's templates"))
    else:
        blocked = unreadable(templates / "js")
        if blocked:
            lines.append(unreadable_line(templates / "js", blocked, "the page's scripts"))
        for name in figures.needed_templates():
            if name not in names and not (blocked and name.startswith("js/")):
                found = "a folder" if (templates / name).is_dir() else "no such file"
                lines.append(f"{shown(templates / name)}: found {found}; expected the template file {name}, "
                             "which the page needs")
    for path in listed(content):
        lower = path.name.lower()
        if not path.name.endswith(".md") and (lower.endswith(".md") or lower.endswith(NEAR_MD)):
            lines.append(f"{shown(path)}: found a section file whose name does not end in .md; expected the "
                         f"suffix .md in lower case, such as {path.name[:path.name.index('.')] or 'section'}.md")
    return lines


def parse_inputs(data: Path, content: Path, templates: Path):
    """Returns (dataset, sections, template texts), or raises Problems listing every input problem at once."""
    files = [p for p in listed(templates) + listed(templates / "js") if p.name.endswith(TEMPLATE_SUFFIXES)]
    texts, lines = read_all([data, *listed(content, ".md"), *files], data)
    lines += layout_problems(content, templates, {p.relative_to(templates).as_posix() for p in files})
    dataset = sections = None
    content_lines: list[str] = []  # listed after the data's problems
    try:
        if content.is_dir() and not unreadable(content):  # else layout_problems has said so
            sections = parse_sections({n: t for n, t in texts.items() if n.endswith(".md") and n != shown(data)},
                                      shown(content))
    except Problems as err:
        content_lines = err.lines
    if shown(data) in texts:
        try:
            dataset = parse(texts[shown(data)], shown(data), reserved_ids(sections or []), id_owners(sections or []))
        except Problems as err:
            lines += err.lines
    lines += content_lines
    if lines:
        raise Problems(lines)
    return dataset, sections, {p.relative_to(templates).as_posix(): texts[shown(p)] for p in files}


def build_files(data: Path, content: Path, templates: Path) -> dict[str, bytes]:
    """Returns every output file's bytes: read, parse, analyse, view, render; nothing is written here but the
    analysis cache, which only ever saves work."""
    dataset, sections, template_texts = parse_inputs(data, content, templates)
    corpus = prose.corpus(s.body for s in sections)
    problem = prose.corpus_problem(corpus)
    if problem:
        raise Problems([f"{shown(content)}: {problem}"])
    key = cache.key(dataset, corpus)
    trace_text, ctx = cached(key) or computed_view(dataset, key, corpus)
    from .render import render_page, script_json  # Jinja2 and markdown-it, imported once the inputs parse
    html = render_page(sections, template_texts, ctx, script_json(trace_text), shown(templates))
    return {"index.html": html.encode("utf-8"), "trace.json": (trace_text + "\n").encode("utf-8")}


def explain(dataset, corpus: tuple[str, ...], rates=None):
    """Returns the analysis of the dataset and the prose's tokens; numpy and the sampler are imported only when it runs."""
    from .analysis import explain as analyse
    return analyse(dataset, corpus, rates)


ANALYSES = 8  # the analyses .cache/analysis/ keeps, the least recently used going first: undoing an edit is a hit


def cache_file(key: str, kind: str = "analysis") -> Path:
    """Returns where the cache keeps this key: .cache/analysis/<key>.json (a view), .cache/language/<key>.json (the
    model pair's rates)."""
    return checkout.CACHE / kind / f"{key}.json"


def cached(key: str, kind: str = "analysis") -> tuple[str, dict] | None:
    """Returns the (text, context) the cache holds for this key, or None if it holds anything else."""
    try:
        found = cache.unpack(read_bytes(cache_file(key, kind), limit=64 << 20), key)
    except (ValueError, OSError):  # missing, not a regular file, or too big
        return None
    with contextlib.suppress(OSError):
        os.utime(cache_file(key, kind))  # recently used: kept longest
    return found


def cached_rates(key: str):
    """Returns the model pair's rates .cache/language/ holds for this key (language.rates_of), or None."""
    found = cached(key, "language")
    if found is None or set(found[1]) != {"rates"}:
        return None
    alphas, passes, spreads = found[1]["rates"]
    return (tuple(tuple(a) for a in alphas), tuple(tuple(tuple(p) for p in row) for row in passes),
            tuple(tuple(None if s is None else tuple(s) for s in row) for row in spreads))


def keep(key: str, kind: str, text: str, context: dict) -> None:
    """Saves (text, context) under key, when the folder allows, and drops all but the ANALYSES most recently used."""
    with contextlib.suppress(OSError, TypeError, ValueError):  # a read-only checkout, or a value JSON cannot hold: build uncached
        save_cache(cache_file(key, kind), cache.pack(key, text, context))
        kept = sorted(cache_file(key, kind).parent.glob("*.json"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
        for old in kept[ANALYSES:]:
            old.unlink()


def computed_view(dataset, key: str, corpus: tuple[str, ...]) -> tuple[str, dict]:
    """Returns the (trace JSON, context) of a fresh analysis, saved to .cache/analysis/ when the folder allows. The
    model pair's rates, which depend on the prose and the language_model settings alone, are kept apart, in
    .cache/language/: an edit to the profiles does not count them again."""
    from . import view
    rates_key = cache.key(dataset.language_model, corpus)
    rates = cached_rates(rates_key)
    explained = explain(dataset, corpus, rates)
    if rates is None and explained.language is not None:
        run = explained.language
        rates_json = json.loads(json.dumps([run.alphas, run.passes, run.spreads]))  # lists, as JSON reads them back
        keep(rates_key, "language", "", {"rates": rates_json})
    figs = view.figures(explained)
    found = (cache.compact_json(view.trace(explained, figs)), view.context(explained, figs))
    keep(key, "analysis", *found)
    return found


def save_cache(path: Path, blob: bytes) -> None:
    """Writes blob beside path, then renames it over path (atomic on POSIX); no temporary file outlives a stop."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}{TEMP_SUFFIX}")
    try:
        temp.write_bytes(blob)
        os.rename(temp, path)  # not the publishing swap: a stop here leaves the previous cache, which is checked anyway
    finally:
        temp.unlink(missing_ok=True)



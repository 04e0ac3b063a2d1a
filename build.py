#!/usr/bin/env python3
"""Build site/ (one self-contained index.html and trace.json) from data/, content/ and templates/.

The only module that touches argv, the clock, signals and the disk: everything it calls is a pure function.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gzip
import hashlib
import os
import re
import secrets
import signal
import stat
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

try:
    import importlib.util

    for _module in ("jinja2", "markdown_it", "rcssmin"):  # imported once the analysis has started (build_files)
        if importlib.util.find_spec(_module) is None:
            raise ModuleNotFoundError(f"No module named {_module!r}", name=_module)
    from speculative import cache, figures, prose
    from speculative.errors import InputError, decode
    from speculative.profiles import parse
    from speculative.reading import kind, open_problem, read_bytes
    from speculative.sections import PAGE_FILES, ContentError, parse_sections
except ModuleNotFoundError as missing:  # run outside .venv: name the command that sets it up
    if (missing.name or "").startswith("speculative"):
        raise
    from speculative.errors import SETUP  # the standard library only, so it imports without the dependencies

    sys.exit(f"build.py: found no module named {missing.name!r}; " + SETUP.format(then="`.venv/bin/python build.py`"))

if TYPE_CHECKING:
    import jinja2

CACHE = ROOT / ".cache"  # the Jinja cache, the build lock and the last unexpected error's details
FIX_HINT = "Fix the problem{s} above and build again; {out}/ was left as it was."
WATCH_HINT = "Fix the problem{s} above and save again; {out}/ was left as it was."  # --watch rebuilds on the save
OUTPUTS = PAGE_FILES  # what a build writes into the output folder
SANDBOX_CODE = "bounded2"  # change it when page_checks.Sandbox compiles templates differently
TEMP_SUFFIX = ".tmp"  # an output being written is ".<name>.<pid>.<random>.tmp" in the output folder
MANIFEST = ".speculative-manifest.json"  # in the output folder: the files this build wrote there, and only those
WRITTEN_BY = "speculative build.py"
# What an earlier build's files hold near their start, so a folder from before manifests still rebuilds.
SIGNATURES = {"index.html": b'<script type="application/json" id="trace">{"format":"speculative-decoding-trace/',
              "trace.json": b'{"format":"speculative-decoding-trace/'}
SIGNATURE_SPAN = 1_000_000
INTERRUPTED, TERMINATED = 130, 143  # the shell's codes for SIGINT and SIGTERM


class Problems(Exception):
    """Every input problem found before the build gave up, as printable lines."""

    def __init__(self, lines: list[str]):
        self.lines = lines
        super().__init__("\n".join(lines))


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled as Ctrl-C is: clean up, then exit with 143."""


def shown(path: Path) -> str:
    """Returns the path as the user would type it: relative to the working folder when inside it."""
    try:
        return str(path.absolute().relative_to(Path.cwd().absolute()))
    except (ValueError, OSError):
        return str(path)


# --- reading: every input file through one reader, with one message shape ------------------------------------

def read_text(path: Path) -> str:
    """Returns a file's UTF-8 text (a byte-order mark is dropped), or raises Problems with one line: the file,
    what was found and what was expected (a problem of the whole file has no JSON path or line to name)."""
    try:
        raw = read_bytes(path)
    except ValueError as err:
        raise Problems([f"{shown(path)}: {err}"]) from None
    try:
        return decode(raw, shown(path))
    except InputError as err:
        raise Problems(err.lines()) from None


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


def layout_problems(content: Path, templates: Path, names: set[str]) -> list[str]:
    """Returns a line for each file the page needs that templates/ lacks (or holds as a folder), and for each file
    in content/ that looks like a section but would not be read as one."""
    lines = []
    if not content.is_dir():
        lines.append(f"{shown(content)}: found {'a file' if content.exists() else 'no such folder'}; expected the "
                     "folder of the page's prose sections (*.md)")
    if not templates.is_dir():
        lines.append(f"{shown(templates)}: found {'a file' if templates.exists() else 'no such folder'}; expected the "
                     "folder of the page's templates")
    else:
        for name in figures.needed_templates():
            if name not in names:
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
        if content.is_dir():  # else layout_problems has said so
            sections = parse_sections({n: t for n, t in texts.items() if n.endswith(".md") and n != shown(data)},
                                      shown(content))
    except ContentError as err:
        content_lines = err.lines()
    if shown(data) in texts:
        try:
            dataset = parse(texts[shown(data)], shown(data), reserved_ids(sections or []), id_owners(sections or []))
        except InputError as err:
            lines += err.lines()
    lines += content_lines
    if lines:
        raise Problems(lines)
    return dataset, sections, {p.relative_to(templates).as_posix(): texts[shown(p)] for p in files}


@functools.lru_cache(maxsize=1)
def jinja_cache() -> jinja2.BytecodeCache | None:
    """Returns a store for compiled templates in .cache/jinja, or None when it cannot be made (builds work without)."""
    import jinja2
    folder = CACHE / "jinja"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    # the pattern names the sandbox's code generation (page_checks.Sandbox): templates compiled by an earlier one,
    # without its bounds on joined text, are never read back
    pattern = f"__jinja2_{SANDBOX_CODE}_%s.cache"
    return jinja2.FileSystemBytecodeCache(str(folder), pattern) if os.access(folder, os.W_OK) else None


class ScriptFile:
    """The last minified page script in .cache/script.js, its source's digest on the first line (render's store)."""

    @property
    def path(self) -> Path:
        return CACHE / "script.js"  # read when used, so a build pointed at another .cache/ uses that one's

    def get(self, key: str) -> str | None:
        """Returns the script minified from the source with digest `key`, from this .cache/ or else the checkout's
        own (the script depends on the templates' source alone, and both digests are checked), or None."""
        for path in dict.fromkeys((self.path, ROOT / ".cache" / "script.js")):
            try:
                head, _, text = read_bytes(path, limit=4 << 20).decode("utf-8").partition("\n")
            except (OSError, ValueError, InputError):
                continue
            if head == self.head(key, text):  # an edited or cut-off script is minified again
                return text
        return None

    def put(self, key: str, text: str) -> None:
        with contextlib.suppress(OSError):
            save_cache(self.path, f"{self.head(key, text)}\n{text}".encode("utf-8"))

    @staticmethod
    def head(key: str, text: str) -> str:
        """Returns the first line: the source's digest, then the minified text's own."""
        return f"{key} {hashlib.sha256(text.encode('utf-8')).hexdigest()}"


def build_files(data: Path, content: Path, templates: Path, ahead: bool = False) -> dict[str, bytes]:
    """Returns every output file's bytes: read, parse, analyse, view, render; nothing is written here but the
    analysis cache in .cache/, which only ever saves work. ahead: analyse in a forked child while this process
    compiles the templates (a one-shot build from the command line, not --watch, which keeps numpy imported between
    rebuilds; a test's monkeypatched sampler stays in its own process)."""
    dataset, sections, template_texts = parse_inputs(data, content, templates)
    corpus = prose.corpus(s.body for s in sections)
    problem = prose.corpus_problem(corpus)
    if problem:
        raise Problems([f"{shown(content)}: {problem}"])
    key = analysis_key(dataset, corpus)
    found = cached_view(key)
    # a missed cache is filled by a child on the other core while this process compiles every template
    child = forked(lambda: computed_view(dataset, key, corpus)) if ahead and found is None else 0
    from speculative.render import prepare, render_page, script_json  # Jinja2 and markdown-it: the child needs neither
    templates_cache = jinja_cache()
    prepare(sections, template_texts, templates_cache, shown(templates))  # meanwhile, compile every template
    if child:
        os.waitpid(child, 0)
        found = cached_view(key)  # the child's cache file; None if it failed or could not write one
    trace_text, ctx = found or computed_view(dataset, key, corpus)
    try:
        html = render_page(sections, template_texts, ctx, script_json(trace_text), templates_cache, shown(templates),
                           ScriptFile())
    except ContentError as err:
        raise Problems(err.lines()) from None
    return {"index.html": html.encode("utf-8"), "trace.json": (trace_text + "\n").encode("utf-8")}


def forked(call) -> int:
    """Runs call() in a forked child, which leaves by os._exit and prints nothing; returns the child's pid, or 0 (and
    runs nothing) where this process cannot fork or has other threads (--watch and --serve run some)."""
    if not hasattr(os, "fork") or threading.active_count() > 1:
        return 0
    try:
        pid = os.fork()
    except OSError:
        return 0
    if pid == 0:
        code = 1
        try:
            signal.signal(signal.SIGINT, signal.SIG_DFL)  # a Ctrl-C ends the child at once; the parent reports it
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            call()
            code = 0
        finally:
            os._exit(code)  # never the parent's clean-up, and never its unflushed output
    return pid


def explain(dataset, corpus: tuple[str, ...]):
    """Returns the analysis of the dataset and the prose's tokens; numpy and the sampler are imported only when it runs."""
    from speculative.analysis import explain as analyse
    return analyse(dataset, corpus)


def analysis_key(dataset, corpus: tuple[str, ...] = ()) -> str:
    """Returns the analysis cache's key: the data, every module of the package (a view edit must not serve a stale
    page) and the versions the analysis depends on."""
    source = Path(cache.__file__).parent
    return cache.key(cache.canonical([dataset, list(corpus)]), {str(p.relative_to(source)): p.read_bytes() for p in source.rglob("*.py")},
                     cache.versions(numpy_version()))


def numpy_version() -> str:
    """Returns numpy's version file as text, found without importing numpy (which takes a tenth of a second)."""
    import importlib.util
    spec = importlib.util.find_spec("numpy")
    try:
        return (Path(spec.origin).parent / "version.py").read_text() if spec and spec.origin else "absent"
    except OSError:
        return f"at {spec.origin}"


def cached_view(key: str) -> tuple[str, dict] | None:
    """Returns the (trace JSON, context) .cache/analysis.json holds for this key, or None if it holds anything else."""
    try:
        value = cache.unpack(read_bytes(CACHE / "analysis.json", limit=64 << 20), key)
    except (ValueError, OSError):  # missing, not a regular file, too big, or cache.Stale
        return None
    ok = isinstance(value, dict) and isinstance(value.get("trace"), str) and isinstance(value.get("context"), dict)
    return (value["trace"], value["context"]) if ok and len(value) == 2 else None


def computed_view(dataset, key: str, corpus: tuple[str, ...]) -> tuple[str, dict]:
    """Returns the (trace JSON, context) of a fresh analysis, saved to .cache/analysis.json when the folder allows."""
    from speculative import view
    explained = explain(dataset, corpus)
    figs = view.figures(explained)
    found = (cache.compact_json(view.trace(explained, figs)), view.context(explained, figs))
    try:
        save_cache(CACHE / "analysis.json", cache.pack(key, {"trace": found[0], "context": found[1]}))
    except (OSError, TypeError, ValueError):  # a read-only checkout, or a value JSON cannot hold: build uncached
        pass
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


# --- publishing: each file replaced atomically, under a lock, uninterrupted once the swap starts --------------

def is_temp(name: str) -> bool:
    """Returns whether a name is one of this build's temporary files (".index.html.123.0a1b2c3d.tmp")."""
    if not (name.startswith(".") and name.endswith(TEMP_SUFFIX)) or name.count(".") < 4:
        base, pid, token = "", "", ""
    else:
        base, pid, token = name[1:-len(TEMP_SUFFIX)].rsplit(".", 2)
    return (base in (*OUTPUTS, MANIFEST) and pid.isdigit() and len(token) == 8
            and all(c in "0123456789abcdef" for c in token))


def output_problems(out: Path, inputs: list[Path]) -> list[str]:
    """Returns why `out` cannot take the built page: not a folder, the folder of an input, or a folder inside an
    earlier build's output (whose next build would then refuse the folder it did not write)."""
    try:
        where = out.resolve()
    except (RuntimeError, OSError):  # RuntimeError: a symbolic link that leads, through others, back to itself
        return [f"{shown(out)}: found a symbolic link that leads back to itself; expected a folder for the built page"]
    if os.path.islink(out) and not out.exists():
        return [f"{shown(out)}: found a symbolic link to {os.readlink(out)}, which does not exist; expected a folder "
                "for the built page (make the folder it names, or choose another --out)"]
    inside = inside_inputs(out, where, inputs)
    if inside:
        return inside
    holder = next((d for d in where.parents if (d / MANIFEST).is_file()), None)
    if holder is not None:
        what = "a file" if out.exists() and not out.is_dir() else "a folder"
        return [f"{shown(out)}: found {what} inside {shown(holder)}/, which holds an earlier build's output; "
                f"expected a folder of its own for the built page, beside {shown(holder)}/ rather than in it"]
    try:
        mode = out.stat().st_mode
    except FileNotFoundError:
        return []
    except OSError as err:
        return [f"{shown(out)}: {open_problem(out, err).replace('a readable file', 'a folder for the built page')}"]
    if not stat.S_ISDIR(mode):
        return [f"{shown(out)}: found {'a file' if stat.S_ISREG(mode) else kind(mode)}; expected a folder for the built page"]
    for path in inputs:
        if where == path.resolve() or where in path.resolve().parents:
            return [f"{shown(out)}: found the folder that holds {shown(path)}; expected a folder of its own "
                    "for the built page, such as site/"]
    return []


def inside_inputs(out: Path, where: Path, inputs: list[Path]) -> list[str]:
    """Returns why `out` cannot be a folder inside an input folder (content/, templates/), every file of which the
    build reads: the next build would find the built page's folder among its inputs, and refuse it."""
    for path in inputs:
        if path.is_dir() and path.resolve() in where.parents:
            return [f"{shown(out)}: found a folder inside {shown(path)}/, which holds the page's inputs; expected "
                    "a folder of its own for the built page, such as site/"]
    return []


def read_manifest(out: Path) -> set[str] | None:
    """Returns the names an earlier build recorded in out's manifest, None when there is none; raises Problems
    when the manifest is not one this build wrote."""
    import json  # here, not at the top: only publishing reads JSON

    path = out / MANIFEST
    if not os.path.lexists(path):
        return None
    try:
        doc = json.loads(read_bytes(path))
    except ValueError:  # unreadable, not a regular file, or not JSON (json.JSONDecodeError is a ValueError)
        doc = None
    names = doc.get("files") if isinstance(doc, dict) and doc.get("written_by") == WRITTEN_BY else None
    if not isinstance(names, list) or not all(isinstance(n, str) and is_plain_name(n) for n in names):
        raise Problems([f"{shown(path)}: found a file that is not this build's record of what it wrote; expected the "
                        f"manifest an earlier build wrote (choose another --out, or empty {shown(out)}/ yourself)"])
    return set(names)


def is_plain_name(name: str) -> bool:
    return name not in ("", ".", "..", MANIFEST) and "/" not in name and "\\" not in name and "\0" not in name


def looks_built(path: Path) -> bool:
    """Returns whether path is a regular file that an earlier build (before manifests) wrote: its own signature."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return False
        return SIGNATURES[path.name] in read_bytes(path)[:SIGNATURE_SPAN]
    except (OSError, ValueError):
        return False


def owned_and_others(out: Path) -> tuple[set[str], list[str]]:
    """Returns (the names in out this build wrote, the names it did not write); raises Problems for a foreign manifest.

    Without a manifest, only index.html and trace.json that carry an earlier build's signature count as ours."""
    entries = set(os.listdir(out))
    recorded = read_manifest(out)
    if recorded is None:
        owned = {n for n in OUTPUTS if n in entries and looks_built(out / n)}
    else:
        owned = (recorded & entries) | {MANIFEST}
    owned |= {n for n in entries if is_temp(n)}  # left by a build that was killed
    return owned, sorted(entries - owned)


def claim(out: Path, inputs: list[Path]) -> set[str]:
    """Returns the names in out that this build wrote and may replace or remove; raises Problems, naming them,
    if out holds anything it did not write, since publishing must never remove or overwrite someone else's file."""
    lines = output_problems(out, inputs)
    if lines:
        raise Problems(lines)
    if not out.is_dir():
        return set()
    try:
        owned, others = owned_and_others(out)
    except OSError as err:
        raise Problems([f"{shown(out)}: found a folder that could not be read ({err.strerror or err}); "
                        "expected a readable folder for the built page"]) from None
    folder = next((n for n in (*OUTPUTS, MANIFEST) if os.path.isdir(out / n) and not os.path.islink(out / n)), None)
    if folder is not None:  # a name the build wrote, now a folder: it would be neither replaced nor removed
        raise Problems([f"{shown(out / folder)}: found a folder where the build writes its own file; expected that "
                        "file or nothing (move the folder away, or choose another --out)"])
    if others:
        named = ", ".join(others[:5]) + (f" and {len(others) - 5} more" if len(others) > 5 else "")
        raise Problems([f"{shown(out)}: found {named}, which this build did not write; expected an empty folder or "
                        f"one this build wrote (it lists its files in {MANIFEST}), since publishing replaces its "
                        "own files; choose another --out, or move those files away"])
    return owned


def manifest_bytes(names: set[str]) -> bytes:
    import json

    doc = {"written_by": WRITTEN_BY, "files": sorted(names),
           "note": "build.py replaces and removes only the files listed here; it refuses a folder holding any other"}
    return (json.dumps(doc, indent=1) + "\n").encode("utf-8")


def write_all(fd: int, blob: bytes) -> None:
    rest = memoryview(blob)
    while rest:
        rest = rest[os.write(fd, rest):]


def write_temp(out: Path, name: str, blob: bytes) -> Path:
    """Returns a new hidden file in `out` holding blob, flushed to disk; removes it again if anything fails."""
    path = out / f".{name}.{os.getpid()}.{secrets.token_hex(4)}{TEMP_SUFFIX}"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
    try:
        write_all(fd, blob)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        path.unlink(missing_ok=True)
        raise
    os.close(fd)
    return path


@contextlib.contextmanager
def deferred_signals() -> Iterator[None]:
    """Holds back Ctrl-C and SIGTERM until the block ends, so a swap that has started also finishes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = {s: signal.signal(s, lambda signum, frame: caught.append(signum)) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler if handler is not None else signal.SIG_DFL)
        if caught:
            signal.raise_signal(caught[0])


def write_atomic(out: Path, files: dict[str, bytes], owned: set[str] | None = None) -> None:
    """Writes every file beside its old version, then replaces each with os.replace and removes the files an
    earlier build wrote that this one does not, so a reader of `out` always finds a complete file, never a
    missing one. The manifest names every file of ours in the folder at every moment of the swap."""
    if owned is None:
        owned = claim(out, [])
    out.mkdir(parents=True, exist_ok=True)
    temps: dict[str, Path] = {}
    backups: dict[str, Path] = {}  # name: a link to the file it replaces, until the swap is done
    try:
        for name, blob in files.items():
            temps[name] = write_temp(out, name, blob)
        recorded = read_manifest(out) or set()
        if not set(files) <= recorded:  # a killed swap must still leave every new file on the record
            temps["first " + MANIFEST] = write_temp(out, MANIFEST, manifest_bytes(recorded | set(files)))
        temps[MANIFEST] = write_temp(out, MANIFEST, manifest_bytes(set(files)))
        with deferred_signals():
            if "first " + MANIFEST in temps:
                os.replace(temps.pop("first " + MANIFEST), out / MANIFEST)
            swap(out, temps, [n for n in temps if n != MANIFEST], backups)
            remove_strays(out, owned - set(files) - {MANIFEST})
            os.replace(temps.pop(MANIFEST), out / MANIFEST)
            fsync_folder(out)
    finally:
        for path in [*temps.values(), *backups.values()]:
            path.unlink(missing_ok=True)


def swap(out: Path, temps: dict[str, Path], names: list[str], backups: dict[str, Path]) -> None:
    """Replaces each named file in `out` with its temporary file. If one replace fails (a file made immutable, say),
    puts back the files already replaced, from the links to them kept in backups, and raises: the folder then
    holds the earlier build's files, never a mix of two builds."""
    done: list[str] = []
    try:
        for name in names:
            if os.path.lexists(out / name):
                backups[name] = kept_copy(out, name)
            os.replace(temps[name], out / name)
            del temps[name]
            done.append(name)
    except OSError:
        for name in reversed(done):
            if name in backups:
                os.replace(backups.pop(name), out / name)
            else:
                (out / name).unlink(missing_ok=True)
        raise


def kept_copy(out: Path, name: str) -> Path:
    """Returns a new hidden name in `out` for out/name's current file: a hard link, or a copy where the file system
    refuses links."""
    path = out / f".{name}.{os.getpid()}.{secrets.token_hex(4)}{TEMP_SUFFIX}"
    try:
        os.link(out / name, path, follow_symlinks=False)
    except OSError:
        import shutil  # here, not at the top: only a file system without links needs it

        shutil.copy2(out / name, path, follow_symlinks=False)
    return path


def remove_strays(out: Path, names: set[str]) -> None:
    """Removes the named files or links directly in `out`, each one an earlier build wrote; never a folder,
    never a link's target."""
    for name in names:
        with contextlib.suppress(FileNotFoundError):
            if not stat.S_ISDIR(os.lstat(out / name).st_mode):
                os.unlink(out / name)


def fsync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def build_lock(out: Path) -> Iterator[None]:
    """Holds .cache/build.lock while publishing, so concurrent builds take turns; waits, saying so, if it is held."""
    try:
        CACHE.mkdir(parents=True, exist_ok=True)
        fd = os.open(CACHE / "build.lock", os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666)  # none on Windows
    except OSError:  # a read-only checkout: publish unlocked, as one build at a time is then the only way
        yield
        return
    try:
        try:
            lock(fd, wait=False)
        except BlockingIOError:
            print(f"waiting for another build to finish writing {shown(out)}/ …", flush=True)
            lock(fd, wait=True)
        yield
    finally:
        os.close(fd)  # closing the file releases either kind of lock


def lock(fd: int, wait: bool) -> None:
    """Locks the open lock file for this process, waiting for it when `wait`, else raising BlockingIOError if held.

    POSIX has flock; where fcntl is missing (Windows), msvcrt locks the file's first byte instead.
    """
    try:
        import fcntl
    except ImportError:
        import msvcrt

        os.lseek(fd, 0, os.SEEK_SET)
        while True:
            try:
                return msvcrt.locking(fd, msvcrt.LK_LOCK if wait else msvcrt.LK_NBLCK, 1)
            except OSError:  # LK_LOCK gives up after 10 s: keep waiting
                if not wait:
                    raise BlockingIOError("another build holds the lock") from None
    fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))


def publish(args: argparse.Namespace, files: dict[str, bytes]) -> None:
    """Writes the files into args.out under the build lock, or raises Problems if the folder cannot take them."""
    with build_lock(args.out):
        owned = claim(args.out, [args.data, args.content, args.templates, ROOT / "build.py"])
        try:
            write_atomic(args.out, files, owned)
        except OSError as err:
            if err.filename2:  # os.replace(temporary file, the file it replaces)
                raise Problems([f"{shown(Path(err.filename2))}: found a file the build could not replace "
                                f"({err.strerror or err}); expected a file the build may replace (make it writable, "
                                "or choose another --out)"]) from None
            raise Problems([f"{shown(args.out)}: found a folder that could not be written "
                            f"({err.strerror or err}); expected a writable folder for the built page"]) from None


# --- the command line -----------------------------------------------------------------------------------------

def build_once(args: argparse.Namespace, changed: list[str] | None = None) -> int:
    """Builds once; returns the exit code, printing one summary line, the problems found, or one line for a bug.
    Under --watch, `changed` names the files whose change started this build, and the summary says so."""
    start = time.perf_counter()
    try:
        # a watcher keeps numpy imported between its rebuilds: a child would import it anew for each data edit
        files = build_files(args.data, args.content, args.templates, ahead=not args.watch)
        publish(args, files)
    except Problems as err:
        return report_problems(err.lines, args.out, WATCH_HINT if args.watch else FIX_HINT)
    except Exception as err:  # a bug, not the author's input: one line here, the traceback in the log
        return report_unexpected(err, args.out)
    page = files["index.html"]
    took = time.perf_counter() - start
    print(f"built {shown(args.out)}/index.html ({len(page) / 1024:.1f} KB, "
          f"{len(gzip.compress(page, mtime=0)) / 1024:.1f} KB gzipped) and trace.json in {took:.2f} s"
          + (f", after a change to {', '.join(changed)}" if changed else ""), flush=True)
    return 0


def report_problems(lines: list[str], out: Path, hint: str = FIX_HINT) -> int:
    print("\n".join(lines), file=sys.stderr)
    print("\n" + hint.format(s="s" if len(lines) > 1 else "", out=shown(out)), file=sys.stderr, flush=True)
    return 1


def report_unexpected(err: Exception, out: Path) -> int:
    """Saves the traceback to .cache/last-error.log and prints one line naming the error and the log."""
    details = "".join(traceback.format_exception(err))
    log = CACHE / "last-error.log"
    try:
        CACHE.mkdir(parents=True, exist_ok=True)
        log.write_text(details, encoding="utf-8")
        where = f"details in {shown(log)}"
    except OSError:
        print(details, file=sys.stderr, end="")  # nowhere to save them: the details are worth more than tidiness
        where = "details above"
    summary = f"{type(err).__name__}: {err}".splitlines()[0] if str(err) else type(err).__name__
    summary = summary if len(summary) <= 200 else summary[:199] + "…"
    print(f"build failed unexpectedly: {summary}; {where}; {shown(out)}/ was left as it was", file=sys.stderr, flush=True)
    return 1


def watched(args: argparse.Namespace) -> tuple[list[Path], Path]:
    """Returns the folders to watch (each without its subfolders, so templates/js/ is one of its own) and the data
    file's path inside the first."""
    folders = list(dict.fromkeys(p.resolve() for p in (args.data.parent, args.content, args.templates,
                                                       args.templates / "js")))
    return folders, args.data.parent.resolve() / args.data.name


def identity(folders: list[Path]) -> tuple:
    """Returns each folder's (device, inode), or None where it is missing: a deleted and re-created folder differs."""
    found = []
    for folder in folders:
        try:
            info = os.stat(folder)
            found.append((info.st_dev, info.st_ino) if stat.S_ISDIR(info.st_mode) else None)
        except OSError:
            found.append(None)
    return tuple(found)


def input_filter(args: argparse.Namespace, data: Path):
    """Returns a watchfiles filter that passes only changes to inputs: the data file itself (not its neighbours,
    such as a log written beside it), and the visible files directly in content/, templates/ and templates/js/."""
    from watchfiles import DefaultFilter

    editors = DefaultFilter()  # swap files and the like
    # Our own writes are not inputs. DefaultFilter's ignore_paths compares strings, so `--out da` would also have
    # ignored data/: compare whole path parts instead.
    ours = (args.out.resolve(), CACHE.resolve())
    inputs = (args.content.resolve(), args.templates.resolve(), (args.templates / "js").resolve())

    def passes(change, path: str) -> bool:
        where = Path(path)
        if not editors(change, path) or any(where.is_relative_to(o) for o in ours):  # the folder itself too
            return False
        return where == data or (where.parent in inputs and not where.name.startswith("."))
    return passes


def watch(args: argparse.Namespace, server=None) -> int:
    """Builds once the watcher is live, then again whenever an input changes, until stopped; survives its
    folders being deleted and re-created by watching them again as soon as they change."""
    folders, data = watched(args)
    missing = [f for f in folders if not f.is_dir()]
    if missing:
        print(f"{shown(missing[0])}: found no such folder; expected a folder to watch", file=sys.stderr, flush=True)
        return 1
    passes, first = input_filter(args, data), True
    while True:
        seen = identity(folders)
        live = [f for f, known in zip(folders, seen) if known is not None]
        if not live:  # every folder is gone: look again every 100 ms until one is back
            while identity(folders) == seen:
                time.sleep(0.1)
            continue
        for _ in watch_live(args, live, passes, lambda: identity(folders) != seen):
            if first:
                if server is not None:
                    start_serving(server, args.out)
                print(f"watching {', '.join(shown(f) for f in folders)} (Ctrl-C stops)", flush=True)
                first = False
        # a folder was deleted or re-created: watch the folders as they are now, then build once more


def watch_live(args: argparse.Namespace, live: list[Path], passes, moved) -> Iterator[None]:
    """Builds when the watcher on `live` is up, then on every change, yielding after each build; returns when
    moved() says a folder was deleted or re-created."""
    from watchfiles import watch as changes

    pending = True  # the watcher is live at its first yield, so a save after this build is never missed
    # yield_on_timeout hands back an empty batch every 100 ms: build then if pending, and look for moved folders
    for changed in changes(*live, watch_filter=passes, debounce=200, step=10, rust_timeout=100,
                           yield_on_timeout=True, recursive=False):
        if moved():
            return
        if pending or changed:
            build_once(args, sorted({shown(Path(path)) for _, path in changed}) or None)
            pending = False
            yield


def nameable(url_path: str) -> bool:
    """Returns whether a request's path can name a file here: no NUL byte and no lone surrogate (%ED%A0%80) once
    decoded as the server decodes it, since the file system calls raise on either."""
    import urllib.parse

    decoded = urllib.parse.unquote(url_path, errors="surrogatepass")
    return "\0" not in decoded and not any("\ud800" <= c <= "\udfff" for c in decoded)


def not_built(path: str, folder: str) -> bool:
    """Returns whether a request asks for the page at the folder's top, which no build has written yet."""
    return os.path.basename(path) == "index.html" and not os.path.exists(path) and \
        os.path.dirname(os.path.realpath(path)) == os.path.realpath(folder)


NOT_BUILT = "No build has made the page yet: the terminal running build.py lists the problems. Fix them, save, and reload."
SERVER_BACKLOG = 128  # connections the kernel holds while every thread is busy (the standard library's is 5)
CLIENT_TIMEOUT = 10  # seconds a connection may stay silent before it is dropped, so slow clients starve no one


@functools.lru_cache(maxsize=1)
def preview_classes():
    """Returns (handler, server) classes for the preview: threads, a real backlog, timeouts, no listings, no
    file outside the served folder even through a symbolic link."""
    import http.server
    import urllib.parse

    class PreviewHandler(http.server.SimpleHTTPRequestHandler):
        timeout = CLIENT_TIMEOUT

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass

        def send_head(self):
            if not nameable(self.path):  # os.path would raise on it, and the client would get nothing
                self.send_error(404, "File not found")
                return None
            path = self.translate_path(self.path)
            if os.path.isdir(path) and urllib.parse.urlsplit(self.path).path.endswith("/"):
                path = os.path.join(path, "index.html")
            if not_built(path, self.directory):  # no build has succeeded: say where to look
                self.send_error(503, "No page built yet", NOT_BUILT)
                return None
            root = os.path.realpath(self.directory)
            real = os.path.realpath(path)
            if real != root and not real.startswith(root + os.sep):  # a link out of the folder: as if missing
                self.send_error(404, "File not found")
                return None
            return super().send_head()

        def list_directory(self, path):
            self.send_error(404, "File not found")
            return None

    class PreviewServer(http.server.ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = SERVER_BACKLOG

        def handle_error(self, request, client_address) -> None:  # a browser that hangs up is not our error
            pass
    return PreviewHandler, PreviewServer


def make_server(out: Path, port: int):
    """Returns a preview server bound to 127.0.0.1:port for `out`, not yet serving; raises Problems if the port is taken."""
    handler_class, server_class = preview_classes()
    handler = functools.partial(handler_class, directory=str(out.resolve()))
    try:
        return server_class(("127.0.0.1", port), handler)
    except OSError as err:
        raise Problems([f"127.0.0.1:{port}: found the port could not be used ({err.strerror or err}); "
                        "expected a free port: choose another with --serve PORT (speculative serve --port PORT), such as "
                        "8001, or 0 for any free one"]) from None


def start_serving(server, out: Path) -> None:
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"serving {shown(out)}/ at http://127.0.0.1:{server.server_address[1]}/", flush=True)


class Parser(argparse.ArgumentParser):
    """argparse with one line for a mistake on the command line, and exit status 2."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: {message}\n")


def port_number(text: str) -> int:
    """Returns the port a --serve argument names, or raises the one line argparse shows."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f'found "{text}"; expected a port number from 0 to 65535 (0 picks a free one)')
    return value


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = Parser(
        prog="build.py", description="Build the speculative decoding explainer: site/index.html (self-contained) and site/trace.json.")
    parser.add_argument("--data", type=Path, default=ROOT / "data" / "profiles.v1.json",
                        help="the profiles file (default: data/profiles.v1.json)")
    parser.add_argument("--out", type=Path, default=ROOT / "site", help="output folder (default: site/)")
    parser.add_argument("--content", type=Path, default=ROOT / "content", help=argparse.SUPPRESS)
    parser.add_argument("--templates", type=Path, default=ROOT / "templates", help=argparse.SUPPRESS)
    parser.add_argument("--watch", action="store_true", help="rebuild whenever data/, content/ or templates/ change")
    parser.add_argument("--serve", nargs="?", type=port_number, const=8000, metavar="PORT",
                        help="serve the output folder on 127.0.0.1 (default port 8000) while watching")
    return parser.parse_args(argv)


def run(args: argparse.Namespace) -> int:
    """Returns the exit code of one build, a watch, or a preview server, as the options ask."""
    if args.serve is None:
        return watch(args) if args.watch else build_once(args)
    try:
        server = make_server(args.out, args.serve)
    except Problems as err:
        print("\n".join(err.lines), file=sys.stderr, flush=True)
        return 1
    try:
        if args.watch:
            return watch(args, server)
        if build_once(args) != 0 and not (args.out / "index.html").is_file():
            return 1
        start_serving(server, args.out)
        threading.Event().wait()
        return 0
    finally:
        server.server_close()


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Makes SIGTERM unwind like Ctrl-C, so a stopped build removes its temporary files too."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise Terminated()
    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        with sigterm_as_interrupt():
            return run(args)
    except KeyboardInterrupt as err:
        left = "holds the last complete build" if (args.out / "index.html").is_file() else "holds no page: no build finished"
        print(f"{'stopped' if isinstance(err, Terminated) else 'interrupted'}; {shown(args.out)}/ {left}",
              file=sys.stderr, flush=True)
        return TERMINATED if isinstance(err, Terminated) else INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Build site/ (one self-contained index.html and trace.json) from data/, content/ and templates/.

The only module that touches argv, the clock, signals and the disk: everything it calls is a pure function.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gzip
import os
import secrets
import signal
import stat
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

try:
    import jinja2

    from speculative import view
    from speculative.analysis import explain
    from speculative.content import ContentError, parse_sections
    from speculative.errors import InputError, decode
    from speculative.profiles import parse
    from speculative.reading import kind, open_problem, read_bytes
    from speculative.render import compact_json, render_page, script_json
except ModuleNotFoundError as missing:  # run outside .venv: name the command that sets it up
    if (missing.name or "").startswith("speculative"):
        raise
    sys.exit(f"build.py: found no module named {missing.name!r}; run `bash scripts/build.sh` first "
             "(it makes .venv and installs the project), then `.venv/bin/python build.py`")

CACHE = ROOT / ".cache"  # the Jinja cache, the build lock and the last unexpected error's details
FIX_HINT = "Fix the problem{s} above and build again; {out}/ was left as it was."
OUTPUTS = ("index.html", "trace.json")
TEMP_SUFFIX = ".tmp"  # an output being written is ".<name>.<pid>.<random>.tmp" in the output folder
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

def read_text(path: Path, where: str = "") -> str:
    """Returns a file's UTF-8 text (a byte-order mark is dropped), or raises Problems with one line:
    the file, `where` ("$: " for the data file's root), what was found and what was expected."""
    try:
        raw = read_bytes(path)
    except ValueError as err:
        raise Problems([f"{shown(path)}: {where}{err}"]) from None
    try:
        return decode(raw, shown(path))
    except InputError as err:
        raise Problems(err.lines()) from None


def read_all(paths: list[Path], data: Path) -> tuple[dict[str, str], list[str]]:
    """Returns the texts that could be read, keyed by shown name, and a line for each that could not."""
    texts, lines = {}, []
    for path in paths:
        try:
            texts[shown(path)] = read_text(path, "$: " if path == data else "")
        except Problems as err:
            lines += err.lines
    return texts, lines


def listed(folder: Path, suffix: str = "") -> list[Path]:
    """Returns the folder's entries that end with suffix, sorted, skipping subfolders and hidden names
    (editors' lock and swap files); an entry that is not a regular file is kept, so the reader can refuse it."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    return sorted(folder / e.name for e in entries
                  if e.name.endswith(suffix) and not e.name.startswith(".") and not is_folder(e))


def is_folder(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError:  # a loop of links: not a folder, so the reader names it
        return False


def parse_inputs(data: Path, content: Path, templates: Path):
    """Returns (dataset, sections, template texts), or raises Problems listing every input problem at once."""
    files = listed(templates)
    texts, lines = read_all([data, *listed(content, ".md"), *files], data)
    if not templates.is_dir():
        lines.append(f"{shown(templates)}: found no such folder; expected the folder of the page's templates")
    dataset = sections = None
    if shown(data) in texts:
        try:
            dataset = parse(texts[shown(data)], shown(data))
        except InputError as err:
            lines += err.lines()
    try:
        sections = parse_sections({n: t for n, t in texts.items() if n.endswith(".md") and n != shown(data)},
                                  shown(content))
    except ContentError as err:
        lines += err.lines()
    if lines:
        raise Problems(lines)
    return dataset, sections, {p.name: texts[shown(p)] for p in files}


@functools.lru_cache(maxsize=1)
def jinja_cache() -> jinja2.BytecodeCache | None:
    """Returns a store for compiled templates in .cache/jinja, or None when it cannot be made (builds work without)."""
    folder = CACHE / "jinja"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return jinja2.FileSystemBytecodeCache(str(folder)) if os.access(folder, os.W_OK) else None


def build_files(data: Path, content: Path, templates: Path) -> dict[str, bytes]:
    """Returns every output file's bytes: read, parse, analyse, view, render; nothing is written here."""
    dataset, sections, template_texts = parse_inputs(data, content, templates)
    explained = explain(dataset)
    trace = view.trace(explained)
    trace_text = compact_json(trace)  # once, for both the page and trace.json
    try:
        html = render_page(sections, template_texts, view.context(explained, trace), script_json(trace_text), jinja_cache())
    except ContentError as err:
        raise Problems(err.lines()) from None
    return {"index.html": html.encode("utf-8"), "trace.json": (trace_text + "\n").encode("utf-8")}


# --- publishing: each file replaced atomically, under a lock, uninterrupted once the swap starts --------------

def is_temp(name: str) -> bool:
    return name.startswith(".") and name.endswith(TEMP_SUFFIX)


def output_problems(out: Path, inputs: list[Path]) -> list[str]:
    """Returns why `out` cannot take the built page: not a folder, holds an input, or holds someone else's files."""
    try:
        mode = out.stat().st_mode
    except FileNotFoundError:
        return []
    except OSError as err:
        return [f"{shown(out)}: {open_problem(out, err).replace('a readable file', 'a folder for the built page')}"]
    if not stat.S_ISDIR(mode):
        return [f"{shown(out)}: found {'a file' if stat.S_ISREG(mode) else kind(mode)}; expected a folder for the built page"]
    for path in inputs:
        if out.resolve() == path.resolve() or out.resolve() in path.resolve().parents:
            return [f"{shown(out)}: found the folder that holds {shown(path)}; expected a folder of its own "
                    "for the built page, such as site/"]
    others = sorted(n for n in os.listdir(out) if n not in OUTPUTS and not is_temp(n))
    if others and not (out / "index.html").exists():
        return [f"{shown(out)}: found a folder that holds {others[0]} and no index.html; expected an empty folder "
                "or one an earlier build wrote, since publishing removes the files it does not write"]
    return []


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


def write_atomic(out: Path, files: dict[str, bytes]) -> None:
    """Writes every file beside its old version, then replaces each with os.replace and removes strays,
    so a reader of `out` always finds a complete earlier or a complete new file, never a missing one."""
    out.mkdir(parents=True, exist_ok=True)
    temps: dict[str, Path] = {}
    try:
        for name, blob in files.items():
            temps[name] = write_temp(out, name, blob)
        with deferred_signals():
            for name in list(temps):
                os.replace(temps.pop(name), out / name)
            remove_strays(out, set(files))
            fsync_folder(out)
    finally:
        for path in temps.values():
            path.unlink(missing_ok=True)


def remove_strays(out: Path, keep: set[str]) -> None:
    """Removes files and links directly in `out` that this build did not write; never a folder, never a link's target."""
    for entry in os.scandir(out):
        if entry.name not in keep and not entry.is_dir(follow_symlinks=False):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(out / entry.name)


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
        lines = output_problems(args.out, [args.data, args.content, args.templates, ROOT / "build.py"])
        if lines:
            raise Problems(lines)
        try:
            write_atomic(args.out, files)
        except OSError as err:
            raise Problems([f"{shown(args.out)}: found a folder that could not be written "
                            f"({err.strerror or err}); expected a writable folder for the built page"]) from None


# --- the command line -----------------------------------------------------------------------------------------

def build_once(args: argparse.Namespace) -> int:
    """Builds once; returns the exit code, printing one summary line, the problems found, or one line for a bug."""
    start = time.perf_counter()
    try:
        files = build_files(args.data, args.content, args.templates)
        publish(args, files)
    except Problems as err:
        return report_problems(err.lines, args.out)
    except Exception as err:  # a bug, not the author's input: one line here, the traceback in the log
        return report_unexpected(err, args.out)
    page = files["index.html"]
    took = time.perf_counter() - start
    print(f"built {shown(args.out)}/index.html ({len(page) / 1024:.1f} KB, "
          f"{len(gzip.compress(page, mtime=0)) / 1024:.1f} KB gzipped) and trace.json in {took:.2f} s", flush=True)
    return 0


def report_problems(lines: list[str], out: Path) -> int:
    print("\n".join(lines), file=sys.stderr)
    print("\n" + FIX_HINT.format(s="s" if len(lines) > 1 else "", out=shown(out)), file=sys.stderr, flush=True)
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


def watch(args: argparse.Namespace, server=None) -> int:
    """Builds once the watcher is live, then again whenever data/, content/ or templates/ change, until stopped."""
    from watchfiles import DefaultFilter
    from watchfiles import watch as changes

    folders = [p.resolve() for p in (args.data.parent, args.content, args.templates)]
    missing = [f for f in folders if not f.is_dir()]
    if missing:
        print(f"{shown(missing[0])}: found no such folder; expected a folder to watch", file=sys.stderr, flush=True)
        return 1
    ignore = DefaultFilter(ignore_paths=[str(args.out.resolve()), str(CACHE)])  # our own writes are no edits
    first = True
    # yield_on_timeout hands back an empty batch once the watcher is live: build then, so no edit is missed
    for changed in changes(*folders, watch_filter=ignore, debounce=200, step=10, rust_timeout=100, yield_on_timeout=True):
        if first or changed:
            build_once(args)
        if first:
            if server is not None:
                start_serving(server, args.out)
            print(f"watching {', '.join(shown(f) for f in folders)} (Ctrl-C stops)", flush=True)
            first = False
    return 0


def make_server(out: Path, port: int):
    """Returns a preview server bound to 127.0.0.1:port for `out`, not yet serving; raises Problems if the port is taken."""
    import http.server

    class QuietHandler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass

    class QuietServer(http.server.ThreadingHTTPServer):
        daemon_threads = True

        def handle_error(self, request, client_address) -> None:  # a browser that hangs up is not our error
            pass

    handler = functools.partial(QuietHandler, directory=str(out.resolve()))
    try:
        return QuietServer(("127.0.0.1", port), handler)
    except OSError as err:
        raise Problems([f"127.0.0.1:{port}: found the port could not be used ({err.strerror or err}); "
                        "expected a free port, such as --serve 8001"]) from None


def start_serving(server, out: Path) -> None:
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"serving {shown(out)}/ at http://127.0.0.1:{server.server_address[1]}/", flush=True)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Build the speculative decoding explainer: site/index.html (self-contained) and site/trace.json.")
    parser.add_argument("--data", type=Path, default=ROOT / "data" / "profiles.v1.json",
                        help="the profiles file (default: data/profiles.v1.json)")
    parser.add_argument("--out", type=Path, default=ROOT / "site", help="output folder (default: site/)")
    parser.add_argument("--content", type=Path, default=ROOT / "content", help=argparse.SUPPRESS)
    parser.add_argument("--templates", type=Path, default=ROOT / "templates", help=argparse.SUPPRESS)
    parser.add_argument("--watch", action="store_true", help="rebuild whenever data/, content/ or templates/ change")
    parser.add_argument("--serve", nargs="?", type=int, const=8000, metavar="PORT",
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
        print(f"{'stopped' if isinstance(err, Terminated) else 'interrupted'}; "
              f"{shown(args.out)}/ holds the last complete build", file=sys.stderr, flush=True)
        return TERMINATED if isinstance(err, Terminated) else INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())

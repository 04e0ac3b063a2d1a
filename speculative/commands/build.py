"""The build command: build once, on every save (--watch), or while serving the page (--serve), printing one line
per build, the problems found, or one line for a bug; Ctrl-C and SIGTERM stop it with the shell's codes and never
leave a half-written page."""

from __future__ import annotations

import contextlib
import functools
import gzip
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path

from .. import checkout
from ..checkout import Paths, inputs_digest, shown
from ..errors import Problems, as_folder, short, visible
from ..pipeline import build_files
from ..publish import publish
from ..watch import watch

FIX_HINT = "Fix the problem{s} above and build again; {out} was left as it was."
WATCH_HINT = "Fix the problem{s} above and save again; {out} was left as it was."  # --watch rebuilds on the save
INTERRUPTED, TERMINATED = 130, 143  # the shell's codes for SIGINT and SIGTERM


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled as Ctrl-C is: clean up, then exit with 143."""


TERMINATED_SEEN = threading.Event()  # set by SIGTERM: watchfiles turns any signal into a plain KeyboardInterrupt


def build_once(paths: Paths, watching: bool = False, changed: list[str] | None = None,
               problems: list[str] | None = None) -> int:
    """Builds once; returns the exit code, printing one summary line, the problems found, or one line for a bug.
    Under --watch, `changed` names the files whose change started this build, and the summary says so; the lines
    printed for a failed build are added to `problems` too, for the preview's open tabs."""
    start = time.perf_counter()
    try:
        files = built_from_current_inputs(paths)
    except Problems as err:
        (problems if problems is not None else []).extend(err.lines)
        return report_problems(err.lines, paths.out, WATCH_HINT if watching else FIX_HINT)
    except Exception as err:  # a bug, not the author's input: one line here, the traceback in the log
        return report_unexpected(err, paths.out, problems)
    page = files["index.html"]
    took = time.perf_counter() - start
    print(f"built {visible(shown(paths.out))}/index.html ({len(page) / 1024:.1f} KB, "
          f"{len(gzip.compress(page, mtime=0)) / 1024:.1f} KB gzipped) and trace.json in {took:.2f} s"
          + (f", after a change to {', '.join(changed)}" if changed else ""), flush=True)
    return 0


STALE_REBUILDS = 3  # builds whose inputs changed before they could publish, at most, before the last one publishes


def built_from_current_inputs(paths: Paths) -> dict[str, bytes]:
    """Builds and publishes; returns the files published. Under the build lock the inputs' digest is compared with the
    one taken before they were read, and a build whose inputs changed meanwhile builds again instead of publishing,
    so the page that stays is built from the inputs as they are now, whichever build finishes last; after
    STALE_REBUILDS such builds, the next publishes as it is."""
    for _ in range(STALE_REBUILDS):
        before = inputs_digest(paths)
        files = build_files(paths.data, paths.content, paths.templates)
        if publish(paths.out, files, paths.inputs(), lambda: inputs_digest(paths) == before):  # noqa: B023  (called at once)
            return files
    files = build_files(paths.data, paths.content, paths.templates)
    publish(paths.out, files, paths.inputs())
    return files


def folder_name(out: Path) -> str:
    """Returns the output folder as a one-line message names it: one slash at the end, a long path cut to its ends."""
    return as_folder(short(visible(shown(out))))


def report_problems(lines: list[str], out: Path, hint: str = FIX_HINT) -> int:
    print("\n".join(lines), file=sys.stderr)
    print("\n" + hint.format(s="s" if len(lines) > 1 else "", out=folder_name(out)), file=sys.stderr, flush=True)
    return 1


def report_unexpected(err: Exception, out: Path, problems: list[str] | None = None) -> int:
    """Saves the traceback to .cache/last-error.log and prints one line naming the error and the log."""
    details = "".join(traceback.format_exception(err))
    log = checkout.CACHE / "last-error.log"
    try:
        checkout.CACHE.mkdir(parents=True, exist_ok=True)
        log.write_text(details, encoding="utf-8")
        where = f"details in {shown(log)}"
    except OSError:
        print(details, file=sys.stderr, end="")  # nowhere to save them: the details are worth more than tidiness
        where = "details above"
    summary = f"{type(err).__name__}: {err}".splitlines()[0] if str(err) else type(err).__name__
    summary = summary if len(summary) <= 200 else summary[:199] + "…"
    line = f"build failed unexpectedly: {summary}; {where}; {folder_name(out)} was left as it was"
    (problems if problems is not None else []).append(line)
    print(line, file=sys.stderr, flush=True)
    return 1


def run(paths: Paths, watching: bool, port: int | None) -> int:
    """Returns the exit code of one build, a watch, or a preview server (on `port`), as the options ask. Under
    --watch --serve, each build's result goes to the server too, which reloads the open tabs or shows the problems."""
    if port is None:
        return watch(paths, functools.partial(build_once, paths, True), lambda: None) if watching else build_once(paths)
    from ..serve import LiveReload, make_server, start_serving  # http.server: a one-shot build needs none of it
    live = LiveReload() if watching else None

    def rebuild(changed: list[str] | None) -> int:
        problems: list[str] = []
        code = build_once(paths, True, changed, problems)
        if live is not None:
            live.report(code, problems)
        return code

    try:
        server = make_server(paths.out, port, live)
    except Problems as err:
        print("\n".join(err.lines), file=sys.stderr, flush=True)
        return 1
    try:
        start = functools.partial(start_serving, server, paths.out)
        return watch(paths, rebuild, start) if watching else serve_last(paths, start)
    finally:
        server.server_close()


def serve_last(paths: Paths, start_serving: Callable[[], None]) -> int:
    """Builds once, then serves the output folder until stopped, if it holds a page (this build's or the last)."""
    if build_once(paths) != 0 and not (paths.out / "index.html").is_file():
        return 1
    start_serving()
    threading.Event().wait()
    return 0


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Makes SIGTERM unwind like Ctrl-C, so a stopped build removes its temporary files too."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        TERMINATED_SEEN.set()
        raise Terminated()
    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


def main(paths: Paths, watching: bool = False, port: int | None = None) -> int:
    """Runs the build command until it ends or is stopped; returns its exit code (130 after Ctrl-C, 143 after
    SIGTERM, each with one line saying what the output folder holds)."""
    TERMINATED_SEEN.clear()
    try:
        with sigterm_as_interrupt():
            return run(paths, watching, port)
    except KeyboardInterrupt as err:
        left = "holds the last complete build" if (paths.out / "index.html").is_file() else "holds no page: no build finished"
        terminated = isinstance(err, Terminated) or TERMINATED_SEEN.is_set()
        print(f"{'stopped' if terminated else 'interrupted'}; {folder_name(paths.out)} {left}", file=sys.stderr, flush=True)
        return TERMINATED if terminated else INTERRUPTED

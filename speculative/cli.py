"""The one command line: `speculative build | serve | check | stats`, each with --help and --version, and
`python build.py`, the same build command under the name the project has always had.

Installed as `speculative` by pyproject's [project.scripts], and run as `python -m speculative` too. This module
imports only the standard library at the top: each command imports what it needs when it runs, so --help,
--version and the hint for a missing dependency work before anything is installed.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import importlib.util
import os
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn, TextIO

from . import checkout, sizes  # the standard library only, like this module
from .checkout import CONTENT, DATA
from .errors import SETUP, Problems

PROG = "speculative"
ROUNDS_RANGE = (1_000, 100_000_000)  # rounds per profile: fewer reach no later position; more take hours
TEXTS_RANGE = (1_000, 100_000_000)  # texts for the sequence check, for the same reasons
NEEDED = ("jinja2", "markdown_it", "rcssmin", "rjsmin", "numpy",
          "watchfiles")  # the build imports some only once it runs
SERVE_PORT = 8000


def version() -> str:
    """Returns the installed version of the project, or a note that it is not installed."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("speculative-decoding-explained")
    except PackageNotFoundError:
        return "(not installed)"


class Parser(argparse.ArgumentParser):
    """argparse, with a usage error printed as one line: the command, the argument, what was found and expected."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message}\n")


def count(low: int, high: int) -> Callable[[str], int]:
    """Returns an argparse type that accepts a whole number from low to high (1000000, 1_000_000 or 1,000,000)."""
    def parse(text: str) -> int:
        try:
            value = int(text.replace(",", "").replace("_", ""))
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"found {text!r}; expected a whole number from {low:,} to {high:,}")
        return value
    return parse


def port_number(text: str) -> int:
    """Returns the port a --serve or --port argument names, or raises the one line argparse shows."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f'found "{text}"; expected a port number from 0 to 65535 (0 picks a free one)')
    return value


def in_checkout(given: str | None, relative: str, what: str, option: str) -> str:
    """Returns the input a command reads: the path given, or the one in the clone (shown relative to the current
    folder when it is under it), so the commands find it the way build does from any folder. Raises Problems,
    naming the folder it expected, when the clone's own is not there."""
    if given is not None:
        return given
    path = checkout.ROOT / relative
    if not os.path.lexists(path) and not (checkout.ROOT / "build.py").is_file():  # installed away from any clone (pip install .)
        raise Problems([checkout.no_clone()])
    if not path.exists():
        raise Problems([f"{path}: found no such {what}; expected the clone of the project, which holds {relative} "
                        f"beside speculative/ ({checkout.FROM_CLONE}, or give one with {option})"])
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


# --- the commands: each resolves its paths, then imports and runs its module in speculative/commands/ ---------

def check(args: argparse.Namespace, out: TextIO, err: TextIO, rule: Any = None) -> int:
    """Runs the check command; returns 0 when every printed row passed, else 1."""
    data, content = in_checkout(args.data, DATA, "file", "--data"), in_checkout(args.content, CONTENT, "folder", "--content")
    from .commands.check import run_checks

    if args.model and not args.generations:
        args.usage.error("argument --generations: found 0 with --model; expected a whole number from 1 to 100,000 "
                         "(or leave out --model)")
    generations = args.generations if args.model else 0  # the model pair's size: nothing without --model
    return 0 if run_checks(data, args.rounds, args.texts, out, err, rule, generations, content) else 1


def stats(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Prints each profile's exact statistics; returns 0."""
    path = in_checkout(args.data, DATA, "file", "--data")
    given = args.content is not None or (checkout.ROOT / CONTENT).is_dir()  # outside a clone: the figures' ids only
    content = in_checkout(args.content, CONTENT, "folder", "--content") if given else None
    from .commands.check import report

    print(report(path, content), file=out)
    return 0


def build(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Builds the output folder once, on every save with --watch, or while serving it with --serve; returns the
    build command's exit code."""
    given = checkout.Paths.default()
    paths = checkout.Paths(*(getattr(args, f) or getattr(given, f) for f in ("data", "content", "templates", "out")))
    if not checkout.is_clone(checkout.ROOT) and (args.content is None or args.templates is None):
        raise Problems([checkout.no_clone()])
    for name in NEEDED:
        if importlib.util.find_spec(name) is None:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    from .commands import build as command

    return command.main(paths, args.watch, args.serve)


def build_options(p: argparse.ArgumentParser, serving: bool) -> None:
    """Adds the options of the build command (and, with `serving`, of serve, which always watches)."""
    p.add_argument("--data", type=Path, help=f"the profiles file (default: {DATA})")
    p.add_argument("--out", type=Path, help="the output folder (default: site/)")
    p.add_argument("--content", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--templates", type=Path, help=argparse.SUPPRESS)
    if serving:
        p.add_argument("--port", dest="serve", type=port_number, default=SERVE_PORT, metavar="PORT",
                       help=f"the port (default: {SERVE_PORT}; 0 picks a free one)")
        p.set_defaults(watch=True)
        return
    p.add_argument("--watch", action="store_true", help="rebuild on every save under data/, content/ or templates/")
    p.add_argument("--serve", nargs="?", type=port_number, const=SERVE_PORT, metavar="PORT",
                   help=f"serve the output folder on 127.0.0.1 (default port {SERVE_PORT}); with --watch, rebuild on "
                        "every save too")


def check_options(p: argparse.ArgumentParser) -> None:
    """Adds the options of the check command: the size of each part, and --model, the n-gram pair's rows."""
    p.add_argument("--rounds", type=count(*ROUNDS_RANGE), default=sizes.ROUNDS,
                   help=f"rounds per profile, {ROUNDS_RANGE[0]:,} to {ROUNDS_RANGE[1]:,} (default: {sizes.ROUNDS:,})")
    p.add_argument("--texts", type=count(*TEXTS_RANGE), default=sizes.SEQUENCE_TEXTS,
                   help=f"texts for the sequence check, {TEXTS_RANGE[0]:,} to {TEXTS_RANGE[1]:,} (default: {sizes.SEQUENCE_TEXTS:,})")
    p.add_argument("--model", action="store_true",
                   help="also check the n-gram model pair of 'Watch it generate', counted from the prose, not from "
                        "your file: 18 more rows, which take most of a minute")
    p.add_argument("--generations", type=count(0, 100_000), default=sizes.REPEATS,
                   help=f"with --model: generations of the n-gram pair from each of its top contexts, 1 to 100,000 "
                        f"(default: {sizes.REPEATS:,}); without --model it changes nothing (0 is still accepted there)")
    p.add_argument("--content", help=f"the prose: the ids no profile may take, and what --model counts the n-gram "
                                     f"pair from (default: the clone's {CONTENT}/)")
    p.add_argument("--data", help=f"the profiles file (default: the clone's {DATA})")
    p.set_defaults(usage=p)  # for the one usage error that takes two options to see


# --- the parser and the entry points -------------------------------------------------------------------------

def command(sub: Any, name: str, run: Callable[..., int], summary: str) -> argparse.ArgumentParser:
    """Returns a new subcommand parser with --version, set to run `run`."""
    p = sub.add_parser(name, help=summary, description=summary)
    p.add_argument("--version", action="version", version=f"{PROG} {version()}")
    p.set_defaults(run=run)
    return p


def parser() -> argparse.ArgumentParser:
    """Returns the parser of every command and its options."""
    top = Parser(prog=PROG, description="Build, preview and check the speculative decoding explainer. "
                 "With no command, runs stats.")
    top.add_argument("--version", action="version", version=f"{PROG} {version()}")
    top.set_defaults(run=stats, data=None, content=None)
    sub = top.add_subparsers(title="commands", metavar="{build,serve,check,stats}", parser_class=Parser)
    build_options(command(sub, "build", build, "build site/index.html and site/trace.json from the inputs"), False)
    build_options(command(sub, "serve", build, "build, serve the page on 127.0.0.1 and rebuild on every save"), True)
    check_options(command(sub, "check", check, "run the suite's statistical checks of the sampler on your profiles "
                          "file (its profiles and the sequence toy); --model adds the rows of the generator's counted models"))
    p = command(sub, "stats", stats, "print each profile's α, E, P(N = n), speedup and frame count, exactly")
    p.add_argument("--data", help=f"the profiles file (default: the clone's {DATA})")
    p.add_argument("--content", help=f"the prose, whose ids no profile may take (default: the clone's {CONTENT}/)")
    return top


def main(argv: list[str] | None = None, out: TextIO | None = None, err: TextIO | None = None, rule: Any = None) -> int:
    """Runs the command line; returns the exit status. `rule` swaps the sampler's rule, for the tests only."""
    standard_streams()
    out, err = out or sys.stdout, err or sys.stderr

    def run() -> int:
        args = parser().parse_args(sys.argv[1:] if argv is None else argv)
        return check(args, out, err, rule) if args.run is check else args.run(args, out, err)
    return answered(PROG, "`.venv/bin/speculative`", out, err, run)


def build_py(argv: list[str] | None = None) -> int:
    """Runs `python build.py [--data F] [--out D] [--watch] [--serve [PORT]]`: the build command; returns its status."""
    standard_streams()

    def run() -> int:
        p = Parser(prog="build.py", description="Build the speculative decoding explainer: site/index.html "
                   "(self-contained) and site/trace.json.")
        build_options(p, False)
        return build(p.parse_args(sys.argv[1:] if argv is None else argv))
    return answered("build.py", "`.venv/bin/python build.py`", sys.stdout, sys.stderr, run)


class Stopped(KeyboardInterrupt):
    """SIGTERM before a command handles it itself (the build does, once it runs): unwinds as Ctrl-C does."""


@contextlib.contextmanager
def stopped_by_sigterm() -> Iterator[None]:
    """Makes SIGTERM raise Stopped while the command runs (in the main thread), then puts back the handler before."""
    def stop(signum: int, frame: object) -> None:
        raise Stopped()
    try:
        previous = signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main thread: signals are not ours to handle
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


def standard_streams() -> None:
    """Points sys.stdout (and sys.stderr) at os.devnull when the shell left nothing to write to: closed (`>&-`, and
    Python sets it to None) or open for reading only (`1</dev/null`, where every write fails with EBADF). The reader
    asked for no output, so the command runs as it would and exits with its own status, without a traceback."""
    for name in ("stdout", "stderr"):
        if not writable(getattr(sys, name)):
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115  # open until the process ends


def writable(stream: TextIO | None) -> bool:
    """Returns whether `stream` takes writes: False for None or a file descriptor writes fail on with EBADF; True for
    a stream with no descriptor (a test's StringIO) and for any other error, which the first write will meet."""
    if stream is None:
        return False
    try:
        os.write(stream.fileno(), b"")
    except OSError as error:  # io.UnsupportedOperation (no fileno) is an OSError too, with no errno
        return error.errno != errno.EBADF
    except ValueError:  # a closed Python stream
        return False
    return True


def answered(prog: str, then: str, out: TextIO, err: TextIO, run: Callable[[], int]) -> int:
    """Returns run()'s exit status, or 1 after one line for what stopped it: bad input, a missing dependency (with
    the command that installs it), or a reader that stopped reading the output."""
    try:
        with stopped_by_sigterm():
            code = run()
        out.flush()  # here, so a reader that stopped reading is met below and not at exit
        return code
    except KeyboardInterrupt as stop:  # Ctrl-C or SIGTERM before the build handles them (while it starts), or in check
        terminated = isinstance(stop, Stopped)
        print(f"{prog}: {'stopped' if terminated else 'interrupted'} before it finished; it wrote nothing",
              file=err, flush=True)
        return 143 if terminated else 130
    except OSError as error:  # `speculative stats | head -1`: the reader has all it wanted; or the output's
        if not isinstance(error, BrokenPipeError) and writable(out):  # descriptor was closed under the command
            raise
        if out is sys.stdout:  # print nothing more
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # Python's flush at exit would fail again
        return 1
    except ModuleNotFoundError as missing:  # run outside .venv: name the command that sets it up
        if (missing.name or "").split(".")[0] == "speculative":
            raise
        print(f"{prog}: found no module named {missing.name!r}; {SETUP.format(then=then)}", file=err, flush=True)
        return 1
    except Problems as error:
        print("\n".join(error.lines), file=err, flush=True)
        return 1

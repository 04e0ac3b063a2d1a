"""The command line: `speculative build | serve | check | stats`, each with --help and --version.

Installed as `speculative` by pyproject's [project.scripts], and run as `python -m speculative` too. This module
imports only the standard library at the top: each command imports what it needs when it runs, so --help,
--version and the hint for a missing dependency work before anything is installed.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import sys
import time
from pathlib import Path
from typing import Any, Callable, TextIO

from .errors import SETUP, InputError  # the standard library only, like this module

PROG = "speculative"
DATA = "data/profiles.v1.json"  # the data file and the prose, found in the clone this package lives in, from any folder
CONTENT = "content"
CHECKOUT = Path(__file__).resolve().parent.parent
ROUNDS_RANGE = (1_000, 100_000_000)  # rounds per profile: fewer reach no later position; more take hours
TEXTS_RANGE = (1_000, 100_000_000)  # texts for the sequence check, for the same reasons
GENERATIONS = 400  # lm_checks.REPEATS (a test keeps them equal)
DEFAULTS = (6_400_000, 1_000_000)  # the suite's checks.ROUNDS and checks.SEQUENCE_TEXTS (a test keeps them equal)
SETUP_HINT = SETUP.format(then="`.venv/bin/speculative`")
HEADER = f"{'check':<34} {'n':>11} {'p-value':>9} {'TV':>8} {'bound':>8} {'detectable':>10}  result"


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

    def error(self, message: str) -> None:
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


# --- check: the suite's statistical checks on the author's own file ------------------------------------------

class Progress:
    """A one-line progress bar on a terminal `stream`, drawn only between the table's rows: `clear()` wipes it
    before a row is printed (the bar and the table may share one terminal), `advance(step)` redraws it. On a
    stream that is no terminal (a file, a pipe) it draws nothing."""

    def __init__(self, total: int, stream: TextIO) -> None:
        self.total, self.stream, self.done, self.shown = total, stream, 0, False
        self.live = stream.isatty()

    def show(self, line: str, out: TextIO) -> None:
        """Prints a table row on `out`, the bar wiped first so no line holds both."""
        self.clear()
        print(coloured(line, out), file=out)

    def advance(self, step: int) -> None:
        if not self.live:
            return
        self.done += step
        filled = int(30 * min(self.done, self.total) / self.total)
        self.stream.write(f"\r[{'#' * filled}{' ' * (30 - filled)}] {min(self.done / self.total, 1):4.0%}")
        self.stream.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r\033[K")  # back to the line's start, and erase to its end
            self.stream.flush()
            self.shown = False


def coloured(line: str, stream: TextIO) -> str:
    """Returns a table row with its verdict green (ok) or red (FAIL) when `stream` is a terminal and NO_COLOR
    (no-color.org) is unset; the row as it is otherwise, so a file or a pipe gets plain text."""
    if not stream.isatty() or os.environ.get("NO_COLOR"):
        return line
    return re.sub(r"  (ok|FAIL)(\b.*)$", lambda m: f"  \033[{'32' if m.group(1) == 'ok' else '31'}m{m.group(1)}\033[0m"
                  f"{m.group(2)}", line)


def row(c: Any, categories: int) -> str:
    """Returns one table line of a checks.Check: its size, p-value, TV, bound, the TV it could detect, its verdict."""
    from . import checks

    if c.n == 0:
        verdict = "ok (unreached)" if c.ok else "FAIL unreached"  # at most 100 columns, as every row
        return f"{c.name:<34} {0:>11,} {'-':>9} {'-':>8} {'-':>8} {'-':>10}  {verdict}"
    # one token leaves nothing to tell apart: no error is possible, so none is detectable ("-", not nan)
    seen = f"{checks.detectable_tv(c.n, categories):>10.5f}" if categories > 1 else f"{'-':>10}"
    verdict = "ok" if c.ok else "FAIL"
    return f"{c.name:<34} {c.n:>11,} {c.p_value:>9.2e} {c.tv:>8.5f} {c.bound:>8.5f} {seen}  {verdict}"


def run_checks(path: str, rounds: int, texts: int, out: TextIO, err: TextIO, rule: Any = None,
               generations: int = 0, content: str = "content") -> bool:
    """Prints one row per check of every profile in `path`, of the toy's sequences and, with `generations`, of the
    n-gram pair counted from the prose in `content`; returns whether every row passed."""
    import numpy as np

    from . import checks, sampler
    from .analysis import arrays
    from .profiles import load

    swapped, rule = rule, rule or sampler.RULE
    data = load(path)
    rng = np.random.default_rng(checks.SEED)
    bar = Progress(rounds * len(data.profiles) + texts, err)
    print(f"{path}: {len(data.profiles)} profile(s), {rounds:,} rounds each; a check fails below "
          f"p = {checks.P_MIN:g} or above its TV bound. 'detectable' is the TV error caught with "
          f"probability {checks.POWER:.0%}; 'unreached': the rule never reaches that position.\n", file=out)
    print(HEADER, file=out)
    printed: list[checks.Check] = []  # every row printed: the exit status is the conjunction of all of them
    for profile in data.profiles:
        t, d, b = arrays(data, profile)
        for c in checks.profile_checks(t, d, b, rounds, rng, rule, name=profile.id, progress=bar.advance if bar.live else None):
            bar.show(row(c, len(b) if "position" in c.name else len(t) + 1), out)
            printed.append(c)
    start = time.perf_counter()
    seq = checks.sequence_check(checks.TOY, texts, rng, rule)
    bar.advance(texts)
    bar.show(row(seq, len(checks.TOY.vocabulary) ** checks.SEQUENCE_LENGTH), out)
    bar.clear()
    printed.append(seq)
    print(f"\n(that row: the built-in context-dependent toy, a vocabulary of {len(checks.TOY.vocabulary)}, "
          f"{texts:,} texts in {time.perf_counter() - start:.1f} s)", file=out)
    if generations:
        printed += model_pair_rows(data, content, generations, out, swapped)
    for problem in checks.problems(printed):
        print(f"failed: {problem}", file=out)
    return all(c.ok for c in printed)


def model_pair_rows(data: Any, content: str, generations: int, out: TextIO, rule: Any = None) -> list[Any]:
    """Prints and returns the model pair's rows: every draft, verification rule and k, from the prose's top contexts."""
    from . import language, lm_checks, prose, sampler, text
    from .sections import ContentError, parse_sections

    folder = Path(content)
    texts = {}
    for p in sorted(folder.glob("*.md")) if folder.is_dir() else []:
        texts[str(p)] = read_text(p)
    try:
        tokens = prose.corpus(s.body for s in parse_sections(texts, content))
    except ContentError as error:
        raise NoCheckout("\n".join(error.lines())) from None
    problem = prose.corpus_problem(tokens)
    if problem:
        raise NoCheckout(f"{content}: {problem}")
    run = language.explain(tokens, data.language_model, data.cost)
    start = time.perf_counter()
    rows = lm_checks.language_checks(run, generations, rules={"accept-test": rule} if rule else sampler.RULES)
    print("", file=out)
    for c in rows:
        print(coloured(row(c, 1), out), file=out)
    print(f"\n(those rows: the n-gram pair counted from {content}/, {len(run.ids):,} tokens and {len(run.vocab):,} "
          f"distinct; at temperature 1, the first two tokens of {generations:,} generations from each of the "
          f"{text.count(len(run.top_contexts[:lm_checks.CONTEXTS]), 'most frequent context')}, against the target's "
          f"own, in {time.perf_counter() - start:.1f} s)", file=out)
    return rows


def read_text(path: Path) -> str:
    """Returns a section file's text by the build's reader."""
    from .errors import decode
    from .reading import read_bytes

    return decode(read_bytes(path), str(path))


def in_checkout(given: str | None, relative: str, what: str, option: str) -> str:
    """Returns the input a command reads: the path given, or the one in the clone this package lives in (shown
    relative to the current folder when it is under it), so the commands find it the way build does from any
    folder. Raises NoCheckout, naming the folder it expected, when the clone's own is not there."""
    if given is not None:
        return given
    path = CHECKOUT / relative
    if not path.exists():
        raise NoCheckout(f"{path}: found no such {what}; expected the clone of the project this package was installed "
                         f"from, which holds {relative} beside speculative/ (or give one with {option})")
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def check(args: argparse.Namespace, out: TextIO, err: TextIO, rule: Any = None) -> int:
    """Runs the check command; returns 0 when every printed row passed, else 1."""
    data, content = in_checkout(args.data, DATA, "file", "--data"), in_checkout(args.content, CONTENT, "folder", "--content")
    return 0 if run_checks(data, args.rounds, args.texts, out, err, rule, args.generations, content) else 1


# --- stats: each profile's exact figures ---------------------------------------------------------------------

def report(path: str) -> str:
    """Returns the statistics of every profile in `path` as plain text."""
    from .analysis import explain
    from .profiles import load
    from .text import decimal_str

    ex = explain(load(path))
    cost = ex.data.cost
    lines = [f"{path}: {len(ex.data.vocabulary)} tokens, k = {ex.data.k} positions; "
             f"assumed cost: draft step {cost.draft_step}, verification {cost.verify_round} target step(s)"]
    for r in ex.results:
        s = r.stats
        rows = [
            ("alpha_i", "  ".join(str(a) for a in s.alphas)),
            (f"P(N=n), n=1..{ex.data.k + 1}", "  ".join(str(p) for p in s.distribution)),
            ("E tokens/round", f"{s.expected} = {decimal_str(s.expected)} (from P(N=n): {s.expected_from_distribution})"),
            ("speedup", f"({s.expected}) / ({s.round_cost}) = {decimal_str(s.speedup)}x"),  # a fraction over a fraction
            ("frames", str(len(r.frames))),
        ]
        width = max(len(label) for label, _ in rows) + 2
        lines += ["", f"{r.profile.id} ({r.profile.name})", *(f"  {label:<{width}}{value}" for label, value in rows)]
    return "\n".join(lines)


def stats(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Prints each profile's exact statistics; returns 0."""
    print(report(in_checkout(args.data, DATA, "file", "--data")), file=out)
    return 0


# --- build and serve: build.py, the one module that writes site/ ---------------------------------------------

class NoCheckout(Exception):
    """An input the command needs is not there or is refused (build.py beside the package, the prose): the message
    says which."""


def build_module() -> Any:
    """Returns build.py, loaded from the checkout this package lives in."""
    path = CHECKOUT / "build.py"
    if not path.is_file():
        raise NoCheckout(f"{path}: found no such file; expected build.py beside the speculative/ folder, "
                         "as in a clone of the project (bash scripts/build.sh installs it from there)")
    loaded = sys.modules.get("build")
    if loaded is not None and Path(getattr(loaded, "__file__", None) or "").resolve() == path:
        return loaded  # already imported, as the tests do: one module, so what they patch is what runs
    name = "build" if loaded is None else "speculative_build"  # never shadow another package named build
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def paths(args: argparse.Namespace) -> list[str]:
    """Returns build.py's --data and --out options for the ones given."""
    return [*(["--data", args.data] if args.data else []), *(["--out", args.out] if args.out else [])]


def build(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Builds site/ once, or on every save with --watch; returns build.py's exit code."""
    return build_module().main([*paths(args), *(["--watch"] if args.watch else [])])


def serve(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Builds, serves the output folder on 127.0.0.1 and rebuilds on every save; returns build.py's exit code."""
    return build_module().main([*paths(args), "--watch", "--serve", str(args.port)])


# --- the parser and the entry point --------------------------------------------------------------------------

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
    top.set_defaults(run=stats, data=None)
    sub = top.add_subparsers(title="commands", metavar="{build,serve,check,stats}", parser_class=Parser)
    for name, run, summary in [("build", build, "build site/index.html and site/trace.json from the inputs"),
                               ("serve", serve, "build, serve the page on 127.0.0.1 and rebuild on every save")]:
        p = command(sub, name, run, summary)
        p.add_argument("--data", help=f"the profiles file (default: {DATA})")
        p.add_argument("--out", help="the output folder (default: site/)")
        if name == "build":
            p.add_argument("--watch", action="store_true", help="rebuild on every save under data/, content/ or templates/")
        else:
            p.add_argument("--port", type=count(0, 65535), default=8000, help="the port (default: 8000; 0 picks a free one)")
    p = command(sub, "check", check, "run the suite's statistical checks of the sampler on your profiles file")
    p.add_argument("--rounds", type=count(*ROUNDS_RANGE), default=DEFAULTS[0],
                   help=f"rounds per profile, {ROUNDS_RANGE[0]:,} to {ROUNDS_RANGE[1]:,} (default: {DEFAULTS[0]:,})")
    p.add_argument("--texts", type=count(*TEXTS_RANGE), default=DEFAULTS[1],
                   help=f"texts for the sequence check, {TEXTS_RANGE[0]:,} to {TEXTS_RANGE[1]:,} (default: {DEFAULTS[1]:,})")
    p.add_argument("--generations", type=count(0, 100_000), default=GENERATIONS,
                   help=f"generations of the n-gram pair from each of its top contexts, 0 to 100,000; 0 skips its rows "
                        f"(default: {GENERATIONS:,})")
    p.add_argument("--content", help=f"the prose the n-gram pair is counted from (default: the clone's {CONTENT}/)")
    p.add_argument("--data", help=f"the profiles file (default: the clone's {DATA})")
    p = command(sub, "stats", stats, "print each profile's α, E, P(N = n), speedup and frame count, exactly")
    p.add_argument("--data", help=f"the profiles file (default: the clone's {DATA})")
    return top


def main(argv: list[str] | None = None, out: TextIO | None = None, err: TextIO | None = None, rule: Any = None) -> int:
    """Runs the command line; returns the exit status. `rule` swaps the sampler's rule, for the tests only."""
    out, err = out or sys.stdout, err or sys.stderr
    args = parser().parse_args(sys.argv[1:] if argv is None else argv)
    try:
        code = check(args, out, err, rule) if args.run is check else args.run(args, out, err)
        out.flush()  # here, so a reader that stopped reading is met below and not at exit
        return code
    except BrokenPipeError:  # `speculative stats | head -1`: the reader has all it wanted; print nothing more
        if out is sys.stdout:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # Python's flush at exit would fail again
        return 1
    except ModuleNotFoundError as missing:  # run outside .venv: name the command that sets it up
        if (missing.name or "").split(".")[0] in ("speculative", "build"):
            raise
        print(f"{PROG}: found no module named {missing.name!r}; {SETUP_HINT}", file=err)
        return 1
    except NoCheckout as error:
        print(str(error), file=err)
        return 1
    except InputError as error:
        print("\n".join(error.lines()), file=err)
        return 1

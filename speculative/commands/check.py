"""The check and stats commands: the suite's statistical checks of the sampler, and each profile's exact figures,
on an author's own profiles file, printed as a table (with a progress bar on a terminal, and the verdicts in
colour unless NO_COLOR is set)."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from .. import checks, language, lm_checks, prose, sampler, text
from ..analysis import arrays, explain
from ..checkout import shown
from ..dataset import Dataset
from ..errors import Problems
from ..pipeline import id_owners, listed, read_all, reserved_ids
from ..profiles import load
from ..rules import sampling_rules
from ..sections import Section, parse_sections
from ..text import decimal_str

HEADER = f"{'check':<34} {'n':>11} {'p-value':>9} {'TV':>8} {'bound':>8} {'detectable':>10}  result"


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
    if c.n == 0:
        verdict = "ok (unreached)" if c.ok else "FAIL unreached"  # at most 100 columns, as every row
        return f"{c.name:<34} {0:>11,} {'-':>9} {'-':>8} {'-':>8} {'-':>10}  {verdict}"
    # one token leaves nothing to tell apart: no error is possible, so none is detectable ("-", not nan)
    seen = f"{checks.detectable_tv(c.n, categories):>10.5f}" if categories > 1 else f"{'-':>10}"
    verdict = "ok" if c.ok else "FAIL"
    return f"{c.name:<34} {c.n:>11,} {c.p_value:>9.2e} {c.tv:>8.5f} {c.bound:>8.5f} {seen}  {verdict}"


def run_checks(path: str, rounds: int, texts: int, out: TextIO, err: TextIO, rule: Any = None,
               generations: int = 0, content: str = "content") -> bool:
    """Prints one row per check of every profile in `path`, of the toy's sequences and, with `generations` (the
    command's --model), of the n-gram pair counted from the prose in `content`; returns whether every row passed."""
    swapped, rule = rule, rule or sampler.RULE
    data, sections = page_data(path, content)
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
    printed += tree_rows(data, max(1_000, rounds // checks.TREE_SHARE), rng, out)
    if generations:
        printed += model_pair_rows(data, content, sections, generations, out, swapped)
    else:
        print("(the page's n-gram model pair, counted from the prose and not from your file, is checked with --model)",
              file=out)
    for problem in checks.problems(printed):
        print(f"failed: {problem}", file=out)
    return all(c.ok for c in printed)


def tree_rows(data: Dataset, draws: int, rng: np.random.Generator, out: TextIO) -> list[checks.Check]:
    """Prints and returns the rows of several candidates per position (speculative trees): every profile's positions
    verified with 2 and 3 candidates, drawn with and without replacement, each against the target's p."""
    start, rows = time.perf_counter(), []
    print("", file=out)
    for profile in data.profiles:
        t, d, _ = arrays(data, profile)
        for c in checks.tree_checks(t, d, draws, rng, name=profile.id):
            print(coloured(row(c, t.shape[-1]), out), file=out)
            rows.append(c)
    print(f"\n(those rows: each position verified with m candidates, drawn from the draft with or without replacement "
          f"and checked against a shrinking residual; {draws:,} draws each, the committed token against the target's "
          f"p, in {time.perf_counter() - start:.1f} s)", file=out)
    return rows


def page_data(path: str, content: str | None) -> tuple[Dataset, list[Section]]:
    """Returns the data file and the sections in `content` (none when it is not given or not a folder), validated as
    the build validates them: no profile id may take an id the page uses (the figures', the sections'). Raises
    Problems listing the data file's problems, then the sections'."""
    folder = Path(content) if content else None
    sections: list[Section] = []
    lines: list[str] = []
    if folder and folder.is_dir():  # read and listed as the build reads and lists it
        texts, lines = read_all(listed(folder, ".md"), folder)
        try:
            sections = parse_sections(texts, shown(folder))
        except Problems as error:
            lines += error.lines
    try:
        data = load(path, reserved=reserved_ids(sections), owners=id_owners(sections))
    except Problems as error:
        raise Problems(error.lines + lines) from None
    if lines:
        raise Problems(lines)
    return data, sections


def model_pair_rows(data: Any, content: str, sections: list[Section], generations: int, out: TextIO,
                    rule: Any = None) -> list[Any]:
    """Prints and returns the model pair's rows: every draft, verification rule and k, from the prose's top contexts."""
    tokens = prose.corpus(s.body for s in sections)
    problem = prose.corpus_problem(tokens)
    if problem:
        raise Problems([f"{content}: {problem}"])
    run = language.explain(tokens, data.language_model, data.cost)
    start = time.perf_counter()
    rows = lm_checks.language_checks(run, generations, rules={"accept-test": rule} if rule else sampling_rules())
    if rule is None:  # several candidates per position, with and without replacement: the correct ways' own rows
        rows += lm_checks.tree_language_checks(run, generations)
    print("", file=out)
    for c in rows:
        print(coloured(row(c, 1), out), file=out)
    print(f"\n(those rows: the n-gram pair counted from {content}/, {len(run.ids):,} tokens and {len(run.vocab):,} "
          f"distinct; at temperature 1, the first two tokens of {generations:,} generations from each of the "
          f"{text.count(len(run.top_contexts[:lm_checks.CONTEXTS]), 'most frequent context')}, against the target's "
          f"own, in {time.perf_counter() - start:.1f} s)", file=out)
    return rows


def report(path: str, content: str | None = None) -> str:
    """Returns the statistics of every profile in `path` (validated against the page's ids, with the sections in
    `content`) as plain text."""
    ex = explain(page_data(path, content)[0])
    cost = ex.data.cost
    lines = [f"{path}: {len(ex.data.vocabulary)} tokens, k = {ex.data.k} positions; "
             f"assumed cost: draft step {cost.draft_step}, verification {cost.verify_round} target pass(es)"]
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


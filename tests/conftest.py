"""Shared fixtures: the shipped data, exact random distributions, and the browser set-up."""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from speculative import prose
from speculative.analysis import Explained, explain
from speculative.dataset import Dataset
from speculative.profiles import parse
from speculative.sections import parse_sections

from . import valid_data

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data" / "profiles.v1.json"
# A valid profiles file with known text: the shipped file as it was on 2026-12-03. The loader's tests corrupt it by
# line, column and exact text, so they stay the same whatever an author puts in data/profiles.v1.json.
FIXTURE = ROOT / "tests" / "fixtures" / "profiles.v1.json"

# The shipped data's figures, worked out by hand from data/profiles.v1.json (docs/figures.md shows the working):
# alpha per position, E = 1 + a1 + a1*a2 + ... (Leviathan et al. 2023, eq. 1), the speedup E / (k*c + 1)
# under the assumed cost c = 1/10 of a target pass per draft step, and the player's frame count
# (1 propose + one verify per checked position + 1 bonus if all pass + 1 done).
FIGURES = {
    "aligned": {"alphas": "3/4 7/8 7/8 7/8 7/8", "expected": "3.92", "speedup": "2.62", "frames": 8},
    "divergent": {"alphas": "3/4 1/2 5/8 3/4 1/2", "expected": "2.62", "speedup": "1.75", "frames": 5},
    "overconfident": {"alphas": "7/8 7/8 5/8 7/8 3/4", "expected": "3.85", "speedup": "2.57", "frames": 5},
}


# Slow tests in modules other sessions own, marked here so those files stay as they are (the marks belong in the
# files themselves when they next change): the first runs the whole build once per case of the broken-data corpus,
# which the loader's own tests cover case by case; the others start build.py processes and wait for them.
SLOW_ELSEWHERE = (
    "tests/test_publish.py::test_every_broken_data_file_is_refused_with_the_loaders_lines",
    "tests/test_publish.py::test_concurrent_builds_take_turns_and_leave_one_complete_site",
    "tests/test_publish.py::test_serve_answers_every_request_with_a_complete_page_during_50_rebuilds",
    "tests/test_publish.py::test_stopping_a_build_while_it_writes_leaves_the_site_and_nothing_else",
    "tests/test_publish.py::test_a_second_build_waits_for_the_lock_then_publishes",
    "tests/test_watch.py::test_watch_survives_every_failure_and_rebuilds_when_the_file_is_good",
    "tests/test_watch.py::test_watch_rebuilds_on_save_and_keeps_the_last_good_site_on_bad_data",
    "tests/test_watch.py::test_watch_with_serve_builds_once_then_serves",
    "tests/test_watch.py::test_serve_previews_the_site_on_loopback",
    "tests/test_build.py::test_two_builds_are_byte_identical",
    "tests/test_build.py::test_help_names_the_options",
)


def pytest_configure(config) -> None:
    """Gives the suite Ctrl-C as a terminal gives it: a shell that starts a command in the background without job
    control (`cmd &` in a script) starts it with SIGINT ignored, which its children inherit, and then the tests of
    how a build answers Ctrl-C would see nothing. Runs in every xdist worker too."""
    import signal

    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


# The longest single tests, started first: xdist hands tests out in collection order, so a long test collected late
# leaves the other worker idle at the end of the run.
LONGEST_FIRST = ("tests/test_lab.py::test_eighths_gives_the_analysis_facts_at_every_shipped_position_and_5000_random_pairs",
                 "tests/test_player.py::test_every_replacement_and_bonus_strip_shows_the_recorded_draw_in_its_tokens_segment_clear_of_the_ends_at_360px")


# The shipped data file, recognised by its content rather than its name: the SHA-256 of its canonical JSON (keys
# sorted, no spaces), so re-indenting it changes nothing. The tests of its hand-worked figures (docs/figures.md)
# carry the mark `shipped`; when data/profiles.v1.json holds an author's own file they are skipped, with one line
# saying why, and everything that must hold for any valid file still runs on it. After a deliberate change to the
# shipped file, set this to what `canonical_sha256(DATA)` prints (test_conftest's guard says so when it is stale).
SHIPPED_SHA256 = "a3995c574f75d9c9c8fb21f72c4393b0fd957477332a2f201a590a237f133855"


def canonical_sha256(path: Path) -> str:
    import hashlib

    raw = json.loads(path.read_text(encoding="utf-8-sig"))
    return hashlib.sha256(json.dumps(raw, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()).hexdigest()


def data_is_shipped() -> bool:
    try:
        return canonical_sha256(DATA) == SHIPPED_SHA256
    except (OSError, ValueError):
        return False


@functools.cache
def _shipped_dataset() -> Dataset | None:
    return parse(DATA.read_text(encoding="utf-8"), str(DATA)) if data_is_shipped() else None


def is_shipped(dataset: Dataset) -> bool:
    """Returns whether `dataset` is the shipped file's: for a test that holds for any file and also checks a shipped
    figure, which it may only check on the shipped file."""
    return dataset == _shipped_dataset()


NOT_SHIPPED = ("data/profiles.v1.json is not the file this project ships (its content differs): this test checks "
               "the shipped file's hand-worked figures (docs/figures.md)")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    dataset = data_is_shipped()
    for item in items:
        if item.nodeid.split("[")[0] in SLOW_ELSEWHERE:
            item.add_marker(pytest.mark.slow)
        if not dataset and item.get_closest_marker("shipped") is not None:
            item.add_marker(pytest.mark.skip(reason=NOT_SHIPPED))
    items.sort(key=lambda item: item.nodeid.split("[")[0] not in LONGEST_FIRST)  # stable: the rest keep their order


# The test modules of the rule and the exact statistics, which must reach full branch coverage of sampler.py and
# stats.py on their own (scripts/test.sh checks it), and with their fast tests alone. Coverage's tracer is paused for
# every other test and every slow one: it slows every Python call by about half (the loader's and Playwright's code
# most), and those tests only repeat, at length, paths the fast tests of these modules already take.
MEASURED = {"test_sampler.py", "test_stats.py", "test_rules.py", "test_checks.py", "test_memory.py",
            "test_analysis.py", "test_oracle.py", "test_frames.py"}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item):  # set-up, body and tear-down: the bar counts the measured modules alone
    import sys

    running = []  # every started Coverage, innermost first: an xdist worker runs two, one inside the other
    if "coverage" in sys.modules and (item.path.name not in MEASURED or item.get_closest_marker("slow") is not None):
        while (cov := sys.modules["coverage"].Coverage.current()) is not None:
            cov.stop()
            running.append(cov)
    try:
        yield
    finally:
        for cov in reversed(running):
            cov.start()


# The any-data tier. Every test that does not check the shipped file's hand-worked figures must hold for any valid
# data file, so the data fixtures (data_file, dataset, explained, built_site, trace, page_text) are parametrised over
# data/profiles.v1.json ("data-file", whatever it holds) and the valid files tests/valid_data.py generates from the
# loader's limits. A test that assumes a shipped number then fails here, on the developer's own machine, instead of
# blocking an author's page from publishing. The tests of the shipped file's figures carry the mark `shipped` and
# run on data-file alone (skipped when it is not the shipped file), as do the tests of what the data does not change
# (publishing, serving, the prose's and templates' checks: mark `data_independent`). Browser tests load data-file's page alone, as
# each load costs about a second; tests/test_any_data_page.py (mark `every_file`) loads every generated file's page.
# The comparisons of a script's arithmetic with Python's (mark `script_twin`) run the templates' scripts in Node, the
# same engine and source as the page's, on data-file alone, as they did in the browser.
# The fast tier (scripts/test.sh --fast sets TEST_TIER=fast) takes the smallest and the largest generated files and a
# first-time author's three edits at once (a draft in sixths beside a target in 24ths), so the edit loop stays quick; the full test command takes them all.
# Slow tests (statistical power, fresh processes) and the HTML checker's (a Java start of about 2 s per page) take the
# same few files in every tier: the edits and the generated files' range of shapes.
DATA_FILES = ("data-file", *valid_data.NAMES_OF_FILES)
# The share of their random cases the comparisons of a script with Python take (mark `script_twin`): a tenth in the
# fast tier, where a wrong line still shows (it shows in many of the pairs), all of them in the full run.
RANDOM_SHARE = 10 if os.environ.get("TEST_TIER") == "fast" else 1
FEW_DATA_FILES = ("data-file", "all-at-once", "generated-0", "generated-1")
if os.environ.get("TEST_TIER") == "fast":
    DATA_FILES = FEW_DATA_FILES


def pytest_generate_tests(metafunc) -> None:
    if "data_file" not in metafunc.fixturenames:
        return
    marked = metafunc.definition.get_closest_marker
    one = (marked("shipped") or marked("data_independent") or marked("script_twin")
           or (marked("browser") and not marked("every_file")))
    files = DATA_FILES[:1] if one else FEW_DATA_FILES if marked("slow") or marked("validator") else DATA_FILES
    metafunc.parametrize("data_file", files, indirect=True, scope="session")


@pytest.fixture(scope="session")
def data_file(request, tmp_path_factory) -> Path:
    """Returns the path of the data file a test runs on: data/profiles.v1.json, or a generated valid file."""
    if request.param == "data-file":
        return DATA
    return valid_data.write_variant(request.param, FIXTURE, tmp_path_factory.mktemp(request.param) / "profiles.v1.json")


# The shares of the checks' rounds a broken sampler or rule is tried at, in turn: a hundredth, a tenth, then all.
SHARES = (100, 10, 1)


@pytest.fixture(scope="session")
def full_size(data_file) -> int:
    """Returns the share of the statistical checks' sizes a run takes: 1 (the full size) on data/profiles.v1.json,
    10 (a tenth) on a generated file. The suite runs the correct sampler at full size once; the generated files show
    that nothing breaks on other valid shapes, which a tenth of the rounds shows as well."""
    return 1 if data_file == DATA else 10


@pytest.fixture(scope="session")
def dataset(data_file) -> Dataset:
    return parse(data_file.read_text(encoding="utf-8"), str(data_file))


def shipped_corpus() -> tuple[str, ...]:
    """Returns the tokens of the shipped prose (content/*.md), which the generator's models are counted from."""
    texts = {str(p): p.read_text(encoding="utf-8") for p in sorted((ROOT / "content").glob("*.md"))}
    return prose.corpus(s.body for s in parse_sections(texts, "content"))


@pytest.fixture(scope="session")
def corpus() -> tuple[str, ...]:
    return shipped_corpus()


@pytest.fixture(scope="session")
def explained(dataset, corpus) -> Explained:
    """Returns the analysis of the data file and the shipped prose, computed once per session and file."""
    return explain(dataset, corpus)


def edited_data(folder: Path, edit: Callable[[dict], None], name: str = "edited.json") -> Path:
    """Returns the path of a copy of the known data file (FIXTURE, the shipped file as it was) after
    `edit(raw_json)` changed it in place: an edit names places in that file, whatever data/profiles.v1.json holds."""
    raw = json.loads(FIXTURE.read_text(encoding="utf-8"))
    edit(raw)
    path = folder / name
    path.write_text(json.dumps(raw, ensure_ascii=False), encoding="utf-8")
    return path


def overfull(raw: dict) -> dict:
    """Returns raw (a data file's JSON) with 1/8 added to the target's first cell, in place: whatever the file's
    denominators, position 1 of the target then sums to 9/8, which the build refuses."""
    raw["target"][0][0] = str(Fraction(raw["target"][0][0]) + Fraction(1, 8))
    return raw


OVERFULL = "target[0] (the target, position 1): sums to 9/8; each distribution must sum to 1"  # what the build says


@pytest.fixture(autouse=True)
def own_build_cache(tmp_path_factory, monkeypatch):
    """Gives each test worker its own .cache/ for in-process builds, so two builds on two cores never wait on one
    lock or share one analysis cache; a test that needs a particular .cache/ sets checkout.CACHE itself."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker:
        from speculative import checkout

        monkeypatch.setattr(checkout, "CACHE", tmp_path_factory.getbasetemp() / f"cache-{worker}")


@pytest.fixture
def run_build(capsys):
    """Returns a function that runs build.main(argv) in this process and gives (exit code, stdout, stderr)."""
    import build

    def run(*argv: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = build.main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err
    return run


def random_dist(rng: np.random.Generator, size: int, zeros: bool = True) -> tuple[Fraction, ...]:
    """Returns an exact random distribution over `size` tokens, with a random denominator and some zeros."""
    denom = int(rng.integers(2, 64))
    weights = rng.dirichlet(np.full(size, 0.7))
    if zeros and size > 1:
        weights[rng.random(size) < 0.2] = 0
        if weights.sum() == 0:
            weights[rng.integers(size)] = 1
    counts = rng.multinomial(denom, weights / weights.sum())
    return tuple(Fraction(int(c), denom) for c in counts)


def agreement_profile(rng: np.random.Generator, size: int, k: int) -> tuple[list, list, tuple]:
    """Returns (target [k][V], draft [k][V], bonus [V]) in exact fractions, with agreement varying by position."""
    target = [random_dist(rng, size) for _ in range(k)]
    draft = []
    for p in target:
        w = Fraction(int(rng.integers(0, 9)), 8)  # 1 = the draft copies the target, 0 = unrelated
        r = random_dist(rng, size)
        draft.append(tuple(w * a + (1 - w) * b for a, b in zip(p, r, strict=True)))
    return target, draft, random_dist(rng, size)


def as_float(rows) -> np.ndarray:
    return np.array([[float(x) for x in row] for row in rows])


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Use CHROMIUM_PATH, or a system chromium, when there is one; else Playwright's own download."""
    path = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or shutil.which("chromium-browser")
    args = dict(browser_type_launch_args)
    if path:
        args["executable_path"] = path
    args["args"] = [*args.get("args", []), "--disable-background-networking", "--disable-component-update",
                    "--no-first-run", "--disable-sync"]
    return args


@pytest.fixture(scope="session")
def built_site(tmp_path_factory, data_file) -> Path:
    """Builds the data file into a fresh folder once per test session and file, and returns that folder."""
    from speculative import pipeline, publish

    out = tmp_path_factory.mktemp("site") / "site"
    publish.write_atomic(out, pipeline.build_files(data_file, ROOT / "content", ROOT / "templates"))
    return out


@pytest.fixture(scope="session")
def page_text(built_site) -> str:
    """Returns the built page's text as a reader without scripting reads it: tags gone, spaces collapsed."""
    import re
    from html import unescape

    html = (built_site / "index.html").read_text(encoding="utf-8")
    html = re.sub(r"<script.*?</script>|<style>.*?</style>", "", html, flags=re.S)
    return " ".join(unescape(re.sub(r"<[^>]+>", "", html)).split())


@pytest.fixture(scope="session")
def page_url(built_site) -> str:
    """Returns the file:// address of the built page."""
    return (built_site / "index.html").as_uri()


@pytest.fixture(scope="session")
def trace(built_site) -> dict:
    """Returns the built trace.json, parsed."""
    return json.loads((built_site / "trace.json").read_text(encoding="utf-8"))


@pytest.fixture
def project(tmp_path) -> Path:
    """Returns a fresh folder holding a copy of data/, content/ and templates/ that a test may edit."""
    for name in ("data", "content", "templates"):
        shutil.copytree(ROOT / name, tmp_path / name)
    return tmp_path


def shipped_profiles(data: Dataset) -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray]]:
    """Returns (id, target [k, V], draft [k, V], bonus [V]) as floats for each profile of `data`."""
    from speculative.analysis import arrays

    return [(profile.id, *arrays(data, profile)) for profile in data.profiles]


def closed_form(data: Dataset, profile, uniforms: tuple[float, ...]) -> int:
    """Returns the walkthrough's frame count worked out by hand: 1 propose + one verify per position up to the first
    failed check + the bonus if none failed + 1 done. A check fails when its accept probability min(1, p/q) is 0, or,
    where chance decides (0 < p/q < 1), when its recorded draw u is not below p/q."""
    for i, x in enumerate(profile.proposals):
        accept = min(1, data.target[i][x] / profile.draft[i][x])
        if accept == 0 or (accept < 1 and Fraction(uniforms[i]) >= accept):
            return 1 + (i + 1) + 1
    return 1 + data.k + 1 + 1


def script_source(*names: str) -> str:
    """Returns the named files of templates/js/ joined as the page joins them (render.joined_source), for a test to run
    their functions in a page on their own; the last file stands outside a block, so the test sees its own names."""
    from speculative.render import joined_source

    texts = [(ROOT / "templates" / "js" / name).read_text(encoding="utf-8") for name in names]
    return joined_source(texts[:-1]) + texts[-1]


def axe_violations(page, context: str | list | None = None) -> list[str]:
    """Returns every accessibility violation axe-core finds on the page (or in `context`: a selector, or a list of
    them), one line per element.

    axe-core comes from axe-playwright-python, injected once per page; only the violations come back, as one JSON
    string, since Playwright's own serialisation of axe's whole result object takes seconds."""
    from axe_playwright_python.sync_playwright import Axe

    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(Axe().axe_script)
    include = None if context is None else {"include": [[c] for c in ([context] if isinstance(context, str) else context)]}
    found = json.loads(page.evaluate("""async context => {
        const r = await axe.run(context || document, { resultTypes: ['violations'] });
        return JSON.stringify(r.violations.map(v => v.nodes.map(n => `${v.id}: ${n.target} ${v.help}`)).flat()); }""",
                                     include))
    return found


STARTED_JS = """() => document.readyState === 'complete' && (document.documentElement.hasAttribute('data-started')
  || !document.documentElement.classList.contains('js'))"""


class Pages:
    """Lends the browser tests pages of one browser context per test worker, and takes them back.

    A new context costs about 0.7 s of CPU (its renderer process and set-up: measured by loading a near-empty page
    in 20 new contexts, then 20 times in one kept page), a navigation in a kept page about 0.1 s, so a page is kept
    between tests. Each test still gets a new document: a page given back goes to about:blank first, so the next
    test's goto loads the page afresh even when only the fragment differs. A page whose viewport or emulated media a
    test changed gets them back as they were (a new page costs about 0.3 s of CPU, resetting them a tenth of that);
    a page on which a test changed anything else a new document keeps (an init script, a listener, a route, headers)
    is closed instead of lent again. The clock belongs to the context, so a test that installs it opens a context of
    its own.

    Every page lent records what its documents report as errors, uncaught exceptions (`pageerror`) and console
    messages of type error, in `page.pool_errors`; give_back returns them all, and the `pages` fixture fails the test
    that saw any unless it is marked `allow_page_errors`.
    """

    KEPT = ("add_init_script", "on", "once", "route", "expose_function", "expose_binding", "emulate_media",
            "set_viewport_size", "set_extra_http_headers")
    RESET = {  # the class's own methods, not the page's marking wrappers: a reset is no change
        "emulate_media": lambda page: type(page).emulate_media(page, color_scheme="null", contrast="null",
                                                               forced_colors="null", media="null", reduced_motion="null"),
        "set_viewport_size": lambda page: type(page).set_viewport_size(page, page.pool_viewport)}

    def __init__(self, browser) -> None:
        self.browser, self.context, self.idle, self.lent = browser, None, {}, []

    def open(self, url: str | None = None, init: str | None = None):
        """Returns a page with `init` run before every document (kept pages are reused per init), at `url`."""
        if self.context is None:
            self.context = self.browser.new_context()
        page = self.idle.pop(init, None)
        if page is None or page.is_closed():
            page = self.context.new_page()
            if init:
                page.add_init_script(init)
            self._recording(page)
        page.pool_init, page.pool_changed, page.pool_viewport = init, set(), page.viewport_size
        page.pool_errors = []
        for name in self.KEPT:
            setattr(page, name, self._marking(page, getattr(type(page), name)))
        page.close = lambda *a, **k: None  # given back when the test ends
        page.goto = self._started(page)
        page.bring_to_front()  # a page behind another is a background tab: its timers and frames are throttled
        self.lent.append(page)
        if url:
            page.goto(url)
        return page

    @staticmethod
    def _started(page):
        """Returns the page's goto, which, once the document has loaded, also waits for the built page's figures to
        start and its held parts (charts) to join (the root's data-started; boot.js), or for a page whose script did
        not start (no trace, or another page): what a test then measures is not moved by a part joining late on a
        loaded machine."""
        def goto(url: str, **kwargs):
            response = type(page).goto(page, url, **kwargs)
            if kwargs.get("wait_until", "load") == "load":
                page.wait_for_function(STARTED_JS)
            return response
        return goto

    @staticmethod
    def _recording(page) -> None:
        """Listens, once per page and for as long as it lives, for the errors its documents report."""
        def console(message) -> None:
            if message.type == "error":
                where = message.location
                page.pool_errors.append(f"console.error at {where.get('url')}:{where.get('lineNumber')}: {message.text}")
        page.on("pageerror", lambda error: page.pool_errors.append(f"uncaught {error.name}: {error.message}"))
        page.on("console", console)

    @staticmethod
    def _marking(page, method):
        def call(*args, **kwargs):
            page.pool_changed.add(method.__name__)
            return method(page, *args, **kwargs)
        return call

    def give_back(self) -> list[str]:
        """Takes back every page lent during a test: kept for the next one, or closed if the test changed it; returns
        the errors its pages recorded while lent."""
        errors = []
        for page in self.lent:
            errors += page.pool_errors
            if page.is_closed():
                continue
            if page.pool_changed - self.RESET.keys() or page.pool_init in self.idle:
                type(page).close(page)
                continue
            page.goto("about:blank")
            for name in page.pool_changed:
                self.RESET[name](page)
            page.mouse.move(0, 0)
            self.idle[page.pool_init] = page
        self.lent = []
        return errors


@pytest.fixture(scope="session")
def _page_pool(browser):
    pool = Pages(browser)
    yield pool
    if pool.context is not None:
        pool.context.close()


@pytest.fixture
def pages(_page_pool, request):
    """Lends pages of the worker's kept context (Pages.open); every one is taken back when the test ends, and the
    test fails if any of them recorded an uncaught exception or a console error, unless it is marked
    `allow_page_errors` (a test that provokes one reads it from page.pool_errors)."""
    yield _page_pool
    errors = _page_pool.give_back()
    if errors and request.node.get_closest_marker("allow_page_errors") is None:
        pytest.fail("the page reported errors:\n" + "\n".join(errors), pytrace=False)


@pytest.fixture
def page(pages):
    """pytest-playwright's page, from the worker's kept context instead of a new context per test."""
    return pages.open()


def unlined(lines: list[str]) -> list[str]:
    """Returns problem lines without the "line N: " after their file: for tests of a message's words (the lines
    themselves are tests/test_profiles.py's)."""
    return [re.sub(r"^(.*?: )line \d+: ", r"\1", line, count=1) for line in lines]

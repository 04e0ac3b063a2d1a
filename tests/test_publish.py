"""build.py's guarantees: every input failure is a message, site/ is never missing or half-written, builds take turns,
Ctrl-C and SIGTERM leave nothing behind, and --serve never serves a missing page."""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from speculative import checkout, figures, pipeline, publish, serve
from speculative.commands import build as build_command
from speculative.errors import Problems, decode
from speculative.profiles import parse

from .conftest import FIXTURE, ROOT, edited_data
from .test_broken_data import BROKEN_FILES

pytestmark = pytest.mark.data_independent

SRC = "data/profiles.v1.json"
HINT = "Fix the problem{s} above and build again; site/ was left as it was."
TEMP = re.compile(r"^\..*\.tmp$")


def hint(lines: list[str]) -> list[str]:
    return ["", HINT.format(s="s" if len(lines) > 1 else "")]


def snapshot(folder: Path) -> dict[str, bytes]:
    """Returns every file under folder by relative path, with its bytes (a link as its target's name);
    .cache/, which holds the build lock, is left out."""
    found = {}
    for path in sorted(p for p in folder.rglob("*") if p.relative_to(folder).parts[0] != ".cache"):
        if path.is_symlink():
            found[str(path.relative_to(folder))] = os.readlink(path).encode()
        elif path.is_file():  # a file too large to be an input is compared by size: it was never read
            size = path.stat().st_size
            found[str(path.relative_to(folder))] = path.read_bytes() if size < 2**26 else str(size).encode()
    return found


@pytest.fixture
def project(project, built_site, monkeypatch) -> Path:
    """Returns conftest's copy of the inputs with a built site/ beside them, and makes it the cwd. Its .cache/ (the
    build lock, the last error's details) is its own, but its analyses are the test worker's: the same inputs give
    the same key, so a build here skips an analysis another test of this worker made (tests/test_cache.py tests the
    cache itself, each from an empty one)."""
    shutil.copytree(built_site, project / "site")
    monkeypatch.chdir(project)
    shared = checkout.CACHE / "analysis"  # conftest's own_build_cache: the worker's
    shared.mkdir(parents=True, exist_ok=True)
    (project / ".cache").mkdir()
    (project / ".cache" / "analysis").symlink_to(shared.resolve(), target_is_directory=True)
    monkeypatch.setattr(checkout, "CACHE", project / ".cache")
    return project


ARGS = ["--data", SRC, "--out", "site", "--content", "content", "--templates", "templates"]


def cli_paths(argv: list[str]) -> checkout.Paths:
    """Returns the paths a build given `argv` reads and writes, relative to the current folder."""
    values = dict(zip(argv[::2], argv[1::2], strict=True))
    return checkout.Paths(*(Path(values[f"--{f}"]) for f in ("data", "content", "templates", "out")))


def refused(run_build, project: Path, *extra: str) -> list[str]:
    """Runs the build in process and returns its stderr lines, after checking it failed as a refusal should:
    exit 1, nothing on stdout, no traceback, with site/ and the rest of the folder as they were."""
    before = snapshot(project)
    code, out, err = run_build(*ARGS, *extra)
    assert (code, out) == (1, "")
    assert "Traceback" not in err
    after = snapshot(project)
    assert after.keys() == before.keys(), "no file is added or removed, and no temporary file is left"
    assert after == before
    return err.splitlines()


# --- every broken data file, through the real build ---------------------------------------------------------

def loader_lines(blob: bytes) -> list[str]:
    with pytest.raises(Problems) as caught:
        parse(decode(blob, SRC), SRC, figures.page_ids())
    return caught.value.lines


LOCATION = re.compile(r"data/profiles\.v1\.json: (\$|line \d+, column \d+|[\w$]+(\[\d+\]|\.[\w$]+)*)[:( ,]")


@pytest.mark.parametrize("name", list(BROKEN_FILES))
def test_every_broken_data_file_is_refused_with_the_loaders_lines(name, project, run_build):
    blob = BROKEN_FILES[name]
    (project / SRC).write_bytes(blob)
    lines = refused(run_build, project)
    expected = loader_lines(blob)
    assert lines == expected + hint(expected)
    for line in expected:
        assert line.startswith(f"{SRC}: … and ") or LOCATION.match(line), line
        assert line.startswith(f"{SRC}: … and ") or ("found" in line and ("expected" in line or "must" in line)), line


# --- problems with a file itself, before it is read ---------------------------------------------------------

def fifo(path: Path) -> None:
    path.unlink(missing_ok=True)
    os.mkfifo(path)


def folder(path: Path) -> None:
    path.unlink()
    path.mkdir()


def loop(path: Path) -> None:
    path.unlink()
    path.symlink_to(path.name)


def dangling(path: Path) -> None:
    path.unlink()
    path.symlink_to("nowhere.json")


def sparse_10_gb(path: Path) -> None:
    with path.open("r+b") as handle:  # if the build read this file, the test would take minutes
        handle.truncate(10 * 2**30)


FILE_CASES = [
    ("FIFO at the data path", SRC, fifo, [f"{SRC}: found a named pipe (FIFO); expected a regular file"]),
    ("folder at the data path", SRC, folder, [f"{SRC}: found a folder; expected a regular file"]),
    ("symlink loop at the data path", SRC, loop,
     [f"{SRC}: found a loop of symbolic links (profiles.v1.json -> profiles.v1.json); expected the path of a readable "
      "file (point one of the links at a file)"]),
    ("dangling symlink at the data path", SRC, dangling,
     [f"{SRC}: found a symbolic link to a missing file (nowhere.json); expected the path of an existing file"]),
    ("missing data file", SRC, Path.unlink,
     [f"{SRC}: found no such file; expected the path of an existing file"]),
    ("10 GB data file", SRC, sparse_10_gb,
     [f"{SRC}: found 10,737,418,240 bytes; expected at most 1,000,000 bytes for an input file"]),
    ("FIFO as a content file", "content/99-pipe.md", fifo,
     ["content/99-pipe.md: found a named pipe (FIFO); expected a regular file"]),
    ("symlink loop as a content file", "content/99-loop.md", lambda p: p.symlink_to(p.name),
     ["content/99-loop.md: found a loop of symbolic links (99-loop.md -> 99-loop.md); expected the path of a readable "
      "file (point one of the links at a file)"]),
    ("non-UTF-8 content file", "content/01-what.md", lambda p: p.write_bytes(b"---\ntitle: caf\xe9\n"),
     ["content/01-what.md: line 2, column 11 (byte offset 14): found the byte 0xE9, which is not valid UTF-8 here; "
      "expected UTF-8 text (save the file as UTF-8)"]),
    ("oversized template", "templates/style.css", lambda p: p.write_bytes(b"a{}" * 400_000),
     ["templates/style.css: found 1,200,000 bytes; expected at most 1,000,000 bytes for an input file"]),
    ("FIFO as a template", "templates/js/walkthrough.js", fifo,
     ["templates/js/walkthrough.js: found a named pipe (FIFO); expected a regular file"]),
    ("folder named as a section", "content/99-notes.md", Path.mkdir,  # a subfolder otherwise is no input
     ["content/99-notes.md: found a folder; expected a regular file"]),
    ("folder named as a template", "templates/js/extra.js", Path.mkdir,
     ["templates/js/extra.js: found a folder; expected a regular file"]),
    ("missing template", "templates/js/walkthrough.js", Path.unlink,
     ["templates/js/walkthrough.js: found no such file; expected the template file js/walkthrough.js, which the page needs"]),
    ("missing templates folder", "templates", shutil.rmtree,
     ["templates: found no such folder; expected the folder of the page's templates"]),
    ("missing content folder", "content", shutil.rmtree,  # said "found no *.md sections"
     ["content: found no such folder; expected the folder of the page's prose sections (*.md)"]),
    ("a file in place of the content folder", "content", lambda p: (shutil.rmtree(p), p.write_text("x")),
     ["content: found a file; expected the folder of the page's prose sections (*.md)"]),
]


@pytest.mark.parametrize("relative, make, expected", [c[1:] for c in FILE_CASES], ids=[c[0] for c in FILE_CASES])
def test_a_file_that_cannot_be_read_is_named_with_what_was_found(relative, make, expected, project, run_build):
    make(project / relative)
    assert refused(run_build, project) == expected + hint(expected)


def test_problems_in_data_content_and_templates_are_listed_together(project, run_build):
    fifo(project / SRC)
    (project / "content" / "01-what.md").write_bytes(b"\xff")
    (project / "templates" / "style.css").write_bytes(b" " * 1_000_001)
    assert refused(run_build, project) == [
        f"{SRC}: found a named pipe (FIFO); expected a regular file",
        "content/01-what.md: line 1, column 1 (byte offset 0): found the byte 0xFF, which is not valid UTF-8 here; "
        "expected UTF-8 text (save the file as UTF-8)",
        "templates/style.css: found 1,000,001 bytes; expected at most 1,000,000 bytes for an input file",
    ] + hint([1, 2])


def test_byte_order_marks_are_accepted_everywhere(project, run_build):
    for path in (project / SRC, project / "content" / "01-what.md", project / "templates" / "page.html.j2"):
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    before = snapshot(project / "site")
    code, _, err = run_build(*ARGS)
    assert (code, err) == (0, "")
    assert snapshot(project / "site") == before, "a byte-order mark changes nothing on the page"


def test_editor_lock_and_swap_files_are_not_inputs(project, run_build):
    (project / "content" / ".#01-what.md").symlink_to("someone@host.1234")  # Emacs's lock: a dangling link
    (project / "templates" / ".page.html.j2.swp").write_bytes(b"\x00\xff")
    assert run_build(*ARGS)[0] == 0


NOT_OURS = ("which this build did not write; expected an empty folder or one this build wrote (it holds "
            ".speculative-site); choose another --out, or move those files away")
OWN = "expected a folder of its own for the built page, such as site/"


def refused_out(run_build, project: Path, out: str) -> list[str]:
    """Returns the one line a build into `out` is refused with, after checking the hint that follows it."""
    lines = refused(run_build, project, "--out", out)
    assert lines[1:] == ["", HINT.replace("site/", build_command.folder_name(Path(out))).format(s="")]
    return lines[:1]


@pytest.mark.parametrize("out, expected", [
    ("data", f"data: found the folder that holds data/profiles.v1.json; {OWN}"),
    (".", f".: found the folder that holds data/profiles.v1.json; {OWN}"),
    ("/", f"/: found the folder that holds data/profiles.v1.json; {OWN}"),
    ("content", f"content: found content/, which holds the page's inputs; {OWN}"),
    ("templates/", f"templates: found templates/, which holds the page's inputs; {OWN}"),
    ("notes", f"notes: found notes.txt, {NOT_OURS}"),
    ("notes/notes.txt", "notes/notes.txt: found a file; expected a folder for the built page"),
    ("notes/notes.txt/sub", "notes/notes.txt/sub: found a file at notes/notes.txt; expected a folder for the built page"),
    ("site/index.html", "site/index.html: found a file; expected a folder for the built page"),
    ("pipe", "pipe: found a named pipe (FIFO); expected a folder for the built page"),
    ("a" * 256, f"{'a' * 40}…{'a' * 40}: found a name of 256 bytes, longer than the system allows; expected a folder "
                "for the built page with names of at most 255 bytes and a path of at most 4,000 bytes (choose a "
                "shorter --out)"),
    ("/" + "/".join(["b" * 200] * 21), f"/{'b' * 39}…{'b' * 40}: found a path of 4,221 bytes, longer than the system "
                                       "allows; expected a folder for the built page with names of at most 255 bytes "
                                       "and a path of at most 4,000 bytes (choose a shorter --out)"),
    ("notes\nfile", "notes<U+000A>file: found a file; expected a folder for the built page"),
], ids=["the data folder", "the working folder", "the root", "the content folder", "the templates folder",
        "a folder of notes", "a file", "a path through a file", "a file of an earlier build", "a named pipe",
        "a name too long", "a path too long", "a name with a line break"])
def test_an_output_folder_that_holds_other_things_or_is_no_folder_is_refused(out, expected, project, run_build):
    (project / "notes").mkdir()
    (project / "notes" / "notes.txt").write_text("mine")
    (project / "notes\nfile").write_text("mine too")
    os.mkfifo(project / "pipe")
    assert refused_out(run_build, project, out) == [expected]


@pytest.mark.parametrize("out, inside", [("content/x.md", "content"), ("templates/x.css", "templates"),
                                         ("templates/js/y.js", "templates")])
def test_an_output_folder_inside_an_input_folder_is_refused(out, inside, project, run_build):
    """Built into content/x.md, every later build would refuse content/ for holding a folder among its sections."""
    assert refused_out(run_build, project, out) == [f"{out}: found a folder inside {inside}/, which holds the page's "
                                                    f"inputs; {OWN}"]
    assert run_build(*ARGS)[0] == 0


def test_an_output_link_that_loops_or_leads_nowhere_is_refused_in_one_line(project, run_build):
    (project / "a").symlink_to(project / "b")
    (project / "b").symlink_to(project / "a")
    (project / "gone").symlink_to(project / "nowhere")
    assert refused_out(run_build, project, "a") == [
        f"a: found a symbolic link to {project / 'b'}, which leads to no folder; expected a folder for the built page "
        "(make the folder it names, or choose another --out)"]
    assert refused_out(run_build, project, "gone") == [
        f"gone: found a symbolic link to {project / 'nowhere'}, which leads to no folder; expected a folder for the "
        "built page (make the folder it names, or choose another --out)"]


def test_an_output_link_to_a_folder_elsewhere_builds_there_and_keeps_the_link(project, run_build, tmp_path):
    (tmp_path / "elsewhere").mkdir()
    (project / "www").symlink_to(tmp_path / "elsewhere")
    assert run_build(*ARGS, "--out", "www")[0] == 0
    assert (project / "www").is_symlink()
    assert sorted(p.name for p in (tmp_path / "elsewhere").iterdir()) == [publish.MARKER, "index.html", "trace.json"]


def user_site(www: Path) -> None:
    www.mkdir()
    for name, text in {"index.html": "<h1>My home page</h1>", "cv.pdf": "%PDF", "about.html": "<p>me</p>",
                       ".htaccess": "Options -Indexes"}.items():
        (www / name).write_text(text)


FOLDER_CASES = [
    ("a user's site", user_site, ".htaccess, about.html, cv.pdf, index.html"),
    ("a user's own index.html alone", lambda www: (www.mkdir(), (www / "index.html").write_text("<p>mine</p>")),
     "index.html"),
    ("a user's folder alone", lambda www: (www.mkdir(), (www / "assets").mkdir()), "assets"),
    ("a link out", lambda www: (www.mkdir(), (www / "link").symlink_to(Path.cwd() / "data")), "link"),
    ("a marker the build did not write", lambda www: (www.mkdir(), (www / publish.MARKER).write_text("mine\ncv.pdf\n"),
                                                      (www / "cv.pdf").write_text("%PDF")), ".speculative-site, cv.pdf"),
    ("seven files", lambda www: (www.mkdir(), [(www / f"{i}.txt").write_text("x") for i in range(7)]),
     "0.txt, 1.txt, 2.txt, 3.txt, 4.txt and 2 more"),
]


@pytest.mark.parametrize("make, names", [c[1:] for c in FOLDER_CASES], ids=[c[0] for c in FOLDER_CASES])
def test_a_folder_holding_files_and_no_marker_is_refused_and_left_alone(make, names, project, run_build):
    make(project / "www")
    assert refused_out(run_build, project, "www") == [f"www: found {names}, {NOT_OURS}"]


def test_the_users_files_beside_the_builds_own_are_left_alone(project, run_build):
    site = project / "site"
    (site / "cv.pdf").write_text("%PDF")
    (site / "assets").mkdir()
    (site / "assets" / "logo.svg").write_text("<svg/>")
    (site / "link").symlink_to(project / "data")
    (site / "sub").mkdir()
    assert run_build(*ARGS, "--out", "site/sub")[0] == 0, "a folder of its own, inside the build's folder"
    before = {k: v for k, v in snapshot(site).items() if k not in ("index.html", "trace.json")}
    assert run_build(*ARGS, "--data", str(edited_data(project, lambda raw: raw.update(walkthrough_seed=7))))[0] == 0
    assert {k: v for k, v in snapshot(site).items() if k not in ("index.html", "trace.json")} == before
    assert (site / "sub" / "index.html").is_file() and (project / "data" / "profiles.v1.json").is_file()


def test_a_site_from_a_build_with_the_old_manifest_still_rebuilds(project, run_build):
    """A site/ built before the marker holds .speculative-manifest.json instead: it is the build's, and gets a marker."""
    site = project / "site"
    (site / publish.MARKER).unlink()
    (site / publish.OLD_MARKER).write_text('{"written_by": "speculative build.py", "files": ["index.html", "trace.json"]}')
    (site / "cv.pdf").write_text("%PDF")
    assert run_build(*ARGS)[0] == 0
    assert sorted(p.name for p in site.iterdir()) == [publish.MARKER, "cv.pdf", "index.html", "trace.json"]
    assert (site / publish.MARKER).read_text().splitlines() == [publish.WRITTEN_BY, "index.html", "trace.json"]
    assert (site / "cv.pdf").read_text() == "%PDF"


# --- an unexpected error is one line, with the details in .cache/last-error.log ------------------------------

def test_an_unexpected_error_is_one_line_and_a_log(project, run_build, monkeypatch):
    def broken(*args):
        raise TypeError("unhashable type: 'list'")
    monkeypatch.setattr(pipeline, "explain", broken)
    (project / ".cache" / "analysis").unlink()  # no analysis kept: the build runs the broken one
    before = snapshot(project / "site")
    code, out, err = run_build(*ARGS)
    assert (code, out) == (1, "")
    assert err == ("build failed unexpectedly: TypeError: unhashable type: 'list'; "
                   "details in .cache/last-error.log; site/ was left as it was\n")
    log = (project / ".cache" / "last-error.log").read_text()
    assert log.startswith("Traceback") and "in broken" in log
    assert snapshot(project / "site") == before


# --- publishing ------------------------------------------------------------------------------------------------

def test_publishing_replaces_its_files_in_place_and_removes_only_files_it_wrote(project, run_build):
    site = project / "site"
    (site / publish.MARKER).write_text(f"{publish.WRITTEN_BY}\nindex.html\ntrace.json\nold-chart.svg\nold-folder\n")
    (site / "old-chart.svg").write_text("from an earlier build")
    (site / "old-folder").mkdir()  # a folder is never removed, even one on the list
    (site / "notes.txt").write_text("the user's, on no list")
    inode = (site / "index.html").stat().st_ino
    data = edited_data(project, lambda raw: raw.update(walkthrough_seed=7))
    assert run_build(*ARGS, "--data", str(data))[0] == 0
    assert sorted(p.name for p in site.iterdir()) == [publish.MARKER, "index.html", "notes.txt", "old-folder", "trace.json"]
    assert (site / publish.MARKER).read_text().splitlines() == [publish.WRITTEN_BY, "index.html", "trace.json"]
    assert (site / "notes.txt").read_text() == "the user's, on no list"
    assert (site / "index.html").stat().st_ino != inode, "replaced by a new file, not rewritten in place"
    assert (site / "index.html").read_bytes() == pipeline.build_files(data, Path("content"), Path("templates"))["index.html"]


def test_a_new_file_is_listed_before_it_appears_so_a_stop_never_leaves_it_off(project, monkeypatch):
    real_replace, seen = os.replace, []

    def replace_then_killed(src, dst):
        real_replace(src, dst)
        seen.append((Path(dst).name, (project / "site" / publish.MARKER).read_text().splitlines()))
        if Path(dst).name == "extra.txt":
            raise KeyboardInterrupt
    monkeypatch.setattr(publish.os, "replace", replace_then_killed)
    files = pipeline.build_files(Path(SRC), Path("content"), Path("templates"))
    with pytest.raises(KeyboardInterrupt):
        publish.write_atomic(project / "site", {**files, "extra.txt": b"new"})
    assert seen[0] == (publish.MARKER, [publish.WRITTEN_BY, "extra.txt", "index.html", "trace.json"])
    monkeypatch.undo()
    assert not [p for p in (project / "site").iterdir() if TEMP.match(p.name)]
    publish.write_atomic(project / "site", files)  # the next build, which no longer writes extra.txt, removes it
    assert sorted(p.name for p in (project / "site").iterdir()) == [publish.MARKER, "index.html", "trace.json"]


@pytest.mark.parametrize("name", ["trace.json", "index.html", publish.MARKER])
def test_a_folder_where_the_build_writes_a_file_is_refused_before_anything_is_written(name, project, run_build):
    """Once, index.html was replaced before trace.json's folder failed the swap: a page of one build beside the trace
    of another, a temporary file left, and the message named site/ rather than the folder."""
    (project / "site" / name).unlink()
    (project / "site" / name).mkdir()
    assert refused(run_build, project, "--data", str(edited_data(project, lambda raw: raw.update(walkthrough_seed=7)))) \
        == [f"site/{name}: found a folder where the build writes its own file; expected that file or nothing (move the "
            "folder away, or choose another --out)", *hint([""])]


def refuse(call: str):
    """Returns a stand-in for os.replace or open that fails as a file made immutable (chattr +i) or a read-only folder
    does, and otherwise does what the real one does."""
    real = os.replace if call == "replace" else open

    def refusing(*args):
        if call == "replace" and Path(args[1]).name == "index.html":
            raise PermissionError(1, "Operation not permitted", str(args[0]), None, str(args[1]))
        if call == "open" and TEMP.match(Path(args[0]).name):
            raise PermissionError(13, "Permission denied", str(args[0]))
        return real(*args)
    return refusing


@pytest.mark.parametrize("call, line", [
    ("replace", "site/index.html: found a file the build could not write (Operation not permitted)"),
    ("open", "site: found a folder the build could not write (Permission denied)")], ids=["an immutable file", "a read-only folder"])
def test_a_file_or_folder_that_cannot_be_written_is_one_line_and_leaves_no_temporary_file(call, line, project, run_build,
                                                                                          monkeypatch):
    data = edited_data(project, lambda raw: raw.update(walkthrough_seed=7))
    if call == "replace":
        monkeypatch.setattr(publish.os, "replace", refuse(call))
    else:
        monkeypatch.setattr(publish, "open", refuse(call), raising=False)
    assert refused(run_build, project, "--data", str(data)) == [
        f"{line}; expected one it may write (make it writable, or choose another --out)", *hint([""])]


def test_an_interrupt_before_any_page_was_built_does_not_claim_one(project, run_build, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(build_command, "build_files", interrupted)
    assert run_build(*ARGS, "--out", "fresh") == (130, "", "interrupted; fresh/ holds no page: no build finished\n")
    assert run_build(*ARGS)[2] == "interrupted; site/ holds the last complete build\n"


def test_the_folder_is_kept_so_a_server_never_loses_it(project, run_build):
    inode = (project / "site").stat().st_ino
    assert run_build(*ARGS)[0] == 0
    assert (project / "site").stat().st_ino == inode


def test_a_second_build_waits_for_the_lock_then_publishes(project):
    cache = ROOT / ".cache"  # a build.py process keeps its lock beside itself, in the checkout's .cache/
    cache.mkdir(exist_ok=True)
    holder = os.open(cache / "build.lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(holder, fcntl.LOCK_EX)
    waiter = subprocess.Popen([sys.executable, str(ROOT / "build.py"), *ARGS, "--out", "fresh"], cwd=project,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = waiter.stdout.readline()  # blocks until the build says it waits: no polling, no sleep
        assert first == "waiting for another build to finish writing fresh/ …\n"
        assert not (project / "fresh" / "index.html").exists()
    finally:
        os.close(holder)
    out, err = waiter.communicate(timeout=60)
    assert waiter.returncode == 0, err
    assert (project / "fresh" / "index.html").is_file()


def embedded_trace(site: Path) -> object:
    return json.loads(re.search(r'<script type="application/json" id="trace">(.*?)</script>',
                                (site / "index.html").read_text(encoding="utf-8"), re.S).group(1))


def test_concurrent_builds_take_turns_and_leave_one_complete_site(project):
    procs = [subprocess.Popen([sys.executable, str(ROOT / "build.py"), *ARGS], cwd=project,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    results = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], results
    site = project / "site"
    assert sorted(p.name for p in site.iterdir()) == [publish.MARKER, "index.html", "trace.json"]
    assert (site / "index.html").read_text(encoding="utf-8").rstrip().endswith("</html>")
    assert embedded_trace(site) == json.loads((site / "trace.json").read_text(encoding="utf-8"))


def test_an_interrupt_during_the_swap_leaves_whole_files_and_no_temporary_one(project, run_build, monkeypatch):
    """No signal is held back: stopped between the two swaps, each file is one build's whole file, old or new."""
    real_replace, old = os.replace, snapshot(project / "site")
    data = edited_data(project, lambda raw: raw.update(walkthrough_seed=7))
    new = pipeline.build_files(data, Path("content"), Path("templates"))

    def replace_then_interrupted(src, dst):
        real_replace(src, dst)
        os.kill(os.getpid(), signal.SIGINT)  # arrives after the first file's swap
    monkeypatch.setattr(publish.os, "replace", replace_then_interrupted)
    code, out, err = run_build(*ARGS, "--data", str(data))
    monkeypatch.undo()
    assert code == 130 and err == "interrupted; site/ holds the last complete build\n"
    now = snapshot(project / "site")
    assert sorted(now) == [publish.MARKER, "index.html", "trace.json"]
    assert now["index.html"] == new["index.html"] and now["trace.json"] == old["trace.json"]


SLOW_WRITER = textwrap.dedent("""
    import os, signal, sys
    sys.path.insert(0, sys.argv[1])
    from speculative import publish
    import build
    real = os.fsync
    def slow(fd):
        print("writing", flush=True)
        signal.pause()  # a temporary file is written, not yet swapped in: wait here for the test's signal
        real(fd)
    publish.os.fsync = slow
    sys.exit(build.main(sys.argv[2:]))
""")


@pytest.mark.parametrize("sig, code, word", [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "stopped")],
                         ids=["Ctrl-C", "SIGTERM"])
def test_stopping_a_build_while_it_writes_leaves_the_site_and_nothing_else(sig, code, word, project):
    data = edited_data(project, lambda raw: raw.update(walkthrough_seed=7))
    before = snapshot(project)
    proc = subprocess.Popen([sys.executable, "-c", SLOW_WRITER, str(ROOT), *ARGS, "--data", str(data)], cwd=project,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == "writing\n"
        assert any(TEMP.match(p.name) for p in (project / "site").iterdir()), "caught while a temporary file exists"
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == code
    assert err == f"{word}; site/ holds the last complete build\n"
    assert snapshot(project) == before


# --- --serve while the site is rebuilt ----------------------------------------------------------------------

def test_serve_answers_every_request_with_a_complete_page_during_50_rebuilds(project, capsys):
    args = cli_paths(ARGS)
    pages = [pipeline.build_files(args.data, args.content, args.templates),
             pipeline.build_files(edited_data(project, lambda raw: raw.update(walkthrough_seed=7)), args.content,
                               args.templates)]
    server = serve.make_server(args.out, 0)
    serve.start_serving(server, args.out)
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    answers, stop = [], threading.Event()

    def fetch():
        while not stop.is_set():
            for path in ("", "index.html", "trace.json"):
                try:
                    with urllib.request.urlopen(url + path, timeout=10) as response:
                        answers.append((path or "index.html", response.status, response.read()))
                except urllib.error.HTTPError as err:
                    answers.append((path or "index.html", err.code, b""))
    clients = [threading.Thread(target=fetch) for _ in range(4)]
    for client in clients:
        client.start()
    try:
        published = 0
        while published < 50 or len(answers) < 300:  # at least 50 rebuilds, with requests throughout
            publish.publish(args.out, pages[published % 2], args.inputs())
            published += 1
            assert published < 5000, "the clients got no answers"
    finally:
        stop.set()
        for client in clients:
            client.join(timeout=20)
        server.shutdown()
        server.server_close()
    assert {status for _, status, _ in answers} == {200}
    for name, _, body in answers:
        assert body in (pages[0][name], pages[1][name])
    assert all(body.rstrip().endswith(b"</html>") for name, _, body in answers if name == "index.html")


def test_a_build_whose_inputs_changed_before_it_could_publish_builds_again_from_the_inputs_as_they_are_now(
        project, run_build, monkeypatch):
    """The race two builds at once could lose: a slow build read the data, the data was edited, and a quicker build of
    the new data published first; the slow one must not then publish its older page over it. Under the build lock
    each build compares the inputs with what it read, and builds again when they changed."""
    from speculative.commands import build as build_command

    data = project / SRC
    shutil.copyfile(FIXTURE, data)  # known text to edit, whatever data/profiles.v1.json holds
    real, calls = build_command.build_files, []

    def build_then_edit(*paths):
        files = real(*paths)
        calls.append(files)
        if len(calls) == 1:  # an author's save lands while this build computes
            data.write_text(data.read_text(encoding="utf-8").replace('"walkthrough_seed": 2023', '"walkthrough_seed": 7'),
                            encoding="utf-8")
        return files

    monkeypatch.setattr(build_command, "build_files", build_then_edit)
    code, _, err = run_build(*ARGS)
    assert code == 0, err
    assert len(calls) == 2 and calls[0] != calls[1]  # the first build's page was not published: it was built again
    assert (project / "site" / "index.html").read_bytes() == calls[1]["index.html"]
    assert json.loads((project / "site" / "trace.json").read_text(encoding="utf-8")) == json.loads(calls[1]["trace.json"])

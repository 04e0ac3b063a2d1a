"""The author's loop: --watch rebuilds on every save and survives a broken file; --serve previews on 127.0.0.1."""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import pytest

from .conftest import OVERFULL, ROOT, overfull

TIMEOUT = 30


class Running:
    """A build.py process whose output lines arrive on a queue, so a test can wait for a line."""

    def __init__(self, *args: str, cwd: Path, script: str | None = None, prefix: tuple[str, ...] = ()):
        command = ["-c", script, str(ROOT)] if script else [str(ROOT / "build.py")]
        self.proc = subprocess.Popen([*prefix, sys.executable, "-u", *command, *args], cwd=cwd,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.seen: list[str] = []
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def wait_for(self, prefix: str, containing: str = "") -> list[str]:
        """Returns every line up to and including the first that starts with prefix (and holds `containing`)."""
        seen = []
        while True:
            line = self.lines.get(timeout=TIMEOUT)
            seen.append(line)
            self.seen.append(line)
            if line.startswith(prefix) and containing in line:
                return seen

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=TIMEOUT)


def args_for(project: Path) -> list[str]:
    return ["--data", str(project / "data" / "profiles.v1.json"), "--out", str(project / "site"),
            "--content", str(project / "content"), "--templates", str(project / "templates")]


def test_watch_rebuilds_on_save_and_keeps_the_last_good_site_on_bad_data(project):
    run = Running(*args_for(project), "--watch", cwd=project)
    try:
        started = run.wait_for("watching ")
        assert [line for line in started if line.startswith("built ")] == started[:1], "one build at start"
        data = project / "data" / "profiles.v1.json"
        raw = json.loads(data.read_text())
        raw["profiles"][0]["name"] = "a freshly renamed draft"
        data.write_text(json.dumps(raw))
        rebuilt = run.wait_for("built ")
        assert rebuilt[-1].endswith(", after a change to data/profiles.v1.json"), rebuilt[-1]  # which file changed
        page = (project / "site" / "index.html").read_text(encoding="utf-8")
        assert "a freshly renamed draft" in page

        good = json.dumps(raw)
        data.write_text(json.dumps(overfull(raw)))
        lines = run.wait_for("Fix the problem")
        assert any(line.endswith(OVERFULL) for line in lines)
        assert lines[-1] == "Fix the problem above and save again; site/ was left as it was."  # the watcher builds on save
        assert (project / "site" / "index.html").read_text(encoding="utf-8") == page

        (project / "content" / "01-what.md").write_text(
            (project / "content" / "01-what.md").read_text() + "\nA sentence added while watching.\n")
        data.write_text(good)
        run.wait_for("built ")
        assert "A sentence added while watching." in (project / "site" / "index.html").read_text(encoding="utf-8")
        script = project / "templates" / "js" / "boot.js"  # a file in a subfolder of templates/ is an input too
        script.write_text(script.read_text() + "\ndocument.documentElement.dataset.edit = 'saved while watching';\n")
        run.wait_for("built ")
        assert "saved while watching" in (project / "site" / "index.html").read_text(encoding="utf-8")
        assert run.proc.poll() is None, "the watcher must keep running after a broken file"
    finally:
        run.stop()


def test_serve_previews_the_site_on_loopback(project):
    run = Running(*args_for(project), "--serve", "0", cwd=project)
    try:
        line = run.wait_for("serving ")[-1]
        url = line.split(" at ")[1]
        assert url.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
            body = response.read().decode("utf-8")
        assert response.status == 200 and "<title>Speculative decoding, explained</title>" in body
        with urllib.request.urlopen(url + "trace.json", timeout=TIMEOUT) as response:
            assert json.loads(response.read())["profiles"]
    finally:
        run.stop()


# A watcher whose analysis raises, as a bug would, for one seed: the unexpected error it must survive.
BUGGY = """
import sys
sys.path.insert(0, sys.argv[1])
import pathlib, build
from speculative import checkout, pipeline
real = pipeline.explain
def explain(dataset, *args):
    if dataset.walkthrough_seed == 4242:
        raise RuntimeError("a bug in the analysis")
    return real(dataset, *args)
pipeline.explain = explain
checkout.CACHE = pathlib.Path.cwd() / ".cache"
sys.exit(build.main(sys.argv[2:]))
"""


def test_watch_survives_every_failure_and_rebuilds_when_the_file_is_good(project):
    data = project / "data" / "profiles.v1.json"
    raw = json.loads(data.read_text())
    run = Running(*args_for(project), "--watch", cwd=project, script=BUGGY)
    try:
        started = run.wait_for("watching ")
        assert sum(line.startswith("built ") for line in started) == 1
        page = (project / "site" / "index.html").read_bytes()

        data.write_text(json.dumps({**raw, "profiles": [{**raw["profiles"][0], "id": ["aligned", "x"]}, raw["profiles"][1]]}))
        run.wait_for("data/profiles.v1.json: line 1: profiles[0].id: found a list of 2; expected")

        data.write_text(json.dumps({**raw, "walkthrough_seed": 4242}))
        line = run.wait_for("build failed unexpectedly")[-1]
        assert line.startswith("build failed unexpectedly: RuntimeError: a bug in the analysis; details in ")
        assert line.endswith(".cache/last-error.log; site/ was left as it was")
        assert "a bug in the analysis" in (project / ".cache" / "last-error.log").read_text()

        data.unlink()
        os.mkfifo(data)
        run.wait_for("data/profiles.v1.json: found a named pipe (FIFO); expected a regular file")
        assert (project / "site" / "index.html").read_bytes() == page

        data.unlink()
        data.write_text(json.dumps({**raw, "profiles": [{**raw["profiles"][0], "name": "renamed after a bug"},
                                                        raw["profiles"][1]]}))
        run.wait_for("built ")
        assert "renamed after a bug" in (project / "site" / "index.html").read_text(encoding="utf-8")
        assert sorted(p.name for p in (project / "site").iterdir()) == [".speculative-site", "index.html", "trace.json"]
        assert run.proc.poll() is None, "the watcher must keep running after every failure"
        run.proc.send_signal(signal.SIGINT)
        assert run.proc.wait(timeout=TIMEOUT) == 130
        run.wait_for("interrupted; site/ holds the last complete build")
        assert not any("Traceback" in line for line in run.seen)
    finally:
        run.stop()


def test_watch_with_serve_builds_once_then_serves(project):
    run = Running(*args_for(project), "--watch", "--serve", "0", cwd=project)
    try:
        # another test's build publishing at the same moment shares the checkout's .cache/build.lock: this build then
        # says it is waiting for it, which is right, and no part of what is checked here
        started = [line for line in run.wait_for("watching ") if not line.startswith("waiting for another build")]
        assert [line.split(" ")[0] for line in started] == ["built", "serving", "watching"]
        url = started[1].split(" at ")[1]
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
            assert response.status == 200 and response.read().rstrip().endswith(b"</html>")
    finally:
        run.stop()


def renamed(raw: dict, name: str) -> dict:
    return {**raw, "profiles": [{**raw["profiles"][0], "name": name}, *raw["profiles"][1:]]}


def wait_until_page_holds(run: Running, project: Path, text: str) -> None:
    """Waits for builds until the page holds text; a watcher that missed the save times out on the queue."""
    while text not in (project / "site" / "index.html").read_text(encoding="utf-8"):
        run.wait_for("built ")


@pytest.mark.parametrize("folder, broken", [
    ("data", "data/profiles.v1.json: found no such file"),
    ("content", "content: found no such folder; expected the folder of the page's prose sections (*.md)"),
    ("templates", "templates: found no such folder"),
])
@pytest.mark.slow  # a fresh process or many connections: the full run has it, the fast tier not
def test_watch_survives_a_folder_deleted_and_created_again(folder, broken, project):
    data = project / "data" / "profiles.v1.json"
    raw = json.loads(data.read_text())
    run = Running(*args_for(project), "--watch", cwd=project)
    try:
        run.wait_for("watching ")
        shutil.rmtree(project / folder)
        run.wait_for(broken)
        shutil.copytree(ROOT / folder, project / folder)
        run.wait_for("built ")
        data.write_text(json.dumps(renamed(raw, "renamed once the folder was back")))
        wait_until_page_holds(run, project, "renamed once the folder was back")
        (project / "content" / "01-what.md").write_text(
            (project / "content" / "01-what.md").read_text() + "\nA sentence in the folder made again.\n")
        wait_until_page_holds(run, project, "A sentence in the folder made again.")
        assert not any("Traceback" in line for line in run.seen)
    finally:
        run.stop()


def test_a_data_file_outside_the_project_is_watched_alone(project, tmp_path_factory):
    import argparse

    from speculative import watch

    outside = tmp_path_factory.mktemp("outside")
    args = argparse.Namespace(data=outside / "p.json", content=project / "content", templates=project / "templates",
                              out=project / "site")
    folders, data = watch.watched(args)
    passes = watch.input_filter(args, data)
    from watchfiles import Change
    assert passes(Change.modified, str(data))
    assert not passes(Change.modified, str(outside.resolve() / "build.log")), "a file beside the data is no input"
    assert not passes(Change.added, str(outside.resolve() / "logs" / "today.log"))
    assert passes(Change.modified, str((project / "content" / "01-what.md").resolve()))
    assert not passes(Change.added, str((project / "content" / "drafts" / "x.md").resolve())), "no subfolders"
    assert not passes(Change.added, str((project / "content" / ".01-what.md.swp").resolve())), "no hidden files"


@pytest.mark.slow  # a fresh process or many connections: the full run has it, the fast tier not
def test_a_log_beside_an_outside_data_file_triggers_no_build(project, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside")
    data = outside / "p.json"
    shutil.copy(project / "data" / "profiles.v1.json", data)
    raw = json.loads(data.read_text())
    args = ["--data", str(data), *args_for(project)[2:]]
    run = Running(*args, "--watch", cwd=project)
    try:
        run.wait_for("watching ")
        for i in range(50):
            (outside / "build.log").write_text(f"line {i}\n" * i)
        (project / "content" / "01-what.md").write_text(
            (project / "content" / "01-what.md").read_text() + "\nAfter the log.\n")
        wait_until_page_holds(run, project, "After the log.")
        data.write_text(json.dumps(renamed(raw, "the outside data changed")))
        wait_until_page_holds(run, project, "the outside data changed")
        builds = [line for line in run.seen if line.startswith("built ")]
        assert len(builds) <= 3, "one at start, at most one per edit: the log is not an input"
    finally:
        run.stop()


@pytest.mark.slow  # a fresh process or many connections: the full run has it, the fast tier not
def test_a_burst_of_saves_ends_on_the_last_content(project):
    data = project / "data" / "profiles.v1.json"
    raw = json.loads(data.read_text())
    run = Running(*args_for(project), "--watch", cwd=project)
    try:
        run.wait_for("watching ")
        for i in range(40):
            data.write_text(json.dumps(renamed(raw, f"saved {i} times")))
        wait_until_page_holds(run, project, "saved 39 times")
        page = (project / "site" / "index.html").read_text(encoding="utf-8")
        assert "saved 38 times" not in page
    finally:
        run.stop()


def test_an_output_folder_whose_name_begins_another_inputs_path_hides_no_input(project):
    """`--out da` once hid data/ from the watcher: watchfiles' ignore_paths compares strings, not path parts."""
    import argparse

    from watchfiles import Change

    from speculative import watch

    for out in ("da", "data/profiles", "cont", "templates-old"):
        args = argparse.Namespace(data=project / "data" / "profiles.v1.json", content=project / "content",
                                  templates=project / "templates", out=project / out)
        folders, data = watch.watched(args)
        passes = watch.input_filter(args, data)
        assert passes(Change.modified, str(data)), out
        assert passes(Change.modified, str((project / "content" / "01-what.md").resolve())), out
        assert passes(Change.modified, str((project / "templates" / "page.html.j2").resolve())), out
        assert not passes(Change.added, str((project / out).resolve() / "index.html")), out


@pytest.mark.parametrize("serving", [[], ["--serve", "0"]])
@pytest.mark.slow  # a fresh process or many connections: the full run has it, the fast tier not
def test_sigterm_stops_the_watcher_with_143_and_says_stopped(serving, project):
    """watchfiles turns every signal into a plain KeyboardInterrupt: SIGTERM once exited 130 saying "interrupted"."""
    run = Running(*args_for(project), "--watch", *serving, cwd=project)
    try:
        run.wait_for("watching ")
        run.proc.send_signal(signal.SIGTERM)
        assert run.proc.wait(timeout=TIMEOUT) == 143
        run.wait_for("stopped; site/ holds the last complete build")
        assert not any(line.startswith("interrupted") or "Traceback" in line for line in run.seen)
    finally:
        run.stop()


@pytest.mark.slow  # a fresh process or many connections: the full run has it, the fast tier not
def test_a_data_file_that_is_a_link_is_watched_where_it_points(project, tmp_path_factory):
    """A save writes the link's target, in another folder: the watcher once saw no change and never rebuilt."""
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    data = project / "data" / "profiles.v1.json"
    target = elsewhere / "mine.json"
    shutil.move(data, target)
    data.symlink_to(target)
    raw = json.loads(target.read_text())
    run = Running(*args_for(project), "--watch", cwd=project)
    try:
        run.wait_for("watching ")
        target.write_text(json.dumps(renamed(raw, "saved through the link")))
        wait_until_page_holds(run, project, "saved through the link")
        other = project / "data" / "other.json"  # the link pointed elsewhere: where it points now is watched
        other.write_text(json.dumps(renamed(raw, "the link moved")))
        data.unlink()
        data.symlink_to(other.name)
        wait_until_page_holds(run, project, "the link moved")
        other.write_text(json.dumps(renamed(raw, "saved beside the link")))
        wait_until_page_holds(run, project, "saved beside the link")
    finally:
        run.stop()


@pytest.mark.slow  # a fresh process or many connections: the full run has it, the fast tier not
def test_a_save_after_the_data_folder_is_made_again_is_built(project):
    """`git checkout` deletes data/ and makes it again, often with the same inode: the watch on the old folder was
    dead, so a save a second later was never built."""
    data = project / "data" / "profiles.v1.json"
    raw = json.loads(data.read_text())
    run = Running(*args_for(project), "--watch", cwd=project)
    try:
        run.wait_for("watching ")
        for i in range(3):
            saved = data.read_bytes()
            shutil.rmtree(project / "data")
            (project / "data").mkdir()
            data.write_bytes(saved)
            threading.Event().wait(1)  # the scenario itself: a person saves about a second after the checkout
            data.write_text(json.dumps(renamed(raw, f"saved after checkout {i}")))
            wait_until_page_holds(run, project, f"saved after checkout {i}")
        assert not any("Traceback" in line for line in run.seen)
    finally:
        run.stop()


def test_the_digest_follows_the_inputs_bytes(project):
    from speculative import checkout, watch

    paths = checkout.Paths(project / "data" / "profiles.v1.json", project / "content", project / "templates",
                           project / "site")
    first = watch.inputs_digest(paths)
    assert watch.inputs_digest(paths) == first
    (project / "content" / ".01-what.md.swp").write_text("an editor's")
    assert watch.inputs_digest(paths) == first, "hidden files are no input"
    script = project / "templates" / "js" / "boot.js"
    script.write_text(script.read_text() + " ")
    assert watch.inputs_digest(paths) != first
    (project / "data" / "profiles.v1.json").unlink()
    missing = watch.inputs_digest(paths)
    assert missing != first
    os.mkfifo(project / "data" / "profiles.v1.json")  # read, a named pipe would wait for a writer forever
    assert watch.inputs_digest(paths) not in (first, missing)


def test_the_digest_never_reads_a_file_the_build_refuses_for_its_size(project, monkeypatch):
    """Every build takes the digest before it reads its inputs: reading a 10 GB data file whole took a minute, where the
    loader refuses it by its size unread."""
    from pathlib import Path

    from speculative import checkout, watch
    from speculative.errors import MAX_INPUT_BYTES

    data = project / "data" / "profiles.v1.json"
    paths = checkout.Paths(data, project / "content", project / "templates", project / "site")
    with data.open("r+b") as f:
        f.truncate(10 * 1024**3)  # sparse: no disk is used
    read = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: read(self) if self != data else pytest.fail("read whole"))
    big = watch.inputs_digest(paths)
    with data.open("r+b") as f:
        f.truncate(MAX_INPUT_BYTES + 1)
    assert watch.inputs_digest(paths) != big


@pytest.mark.slow  # a fresh process or many connections: the full run has it, the fast tier not
def test_a_deleted_output_folder_is_built_again(project):
    run = Running(*args_for(project), "--watch", cwd=project)
    try:
        run.wait_for("watching ")
        shutil.rmtree(project / "site")
        run.wait_for("site/ is gone since the last build: building it again")
        run.wait_for("built ")
        assert (project / "site" / "index.html").is_file()
        (project / "site" / "index.html").unlink()
        run.wait_for("site/index.html is gone since the last build: building it again")
        run.wait_for("built ")
        assert sorted(p.name for p in (project / "site").iterdir()) == [".speculative-site", "index.html", "trace.json"]
    finally:
        run.stop()


@pytest.mark.slow  # a fresh process or many connections: the full run has it, the fast tier not
def test_a_data_file_that_is_a_loop_of_links_is_refused_and_the_watch_goes_on(project):
    """Python 3.11's Path.resolve raises RuntimeError on a loop of links: the watcher died with a traceback, at start
    or as soon as the data file became one."""
    data, loop = project / "data" / "profiles.v1.json", project / "data" / "loop"
    raw = json.loads(data.read_text())
    refused = "data/profiles.v1.json: found a loop of symbolic links"
    run = Running(*args_for(project), "--watch", cwd=project)
    try:
        run.wait_for("watching ")
        loop.symlink_to(data.name)
        link = project / "data" / ".link"
        link.symlink_to(loop.name)
        link.replace(data)  # profiles.v1.json -> loop -> profiles.v1.json
        run.wait_for(refused)
        loop.unlink()
        data.unlink()
        data.write_text(json.dumps(renamed(raw, "out of the loop")))
        wait_until_page_holds(run, project, "out of the loop")
        assert run.proc.poll() is None
    finally:
        run.stop()
    data.unlink()
    data.symlink_to(loop.name)
    loop.symlink_to(data.name)
    run = Running(*args_for(project), "--watch", cwd=project)
    try:
        run.wait_for(refused)
        run.wait_for("watching ")
    finally:
        run.stop()
    assert not any("Traceback" in line for line in run.seen)


@pytest.mark.slow  # a fresh process or many connections: the full run has it, the fast tier not
def test_a_prose_folder_that_is_a_link_is_watched_where_it_leads_now(project, tmp_path_factory):
    """The watcher compared the inodes of the folders the links led to, which stay when a link is pointed elsewhere
    or replaced by a folder: it kept watching the old folder and silently ignored every later save."""
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    first, second, section = elsewhere / "first", elsewhere / "second", "01-what.md"
    shutil.move(project / "content", first)
    shutil.copytree(first, second)
    (project / "content").symlink_to(first)

    def add(folder: Path, sentence: str) -> None:
        (folder / section).write_text((folder / section).read_text() + f"\n{sentence}\n")
    run = Running(*args_for(project), "--watch", cwd=project)
    try:
        run.wait_for("watching ")
        add(second, "A sentence in the second copy.")
        link = project / ".content-link"
        link.symlink_to(second)
        link.replace(project / "content")  # ln -sfn: the link now leads to the second copy
        wait_until_page_holds(run, project, "A sentence in the second copy.")
        add(second, "Saved in the second copy.")
        wait_until_page_holds(run, project, "Saved in the second copy.")
        (project / "content").unlink()
        shutil.copytree(first, project / "content")  # a folder again, while the first copy is still there
        add(project / "content", "Saved in a folder of its own.")
        wait_until_page_holds(run, project, "Saved in a folder of its own.")
        assert not any("Traceback" in line for line in run.seen)
    finally:
        run.stop()


def test_a_failed_build_of_a_deleted_page_waits_for_the_output_folder_to_change(project):
    """An output folder replaced by a file failed its rebuild; once the file was removed the watcher never built
    again, while the preview told the tab it was building."""
    from speculative import checkout, watch

    out = project / "site"
    paths = checkout.Paths(project / "data" / "profiles.v1.json", project / "content", project / "templates", out)
    codes: list[int] = []

    def rebuild(changed: list[str] | None) -> int:
        if out.is_file():
            codes.append(1)
            return 1
        out.mkdir(exist_ok=True)
        (out / "index.html").write_text("a page")
        codes.append(0)
        return 0
    watcher = watch.Watcher(paths, rebuild)
    watcher.build(None)
    assert not watcher.page_deleted()
    shutil.rmtree(out)
    out.write_text("a file where the folder was")
    assert watcher.page_deleted()
    watcher.build(None)
    assert not watcher.page_deleted(), "built again, and failed again, over and over"
    out.unlink()
    assert watcher.page_deleted(), "the file is gone: the folder can be built again"
    watcher.build(None)
    assert codes == [0, 1, 0] and (out / "index.html").is_file()


def readable_only_by_permission() -> tuple[str, ...]:
    """Returns the command prefix under which chmod 000 hides a folder: none for a user; for root, who reads anyway,
    setpriv without the capabilities that override permissions (skips when it cannot)."""
    if os.geteuid() != 0:
        return ()
    prefix = ("setpriv", "--inh-caps=-dac_override,-dac_read_search", "--bounding-set=-dac_override,-dac_read_search")
    if shutil.which("setpriv") is None or subprocess.run([*prefix, "true"], capture_output=True).returncode != 0:
        pytest.skip("as root, chmod 000 hides nothing, and setpriv cannot drop the capabilities that override it")
    return prefix


@pytest.mark.parametrize("folder", ["content", "templates", "templates/js"])
@pytest.mark.slow  # a fresh process or many connections: the full run has it, the fast tier not
def test_a_folder_that_cannot_be_read_is_named_and_watched_once_it_can(folder, project):
    """A templates/ (or templates/js/) made chmod 000 failed as a bug ("build failed unexpectedly: PermissionError"),
    content/ said it held no sections, and the watcher died with a traceback when one was unreadable at its start."""
    prefix = readable_only_by_permission()
    line = (f"{folder}: found a folder that could not be read (Permission denied); expected a folder the build may "
            f"read, ")
    (project / folder).chmod(0)
    try:
        once = subprocess.run([*prefix, sys.executable, str(ROOT / "build.py"), *args_for(project)], cwd=project,
                              capture_output=True, text=True, timeout=TIMEOUT)
        assert once.returncode == 1 and once.stderr.startswith(line), once.stderr
        assert "Traceback" not in once.stderr and "unexpectedly" not in once.stderr
        run = Running(*args_for(project), "--watch", cwd=project, prefix=prefix)
        try:
            run.wait_for(line)
            run.wait_for("watching ")
            (project / folder).chmod(0o755)
            run.wait_for("built ")
            assert not any("Traceback" in seen for seen in run.seen)
        finally:
            run.stop()
    finally:
        (project / folder).chmod(0o755)

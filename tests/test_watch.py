"""The author's loop: --watch rebuilds on every save and survives a broken file; --serve previews on 127.0.0.1."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path


from .conftest import ROOT

TIMEOUT = 30


class Running:
    """A build.py process whose output lines arrive on a queue, so a test can wait for a line."""

    def __init__(self, *args: str, cwd: Path, script: str | None = None):
        command = ["-c", script, str(ROOT)] if script else [str(ROOT / "build.py")]
        self.proc = subprocess.Popen([sys.executable, "-u", *command, *args], cwd=cwd,
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
        run.wait_for("built ")
        page = (project / "site" / "index.html").read_text(encoding="utf-8")
        assert "a freshly renamed draft" in page

        raw["target"][0][0] = "5/8"
        data.write_text(json.dumps(raw))
        lines = run.wait_for("Fix the problem")
        assert any(line.endswith("target[0]: sums to 9/8; each distribution must sum to 1") for line in lines)
        assert (project / "site" / "index.html").read_text(encoding="utf-8") == page

        (project / "content" / "01-what.md").write_text(
            (project / "content" / "01-what.md").read_text() + "\nA sentence added while watching.\n")
        raw["target"][0][0] = "4/8"
        data.write_text(json.dumps(raw))
        run.wait_for("built ")
        assert "A sentence added while watching." in (project / "site" / "index.html").read_text(encoding="utf-8")
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
real = build.explain
def explain(dataset):
    if dataset.walkthrough_seed == 4242:
        raise RuntimeError("a bug in the analysis")
    return real(dataset)
build.explain = explain
build.CACHE = pathlib.Path.cwd() / ".cache"
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
        run.wait_for("data/profiles.v1.json: profiles[0].id: found a list of 2; expected")

        data.write_text(json.dumps({**raw, "walkthrough_seed": 4242}))
        line = run.wait_for("build failed unexpectedly")[-1]
        assert line.startswith("build failed unexpectedly: RuntimeError: a bug in the analysis; details in ")
        assert line.endswith(".cache/last-error.log; site/ was left as it was")
        assert "a bug in the analysis" in (project / ".cache" / "last-error.log").read_text()

        data.unlink()
        os.mkfifo(data)
        run.wait_for("data/profiles.v1.json: $: found a named pipe (FIFO); expected a regular file")
        assert (project / "site" / "index.html").read_bytes() == page

        data.unlink()
        data.write_text(json.dumps({**raw, "profiles": [{**raw["profiles"][0], "name": "renamed after a bug"},
                                                        raw["profiles"][1]]}))
        run.wait_for("built ")
        assert "renamed after a bug" in (project / "site" / "index.html").read_text(encoding="utf-8")
        assert sorted(p.name for p in (project / "site").iterdir()) == ["index.html", "trace.json"]
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
        started = run.wait_for("watching ")
        assert [line.split(" ")[0] for line in started] == ["built", "serving", "watching"]
        url = started[1].split(" at ")[1]
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
            assert response.status == 200 and response.read().rstrip().endswith(b"</html>")
    finally:
        run.stop()

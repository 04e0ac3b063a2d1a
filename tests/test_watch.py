"""The author's loop: --watch rebuilds on every save and survives a broken file; --serve previews on 127.0.0.1."""

from __future__ import annotations

import json
import queue
import shutil
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import pytest

from .conftest import ROOT

TIMEOUT = 30


class Running:
    """A build.py process whose output lines arrive on a queue, so a test can wait for a line."""

    def __init__(self, *args: str, cwd: Path):
        self.proc = subprocess.Popen([sys.executable, "-u", str(ROOT / "build.py"), *args], cwd=cwd,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def wait_for(self, prefix: str) -> list[str]:
        """Returns every line up to and including the first that starts with prefix."""
        seen = []
        while True:
            line = self.lines.get(timeout=TIMEOUT)
            seen.append(line)
            if line.startswith(prefix):
                return seen

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=TIMEOUT)


@pytest.fixture
def project(tmp_path) -> Path:
    """Returns a copy of data/, content/ and templates/ that a test may edit."""
    for name in ("data", "content", "templates"):
        shutil.copytree(ROOT / name, tmp_path / name)
    return tmp_path


def args_for(project: Path) -> list[str]:
    return ["--data", str(project / "data" / "profiles.v1.json"), "--out", str(project / "site"),
            "--content", str(project / "content"), "--templates", str(project / "templates")]


def test_watch_rebuilds_on_save_and_keeps_the_last_good_site_on_bad_data(project):
    run = Running(*args_for(project), "--watch", cwd=project)
    try:
        run.wait_for("built ")
        run.wait_for("watching ")
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

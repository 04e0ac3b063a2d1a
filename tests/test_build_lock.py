"""build.py's lock: builds take turns on .cache/build.lock (flock), a build that finds it held says it waits, and a
checkout where the lock cannot be made (read-only, or no fcntl) still builds, unlocked."""

from __future__ import annotations

import fcntl
import os
import sys
import threading

import pytest

from speculative import checkout, publish


@pytest.fixture
def cache(monkeypatch, tmp_path):
    """Returns a fresh folder for the lock, as the checkout's .cache/."""
    monkeypatch.setattr(checkout, "CACHE", tmp_path / ".cache")
    return tmp_path / ".cache"


def test_a_free_lock_is_taken_without_waiting(cache, tmp_path, capsys):
    with publish.build_lock(tmp_path / "site"):
        other = os.open(cache / "build.lock", os.O_RDWR)
        with pytest.raises(BlockingIOError):  # held: another build's try fails
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
    fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released when the block ends
    os.close(other)
    assert capsys.readouterr().out == ""


def test_a_held_lock_says_it_waits_then_takes_it(cache, tmp_path, monkeypatch):
    cache.mkdir()
    holder = os.open(cache / "build.lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(holder, fcntl.LOCK_EX)
    said, entered = [], threading.Event()
    waiting = threading.Event()
    monkeypatch.setattr(publish, "print", lambda *args, **kwargs: (said.append(args[0]), waiting.set()), raising=False)

    def build() -> None:
        with publish.build_lock(tmp_path / "site"):
            entered.set()
    thread = threading.Thread(target=build)
    thread.start()
    assert waiting.wait(timeout=30), "the second build says it waits"
    assert not entered.is_set(), "and does not go in while the lock is held"
    os.close(holder)
    thread.join(timeout=30)
    assert entered.is_set() and said == [f"waiting for another build to finish writing {tmp_path / 'site'}/ …"]


@pytest.mark.parametrize("where", ["read-only checkout", "no fcntl"])
def test_a_build_where_the_lock_cannot_be_made_publishes_unlocked(where, tmp_path, monkeypatch):
    (tmp_path / "file").write_text("")
    monkeypatch.setattr(checkout, "CACHE", tmp_path / "file" / ".cache" if where == "read-only checkout" else tmp_path)
    if where == "no fcntl":
        monkeypatch.setitem(sys.modules, "fcntl", None)  # `import fcntl` raises ImportError, as on Windows
    assert publish.publish(tmp_path / "site", {"index.html": b"<p>page</p>"}, []) is True
    assert (tmp_path / "site" / "index.html").read_bytes() == b"<p>page</p>"
    assert not (tmp_path / "build.lock").exists()

"""build.py's lock where fcntl is missing (Windows): msvcrt locks the lock file's first byte, and a held lock is waited for."""

from __future__ import annotations

import subprocess
import sys
import types

import pytest

from speculative import checkout, publish


@pytest.fixture
def no_fcntl(monkeypatch, tmp_path):
    """Returns the calls made to a stand-in msvcrt, with fcntl unimportable; the lock's folder is a fresh one."""
    calls: list[tuple[int, int]] = []
    held = {"refusals": 0}

    def locking(fd: int, mode: int, nbytes: int) -> None:
        calls.append((mode, nbytes))
        if held["refusals"]:
            held["refusals"] -= 1
            raise OSError(36, "Resource deadlock avoided")

    fake = types.SimpleNamespace(LK_LOCK=1, LK_NBLCK=2, locking=locking)
    monkeypatch.setitem(sys.modules, "fcntl", None)  # `import fcntl` raises ImportError, as on Windows
    monkeypatch.setitem(sys.modules, "msvcrt", fake)
    monkeypatch.setattr(checkout, "CACHE", tmp_path / ".cache")
    return calls, held


def test_a_free_lock_is_taken_without_waiting(no_fcntl, tmp_path, capsys):
    calls, _ = no_fcntl
    with publish.build_lock(tmp_path / "site"):
        pass
    assert calls == [(2, 1)]  # one non-blocking try on one byte
    assert capsys.readouterr().out == ""
    assert (tmp_path / ".cache" / "build.lock").is_file()


def test_a_held_lock_says_it_waits_then_takes_it(no_fcntl, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    calls, held = no_fcntl
    held["refusals"] = 3  # the non-blocking try fails, then the blocking one gives up twice (10 s each on Windows)
    with publish.build_lock(tmp_path / "site"):
        pass
    assert calls == [(2, 1), (1, 1), (1, 1), (1, 1)]
    assert capsys.readouterr().out == "waiting for another build to finish writing site/ …\n"


@pytest.mark.slow  # starts fresh Python processes: the full run only
def test_build_py_starts_where_fcntl_is_missing():
    code = "import sys; sys.modules['fcntl'] = None; sys.path.insert(0, '.'); from speculative import publish; print(publish.lock.__name__)"
    out = subprocess.run([sys.executable, "-c", code], cwd=checkout.ROOT, capture_output=True, text=True)
    assert (out.returncode, out.stdout) == (0, "lock\n"), out.stderr

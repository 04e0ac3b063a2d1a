"""The watcher: build once it is live, then again on every save to an input, until stopped; a folder deleted and
made again is watched again as soon as it is back."""

from __future__ import annotations

import os
import stat
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from . import checkout
from .checkout import Paths, shown

Rebuild = Callable[[list[str] | None], int]  # builds once; given the files whose change started it, or None


def watched(paths: Paths) -> tuple[list[Path], Path]:
    """Returns the folders to watch (each without its subfolders, so templates/js/ is one of its own) and the data
    file's path inside the first."""
    folders = list(dict.fromkeys(p.resolve() for p in (paths.data.parent, paths.content, paths.templates,
                                                       paths.templates / "js")))
    return folders, paths.data.parent.resolve() / paths.data.name


def identity(folders: list[Path]) -> tuple[tuple[int, int] | None, ...]:
    """Returns each folder's (device, inode), or None where it is missing: a deleted and re-created folder differs."""
    found: list[tuple[int, int] | None] = []
    for folder in folders:
        try:
            info = os.stat(folder)
            found.append((info.st_dev, info.st_ino) if stat.S_ISDIR(info.st_mode) else None)
        except OSError:
            found.append(None)
    return tuple(found)


def input_filter(paths: Paths, data: Path) -> Callable[[object, str], bool]:
    """Returns a watchfiles filter that passes only changes to inputs: the data file itself (not its neighbours,
    such as a log written beside it), and the visible files directly in content/, templates/ and templates/js/."""
    from watchfiles import Change, DefaultFilter

    editors = DefaultFilter()  # swap files and the like
    # Our own writes are not inputs. DefaultFilter's ignore_paths compares strings, so `--out da` would also have
    # ignored data/: compare whole path parts instead.
    ours = (paths.out.resolve(), checkout.CACHE.resolve())
    inputs = (paths.content.resolve(), paths.templates.resolve(), (paths.templates / "js").resolve())

    def passes(change: Change, path: str) -> bool:
        where = Path(path)
        if not editors(change, path) or any(where.is_relative_to(o) for o in ours):  # the folder itself too
            return False
        return where == data or (where.parent in inputs and not where.name.startswith("."))
    return passes  # type: ignore[return-value]  # watchfiles calls it with a Change


def watch(paths: Paths, rebuild: Rebuild, ready: Callable[[], None]) -> int:
    """Builds once the watcher is live, calls ready() after that first build, then builds again whenever an input
    changes, until stopped; survives its folders being deleted and re-created by watching them again as soon as
    they change. Returns 1 at once when a folder to watch is missing."""
    folders, data = watched(paths)
    missing = [f for f in folders if not f.is_dir()]
    if missing:
        print(f"{shown(missing[0])}: found no such folder; expected a folder to watch", file=sys.stderr, flush=True)
        return 1
    passes, first = input_filter(paths, data), True
    while True:
        seen = identity(folders)
        live = [f for f, known in zip(folders, seen, strict=True) if known is not None]
        if not live:  # every folder is gone: look again every 100 ms until one is back
            while identity(folders) == seen:
                time.sleep(0.1)
            continue
        for _ in watch_live(live, passes, rebuild, lambda: identity(folders) != seen):  # noqa: B023  (called within this pass only)
            if first:
                ready()
                print(f"watching {', '.join(shown(f) for f in folders)} (Ctrl-C stops)", flush=True)
                first = False
        # a folder was deleted or re-created: watch the folders as they are now, then build once more


def watch_live(live: list[Path], passes: Callable[[object, str], bool], rebuild: Rebuild,
               moved: Callable[[], bool]) -> Iterator[None]:
    """Builds when the watcher on `live` is up, then on every change, yielding after each build; returns when
    moved() says a folder was deleted or re-created."""
    from watchfiles import watch as changes

    pending = True  # the watcher is live at its first yield, so a save after this build is never missed
    # yield_on_timeout hands back an empty batch every 100 ms: build then if pending, and look for moved folders
    for changed in changes(*live, watch_filter=passes, debounce=200, step=10, rust_timeout=100,
                           yield_on_timeout=True, recursive=False):
        if moved():
            return
        if pending or changed:
            rebuild(sorted({shown(Path(path)) for _, path in changed}) or None)
            pending = False
            yield

"""The watcher: build once it is live, then again on every save to an input, until stopped; a folder deleted and
made again is watched again as soon as it is back (and the inputs' bytes are compared with the last build's, so a
save made before the new watch was live is built too); a data file that is a symbolic link is watched where it
points; an output folder deleted after a build is built again."""

from __future__ import annotations

import functools
import os
import stat
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from . import checkout
from .checkout import Paths, inputs_digest, shown
from .reading import unreadable

Rebuild = Callable[[list[str] | None], int]  # builds once; given the files whose change started it, or None


def resolved(path: Path) -> Path:
    """Returns the path with its links followed, or, where they go round in a loop (which Python 3.11 and 3.12 raise
    as RuntimeError), the path as it is: the build's reader names the loop, and the watcher keeps running."""
    try:
        return path.resolve()
    except (RuntimeError, OSError):
        return path.absolute()


def watched(paths: Paths) -> tuple[list[Path], Path]:
    """Returns the folders to watch (each without its subfolders, so templates/js/ is one of its own) and the data
    file's path inside the first. A data file that is a symbolic link adds the folder of what it points to."""
    data = resolved(paths.data.parent) / paths.data.name
    folders = list(dict.fromkeys(resolved(p) for p in (paths.data.parent, paths.content, paths.templates,
                                                       paths.templates / "js", resolved(data).parent)))
    return folders, data


def missing(folder: Path) -> bool:
    """Returns whether there is no folder at `folder`; one that is there but cannot be read is not missing (the build
    says so, and it is watched once it can be read)."""
    try:
        return not stat.S_ISDIR(os.stat(folder).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return True
    except OSError:
        return False


def identity(folders: list[Path]) -> tuple[tuple[int, int] | None, ...]:
    """Returns each folder's (device, inode), or None where it is missing or cannot be listed (chmod 000), which
    cannot be watched: a deleted and re-created folder differs unless it got the same inode back, which the filter's
    note of the deletion covers, and one made readable again differs too."""
    found: list[tuple[int, int] | None] = []
    for folder in folders:
        try:
            info = os.stat(folder)  # a watch needs the folder's listing: none, and it is watched when there is
            found.append((info.st_dev, info.st_ino) if stat.S_ISDIR(info.st_mode) and not unreadable(folder) else None)
        except OSError:
            found.append(None)
    return tuple(found)


class Watcher:
    """One watch's state: the rebuild, what the last build read and left, and whether a watched folder was deleted."""

    def __init__(self, paths: Paths, rebuild: Rebuild) -> None:
        self.paths, self.rebuild = paths, rebuild
        self.digest: bytes | None = None  # the inputs at the start of the last build
        self.made_page = False  # whether a build has left a page in the output folder
        self.folder_gone = False  # set by the filter when a watched folder itself is deleted
        self.left: tuple[object, ...] | None = None  # the output folder as the last failed build left it

    def output(self) -> tuple[object, ...]:
        """Returns what the output folder is now: its kind and inode (or None where there is none), and whether it
        holds the page."""
        try:
            info = os.lstat(self.paths.out)
            there: tuple[int, int] | None = (stat.S_IFMT(info.st_mode), info.st_ino)
        except OSError:
            there = None
        return there, (self.paths.out / "index.html").is_file()

    def build(self, changed: list[str] | None) -> None:
        self.digest = inputs_digest(self.paths)
        code = self.rebuild(changed)
        # a build that succeeded made the page, even if it is deleted before this line runs. After a failed one, the
        # output folder is built again only once it changes from how that build left it (a file where it should be,
        # since removed), never over and over while it stays so
        self.made_page = self.made_page or code == 0 or (self.paths.out / "index.html").is_file()
        self.left = None if code == 0 else self.output()

    def stale(self) -> bool:
        """Returns whether the inputs differ from what the last build read."""
        return inputs_digest(self.paths) != self.digest

    def page_deleted(self) -> bool:
        """Returns whether the page the last build left in the output folder is gone, and says so."""
        if not self.made_page or (self.paths.out / "index.html").is_file() or self.output() == self.left:
            return False
        what = f"{shown(self.paths.out)}/" if not self.paths.out.is_dir() else f"{shown(self.paths.out)}/index.html"
        print(f"{what} is gone since the last build: building it again", flush=True)
        return True


def input_filter(paths: Paths, data: Path, watcher: Watcher | None = None) -> Callable[[object, str], bool]:
    """Returns a watchfiles filter that passes only changes to inputs: the data file itself (or what its link points
    to; not its neighbours, such as a log written beside it), and the visible files directly in content/, templates/
    and templates/js/. It notes on `watcher` a watched folder deleted, since one made again may reuse its inode."""
    from watchfiles import Change, DefaultFilter

    editors = DefaultFilter()  # swap files and the like
    # Our own writes are not inputs. DefaultFilter's ignore_paths compares strings, so `--out da` would also have
    # ignored data/: compare whole path parts instead.
    ours = (resolved(paths.out), resolved(checkout.CACHE))
    inputs = (resolved(paths.content), resolved(paths.templates), resolved(paths.templates / "js"))
    datas, folders = (data, resolved(data)), set(watched(paths)[0])

    def passes(change: Change, path: str) -> bool:
        where = Path(path)
        if watcher is not None and change == Change.deleted and where in folders:
            watcher.folder_gone = True
        if not editors(change, path) or any(where.is_relative_to(o) for o in ours):  # the folder itself too
            return False
        return where in datas or (where.parent in inputs and not where.name.startswith("."))
    return passes  # type: ignore[return-value]  # watchfiles calls it with a Change


def watch(paths: Paths, rebuild: Rebuild, ready: Callable[[], None]) -> int:
    """Builds once the watcher is live, calls ready() after that first build, then builds again whenever an input
    changes, until stopped; survives its folders being deleted and re-created by watching them again as soon as
    they change. Returns 1 at once when a folder to watch is missing."""
    gone = [f for f in watched(paths)[0] if missing(f)]
    if gone:
        print(f"{shown(gone[0])}: found no such folder; expected a folder to watch", file=sys.stderr, flush=True)
        return 1
    watcher, first = Watcher(paths, rebuild), True
    while True:
        folders, data = watched(paths)  # again each time: the data file's link may point elsewhere now
        watcher.folder_gone, seen, target = False, identity(folders), resolved(data)
        live = [f for f, known in zip(folders, seen, strict=True) if known is not None]
        if not live:  # every folder is gone: look again every 100 ms until one is back
            while identity(folders) == seen:
                time.sleep(0.1)
            continue
        # a folder given as a link (content/ -> elsewhere) may be pointed elsewhere, or replaced, with the folder it
        # led to still there: compare where the paths lead as well as what is there
        moved = functools.partial(changed_since, paths, watcher, (folders, seen, data, target))
        for _ in watch_live(live, input_filter(paths, data, watcher), watcher, moved):
            if first:
                ready()
                print(f"watching {', '.join(shown(f) for f in folders)} (Ctrl-C stops)", flush=True)
                first = False
        # a folder was deleted or re-created, or the link moved: watch the folders as they are now


def changed_since(paths: Paths, watcher: Watcher,
                  then: tuple[list[Path], tuple[tuple[int, int] | None, ...], Path, Path]) -> bool:
    """Returns whether the folders to watch changed since `then` (the folders, their identity, the data file and where
    it led): one deleted, made again or made readable, or a link among the paths now leading elsewhere."""
    folders, seen, data, target = then
    return watcher.folder_gone or identity(folders) != seen or (resolved(data), watched(paths)[0]) != (target, folders)


def watch_live(live: list[Path], passes: Callable[[object, str], bool], watcher: Watcher,
               moved: Callable[[], bool]) -> Iterator[None]:
    """Builds when the watcher on `live` is up if the inputs differ from the last build's, then on every change and
    whenever the output folder's page is deleted, yielding after each build; returns when moved() says a folder was
    deleted or re-created."""
    from watchfiles import watch as changes

    armed = False
    # yield_on_timeout hands back an empty batch every 100 ms: build then if due, and look for moved folders
    for changed in changes(*live, watch_filter=passes, debounce=200, step=10, rust_timeout=100,
                           yield_on_timeout=True, recursive=False):
        if moved():
            return
        # the watcher is live at its first batch: a save from then on is seen, one made before shows in the bytes
        due = not armed and watcher.stale()
        armed = True
        if due or changed or watcher.page_deleted():
            watcher.build(sorted({shown(Path(path)) for _, path in changed}) or None)
            yield

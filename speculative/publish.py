"""Owns the output folder: a marker file says it is the build's and names the files the build wrote there, each file
is written under a temporary name beside the old one and swapped in with os.replace, and builds take turns on a lock."""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

from . import checkout
from .errors import Problems, as_folder, short, visible
from .reading import kind
from .sections import PAGE_FILES

TEMP_SUFFIX = ".tmp"  # a file being written is ".<name>.<pid>.<random>.tmp" in the output folder
MARKER = ".speculative-site"  # WRITTEN_BY (fixed: any other first line is not ours), then the names of our files
WRITTEN_BY = "written by speculative build.py, which replaces and removes only the files named below"
OLD_MARKER = ".speculative-manifest.json"  # what builds before the marker wrote, beside index.html and trace.json


def shown(path: Path) -> str:
    return short(visible(checkout.shown(path)))


def output_problems(out: Path, inputs: list[Path]) -> list[str]:
    """Returns why `out` cannot take the built page: a name too long, a link to nowhere, not a folder, or a folder
    that is, holds, or is inside the inputs."""
    name, expected = shown(out), "expected a folder of its own for the built page, such as site/"
    longest, whole = max(len(os.fsencode(p)) for p in out.absolute().parts), len(os.fsencode(out.absolute()))
    if longest > 255 or whole > 4000:  # the usual NAME_MAX, and PATH_MAX less room for a temporary file's name
        what = f"a name of {longest:,} bytes" if longest > 255 else f"a path of {whole:,} bytes"
        return [f"{name}: found {what}, longer than the system allows; expected a folder for the built page with "
                "names of at most 255 bytes and a path of at most 4,000 bytes (choose a shorter --out)"]
    if os.path.islink(out) and not out.exists():  # a link to nothing, or round in a loop of links
        return [f"{name}: found a symbolic link to {short(os.readlink(out))}, which leads to no folder; expected a "
                "folder for the built page (make the folder it names, or choose another --out)"]
    where = Path(os.path.realpath(out))
    found = next(p for p in (where, *where.parents) if os.path.lexists(p))
    if not found.is_dir():
        return [f"{name}: found {'a file' if found.is_file() else kind(found.stat().st_mode)}"
                f"{'' if found == where else f' at {shown(found)}'}; expected a folder for the built page"]
    for path in inputs:
        if where in path.resolve().parents:
            return [f"{name}: found the folder that holds {shown(path)}; {expected}"]
        if path.is_dir() and (where == path.resolve() or path.resolve() in where.parents):
            inside = "" if where == path.resolve() else "a folder inside "
            return [f"{name}: found {inside}{as_folder(shown(path))}, which holds the page's inputs; {expected}"]
    return []


def claim(out: Path) -> set[str]:
    """Returns the names in `out` that an earlier build wrote, as its marker lists them; raises Problems if `out`
    holds anything and no marker (it may be someone else's folder), or a folder where the build writes a file."""
    entries = set(os.listdir(out)) if out.is_dir() else set()
    for name in sorted({*PAGE_FILES, MARKER} & entries):
        if stat.S_ISDIR(os.lstat(out / name).st_mode):
            raise Problems([f"{shown(out / name)}: found a folder where the build writes its own file; expected that "
                            "file or nothing (move the folder away, or choose another --out)"])
    lines = (out / MARKER).read_text("utf-8", "replace").splitlines() if (out / MARKER).is_file() else []
    if lines[:1] == [WRITTEN_BY]:
        return {n for n in lines[1:] if n not in ("", ".", "..") and "/" not in n} | {MARKER}
    if OLD_MARKER in entries:  # a folder an earlier build wrote, which listed only these
        return {OLD_MARKER, *PAGE_FILES}
    if entries:
        named = ", ".join(sorted(entries)[:5]) + (f" and {len(entries) - 5} more" if len(entries) > 5 else "")
        raise Problems([f"{shown(out)}: found {named}, which this build did not write; expected an empty folder or "
                        f"one this build wrote (it holds {MARKER}); choose another --out, or move those files away"])
    return set()


def put(out: Path, name: str, blob: bytes) -> None:
    """Writes blob to a new temporary file in `out`, flushed to disk, then swaps it in for out/name in one rename."""
    temp = out / f".{name}.{os.getpid()}.{secrets.token_hex(4)}{TEMP_SUFFIX}"
    try:
        with open(temp, "xb") as handle:  # a new file, as umask allows others to read it
            handle.write(blob)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, out / name)
    finally:
        temp.unlink(missing_ok=True)


def write_atomic(out: Path, files: dict[str, bytes]) -> None:
    """Swaps each file into `out`, then removes the files an earlier build wrote that this one does not (never a
    folder). The marker lists each file of ours before it appears and until it is gone, so a stop leaves none off."""
    owned = claim(out)
    stale = owned - set(files) - {MARKER}
    out.mkdir(parents=True, exist_ok=True)
    if owned != {*files, MARKER}:
        put(out, MARKER, "".join(f"{n}\n" for n in (WRITTEN_BY, *sorted({*files, *stale}))).encode())
    for name, blob in files.items():
        put(out, name, blob)
    for name in stale:
        with contextlib.suppress(FileNotFoundError):
            if not stat.S_ISDIR(os.lstat(out / name).st_mode):
                os.unlink(out / name)
    if stale:
        put(out, MARKER, "".join(f"{n}\n" for n in (WRITTEN_BY, *sorted(files))).encode())


@contextlib.contextmanager
def build_lock(out: Path) -> Iterator[None]:
    """Holds .cache/build.lock (flock), so concurrent builds take turns; waits, saying so, if it is held."""
    with contextlib.ExitStack() as stack:
        with contextlib.suppress(ImportError, OSError):  # no fcntl (Windows), or a read-only checkout: unlocked
            import fcntl

            checkout.CACHE.mkdir(parents=True, exist_ok=True)
            fd = stack.enter_context(open(checkout.CACHE / "build.lock", "ab")).fileno()  # closing it unlocks
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                print(f"waiting for another build to finish writing {as_folder(shown(out))} …", flush=True)
                fcntl.flock(fd, fcntl.LOCK_EX)
        yield


def publish(out: Path, files: dict[str, bytes], inputs: list[Path], current: Callable[[], bool] | None = None) -> bool:
    """Writes the files into `out` under the build lock and returns True, or raises Problems if `out` cannot take
    them. Returns False, writing nothing, when `current` says under the lock that the inputs changed since the files
    were built from them: a build that waited must not publish a page of older inputs over a newer build's."""
    with build_lock(out):
        if current is not None and not current():
            return False
        try:
            lines = output_problems(out, inputs)
            if lines:
                raise Problems(lines)
            write_atomic(out, files)
        except OSError as err:  # a folder that cannot be read or written, or a file made immutable
            what = f"{shown(Path(err.filename2))}: found a file" if err.filename2 else f"{shown(out)}: found a folder"
            raise Problems([f"{what} the build could not write ({err.strerror or err}); expected one it may write "
                            "(make it writable, or choose another --out)"]) from None
    return True

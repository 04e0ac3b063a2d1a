"""Owns the output folder: which files in it a build wrote (its manifest) and the refusals that keep every other
file safe, the files written beside their old versions and swapped in one by one (rolled back if one replace fails,
uninterrupted once the swap starts), and the lock that makes concurrent builds take turns.

Not a staging folder swapped in whole: the standard library has no atomic exchange of two folders, so renaming the
old one away and the new one in would leave a moment with no output folder; the new folder would also need a
writable parent, would replace an --out that is a symbolic link, and would leave a server started inside the old
folder serving a deleted one.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import stat
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from . import checkout
from .errors import Problems, as_folder, short
from .reading import kind, open_problem, read_bytes
from .sections import PAGE_FILES

OUTPUTS = PAGE_FILES  # what a build writes into the output folder
TEMP_SUFFIX = ".tmp"  # an output being written is ".<name>.<pid>.<random>.tmp" in the output folder
MANIFEST = ".speculative-manifest.json"  # in the output folder: the files this build wrote there, and only those
WRITTEN_BY = "speculative build.py"  # as every earlier build wrote it, so their folders stay this build's own
# What an earlier build's files hold near their start, so a folder from before manifests still rebuilds.
SIGNATURES = {"index.html": b'<script type="application/json" id="trace">{"format":"speculative-decoding-trace/',
              "trace.json": b'{"format":"speculative-decoding-trace/'}
SIGNATURE_SPAN = 1_000_000


def shown(path: Path) -> str:
    """Returns a path as the output folder's messages show it: as the user would type it, shortened when long."""
    return short(checkout.shown(path))


def is_temp(name: str) -> bool:
    """Returns whether a name is one of this build's temporary files (".index.html.123.0a1b2c3d.tmp")."""
    if not (name.startswith(".") and name.endswith(TEMP_SUFFIX)) or name.count(".") < 4:
        base, pid, token = "", "", ""
    else:
        base, pid, token = name[1:-len(TEMP_SUFFIX)].rsplit(".", 2)
    return (base in (*OUTPUTS, MANIFEST) and pid.isdigit() and len(token) == 8
            and all(c in "0123456789abcdef" for c in token))


def output_problems(out: Path, inputs: list[Path]) -> list[str]:
    """Returns why `out` cannot take the built page: not a folder, the folder of an input, or a folder inside an
    earlier build's output (whose next build would then refuse the folder it did not write)."""
    first = length_problem(out) or link_problem(out)
    if first:
        return [first]
    where = out.resolve()
    inside = inside_inputs(out, where, inputs)
    if inside:
        return inside
    holder = next((d for d in where.parents if (d / MANIFEST).is_file()), None)
    if holder is not None:
        what = "a file" if out.exists() and not out.is_dir() else "a folder"
        return [f"{shown(out)}: found {what} inside {as_folder(shown(holder))}, which holds an earlier build's output; "
                f"expected a folder of its own for the built page, beside {as_folder(shown(holder))} rather than in it"]
    try:
        mode = out.stat().st_mode
    except FileNotFoundError:
        return []
    except OSError as err:
        return [f"{shown(out)}: {open_problem(out, err).replace('a readable file', 'a folder for the built page')}"]
    if not stat.S_ISDIR(mode):
        return [f"{shown(out)}: found {'a file' if stat.S_ISREG(mode) else kind(mode)}; expected a folder for the built page"]
    for path in inputs:
        if where == path.resolve() or where in path.resolve().parents:
            return [f"{shown(out)}: found the folder that holds {shown(path)}; expected a folder of its own "
                    "for the built page, such as site/"]
    return []


def link_problem(out: Path) -> str | None:
    """Returns why `out` is a symbolic link that leads to no folder: round in a loop, or to nothing."""
    try:
        out.resolve()
    except (RuntimeError, OSError):  # RuntimeError: a symbolic link that leads, through others, back to itself
        return f"{shown(out)}: found a symbolic link that leads back to itself; expected a folder for the built page"
    if os.path.islink(out) and not out.exists():
        return (f"{shown(out)}: found a symbolic link to {short(os.readlink(out))}, which does not exist; expected a "
                "folder for the built page (make the folder it names, or choose another --out)")
    return None


def system_limit(name: str, default: int) -> int:
    """Returns a limit of the file system at the root (os.pathconf), or the usual one where it is not known."""
    try:
        return os.pathconf("/", name)
    except (AttributeError, OSError, ValueError):  # no pathconf on Windows
        return default


def length_problem(out: Path) -> str | None:
    """Returns why the system would refuse `out` as too long, before anything is made or read there: a name in it
    over NAME_MAX bytes, or the whole path, with the longest file name the build writes in it, over PATH_MAX."""
    name_max, path_max = system_limit("PC_NAME_MAX", 255), system_limit("PC_PATH_MAX", 4096)
    longest = max((len(os.fsencode(part)) for part in out.parts), default=0)
    whole = len(os.fsencode(os.path.abspath(out)))
    inner = len(f"/.{MANIFEST}.{2**22}.{'0' * 8}{TEMP_SUFFIX}")  # a temporary file's name, with the largest pid
    if longest <= name_max and whole + inner < path_max:
        return None
    found = f"a name of {longest:,} bytes" if longest > name_max else f"a path of {whole:,} bytes"
    return (f"{shown(out)}: found {found}, longer than the system allows; expected a folder for the built page with "
            f"names of at most {name_max:,} bytes and a path of at most {path_max - inner - 1:,} bytes (choose a shorter --out)")


def inside_inputs(out: Path, where: Path, inputs: list[Path]) -> list[str]:
    """Returns why `out` cannot be a folder inside an input folder (content/, templates/), every file of which the
    build reads: the next build would find the built page's folder among its inputs, and refuse it."""
    for path in inputs:
        if path.is_dir() and path.resolve() in where.parents:
            return [f"{shown(out)}: found a folder inside {as_folder(shown(path))}, which holds the page's inputs; expected "
                    "a folder of its own for the built page, such as site/"]
    return []


def read_manifest(out: Path) -> set[str] | None:
    """Returns the names an earlier build recorded in out's manifest, None when there is none; raises Problems
    when the manifest is not one this build wrote."""
    path = out / MANIFEST
    if not os.path.lexists(path):
        return None
    try:
        doc = json.loads(read_bytes(path))
    except ValueError:  # unreadable, not a regular file, or not JSON (json.JSONDecodeError is a ValueError)
        doc = None
    names = doc.get("files") if isinstance(doc, dict) and doc.get("written_by") == WRITTEN_BY else None
    if not isinstance(names, list) or not all(isinstance(n, str) and is_plain_name(n) for n in names):
        raise Problems([f"{shown(path)}: found a file that is not this build's record of what it wrote; expected the "
                        f"manifest an earlier build wrote (choose another --out, or empty {as_folder(shown(out))} yourself)"])
    return set(names)


def is_plain_name(name: str) -> bool:
    return name not in ("", ".", "..", MANIFEST) and "/" not in name and "\\" not in name and "\0" not in name


def looks_built(path: Path) -> bool:
    """Returns whether path is a regular file that an earlier build (before manifests) wrote: its own signature."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return False
        return SIGNATURES[path.name] in read_bytes(path)[:SIGNATURE_SPAN]
    except (OSError, ValueError):
        return False


def owned_and_others(out: Path) -> tuple[set[str], list[str]]:
    """Returns (the names in out this build wrote, the names it did not write); raises Problems for a foreign manifest.

    Without a manifest, only index.html and trace.json that carry an earlier build's signature count as ours."""
    entries = set(os.listdir(out))
    recorded = read_manifest(out)
    owned = {n for n in OUTPUTS if n in entries and looks_built(out / n)} if recorded is None else recorded & entries | {MANIFEST}
    owned |= {n for n in entries if is_temp(n)}  # left by a build that was killed
    return owned, sorted(entries - owned)


def claim(out: Path, inputs: list[Path]) -> set[str]:
    """Returns the names in out that this build wrote and may replace or remove; raises Problems, naming them,
    if out holds anything it did not write, since publishing must never remove or overwrite someone else's file."""
    lines = output_problems(out, inputs)
    if lines:
        raise Problems(lines)
    if not out.is_dir():
        return set()
    try:
        owned, others = owned_and_others(out)
    except OSError as err:
        raise Problems([f"{shown(out)}: found a folder that could not be read ({err.strerror or err}); "
                        "expected a readable folder for the built page"]) from None
    folder = next((n for n in (*OUTPUTS, MANIFEST) if os.path.isdir(out / n) and not os.path.islink(out / n)), None)
    if folder is not None:  # a name the build wrote, now a folder: it would be neither replaced nor removed
        raise Problems([f"{shown(out / folder)}: found a folder where the build writes its own file; expected that "
                        "file or nothing (move the folder away, or choose another --out)"])
    if others:
        named = ", ".join(others[:5]) + (f" and {len(others) - 5} more" if len(others) > 5 else "")
        raise Problems([f"{shown(out)}: found {named}, which this build did not write; expected an empty folder or "
                        f"one this build wrote (it lists its files in {MANIFEST}), since publishing replaces its "
                        "own files; choose another --out, or move those files away"])
    return owned


def manifest_bytes(names: set[str]) -> bytes:
    doc = {"written_by": WRITTEN_BY, "files": sorted(names),
           "note": "build.py replaces and removes only the files listed here; it refuses a folder holding any other"}
    return (json.dumps(doc, indent=1) + "\n").encode("utf-8")


def write_all(fd: int, blob: bytes) -> None:
    rest = memoryview(blob)
    while rest:
        rest = rest[os.write(fd, rest):]


def write_temp(out: Path, name: str, blob: bytes) -> Path:
    """Returns a new hidden file in `out` holding blob, flushed to disk; removes it again if anything fails."""
    path = out / f".{name}.{os.getpid()}.{secrets.token_hex(4)}{TEMP_SUFFIX}"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
    try:
        write_all(fd, blob)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        path.unlink(missing_ok=True)
        raise
    os.close(fd)
    return path


@contextlib.contextmanager
def deferred_signals() -> Iterator[None]:
    """Holds back Ctrl-C and SIGTERM until the block ends, so a swap that has started also finishes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = {s: signal.signal(s, lambda signum, frame: caught.append(signum)) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler if handler is not None else signal.SIG_DFL)
        if caught:
            signal.raise_signal(caught[0])


def write_atomic(out: Path, files: dict[str, bytes], owned: set[str] | None = None) -> None:
    """Writes every file beside its old version, then replaces each with os.replace and removes the files an
    earlier build wrote that this one does not, so a reader of `out` always finds a complete file, never a
    missing one. The manifest names every file of ours in the folder at every moment of the swap."""
    if owned is None:
        owned = claim(out, [])
    out.mkdir(parents=True, exist_ok=True)
    temps: dict[str, Path] = {}
    backups: dict[str, Path] = {}  # name: a link to the file it replaces, until the swap is done
    try:
        for name, blob in files.items():
            temps[name] = write_temp(out, name, blob)
        recorded = read_manifest(out) or set()
        if not set(files) <= recorded:  # a killed swap must still leave every new file on the record
            temps["first " + MANIFEST] = write_temp(out, MANIFEST, manifest_bytes(recorded | set(files)))
        temps[MANIFEST] = write_temp(out, MANIFEST, manifest_bytes(set(files)))
        with deferred_signals():
            if "first " + MANIFEST in temps:
                os.replace(temps.pop("first " + MANIFEST), out / MANIFEST)
            swap(out, temps, [n for n in temps if n != MANIFEST], backups)
            remove_strays(out, owned - set(files) - {MANIFEST})
            os.replace(temps.pop(MANIFEST), out / MANIFEST)
            fsync_folder(out)
    finally:
        for path in [*temps.values(), *backups.values()]:
            path.unlink(missing_ok=True)


def swap(out: Path, temps: dict[str, Path], names: list[str], backups: dict[str, Path]) -> None:
    """Replaces each named file in `out` with its temporary file. If one replace fails (a file made immutable, say),
    puts back the files already replaced, from the links to them kept in backups, and raises: the folder then
    holds the earlier build's files, never a mix of two builds."""
    done: list[str] = []
    try:
        for name in names:
            if os.path.lexists(out / name):
                backups[name] = kept_copy(out, name)
            os.replace(temps[name], out / name)
            del temps[name]
            done.append(name)
    except OSError:
        for name in reversed(done):
            if name in backups:
                os.replace(backups.pop(name), out / name)
            else:
                (out / name).unlink(missing_ok=True)
        raise


def kept_copy(out: Path, name: str) -> Path:
    """Returns a new hidden name in `out` for out/name's current file: a hard link, or a copy where the file system
    refuses links."""
    path = out / f".{name}.{os.getpid()}.{secrets.token_hex(4)}{TEMP_SUFFIX}"
    try:
        os.link(out / name, path, follow_symlinks=False)
    except OSError:
        import shutil  # here, not at the top: only a file system without links needs it

        shutil.copy2(out / name, path, follow_symlinks=False)
    return path


def remove_strays(out: Path, names: set[str]) -> None:
    """Removes the named files or links directly in `out`, each one an earlier build wrote; never a folder,
    never a link's target."""
    for name in names:
        with contextlib.suppress(FileNotFoundError):
            if not stat.S_ISDIR(os.lstat(out / name).st_mode):
                os.unlink(out / name)


def fsync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def build_lock(out: Path) -> Iterator[None]:
    """Holds .cache/build.lock while publishing, so concurrent builds take turns; waits, saying so, if it is held."""
    try:
        checkout.CACHE.mkdir(parents=True, exist_ok=True)
        fd = os.open(checkout.CACHE / "build.lock", os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666)  # none on Windows
    except OSError:  # a read-only checkout: publish unlocked, as one build at a time is then the only way
        yield
        return
    try:
        try:
            lock(fd, wait=False)
        except BlockingIOError:
            print(f"waiting for another build to finish writing {as_folder(shown(out))} …", flush=True)
            lock(fd, wait=True)
        yield
    finally:
        os.close(fd)  # closing the file releases either kind of lock


def lock(fd: int, wait: bool) -> None:
    """Locks the open lock file for this process, waiting for it when `wait`, else raising BlockingIOError if held.

    POSIX has flock; where fcntl is missing (Windows), msvcrt locks the file's first byte instead.
    """
    try:
        import fcntl
    except ImportError:
        import msvcrt

        os.lseek(fd, 0, os.SEEK_SET)
        while True:
            try:
                return msvcrt.locking(fd, msvcrt.LK_LOCK if wait else msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]  # Windows-only API
            except OSError:  # LK_LOCK gives up after 10 s: keep waiting
                if not wait:
                    raise BlockingIOError("another build holds the lock") from None
    fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))


def publish(out: Path, files: dict[str, bytes], inputs: list[Path], current: Callable[[], bool] | None = None) -> bool:
    """Writes the files into `out` under the build lock and returns True, or raises Problems if the folder cannot
    take them (it is one of the inputs, or holds them, or holds a file no build wrote). Returns False, writing
    nothing, when `current` says under the lock that the inputs changed since the files were built from them: a
    build that waited for the lock must not publish over a newer build's page with older data."""
    with build_lock(out):
        if current is not None and not current():
            return False
        owned = claim(out, inputs)
        try:
            write_atomic(out, files, owned)
        except OSError as err:
            if err.filename2:  # os.replace(temporary file, the file it replaces)
                raise Problems([f"{shown(Path(err.filename2))}: found a file the build could not replace "
                                f"({err.strerror or err}); expected a file the build may replace (make it writable, "
                                "or choose another --out)"]) from None
            raise Problems([f"{shown(out)}: found a folder that could not be written "
                            f"({err.strerror or err}); expected a writable folder for the built page"]) from None
    return True

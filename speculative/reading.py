"""Owns reading an input file from disk: the one reader the build and the package's commands share.

Anything that is not a regular file, or is over MAX_INPUT_BYTES, is refused before it is read, with a
"found …; expected …" message; a named pipe never blocks the reader.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from .errors import MAX_INPUT_BYTES, short


def unreadable(folder: Path) -> str | None:
    """Returns why the folder's files cannot be listed (a folder made chmod 000: "Permission denied"), or None: a
    folder that is missing, or is a file, is said elsewhere. The build names such a folder; the watcher watches it
    once it can be listed."""
    try:
        os.stat(os.path.join(folder, os.curdir))  # a folder that lists (r) but cannot be entered (x) is refused too
        with os.scandir(folder):
            return None
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as err:
        return err.strerror or str(err)


def kind(mode: int) -> str:
    """Returns what a non-regular file is, in words."""
    return ("a folder" if stat.S_ISDIR(mode) else "a named pipe (FIFO)" if stat.S_ISFIFO(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "something that is not a regular file")


def open_problem(path: Path, err: OSError) -> str:
    """Returns what was found at a path that could not be opened, as "found …; expected …"."""
    if err.errno == errno.ELOOP:
        chain = link_loop(path)
        return (f"found a loop of symbolic links{f' ({chain})' if chain else ''}; expected the path of a readable "
                "file (point one of the links at a file)")
    if err.errno == errno.ENOENT:
        if os.path.islink(path):
            return f"found a symbolic link to a missing file ({os.readlink(path)}); expected the path of an existing file"
        return "found no such file; expected the path of an existing file"
    try:
        mode = os.stat(path).st_mode
    except OSError:
        mode = stat.S_IFREG
    if not stat.S_ISREG(mode):
        return f"found {kind(mode)}; expected a regular file"
    return f"found a file that could not be read ({err.strerror or err}); expected a readable file"


MAX_LINKS = 40  # links followed to find a loop: Linux gives up (ELOOP) after 40


def link_loop(path: Path) -> str:
    """Returns the loop of symbolic links at path as its links name each other, such as "a.json -> b.json ->
    a.json"; "" when the loop is not in path's own chain of links (a folder in it loops, say)."""
    names, seen, at = [short(path.name)], set(), os.path.abspath(path)
    for _ in range(MAX_LINKS):
        try:
            target = os.readlink(at)
        except OSError:
            return ""
        seen.add(at)
        at = os.path.normpath(os.path.join(os.path.dirname(at), target))
        names.append(short(target))
        if at in seen:
            return " -> ".join(names)
    return ""


def read_limited(fd: int, limit: int = MAX_INPUT_BYTES) -> bytes:
    """Returns at most limit + 1 bytes from an open file, so a growing file cannot exhaust memory."""
    chunks, size = [], 0
    while size <= limit:
        chunk = os.read(fd, limit + 1 - size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def read_bytes(path: Path, limit: int = MAX_INPUT_BYTES) -> bytes:
    """Returns a regular file's bytes, or raises ValueError with "found …; expected …" before reading anything else.

    limit is for the build's own cache; every input file is held to MAX_INPUT_BYTES."""
    try:  # O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as err:
        raise ValueError(open_problem(path, err)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"found {kind(info.st_mode)}; expected a regular file")
        too_big = f"expected at most {limit:,} bytes for an input file"
        if info.st_size > limit:
            raise ValueError(f"found {info.st_size:,} bytes; {too_big}")
        raw = read_limited(fd, limit)
        if len(raw) > limit:  # it grew after the size check
            raise ValueError(f"found more than {limit:,} bytes; {too_big}")
        return raw
    except OSError as err:
        raise ValueError(f"found a file that could not be read ({err.strerror or err}); expected a readable file") from None
    finally:
        os.close(fd)

"""Where the project's inputs are: the clone of the project whose data/, content/ and templates/ the commands read.

The package is meant to be used from a clone (bash scripts/build.sh installs it there, editable). It finds the
clone beside itself; installed elsewhere (`pip install .`), it uses the current folder or the nearest one above it
that is a clone. The standard library only, like cli.py.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from .errors import MAX_INPUT_BYTES

PACKAGE = Path(__file__).resolve().parent
DATA = "data/profiles.v1.json"  # the inputs, relative to the clone
CONTENT = "content"
TEMPLATES = "templates"
SITE = "site"
NEEDED = (DATA, CONTENT, TEMPLATES)  # what makes a folder a clone of the project
FROM_CLONE = "run the command from inside your clone"


def is_clone(folder: Path) -> bool:
    """Returns whether the folder holds the project's inputs."""
    return all(os.path.lexists(folder / name) for name in NEEDED)  # a looping link is there, and its reader names it


def find_root(start: Path | None = None) -> Path | None:
    """Returns the clone: the folder above this package when it is one, else `start` (the current folder) or the
    nearest folder above it that is one; None when there is none."""
    if is_clone(PACKAGE.parent):
        return PACKAGE.parent
    here = (start or Path.cwd()).absolute()
    return next((f for f in (here, *here.parents) if is_clone(f)), None)


def no_clone(start: Path | None = None) -> str:
    """Returns the one line a command prints when it finds no clone to read."""
    here = (start or Path.cwd()).absolute()
    return (f"{here}: found no clone of the project here or in a folder above it; expected a folder that holds "
            f"{', '.join(NEEDED)} ({FROM_CLONE})")


ROOT = find_root() or PACKAGE.parent  # the clone; without one, only commands given every path can run
CACHE = ROOT / ".cache"  # the analysis cache, the build lock and the last unexpected error's details


def shown(path: Path) -> str:
    """Returns the path as the user would type it: relative to the working folder when inside it."""
    try:
        return str(path.absolute().relative_to(Path.cwd().absolute()))
    except (ValueError, OSError):
        return str(path)


@dataclass(frozen=True)
class Paths:
    """What one build reads and where it writes."""

    data: Path
    content: Path
    templates: Path
    out: Path

    @classmethod
    def default(cls) -> Paths:
        return cls(ROOT / DATA, ROOT / CONTENT, ROOT / TEMPLATES, ROOT / SITE)

    def inputs(self) -> list[Path]:
        """Returns the inputs the output folder must never be, or hold: the data file, the folders, the shim."""
        return [self.data, self.content, self.templates, ROOT / "build.py"]


def inputs_digest(paths: Paths) -> bytes:
    """Returns a digest of the bytes the build reads: the data file (where its link points) and the visible files
    directly in content/, templates/ and templates/js/, with their names; a missing one counts as missing."""
    digest = hashlib.blake2b(digest_size=16)
    files = [paths.data]
    for folder in (paths.content, paths.templates, paths.templates / "js"):
        try:
            files += sorted(f for f in folder.iterdir() if not f.name.startswith(".") and f.is_file())
        except OSError:
            files.append(folder)
    for file in files:
        try:  # never open a named pipe or the like (reading one would wait for a writer), nor read a file the build
            info = os.stat(file)  # refuses for its size unread: its size and time tell a change
            blob = (b"?" if not stat.S_ISREG(info.st_mode) else
                    b"+" + file.read_bytes() if info.st_size <= MAX_INPUT_BYTES else
                    f">{info.st_size}:{info.st_mtime_ns}".encode())
        except OSError:
            blob = b"-"
        digest.update(str(file).encode("utf-8", "surrogateescape") + b"\0" + hashlib.sha256(blob).digest())
    return digest.digest()

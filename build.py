#!/usr/bin/env python3
"""Build site/ (one self-contained index.html and trace.json) from data/, content/ and templates/.

The only module that touches argv, the clock and the disk: everything it calls is a pure function.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

import jinja2

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

from speculative import view  # noqa: E402
from speculative.analysis import explain  # noqa: E402
from speculative.content import ContentError, parse_sections  # noqa: E402
from speculative.profiles import DataError, parse  # noqa: E402
from speculative.render import render_page, script_json  # noqa: E402

FIX_HINT = "Fix the problem{s} above and build again; {out}/ was left as it was."


class Problems(Exception):
    """Every input problem found before the build gave up, as printable lines."""

    def __init__(self, lines: list[str]):
        self.lines = lines
        super().__init__("\n".join(lines))


def shown(path: Path) -> str:
    """Returns the path as the user would type it: relative to the working folder when inside it."""
    try:
        return str(path.absolute().relative_to(Path.cwd().absolute()))
    except ValueError:
        return str(path)


def read_text(path: Path, where: str = "") -> str:
    """Returns a file's text, or raises Problems with one line: the file, what happened, what was expected.

    `where` prefixes the message with a location, "$: " for a JSON file's root.
    """
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise Problems([f"{shown(path)}: {where}no such file; expected the path of an existing file"]) from None
    except OSError as err:
        raise Problems([f"{shown(path)}: {where}could not be read ({err.strerror or err}); expected a readable file"]) from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise Problems([f"{shown(path)}: {where}byte {err.start} is not valid UTF-8; expected UTF-8 text"]) from None


def read_all(paths: list[Path], data: Path) -> tuple[dict[str, str], list[str]]:
    """Returns the texts that could be read, keyed by shown name, and a line for each that could not."""
    texts, lines = {}, []
    for path in paths:
        try:
            texts[shown(path)] = read_text(path, "$: " if path == data else "")
        except Problems as err:
            lines += err.lines
    return texts, lines


def parse_inputs(data: Path, content: Path, templates: Path):
    """Returns (dataset, sections, template texts), or raises Problems listing every input problem at once."""
    files = sorted(p for p in templates.iterdir() if p.is_file()) if templates.is_dir() else []
    texts, lines = read_all([data] + sorted(content.glob("*.md")) + files, data)
    if not templates.is_dir():
        lines.append(f"{shown(templates)}: no such folder; expected the page's templates")
    dataset = sections = None
    if shown(data) in texts:
        try:
            dataset = parse(texts[shown(data)], shown(data))
        except DataError as err:
            lines += err.lines()
    try:
        sections = parse_sections({n: t for n, t in texts.items() if n.endswith(".md")}, shown(content))
    except ContentError as err:
        lines += err.lines()
    if lines:
        raise Problems(lines)
    return dataset, sections, {p.name: texts[shown(p)] for p in files}


@functools.lru_cache(maxsize=1)
def jinja_cache() -> jinja2.BytecodeCache | None:
    """Returns a store for compiled templates in .cache/jinja, or None when it cannot be made (builds work without)."""
    folder = ROOT / ".cache" / "jinja"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return jinja2.FileSystemBytecodeCache(str(folder)) if os.access(folder, os.W_OK) else None


def build_files(data: Path, content: Path, templates: Path) -> dict[str, bytes]:
    """Returns every output file's bytes: read, parse, analyse, view, render; nothing is written here."""
    dataset, sections, template_texts = parse_inputs(data, content, templates)
    explained = explain(dataset)
    trace = view.trace(explained)
    try:
        html = render_page(sections, template_texts, view.context(explained, trace), script_json(trace), jinja_cache())
    except ContentError as err:
        raise Problems(err.lines()) from None
    return {"index.html": html.encode("utf-8"),
            "trace.json": (json.dumps(trace, ensure_ascii=False, indent=1) + "\n").encode("utf-8")}


def write_atomic(out: Path, files: dict[str, bytes]) -> None:
    """Writes the files into a fresh folder beside `out`, then swaps it in, so `out` is never half-written."""
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(prefix=f".{out.name}-new-", dir=out.parent))
    for name, blob in files.items():
        (fresh / name).write_bytes(blob)
    fresh.chmod(0o755)
    old = out.parent / f".{out.name}-old-{os.getpid()}"
    if out.exists():
        os.replace(out, old)
    os.replace(fresh, out)
    shutil.rmtree(old, ignore_errors=True)


def build_once(args: argparse.Namespace) -> int:
    """Builds once; returns the exit code, printing one summary line or the problems found."""
    start = time.perf_counter()
    try:
        files = build_files(args.data, args.content, args.templates)
    except Problems as err:
        return report_problems(err.lines, args.out)
    write_atomic(args.out, files)
    page = files["index.html"]
    took = time.perf_counter() - start
    print(f"built {shown(args.out)}/index.html ({len(page) / 1024:.1f} KB, "
          f"{len(gzip.compress(page, mtime=0)) / 1024:.1f} KB gzipped) and trace.json in {took:.2f} s", flush=True)
    return 0


def report_problems(lines: list[str], out: Path) -> int:
    print("\n".join(lines), file=sys.stderr)
    print("\n" + FIX_HINT.format(s="s" if len(lines) > 1 else "", out=shown(out)), file=sys.stderr, flush=True)
    return 1


def watch(args: argparse.Namespace) -> int:
    """Rebuilds whenever data/, content/ or templates/ change, until interrupted."""
    from watchfiles import watch as changes

    build_once(args)
    folders = [str(p) for p in (args.data.parent, args.content, args.templates)]
    ready = False
    try:
        # yield_on_timeout hands back an empty batch once the watcher is live: only then say so
        for changed in changes(*folders, debounce=200, step=10, rust_timeout=100, yield_on_timeout=True):
            if not ready:
                print(f"watching {', '.join(shown(Path(f)) for f in folders)} (Ctrl-C stops)", flush=True)
                ready = True
            if changed:
                build_once(args)
    except KeyboardInterrupt:
        pass
    return 0


def serve(out: Path, port: int):
    """Returns a running preview server for `out` on 127.0.0.1 (it serves whatever the folder holds now)."""
    import http.server

    class QuietHandler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass

    handler = functools.partial(QuietHandler, directory=str(out.resolve()))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"serving {shown(out)}/ at http://127.0.0.1:{server.server_address[1]}/", flush=True)
    return server


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Build the speculative decoding explainer: site/index.html (self-contained) and site/trace.json.")
    parser.add_argument("--data", type=Path, default=ROOT / "data" / "profiles.v1.json",
                        help="the profiles file (default: data/profiles.v1.json)")
    parser.add_argument("--out", type=Path, default=ROOT / "site", help="output folder (default: site/)")
    parser.add_argument("--content", type=Path, default=ROOT / "content", help=argparse.SUPPRESS)
    parser.add_argument("--templates", type=Path, default=ROOT / "templates", help=argparse.SUPPRESS)
    parser.add_argument("--watch", action="store_true", help="rebuild whenever data/, content/ or templates/ change")
    parser.add_argument("--serve", nargs="?", type=int, const=8000, metavar="PORT",
                        help="serve the output folder on 127.0.0.1 (default port 8000) while watching")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.serve is not None:
        if build_once(args) != 0 and not args.out.exists():
            return 1
        server = serve(args.out, args.serve)
        try:
            return watch(args) if args.watch else _wait()
        finally:
            server.shutdown()
    return watch(args) if args.watch else build_once(args)


def _wait() -> int:
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The preview server: the build's own files in the output folder (index.html, also at /, and trace.json) on
127.0.0.1, answering 503 with a hint before any build has made the page and 404 for any other path, with a
timeout for silent clients, in threads with a real backlog.
"""

from __future__ import annotations

import functools
import http.server
import mimetypes
import os
import stat
import threading
import urllib.parse
from pathlib import Path
from typing import Any

from .checkout import shown
from .errors import Problems
from .sections import PAGE_FILES

NOT_BUILT = ("No build has made the page yet: the terminal running the build lists the problems. "
             "Fix them, save, and reload.")
SERVER_BACKLOG = 128  # connections the kernel holds while every thread is busy (the standard library's is 5)
CLIENT_TIMEOUT = 10  # seconds a connection may stay silent before it is dropped, so slow clients starve no one


def built_file(folder: Path, name: str) -> bytes | None:
    """Returns the bytes of the regular file folder/name, or None where there is none: a symbolic link or a folder,
    which a build never writes there, counts as none. Each file is swapped in whole, so its bytes are one build's."""
    try:
        return (folder / name).read_bytes() if stat.S_ISREG(os.lstat(folder / name).st_mode) else None
    except OSError:
        return None


def content_type(name: str) -> str:
    """Returns the Content-Type of a page file by its suffix, text in UTF-8 as the build writes it."""
    found = mimetypes.guess_type(name)[0] or "application/octet-stream"
    return f"{found}; charset=utf-8" if found.startswith("text/") else found


class PreviewHandler(http.server.BaseHTTPRequestHandler):
    """Answers GET and HEAD with the page's files from the output folder, and nothing else."""

    timeout = CLIENT_TIMEOUT

    def __init__(self, request: Any, client_address: Any, server: Any, *, folder: Path) -> None:
        self.folder = folder
        super().__init__(request, client_address, server)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass

    def do_GET(self) -> None:
        self.answer(with_body=True)

    def do_HEAD(self) -> None:
        self.answer(with_body=False)

    def answer(self, with_body: bool) -> None:
        name = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path).lstrip("/") or "index.html"
        blob = built_file(self.folder, name) if name in PAGE_FILES else None
        if blob is None and name == "index.html" and not os.path.lexists(self.folder / name):
            self.send_error(503, "No page built yet", NOT_BUILT)  # no build has succeeded: say where to look
            return
        if blob is None:
            self.send_error(404, "File not found")
            return
        self.send_response(200)
        self.send_header("Content-Type", content_type(name))
        self.send_header("Content-Length", str(len(blob)))
        self.send_header("Cache-Control", "no-store")  # a reload after a rebuild shows the new page
        self.end_headers()
        if with_body:
            self.wfile.write(blob)


class PreviewServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = SERVER_BACKLOG

    def handle_error(self, request: object, client_address: object) -> None:  # a browser that hangs up is not our error
        pass


def make_server(out: Path, port: int) -> PreviewServer:
    """Returns a preview server bound to 127.0.0.1:port for `out`, not yet serving; raises Problems if the port is taken."""
    handler = functools.partial(PreviewHandler, folder=out.resolve())
    try:
        return PreviewServer(("127.0.0.1", port), handler)
    except OSError as err:
        raise Problems([f"127.0.0.1:{port}: found the port could not be used ({err.strerror or err}); "
                        "expected a free port: choose another with --serve PORT (speculative serve --port PORT), such as "
                        "8001, or 0 for any free one"]) from None


def start_serving(server: PreviewServer, out: Path) -> None:
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"serving {shown(out)}/ at http://127.0.0.1:{server.server_address[1]}/", flush=True)

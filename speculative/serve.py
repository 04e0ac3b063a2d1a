"""The preview server: the output folder on 127.0.0.1, answering 503 with a hint before any build has made the
page, with no folder listings, no file outside the folder (even through a symbolic link) and a timeout for silent
clients, in threads with a real backlog.
"""

from __future__ import annotations

import functools
import http.server
import io
import os
import threading
import urllib.parse
from pathlib import Path
from typing import BinaryIO

from .checkout import shown
from .errors import Problems

NOT_BUILT = ("No build has made the page yet: the terminal running the build lists the problems. "
             "Fix them, save, and reload.")
SERVER_BACKLOG = 128  # connections the kernel holds while every thread is busy (the standard library's is 5)
CLIENT_TIMEOUT = 10  # seconds a connection may stay silent before it is dropped, so slow clients starve no one


def nameable(url_path: str) -> bool:
    """Returns whether a request's path can name a file here: no NUL byte and no lone surrogate (%ED%A0%80) once
    decoded as the server decodes it, since the file system calls raise on either."""
    decoded = urllib.parse.unquote(url_path, errors="surrogatepass")
    return "\0" not in decoded and not any("\ud800" <= c <= "\udfff" for c in decoded)


def not_built(path: str, folder: str) -> bool:
    """Returns whether a request asks for the page at the folder's top, which no build has written yet."""
    return os.path.basename(path) == "index.html" and not os.path.exists(path) and \
        os.path.dirname(os.path.realpath(path)) == os.path.realpath(folder)


class PreviewHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the output folder's files, and nothing else."""

    timeout = CLIENT_TIMEOUT

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass

    def send_head(self) -> io.BytesIO | BinaryIO | None:  # the standard library's own, as typeshed gives it
        if not nameable(self.path):  # os.path would raise on it, and the client would get nothing
            self.send_error(404, "File not found")
            return None
        path = self.translate_path(self.path)
        if os.path.isdir(path) and urllib.parse.urlsplit(self.path).path.endswith("/"):
            path = os.path.join(path, "index.html")
        if not_built(path, self.directory):  # no build has succeeded: say where to look
            self.send_error(503, "No page built yet", NOT_BUILT)
            return None
        root = os.path.realpath(self.directory)
        real = os.path.realpath(path)
        if real != root and not real.startswith(root + os.sep):  # a link out of the folder: as if missing
            self.send_error(404, "File not found")
            return None
        return super().send_head()

    def list_directory(self, path: str | os.PathLike[str]) -> None:
        self.send_error(404, "File not found")
        return None


class PreviewServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = SERVER_BACKLOG

    def handle_error(self, request: object, client_address: object) -> None:  # a browser that hangs up is not our error
        pass


def make_server(out: Path, port: int) -> PreviewServer:
    """Returns a preview server bound to 127.0.0.1:port for `out`, not yet serving; raises Problems if the port is taken."""
    handler = functools.partial(PreviewHandler, directory=str(out.resolve()))
    try:
        return PreviewServer(("127.0.0.1", port), handler)
    except OSError as err:
        raise Problems([f"127.0.0.1:{port}: found the port could not be used ({err.strerror or err}); "
                        "expected a free port: choose another with --serve PORT (speculative serve --port PORT), such as "
                        "8001, or 0 for any free one"]) from None


def start_serving(server: PreviewServer, out: Path) -> None:
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"serving {shown(out)}/ at http://127.0.0.1:{server.server_address[1]}/", flush=True)

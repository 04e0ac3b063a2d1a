"""The preview server: the build's own files in the output folder (index.html, also at /, and trace.json) on
127.0.0.1, answering 503 with a hint before any build has made the page or after the output folder was deleted,
and 404 for any other path, with a timeout for silent clients, in threads with a real backlog.

Under --watch it also reloads open tabs: each HTML answer (never the file in the output folder) carries a small
script, allowed by its hash in the answer's own Content-Security-Policy, that long-polls /.livereload for the
builds' news, reloads the tab after each successful build at the same scroll position and address (the hash holds
the player's frame), and shows a failed build's problems in a banner until the next good one.
"""

from __future__ import annotations

import functools
import html
import http.server
import json
import mimetypes
import os
import re
import stat
import threading
import urllib.parse
from pathlib import Path
from typing import Any

from .checkout import shown
from .errors import Problems
from .render import sha256_source
from .sections import PAGE_FILES

NOT_BUILT = ("No build has made the page yet: the terminal running the build lists the problems. "
             "Fix them, save, and reload.")
SERVER_BACKLOG = 128  # connections the kernel holds while every thread is busy (the standard library's is 5)
CLIENT_TIMEOUT = 10  # seconds a connection may stay silent before it is dropped, so slow clients starve no one
DELETED = "The page was deleted after the last build: {gone} is gone."
DELETED_FIX = {True: " The watcher is building it again; this tab reloads when the page is back (the terminal lists "
                     "any problems).",
               False: " Build again (.venv/bin/python build.py or speculative build), then reload."}
LIVE_PATH = "/.livereload"  # where the injected script asks for the builds' news
LIVE_WAIT = 20.0  # seconds a news request waits for a build before answering with no news
# The injected script: data-epoch is the successful build the answer was made after (an attribute, so the script's
# hash is the same for every answer). It polls LIVE_PATH, reloads on a new epoch, keeping the scroll position (the
# address, with the player's frame in its hash, a reload keeps), and lists a failed build's problems in a banner.
LIVE_SCRIPT = """(() => {
  const me = document.currentScript, key = 'speculative-live-reload-scroll', epoch = Number(me.dataset.epoch);
  let version = -1, keep = null;  // keep: the position being restored, which a reload meanwhile passes on
  const saved = sessionStorage.getItem(key);
  if (saved !== null) {  // back to where the tab was, held until every figure has started (data-started) and the
    // page's height has then kept still for 2.5 s, at most 30 s: the page's own start may scroll it, and its charts
    // join in tasks of their own after the first paint, which scroll anchoring may follow
    sessionStorage.removeItem(key);
    let until = 0, last = 0, height = -1, touched = false;
    keep = Number(saved);
    for (const name of ['wheel', 'touchstart', 'keydown', 'pointerdown']) {
      window.addEventListener(name, () => { touched = true; }, { once: true, passive: true });
    }
    const hold = () => {
      const now = performance.now(), h = document.documentElement.scrollHeight;
      last = last || now + 30000;
      if (h !== height || !document.documentElement.hasAttribute('data-started')) {
        height = h;
        until = Math.min(now + 2500, last);
      }
      if (touched) { keep = null; return; }
      if (Math.abs(window.scrollY - Number(saved)) > 1) window.scrollTo({ top: Number(saved), behavior: 'instant' });
      if (performance.now() < until) requestAnimationFrame(hold); else keep = null;
    };
    if (document.readyState === 'complete') hold(); else window.addEventListener('load', hold, { once: true });
  }
  const show = problems => {
    let box = document.getElementById('live-reload-problems');
    if (!problems.length) { if (box) box.remove(); return; }
    if (!box) {
      box = document.createElement('div');
      box.id = 'live-reload-problems';
      box.setAttribute('role', 'alert');
      Object.assign(box.style, { position: 'fixed', top: '0', left: '0', right: '0', zIndex: '2147483647',
        maxHeight: '50vh', overflow: 'auto', margin: '0', padding: '0.75em 1em', whiteSpace: 'pre-wrap',
        font: '14px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace', color: '#5c0000', background: '#fff0f0',
        borderBottom: '3px solid #b00020' });
      document.body.prepend(box);
    }
    box.textContent = 'The last build failed; this is the page of the last good one. The build says:\\n\\n'
      + problems.join('\\n');
  };
  const poll = () => fetch('""" + LIVE_PATH + """?since=' + version, { cache: 'no-store' })
    .then(r => (r.ok ? r.json() : Promise.reject(new Error(String(r.status)))))
    .then(news => {
      if (news.epoch !== epoch) {
        sessionStorage.setItem(key, String(keep === null ? window.scrollY : keep));
        location.reload();
        return;
      }
      version = news.version;
      show(news.problems);
      poll();
    }, () => setTimeout(poll, 1000));
  poll();
})();"""
CSP_META = re.compile(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', re.I)


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


class LiveReload:
    """The builds' news for open tabs: epoch counts the successful builds, version every build reported, and
    problems are the last build's lines when it failed (none after a good one)."""

    def __init__(self) -> None:
        self.epoch = self.version = 0
        self.problems: list[str] = []
        self.changed = threading.Condition()

    def report(self, code: int, problems: list[str]) -> None:
        """Records one build's result (its exit code and the problem lines it printed) and wakes every waiting tab."""
        with self.changed:
            self.version += 1
            self.epoch += code == 0
            self.problems = [] if code == 0 else list(problems)
            self.changed.notify_all()

    def news(self, since: int, wait: float = LIVE_WAIT) -> dict[str, Any]:
        """Returns the news once a build after version `since` has reported, or after `wait` seconds."""
        with self.changed:
            self.changed.wait_for(lambda: self.version != since, timeout=wait)
            return {"epoch": self.epoch, "version": self.version, "problems": self.problems}


def with_live_reload(page: bytes, epoch: int) -> bytes:
    """Returns the HTML page with the live-reload script before its </body>, and its Content-Security-Policy (if it
    has one) allowing that script by its hash and requests to this server alone. The file itself is not touched."""
    text = page.decode("utf-8", "surrogateescape")
    tag = f'<script data-epoch="{epoch}">{LIVE_SCRIPT}</script>'
    at = text.rfind("</body>")
    text = text[:at] + tag + text[at:] if at >= 0 else text + tag
    return CSP_META.sub(lambda m: m.group(0).replace(m.group(1), html.escape(live_policy(html.unescape(m.group(1))))),
                        text, count=1).encode("utf-8", "surrogateescape")


def live_policy(policy: str) -> str:
    """Returns the policy with the live-reload script's hash added to script-src and connect-src 'self' set."""
    directives = [d.strip() for d in policy.split(";") if d.strip() and not d.strip().startswith("connect-src")]
    script = sha256_source(LIVE_SCRIPT)
    scripts = [d for d in directives if d.split()[0] == "script-src"]
    if scripts:
        directives[directives.index(scripts[0])] = f"{scripts[0]} {script}"
    else:
        directives.append(f"script-src {script}")
    return "; ".join([*directives, "connect-src 'self'"])


def error_page(code: int, title: str, text: str) -> bytes:
    """Returns a small page for an error answer, allowed nothing (a live-reload script is added to it)."""
    return (f'<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'\">\n"
            f"<title>{code} {html.escape(title)}</title>\n</head>\n<body>\n<h1>{html.escape(title)}</h1>\n"
            f"<p>{html.escape(text)}</p>\n</body>\n</html>\n").encode()


class Preview:
    """What every connection's handler shares: the folder served, the builds' news under --watch (None without it),
    and whether the folder has held a page, so a missing one is told apart from one not built yet."""

    def __init__(self, folder: Path, live: LiveReload | None) -> None:
        self.folder, self.live = folder, live
        self.page_seen = (folder / "index.html").is_file()


class PreviewHandler(http.server.BaseHTTPRequestHandler):
    """Answers GET and HEAD with the page's files from the output folder, and nothing else (under --watch, also
    the builds' news at /.livereload)."""

    timeout = CLIENT_TIMEOUT

    def __init__(self, request: Any, client_address: Any, server: Any, *, preview: Preview) -> None:
        self.preview = preview
        super().__init__(request, client_address, server)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass

    def do_GET(self) -> None:
        self.answer(with_body=True)

    def do_HEAD(self) -> None:
        self.answer(with_body=False)

    def answer(self, with_body: bool) -> None:
        parts, live = urllib.parse.urlsplit(self.path), self.preview.live
        if live is not None and parts.path == LIVE_PATH:
            self.send_news(live, parts.query, with_body)
            return
        epoch = live.epoch if live is not None else 0  # read before the page: a build in between reloads once more
        name = urllib.parse.unquote(parts.path).lstrip("/") or "index.html"
        folder = self.preview.folder
        blob = built_file(folder, name) if name in PAGE_FILES else None
        if blob is None and name == "index.html" and not os.path.lexists(folder / name):
            self.send_missing(epoch, with_body)  # none built yet, or deleted since: say which, and what to do
            return
        if blob is None:
            self.send_error(404, "File not found")
            return
        if name == "index.html":
            self.preview.page_seen = True
            blob = blob if live is None else with_live_reload(blob, epoch)
        self.send_blob(200, content_type(name), blob, with_body)

    def send_missing(self, epoch: int, with_body: bool) -> None:
        """Answers 503 for a page not built yet, or deleted after the last build, saying which."""
        folder, live = self.preview.folder, self.preview.live
        if self.preview.page_seen or (live is not None and live.epoch > 0):
            gone = f"{shown(folder)}/index.html" if folder.is_dir() else f"the output folder {shown(folder)}/"
            title, text = "The page was deleted", DELETED.format(gone=gone) + DELETED_FIX[live is not None]
        else:
            title, text = "No page built yet", NOT_BUILT
        page = error_page(503, title, text)
        self.send_blob(503, content_type("index.html"), page if live is None else with_live_reload(page, epoch),
                       with_body, title)

    def send_news(self, live: LiveReload, query: str, with_body: bool) -> None:
        """Answers the builds' news as JSON, once a build after the version the tab knows has reported."""
        try:
            since = int(urllib.parse.parse_qs(query).get("since", ["-1"])[0])
        except ValueError:
            since = -1
        news = live.news(since, LIVE_WAIT if with_body else 0)
        self.send_blob(200, "application/json", json.dumps(news).encode("utf-8"), with_body)

    def send_blob(self, code: int, kind: str, blob: bytes, with_body: bool, message: str | None = None) -> None:
        self.send_response(code, message)
        self.send_header("Content-Type", kind)
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


def make_server(out: Path, port: int, live: LiveReload | None = None) -> PreviewServer:
    """Returns a preview server bound to 127.0.0.1:port for `out`, not yet serving; raises Problems if the port is
    taken. With `live` (under --watch), its HTML answers reload open tabs after each build `live` is told of."""
    handler = functools.partial(PreviewHandler, preview=Preview(out.resolve(), live))
    try:
        return PreviewServer(("127.0.0.1", port), handler)
    except OSError as err:
        raise Problems([f"127.0.0.1:{port}: found the port could not be used ({err.strerror or err}); "
                        "expected a free port: choose another with --serve PORT (speculative serve --port PORT), such as "
                        "8001, or 0 for any free one"]) from None


def start_serving(server: PreviewServer, out: Path) -> None:
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"serving {shown(out)}/ at http://127.0.0.1:{server.server_address[1]}/", flush=True)

"""The preview server (build.py --serve): threads and a real backlog, timeouts, the build's files and nothing else,
and one line for a port that cannot be one."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import build
from speculative import checkout, errors, serve

from .conftest import ROOT

pytestmark = pytest.mark.data_independent


@contextlib.contextmanager
def serving(site: Path, live: serve.LiveReload | None = None) -> Iterator[str]:
    """Runs a preview server over `site` (with live reload when given its news), yields its base URL, then stops it."""
    server = serve.make_server(site, 0, live)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()  # a quick shutdown
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def served(tmp_path, built_site):
    """Returns (site folder, base URL) of a preview server over a copy of the built site, stopped afterwards."""
    site = tmp_path / "site"
    shutil.copytree(built_site, site)
    with serving(site) as url:
        yield site, url


def status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            response.read()
            return response.status
    except urllib.error.HTTPError as err:
        return err.code


def test_the_page_and_the_trace_are_served_whole_with_their_types(served):
    site, url = served
    for path, name, kind in (("", "index.html", "text/html; charset=utf-8"), ("index.html?x=1", "index.html", None),
                             ("trace.json", "trace.json", "application/json")):
        with urllib.request.urlopen(url + path, timeout=30) as response:
            assert (response.status, response.read()) == (200, (site / name).read_bytes())
            assert kind is None or response.headers["Content-Type"] == kind
    head = urllib.request.Request(url + "trace.json", method="HEAD")
    with urllib.request.urlopen(head, timeout=30) as response:
        assert response.read() == b"" and response.headers["Content-Length"] == str((site / "trace.json").stat().st_size)


def answer_503(url: str) -> str:
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(url, timeout=30)
    assert caught.value.code == 503
    return caught.value.read().decode("utf-8")


def test_before_any_build_succeeds_the_page_says_so_instead_of_not_found(tmp_path, built_site):
    """--watch --serve with broken inputs from the start has no page to serve: a 404 read as a broken server."""
    site = tmp_path / "site"
    shutil.copytree(built_site, site)
    (site / "index.html").unlink()
    with serving(site) as url:
        for path in ("", "index.html"):
            assert serve.NOT_BUILT in answer_503(url + path)
        assert status(url + "nope.html") == status(url + "sub/index.html") == 404 and status(url + "trace.json") == 200


def test_an_output_folder_deleted_after_a_build_is_said_so(served):
    """Once a page was served, a missing one was deleted, not "not built yet": the answer says so and what to do."""
    site, url = served
    assert status(url) == 200
    shutil.rmtree(site)
    text = answer_503(url)
    assert serve.NOT_BUILT not in text and "The page was deleted after the last build" in text
    assert f"the output folder {checkout.shown(site.resolve())}/ is gone" in text
    assert "Build again (.venv/bin/python build.py or speculative build), then reload." in text
    news = serve.LiveReload()
    news.report(0, [])
    with serving(site, news) as watched:  # under --watch, the watcher builds it again and the tab reloads then
        text = answer_503(watched)
    assert "The watcher is building it again; this tab reloads when the page is back" in text
    assert 'data-epoch="1"' in text and "/.livereload" in text


def test_a_busy_port_is_refused_with_a_free_one_suggested(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(errors.Problems) as err:
            serve.make_server(tmp_path, port)
    (line,) = err.value.lines
    assert line.startswith(f"127.0.0.1:{port}: found the port could not be used (")
    assert line.endswith("); expected a free port: choose another with --serve PORT (speculative serve --port PORT), "
                         "such as 8001, or 0 for any free one")


OTHER_PATHS = ["passwd", "etc/passwd", "up/", "copy.json", "drafts/", "drafts", "drafts/notes.txt", ".speculative-manifest.json", ".speculative-site",
               "index.html%00", "%00", "a%00b/", "%ED%A0%80", "index%ED%B0%80.html", "sub/index.html", "nope.html"]


@pytest.mark.parametrize("path", OTHER_PATHS)
def test_nothing_but_the_builds_files_is_served(path, served):
    """Links out of the folder and in it, a folder and its files, the manifest, a NUL byte or a lone surrogate
    (each of which once dropped the connection): every path but the page's files is 404, and no folder is listed."""
    site, url = served
    (site / "passwd").symlink_to("/etc/passwd")
    (site / "etc").symlink_to("/etc")
    (site / "up").symlink_to("..")
    (site / "copy.json").symlink_to("trace.json")
    (site / "drafts").mkdir()
    (site / "drafts" / "notes.txt").write_text("private")
    assert status(url + path) == 404


@pytest.mark.parametrize("name", ["index.html", "trace.json"])
def test_a_page_file_replaced_by_a_link_or_a_folder_is_not_served(name, served, tmp_path):
    site, url = served
    (tmp_path / "secret.html").write_text("secret")
    (site / name).unlink()
    (site / name).symlink_to(tmp_path / "secret.html")
    assert status(url + name) == 404
    (site / name).unlink()
    (site / name).mkdir()
    assert status(url + name) == 404
    assert status(url) == (404 if name == "index.html" else 200)


def test_the_server_has_a_real_backlog_and_drops_silent_clients():
    handler, server = serve.PreviewHandler, serve.PreviewServer
    assert server.request_queue_size >= 128
    assert 0 < handler.timeout <= 30
    assert server.daemon_threads


@pytest.mark.slow  # a fresh process or many connections: the full run has it, the fast tier not
def test_many_parallel_requests_are_all_answered(served):
    site, url = served
    with ThreadPoolExecutor(max_workers=200) as pool:
        codes = list(pool.map(lambda _: status(url + "trace.json"), range(400)))
    assert codes == [200] * 400


@pytest.mark.slow  # a fresh process or many connections: the full run has it, the fast tier not
def test_clients_that_send_half_a_request_do_not_starve_others(served):
    site, url = served
    port = int(url.rsplit(":", 1)[1].strip("/"))
    slow = [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in range(200)]
    try:
        for sock in slow:
            sock.sendall(b"GET /index.html HTTP/1.1\r\nHost: 127")  # and never the rest
        assert status(url + "trace.json") == 200
    finally:
        for sock in slow:
            sock.close()


def port_message(value: str) -> str:
    return f'build.py: argument --serve: found "{value}"; expected a port number from 0 to 65535 (0 picks a free one)\n'


@pytest.mark.parametrize("value", ["70000", "-1", "eighty", "65536", "8.5", ""])
def test_a_port_that_cannot_be_one_is_one_line_and_status_2(value, tmp_path, capsys):
    with pytest.raises(SystemExit) as stopped:
        build.main(["--out", str(tmp_path / "site"), "--serve", value])
    assert stopped.value.code == 2
    assert capsys.readouterr() == ("", port_message(value))
    assert not Path(tmp_path / "site").exists()


def test_the_command_exits_2_with_no_traceback_for_a_bad_port(tmp_path):
    proc = subprocess.run([sys.executable, str(ROOT / "build.py"), "--out", str(tmp_path / "site"), "--serve", "70000"],
                          capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", port_message("70000"))

"""The preview server (build.py --serve): threads and a real backlog, timeouts, nothing outside site/, no listings,
and one line for a port that cannot be one."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from speculative import errors, serve
import build

from .conftest import ROOT


@pytest.fixture
def served(tmp_path, built_site):
    """Returns (site folder, base URL) of a preview server over a copy of the built site, stopped afterwards."""
    site = tmp_path / "site"
    shutil.copytree(built_site, site)
    server = serve.make_server(site, 0)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()  # a quick shutdown
    yield site, f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            response.read()
            return response.status
    except urllib.error.HTTPError as err:
        return err.code


def test_the_page_and_the_trace_are_served(served):
    site, url = served
    assert status(url) == status(url + "index.html") == status(url + "trace.json") == 200


def test_before_any_build_succeeds_the_page_says_so_instead_of_not_found(served):
    """--watch --serve with broken inputs from the start has no page to serve: a 404 read as a broken server."""
    site, url = served
    (site / "index.html").unlink()
    for path in ("", "index.html"):
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(url + path, timeout=30)
        assert caught.value.code == 503 and serve.NOT_BUILT in caught.value.read().decode("utf-8")
    assert status(url + "nope.html") == status(url + "sub/index.html") == 404 and status(url + "trace.json") == 200


@pytest.mark.parametrize("name, target", [("passwd", "/etc/passwd"), ("etc", "/etc"), ("up", "..")],
                         ids=["a link to a file", "a link to a folder", "a link to the parent"])
@pytest.mark.slow  # a fresh process or many connections: the full run has it, the fast tier not
def test_a_link_out_of_the_folder_is_not_followed(name, target, served):
    site, url = served
    (site / name).symlink_to(target)
    assert status(url + name) == 404
    assert status(url + name + "/passwd") == 404
    assert status(url + name + "/") == 404


@pytest.mark.parametrize("path", ["index.html%00", "%00", "a%00b/", "index.html%00.txt", "%ED%A0%80", "index%ED%B0%80.html"])
def test_a_nul_byte_or_a_lone_surrogate_in_the_path_is_answered_404(path, served):  # each dropped the connection
    site, url = served
    assert status(url + path) == 404


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


def test_an_index_that_links_out_is_not_served(served, tmp_path):
    site, url = served
    (tmp_path / "secret.html").write_text("secret")
    (site / "index.html").unlink()
    (site / "index.html").symlink_to(tmp_path / "secret.html")
    assert status(url) == 404
    assert status(url + "index.html") == 404


def test_a_link_inside_the_folder_is_served(served):
    site, url = served
    (site / "copy.json").symlink_to("trace.json")
    assert status(url + "copy.json") == 200


def test_folders_are_never_listed(served):
    site, url = served
    (site / "drafts").mkdir()
    (site / "drafts" / "notes.txt").write_text("private")
    assert status(url + "drafts/") == 404
    assert status(url + "drafts") == 404  # redirected to drafts/, then not listed
    (site / "index.html").unlink()
    with pytest.raises(urllib.error.HTTPError) as caught:  # the root without its page: a notice, not a listing
        urllib.request.urlopen(url, timeout=30)
    assert caught.value.code == 503 and "trace.json" not in caught.value.read().decode("utf-8")


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

"""speculative/reading.py: the one reader of input files refuses what is not a regular file, or is too large,
before reading it, with one "found …; expected …" message."""

from __future__ import annotations

import os
import socket

import pytest

from speculative.errors import MAX_INPUT_BYTES
from speculative.reading import read_bytes


def refusal(path) -> str:
    with pytest.raises(ValueError) as caught:
        read_bytes(path)
    return str(caught.value)


def test_reads_a_regular_file_whole(tmp_path):
    path = tmp_path / "a.json"
    path.write_bytes(b"\xef\xbb\xbf{}\n")
    assert read_bytes(path) == b"\xef\xbb\xbf{}\n"  # bytes as they are: decoding is errors.decode's job


def test_reads_a_file_of_exactly_the_limit(tmp_path):
    path = tmp_path / "big.json"
    path.write_bytes(b" " * MAX_INPUT_BYTES)
    assert len(read_bytes(path)) == MAX_INPUT_BYTES


def test_refuses_a_file_over_the_limit_by_its_size(tmp_path):
    path = tmp_path / "big.json"
    path.write_bytes(b" " * (MAX_INPUT_BYTES + 1))
    assert refusal(path) == "found 1,000,001 bytes; expected at most 1,000,000 bytes for an input file"


def test_refuses_a_missing_file(tmp_path):
    assert refusal(tmp_path / "none.json") == "found no such file; expected the path of an existing file"


def test_refuses_a_link_to_a_missing_file_naming_its_target(tmp_path):
    (tmp_path / "link.json").symlink_to("gone.json")
    assert refusal(tmp_path / "link.json") == ("found a symbolic link to a missing file (gone.json); "
                                               "expected the path of an existing file")


def test_refuses_a_loop_of_links(tmp_path):
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    assert refusal(tmp_path / "a") == ("found a loop of symbolic links (a -> b -> a); expected the path of a readable "
                                       "file (point one of the links at a file)")


def test_a_loop_through_a_folder_of_links_is_named_as_far_as_it_can_be(tmp_path):
    (tmp_path / "f").symlink_to("f")
    assert refusal(tmp_path / "f" / "x.json") == ("found a loop of symbolic links; expected the path of a readable file "
                                                  "(point one of the links at a file)")


def test_refuses_a_folder(tmp_path):
    assert refusal(tmp_path) == "found a folder; expected a regular file"


def test_refuses_a_named_pipe_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    assert refusal(fifo) == "found a named pipe (FIFO); expected a regular file"


def test_refuses_a_socket(tmp_path):
    path = tmp_path / "s.sock"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
        assert refusal(path) == "found a socket; expected a regular file"
    finally:
        server.close()


def test_refuses_a_device():
    assert refusal("/dev/null") == "found a device; expected a regular file"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
def test_refuses_an_unreadable_file_with_the_systems_reason(tmp_path):
    path = tmp_path / "secret.json"
    path.write_text("{}")
    path.chmod(0)
    assert refusal(path) == "found a file that could not be read (Permission denied); expected a readable file"

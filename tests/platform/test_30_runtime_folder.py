"""The runtime folder leaves room for a Unix socket's name, whatever the environment hands us."""

from __future__ import annotations

import socket
import sys
import tempfile
from pathlib import Path

import pytest

from elftia_desktop.host.location import host_location
from elftia_desktop.platform.runtime import RUNTIME_ENV, SOCKET_PATH_LIMIT, runtime_folder


@pytest.mark.skipif(sys.platform == "win32", reason="Windows' host listens on 127.0.0.1, not on a socket file")
def test_a_runtime_folder_too_deep_for_a_socket_gives_way_to_a_short_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deep = tmp_path / ("a-rather-long-folder-name-" * 4) / "run"
    deep.mkdir(parents=True)
    monkeypatch.delenv(RUNTIME_ENV, raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(deep))
    folder = runtime_folder()
    assert not folder.is_relative_to(deep)
    where = host_location(tmp_path / "data").socket
    assert len(str(where)) <= SOCKET_PATH_LIMIT
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.bind(str(where))  # the bind that said "AF_UNIX path too long" under a deep XDG_RUNTIME_DIR
    where.unlink()


def test_a_short_runtime_folder_is_used_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    with tempfile.TemporaryDirectory(prefix="e") as short:
        monkeypatch.setenv(RUNTIME_ENV, short)
        assert runtime_folder() == Path(short)

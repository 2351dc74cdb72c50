"""Suite-wide setup: Qt offscreen, and every test gets its own data folder and in-memory keyring."""

from __future__ import annotations

import contextlib
import os
import socket
import stat
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import keyring
import pytest

from elftia_desktop.host import wire
from tests.helpers.memory_keyring import MemoryKeyring

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture(autouse=True)
def isolated_data_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``ELFTIA_DATA_DIR`` points at a fresh folder, so no test touches the user's files."""
    folder = tmp_path_factory.mktemp("elftia-data")
    monkeypatch.setenv("ELFTIA_DATA_DIR", str(folder))
    # Subprocesses (the CLI) have no shared memory keyring: they use the 0600 fallback file.
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    return folder


@pytest.fixture(autouse=True)
def memory_keyring() -> Iterator[MemoryKeyring]:
    """The process-wide keyring is an in-memory one for the duration of each test."""
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture(scope="session")
def host_sockets() -> Iterator[str]:
    """A short private folder for the pool hosts' sockets (a socket path has at most 107 bytes)."""
    with tempfile.TemporaryDirectory(prefix="elftia-host-") as folder:
        yield folder


def stop_hosts(folder: Path) -> None:
    """Stop every pool host listening in ``folder`` and wait until each has exited (with its servers)."""
    for path in folder.glob("*.sock"):
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.connect(str(path))
                sock.sendall(wire.encode(wire.hello("command")))
                wire.read_frame(sock)
                sock.sendall(wire.encode({"op": "stop"}))
                pid = wire.decode(wire.read_frame(sock) or b"{}").get("pid")
        except OSError:
            continue
        deadline = time.monotonic() + 30
        while pid and _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)


def _alive(pid: int) -> bool:
    """Whether ``pid`` still runs: a host this process started and that exited is a zombie until reaped."""
    with contextlib.suppress(ChildProcessError):
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return False
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat_file:
            return stat_file.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.fixture(autouse=True)
def no_pool_host_left(host_sockets: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A pool host a test's command started on demand is stopped after the test, with its servers."""
    monkeypatch.setenv("ELFTIA_HOST_DIR", host_sockets)
    yield
    stop_hosts(Path(host_sockets))


@pytest.fixture
def make_program(tmp_path: Path) -> Callable[[str, str], Path]:
    """Write an executable shell script ``name`` with ``body`` into a fresh bin folder; returns its path."""
    bin_dir = tmp_path / "fake-bin"

    def make(name: str, body: str) -> Path:
        if os.name == "nt":
            pytest.skip("shell-script programs need a POSIX system")
        bin_dir.mkdir(exist_ok=True)
        program = bin_dir / name
        program.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
        program.chmod(program.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        return program

    return make

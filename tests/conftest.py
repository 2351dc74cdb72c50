"""Suite-wide setup: Qt offscreen, and every test gets its own data folder and in-memory keyring."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import stat
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import keyring
import pytest

from elftia_desktop.host import wire
from elftia_desktop.host.location import NO_DAEMON_ENV
from tests.helpers.memory_keyring import MemoryKeyring
from tests.helpers.memory_servers import in_memory_servers

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


HOST_TESTS = Path(__file__).resolve().parent / "host"
"""Every test in tests/host is about the pool host: marked ``daemon`` without a line of its own."""


NETWORK_FIXTURES = {"claude_bin", "installed_uv"}
"""Fixtures that install from npm or PyPI: a test using one is ``network`` even if its mark was forgotten."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests of tests/host ``daemon`` and those using an installing fixture ``network``."""
    for item in items:
        if HOST_TESTS in item.path.parents:
            item.add_marker(pytest.mark.daemon)
        if NETWORK_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.network)


@pytest.fixture(autouse=True)
def isolated_data_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``ELFTIA_DATA_DIR`` points at a fresh folder, so no test touches the user's files; so does
    ``XDG_CONFIG_HOME`` (start-at-login entries, other apps' configs under it)."""
    folder = tmp_path_factory.mktemp("elftia-data")
    monkeypatch.setenv("ELFTIA_DATA_DIR", str(folder))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg-config")))
    # Subprocesses (the CLI) have no shared memory keyring: they use the 0600 fallback file.
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    return folder


def ctrl_c_as_from_a_terminal() -> None:
    """SIGINT neither ignored nor blocked in this process's main thread, so the commands it starts get Ctrl+C.

    A child inherits the ignored signals of its parent and the blocked ones of the thread that
    starts it. A suite started without job control (a background job of a script, ``nohup``, some
    CI runners) has SIGINT ignored, and so would every ``logs --follow`` it starts: Ctrl+C to it
    would be dropped and the test would wait for an exit that never comes (the follower rightly
    keeps the ignoring it was started with, as any command does).
    """
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if hasattr(signal, "pthread_sigmask") and threading.current_thread() is threading.main_thread():
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def pytest_configure() -> None:
    """Each process of the run (the controller and every xdist worker) starts with Ctrl+C as from a terminal,
    before any fixture (a module's or the session's too) starts a child."""
    ctrl_c_as_from_a_terminal()


@pytest.fixture(autouse=True)
def ctrl_c_reaches_children() -> None:
    """Again before each test: something an earlier test ran may have ignored or blocked SIGINT since."""
    ctrl_c_as_from_a_terminal()


@pytest.fixture(autouse=True)
def no_login_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    """No ``SHELL``: commands, gateways and hosts use the suite's environment, not the developer's login shell.

    Reading ``$SHELL -ilc env`` runs the developer's profile (pyenv, nvm, conda: up to the 5 s
    bound of ``core/login_env.py``) in every process that starts a stdio server, and again after
    each in-process command. The tests of that reading (tests/core/test_login_env.py) set a
    ``SHELL`` of their own.
    """
    monkeypatch.delenv("SHELL", raising=False)


@pytest.fixture(autouse=True)
def memory_keyring() -> Iterator[MemoryKeyring]:
    """The process-wide keyring is an in-memory one for the duration of each test."""
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


def stop_hosts(folder: Path) -> int:
    """Stop every pool host listening in ``folder``, wait until each has exited (with its servers); how many."""
    stopped = 0
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
        stopped += 1
        deadline = time.monotonic() + 30
        while pid and _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
    return stopped


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
def pool_host_policy(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No pool host unless the test is marked ``daemon``; a marked test's hosts are stopped after it.

    Every test gets its own short socket folder (a socket path has at most 107 bytes), so tests on
    parallel workers never meet each other's hosts. Every test not marked ``daemon`` (and each
    command it runs) gets ``ELFTIA_NO_DAEMON=1``; a host found in its folder afterwards fails it.
    """
    daemon = request.node.get_closest_marker("daemon") is not None
    with tempfile.TemporaryDirectory(prefix="elftia-host-") as folder:
        monkeypatch.setenv("ELFTIA_HOST_DIR", folder)
        if daemon:
            monkeypatch.delenv(NO_DAEMON_ENV, raising=False)
        else:
            monkeypatch.setenv(NO_DAEMON_ENV, "1")
        yield
        stopped = stop_hosts(Path(folder))
    if stopped and not daemon:
        pytest.fail(f"{request.node.nodeid} started a pool host but is not marked @pytest.mark.daemon")


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


@pytest.fixture
def memory_servers(request: pytest.FixtureRequest) -> Iterator[list[str]]:
    """The test servers of tests/servers open in this process over in-memory streams; the names opened.

    A test marked ``real_process`` keeps real processes (the names list stays empty).
    """
    if request.node.get_closest_marker("real_process") is not None:
        yield []
        return
    with in_memory_servers() as opened:
        yield opened

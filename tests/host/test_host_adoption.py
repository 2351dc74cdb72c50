"""The host adopts the app's pipes: ``elftia-mcp serve`` hands its stdin and stdout over and stays, idle.

The app here writes JSON-RPC lines to a real ``elftia-mcp serve`` subprocess (byte-level control:
partial lines, bursts during a handover); the host is the daemon it starts on demand. Whether the
host reads the app's pipes itself is read from ``/proc`` (the host holds the app's pipe ends).
"""

from __future__ import annotations

import fcntl
import json
import os
import queue
import signal
import socket
import struct
import subprocess
import sys
import termios
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from elftia_desktop.host.lease import HostLock, take_over
from elftia_desktop.host.location import host_location
from tests.gateway.gateway_helpers import REPO, add_stdio, gateway_argv, gateway_env, open_catalog, poll
from tests.host.host_helpers import adopted_by, cli, elftia_processes, host_status, pipes_of, server_pids

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc"),
    pytest.mark.timeout(240),
]

ECHO_3 = {"name": "alpha__echo", "arguments": {"text": "during 3"}}
INITIALIZE = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}


@pytest.fixture
def data_dir(isolated_data_dir: Path) -> Path:
    """alpha (basic) and gamma (features)."""
    catalog = open_catalog(isolated_data_dir)
    add_stdio(catalog, "alpha", "basic")
    add_stdio(catalog, "gamma", "features")
    return isolated_data_dir


class RawApp:
    """An app that speaks JSON-RPC lines to ``elftia-mcp serve`` itself."""

    def __init__(self, data_dir: Path, *, sockets: bool = False) -> None:
        """``sockets``: the gateway's stdin and stdout are socket pairs (as Node's ``child_process`` makes them)."""
        stdio: list[Any] = [subprocess.PIPE, subprocess.PIPE]
        if sockets:
            pairs = [socket.socketpair(), socket.socketpair()]
            stdio = [pairs[0][1], pairs[1][1]]
        self.process = subprocess.Popen(
            gateway_argv(), env=gateway_env(data_dir), cwd=REPO, stdin=stdio[0], stdout=stdio[1], stderr=subprocess.PIPE
        )
        if sockets:
            for _mine, theirs in pairs:
                theirs.close()
            self._stdin = pairs[0][0].makefile("wb")
            self._stdout = pairs[1][0].makefile("rb")
        else:
            assert self.process.stdin is not None and self.process.stdout is not None
            self._stdin, self._stdout = self.process.stdin, self.process.stdout
        self._lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self._stdout:
            self._lines.put(line)
        self._lines.put(b"")

    def write(self, data: bytes) -> None:
        """Raw bytes to the gateway's stdin."""
        self._stdin.write(data)
        self._stdin.flush()

    def close_stdin(self) -> None:
        """The app closes the gateway's stdin (it is done with the server)."""
        self._stdin.close()

    def send(self, message: dict[str, Any]) -> None:
        """One message, one line."""
        self.write(json.dumps(message).encode() + b"\n")

    def call(self, request_id: int, tool: str, arguments: dict[str, Any]) -> None:
        """Send a ``tools/call`` (answered later)."""
        params = {"name": tool, "arguments": arguments}
        self.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})

    def receive(self, timeout: float = 60) -> dict[str, Any] | None:
        """The next message of the gateway; None at the end of its stdout."""
        line = self._lines.get(timeout=timeout)
        return json.loads(line) if line else None

    def answers(self, count: int) -> dict[Any, dict[str, Any]]:
        """The next ``count`` responses, by id (notifications skipped)."""
        found: dict[Any, dict[str, Any]] = {}
        while len(found) < count:
            message = self.receive()
            assert message is not None, f"the gateway ended its output after {found}"
            if "id" in message and "method" not in message:
                found[message["id"]] = message
        return found

    def start(self) -> None:
        """The handshake (the answer to ``initialize`` is checked)."""
        self.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INITIALIZE})
        assert self.answers(1)[0]["result"]["serverInfo"]["name"]
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def unread(self) -> int:
        """Bytes in the gateway's stdin pipe no one read yet."""
        raw = fcntl.ioctl(self._stdin.fileno(), termios.FIONREAD, b"\0\0\0\0")
        return int(struct.unpack("i", raw)[0])

    def close(self) -> None:
        """Kill it if it still runs."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=30)


@pytest.fixture
def raw_apps(data_dir: Path) -> Iterator[list[RawApp]]:
    """The apps a test starts (killed at the end when still running); the daemon is stopped after them."""
    started: list[RawApp] = []
    yield started
    for app in started:
        app.close()
    cli(data_dir, "daemon", "stop")


def text(answer: dict[str, Any]) -> str:
    """The text of a ``tools/call`` answer."""
    return str(answer["result"]["content"][0]["text"])


def host_pid() -> int:
    """The running host's pid."""
    status = host_status()
    assert status is not None
    return int(status["pid"])


def test_the_host_reads_the_apps_pipes_cold_and_warm(data_dir: Path, raw_apps: list[RawApp]) -> None:
    cold = RawApp(data_dir)  # no host runs: it answers initialize itself, then hands the pipes over
    raw_apps.append(cold)
    cold.start()
    cold.call(1, "alpha__echo", {"text": "cold"})
    assert text(cold.answers(1)[1]) == "cold"
    assert adopted_by(cold.process.pid, host_pid())
    warm = RawApp(data_dir)  # the host runs: the host answers initialize
    raw_apps.append(warm)
    warm.start()
    assert adopted_by(warm.process.pid, host_pid())
    for index in range(2, 6):
        cold.call(index, "alpha__echo", {"text": f"cold {index}"})
        warm.call(index, "alpha__echo", {"text": f"warm {index}"})
    assert {i: text(a) for i, a in cold.answers(4).items()} == {i: f"cold {i}" for i in range(2, 6)}
    assert {i: text(a) for i, a in warm.answers(4).items()} == {i: f"warm {i}" for i in range(2, 6)}
    assert len(server_pids(data_dir, "basic.py")) == 1
    config = data_dir / "mcp-config.json"
    os.utime(config, (config.stat().st_atime, config.stat().st_mtime + 5))  # the service must read it again first
    warm.call(6, "alpha__echo", {"text": "after a save"})
    assert text(warm.answers(1)[6]) == "after a save"
    # offered on arrival, the call was left to the reader's task: no error logged
    assert "Traceback" not in host_location(data_dir).log.read_text(encoding="utf-8", errors="replace")


@pytest.mark.parametrize("sockets", [False, True], ids=["pipes", "sockets"])
def test_the_app_closing_stdin_ends_the_shim_and_leaves_nothing(
    data_dir: Path, raw_apps: list[RawApp], sockets: bool
) -> None:
    app = RawApp(data_dir, sockets=sockets)
    raw_apps.append(app)
    app.start()
    app.call(1, "alpha__echo", {"text": "bye"})
    assert text(app.answers(1)[1]) == "bye"
    host = host_pid()
    app_pipes = pipes_of(app.process.pid)
    assert adopted_by(app.process.pid, host)
    app.close_stdin()
    assert app.process.wait(timeout=30) == 0
    assert app.receive() is None  # every writer of its stdout closed: the host's copy too
    assert app.process.stderr is not None and app.process.stderr.read() == b""
    assert not (app_pipes & pipes_of(host))
    assert host_status() is not None  # the daemon serves on
    assert cli(data_dir, "daemon", "stop").returncode == 0
    assert anyio.run(poll, lambda: not elftia_processes(data_dir))


def test_sigterm_of_an_adopted_shim_cancels_its_call(data_dir: Path, raw_apps: list[RawApp], tmp_path: Path) -> None:
    app = RawApp(data_dir)
    raw_apps.append(app)
    app.start()
    app.call(1, "alpha__echo", {"text": "warm"})
    app.answers(1)
    host = host_pid()
    assert adopted_by(app.process.pid, host)
    marker = tmp_path / "m"
    app.call(2, "gamma__wait", {"seconds": 60, "marker": str(marker)})
    assert anyio.run(poll, lambda: (host_status() or {}).get("callsRunning") == 1)
    app_pipes = pipes_of(app.process.pid)
    app.process.send_signal(signal.SIGTERM)
    assert app.process.wait(timeout=30) == 0
    assert app.process.stderr is not None
    assert app.process.stderr.read().decode().splitlines() == ["elftia gateway: stopped (SIGTERM)"]
    assert anyio.run(poll, marker.exists)
    assert marker.read_text(encoding="utf-8") == "cancelled"
    assert anyio.run(poll, lambda: not (app_pipes & pipes_of(host)))
    assert (host_status() or {}).get("callsRunning") == 0


def test_host_killed_mid_line_the_app_gets_errors_and_a_new_host(
    data_dir: Path, raw_apps: list[RawApp], tmp_path: Path
) -> None:
    app = RawApp(data_dir)
    raw_apps.append(app)
    app.start()
    app.call(1, "alpha__echo", {"text": "first"})
    assert text(app.answers(1)[1]) == "first"
    first = host_pid()
    old_servers = server_pids(data_dir, ".py")
    app.call(2, "gamma__wait", {"seconds": 60, "marker": str(tmp_path / "m")})
    app.write(b'{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "par')  # half a line
    assert anyio.run(poll, lambda: (host_status() or {}).get("callsRunning") == 1 and app.unread() == 0)
    os.kill(first, signal.SIGKILL)
    failed = app.answers(1)
    assert failed[2]["error"]["message"] == "Elftia's pool host stopped while this request ran; try again."
    app.write(b'ams": {"name": "alpha__echo", "arguments": {"text": "lost"}}}\n')  # its tail is skipped
    app.call(4, "alpha__echo", {"text": "again"})
    answers = app.answers(1)
    assert list(answers) == [4] and text(answers[4]) == "again"
    # the new host answers status once it is past its start (under load that can trail the first answer)
    assert anyio.run(poll, lambda: (host_status() or {}).get("pid") not in (None, first), 30)
    second = host_pid()
    assert second != first and adopted_by(app.process.pid, second)
    assert len(server_pids(data_dir, "basic.py")) == 1
    assert anyio.run(poll, lambda: not (set(old_servers) & set(server_pids(data_dir, ".py"))), 30)


def test_a_handover_loses_no_message_the_app_sent_meanwhile(data_dir: Path, raw_apps: list[RawApp]) -> None:
    app = RawApp(data_dir)
    raw_apps.append(app)
    app.start()
    app.call(1, "alpha__echo", {"text": "before"})
    assert text(app.answers(1)[1]) == "before"
    daemon = host_pid()
    app.call(2, "alpha__slow", {"seconds": 2})
    line = json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": ECHO_3}).encode() + b"\n"
    app.write(line[:30])  # the daemon reads half a line: it hands it back
    assert anyio.run(poll, lambda: (host_status() or {}).get("callsRunning") == 1 and app.unread() == 0)
    taken: list[HostLock] = []
    taker = threading.Thread(target=lambda: taken.append(take_over(host_location(data_dir))))
    taker.start()
    assert anyio.run(poll, lambda: not host_location(data_dir).socket.exists())  # the daemon stops: it drains
    app.write(line[30:])
    for index in range(4, 13):  # it reads no more of the app: these wait for the shim
        app.call(index, "alpha__echo", {"text": f"during {index}"})
    assert text(app.answers(1)[2]) == "slept 2.0"  # the call in flight finished on the old host
    taker.join(timeout=60)
    assert taken and taken[0].held
    taken[0].release()  # this test does not host: the shim's next attach starts a daemon
    answers = app.answers(10)
    assert {i: text(a) for i, a in answers.items()} == {i: f"during {i}" for i in range(3, 13)}
    assert host_pid() != daemon and adopted_by(app.process.pid, host_pid())
    assert len(server_pids(data_dir, "basic.py")) == 1


def test_a_long_line_and_a_burst_pass_whole(data_dir: Path, raw_apps: list[RawApp]) -> None:
    app = RawApp(data_dir)
    raw_apps.append(app)
    app.start()
    app.call(1, "alpha__echo", {"text": "warm"})
    app.answers(1)
    assert adopted_by(app.process.pid, host_pid())
    long_text = "x" * (3 << 20)  # more than the host holds before it lets the pipe fill
    burst = [{"name": "alpha__echo", "arguments": {"text": f"burst {index}"}} for index in range(3, 203)]
    lines = [{"jsonrpc": "2.0", "id": index, "method": "tools/call", "params": p} for index, p in enumerate(burst, 3)]
    writer = threading.Thread(
        target=lambda: (
            app.call(2, "alpha__echo", {"text": long_text}),
            app.write(b"".join(json.dumps(line).encode() + b"\n" for line in lines)),
        )
    )
    writer.start()
    answers = app.answers(201)
    writer.join(timeout=60)
    assert text(answers.pop(2)) == long_text
    assert {i: text(a) for i, a in answers.items()} == {i: f"burst {i}" for i in range(3, 203)}

"""Issue 30: ``elftia-mcp serve`` forwards plainly: one answer per request, whatever the moment the host dies.

Raw JSON-RPC apps (not the SDK, so every byte is seen) drive ``elftia-mcp serve`` subprocesses;
the pool host is SIGKILLed during slow calls and during pipelined bursts, again and again. Every
request gets exactly one answer, every line is valid JSON, the next call reaches a new host, and
each server runs once. Commands started with different ``TMPDIR`` and ``XDG_RUNTIME_DIR`` find
one host (the claim lives in the data folder), and an internal error leaves its cause in the
host's log.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from elftia_desktop.host import wire
from elftia_desktop.host.location import host_location
from elftia_desktop.platform import endpoint
from tests.gateway.gateway_helpers import add_stdio, gateway_argv, gateway_env, open_catalog
from tests.host.host_helpers import cli, host_status, server_pids

pytestmark = pytest.mark.daemon

APPS = 3
BURST = 200
GUARD = 120.0
"""Seconds a wait gives up after (a hang is a failure, not a figure)."""


@pytest.fixture
def data_dir(isolated_data_dir: Path) -> Path:
    """alpha (basic): the one server the tests but the slow calls use (each new host would start any other
    the gateways list)."""
    add_stdio(open_catalog(isolated_data_dir), "alpha", "basic")
    return isolated_data_dir


class RawApp:
    """An app speaking raw JSON-RPC lines to an ``elftia-mcp serve`` subprocess; every line it gets is kept."""

    def __init__(self, data_dir: Path, name: str) -> None:
        self.name = name
        self.process = subprocess.Popen(
            gateway_argv(), env=gateway_env(data_dir), stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self.answers: Counter[Any] = Counter()
        self.results: dict[Any, dict[str, Any]] = {}
        self.bad_lines: list[bytes] = []
        self._changed = threading.Condition()
        self._next = 1
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                message = None
            with self._changed:
                if not isinstance(message, dict) or not line.endswith(b"\n"):
                    self.bad_lines.append(line)
                elif "id" in message and "method" not in message:
                    self.answers[message["id"]] += 1
                    self.results[message["id"]] = message
                self._changed.notify_all()

    def send(self, *messages: dict[str, Any]) -> None:
        """Write ``messages`` at once (pipelined)."""
        assert self.process.stdin is not None
        self.process.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
        self.process.stdin.flush()

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """A ``tools/call`` request with a new id."""
        request_id, self._next = f"{self.name}-{self._next}", self._next + 1
        return {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments},
        }

    def open(self) -> None:
        """The handshake, and a first call answered."""
        params = {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": self.name, "version": "1"},
        }
        self.send({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": params})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        first = self.call("alpha__echo", {"text": "hello"})
        self.send(first)
        self.wait_for(lambda: first["id"] in self.answers)

    def wait_for(self, condition: Callable[[], bool]) -> None:
        """Wait until ``condition`` holds (checked on every line read)."""
        with self._changed:
            assert self._changed.wait_for(condition, GUARD), f"{self.name}: waited {GUARD:.0f} s in vain"

    def answered(self, requests: list[dict[str, Any]]) -> int:
        """How many of ``requests`` have their answer."""
        return sum(1 for r in requests if r["id"] in self.answers)

    def wait_answered(self, requests: list[dict[str, Any]], count: int | None = None) -> None:
        """Wait until ``count`` of ``requests`` (default: all) have their answer."""
        wanted = len(requests) if count is None else count
        self.wait_for(lambda: self.answered(requests) >= wanted)

    def close(self) -> None:
        """Close stdin; the gateway exits."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(GUARD)


def open_apps(data_dir: Path) -> Iterator[list[RawApp]]:
    """Three raw apps, each through its own ``serve``, sharing one host (closed at the end)."""
    started = [RawApp(data_dir, f"app{i}") for i in range(APPS)]
    try:
        for app in started:
            app.open()
        yield started
    finally:
        for app in started:
            if app.process.poll() is None:
                app.close()


@pytest.fixture
def apps(data_dir: Path) -> Iterator[list[RawApp]]:
    """Three raw apps on alpha."""
    yield from open_apps(data_dir)


@pytest.fixture
def gamma_apps(data_dir: Path) -> Iterator[list[RawApp]]:
    """Three raw apps on alpha and gamma (features: its slow ``wait``)."""
    add_stdio(open_catalog(data_dir), "gamma", "features")
    yield from open_apps(data_dir)


def wait_for_files(paths: list[Path]) -> None:
    """Wait until every file of ``paths`` exists (a server writes them: no event reaches this process)."""
    deadline = time.monotonic() + GUARD
    while not all(path.exists() for path in paths):
        assert time.monotonic() < deadline, f"waited {GUARD:.0f} s for {paths}"
        time.sleep(0.02)


def kill_host() -> int:
    """SIGKILL the running host; its pid."""
    status = host_status()
    assert status is not None
    os.kill(status["pid"], signal.SIGKILL)
    return int(status["pid"])


def assert_exactly_once(app: RawApp, requests: list[dict[str, Any]]) -> None:
    """Every request of ``requests`` answered exactly once, nothing else answered twice, every line JSON."""
    assert app.bad_lines == []
    assert [r["id"] for r in requests if app.answers[r["id"]] != 1] == []
    assert [key for key, count in app.answers.items() if count != 1] == []


def assert_next_call_reaches_a_new_host(apps: list[RawApp], data_dir: Path, dead: int) -> None:
    """Each app's next call is answered by a host that is not ``dead``; each server runs once."""
    for app in apps:
        request = app.call("alpha__echo", {"text": "again"})
        app.send(request)
        app.wait_answered([request])
        assert app.results[request["id"]]["result"]["content"][0]["text"] == "again"
    status = host_status()
    assert status is not None and status["pid"] != dead
    assert len(server_pids(data_dir, "basic.py")) == 1


def test_host_killed_during_slow_calls_every_request_answered_once(
    gamma_apps: list[RawApp], data_dir: Path, tmp_path: Path
) -> None:
    apps = gamma_apps
    for round_ in range(2):
        calls = {
            app.name: [
                app.call("gamma__wait", {"seconds": 300, "marker": str(tmp_path / f"{app.name}-{round_}-{i}")})
                for i in range(3)
            ]
            for app in apps
        }
        for app in apps:
            app.send(*calls[app.name])
        markers = [
            Path(c["params"]["arguments"]["marker"] + ".started") for c in [c for app in apps for c in calls[app.name]]
        ]
        wait_for_files(markers)  # every call runs on the server
        dead = kill_host()
        for app in apps:
            app.wait_answered(calls[app.name])
            assert all("error" in app.results[c["id"]] for c in calls[app.name])
        assert_next_call_reaches_a_new_host(apps, data_dir, dead)
        for app in apps:
            assert_exactly_once(app, calls[app.name])
    assert len(server_pids(data_dir, "features.py")) <= 1


def test_host_killed_during_pipelined_bursts_every_request_answered_once(apps: list[RawApp], data_dir: Path) -> None:
    failed = 0
    for round_ in range(3):
        bursts = {app.name: [app.call("alpha__echo", {"text": f"{round_}-{i}"}) for i in range(BURST)] for app in apps}
        for app in apps:
            app.send(*bursts[app.name])
        first = apps[0]
        first.wait_answered(bursts[first.name], 10 * (round_ + 1))  # mid-burst, each round a little later
        dead = kill_host()
        for app in apps:
            app.wait_answered(bursts[app.name])
            for request in bursts[app.name]:
                answer = app.results[request["id"]]
                failed += "error" in answer
                assert (
                    "error" in answer
                    or answer["result"]["content"][0]["text"] == request["params"]["arguments"]["text"]
                )
        assert_next_call_reaches_a_new_host(apps, data_dir, dead)
        for app in apps:
            assert_exactly_once(app, bursts[app.name])
    assert failed  # some kill came in the middle of a burst


def test_commands_with_different_tmpdir_and_runtime_folder_share_one_host(data_dir: Path) -> None:
    envs = []
    short = Path(tempfile.mkdtemp(prefix="eh-", dir="/tmp"))  # a socket path has at most 107 bytes
    for i in range(3):
        folder = short / f"e{i}"
        (folder / "tmp").mkdir(parents=True)
        (folder / "run").mkdir(mode=0o700)
        # no ELFTIA_HOST_DIR (the tests' shared socket folder): each command has its own runtime folder
        envs.append({"TMPDIR": str(folder / "tmp"), "XDG_RUNTIME_DIR": str(folder / "run"), "ELFTIA_HOST_DIR": ""})
    try:
        for i, env in enumerate(envs):
            done = cli(data_dir, "call", "alpha", "echo", "--args", json.dumps({"text": f"env {i}"}), env=env)
            assert done.returncode == 0, done.stderr
            assert f"env {i}" in done.stdout
            assert "warning" not in done.stderr, done.stderr  # it reached a host, not its own pool
        statuses = [json.loads(cli(data_dir, "daemon", "status", "--json", env=env).stdout) for env in envs]
        assert all(s["running"] for s in statuses), statuses
        assert len({s["pid"] for s in statuses}) == 1  # one host, whoever asks
        assert statuses[0]["socket"].startswith(envs[0]["XDG_RUNTIME_DIR"])  # where the first command started it
        assert len(server_pids(data_dir, "basic.py")) == 1
    finally:
        stopped = cli(data_dir, "daemon", "stop", env=envs[-1])
        shutil.rmtree(short, ignore_errors=True)
        assert stopped.returncode == 0, stopped.stderr


def test_an_internal_error_leaves_its_cause_in_the_hosts_log(data_dir: Path) -> None:
    assert cli(data_dir, "daemon", "start").returncode == 0
    location = host_location(data_dir)
    claim = location.read_claim()
    assert claim is not None
    with endpoint.connect(claim["endpoint"]) as sock:
        sock.sendall(wire.encode(wire.hello("gateway", agent=None, hub=False, timeout="soon")))  # float("soon") fails
        assert wire.read_frame(sock) is None  # the host closed this connection
    with endpoint.connect(claim["endpoint"]) as sock:  # a command's request that breaks: it still gets an answer
        sock.sendall(wire.encode(wire.hello("command")))
        assert wire.read_frame(sock) is not None
        sock.sendall(wire.encode({"op": "call", "server": "alpha", "tool": "echo", "arguments": ["x"]}))
        answer = wire.decode(wire.read_frame(sock) or b"{}")
    assert answer["op"] == "error" and answer["message"].startswith("the pool host failed: dictionary update")
    log = location.log.read_text(encoding="utf-8")
    assert "serving a client failed" in log and "ValueError: could not convert string to float: 'soon'" in log
    assert "the call request failed" in log and "ValueError: dictionary update sequence" in log
    assert host_status() is not None  # the host still serves

"""The attached gateway answers ``initialize`` itself: at once when no host runs yet, with what the SDK server says.

And when no host can be started at all, the rest of the session runs on the gateway's own pool.
The tests that only need a running host share the module's (``shared_dir``).
"""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest
from mcp_types import version as version_registry

from elftia_desktop import __version__
from elftia_desktop.gateway import announce
from elftia_desktop.host import wire
from elftia_desktop.host.lease import HostLock
from elftia_desktop.host.location import host_location
from tests.gateway.gateway_helpers import add_stdio, gateway_argv, gateway_env, open_catalog, poll, stdio_gateway
from tests.gateway.gateway_helpers import text_of as text
from tests.host.host_helpers import SharedFolders, cli, elftia_processes, host_status

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(240)]

VERSIONS = [*version_registry.KNOWN_PROTOCOL_VERSIONS, "1999-01-01"]


@pytest.fixture(scope="module")
def shared_folders(shared_folders: SharedFolders) -> SharedFolders:
    """The module's folders with alpha (basic): one host for the tests that only need one running."""
    add_stdio(open_catalog(shared_folders.data_dir), "alpha", "basic")
    return shared_folders


@pytest.fixture
def data_dir(isolated_data_dir: Path) -> Path:
    """This test's own folder with alpha (basic), for a test about the time before a host, or without one."""
    add_stdio(open_catalog(isolated_data_dir), "alpha", "basic")
    return isolated_data_dir


def initialize(request_id: Any, version: str) -> dict[str, Any]:
    """An ``initialize`` request asking for protocol ``version``."""
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params}


def host_answer(data_dir: Path, version: str, hub: bool) -> dict[str, Any]:
    """The SDK server's answer to ``initialize``, on a gateway connection of the running host."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(str(host_location(data_dir).socket))
        sock.sendall(wire.encode(wire.hello("gateway", agent=None, hub=hub, timeout=None)))
        assert wire.decode(wire.read_frame(sock) or b"{}")["ok"]
        sock.sendall(wire.encode(initialize(1, version)))
        return wire.decode(wire.read_frame(sock) or b"{}")


def test_the_shims_answer_is_the_sdk_servers_for_every_version_and_mode(shared_dir: Path) -> None:
    assert announce.HANDSHAKE_VERSIONS == version_registry.HANDSHAKE_PROTOCOL_VERSIONS
    assert cli(shared_dir, "daemon", "start").returncode == 0  # the module's host, started now or earlier
    for hub in (False, True):
        for version in VERSIONS:
            expected = host_answer(shared_dir, version, hub)["result"]
            assert announce.initialize_result(version, hub=hub, version=__version__) == expected, (hub, version)


@contextlib.contextmanager
def host_lock_held(data_dir: Path) -> Iterator[None]:
    """Hold the data folder's host lock: no host can start while the block runs."""
    lock = HostLock(host_location(data_dir))
    assert lock.acquire()
    try:
        yield
    finally:
        lock.release()


def send(stdin: IO[str], *messages: dict[str, Any]) -> None:
    """Write JSON-RPC messages to a gateway's stdin."""
    stdin.write("".join(json.dumps(m) + "\n" for m in messages))
    stdin.flush()


def echo(request_id: int, text: str) -> dict[str, Any]:
    """A ``tools/call`` of alpha's ``echo``."""
    params = {"name": "alpha__echo", "arguments": {"text": text}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def test_initialize_is_answered_before_any_host_runs_and_calls_follow_once_it_does(data_dir: Path) -> None:
    shim = subprocess.Popen(
        gateway_argv(), env=gateway_env(data_dir), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert shim.stdin is not None and shim.stdout is not None
    with host_lock_held(data_dir):  # the daemon the shim starts finds the lock taken and exits
        send(shim.stdin, initialize(1, "2025-06-18"))
        answer = json.loads(shim.stdout.readline())
        assert answer["id"] == 1 and answer["result"]["serverInfo"]["name"] == "elftia"
        assert answer["result"]["protocolVersion"] == "2025-06-18"
        send(shim.stdin, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        send(shim.stdin, echo(2, "queued"))
        assert host_status() is None
    started = cli(data_dir, "daemon", "start", "--json")  # the shim, still waiting for a host, attaches to it
    assert json.loads(started.stdout)["started"], started.stderr
    send(shim.stdin, echo(3, "straight on"))
    answers = {}
    for _ in range(2):
        message = json.loads(shim.stdout.readline())
        answers[message["id"]] = message
    assert {i: a["result"]["content"][0]["text"] for i, a in answers.items()} == {2: "queued", 3: "straight on"}
    shim.stdin.close()
    assert shim.wait(timeout=30) == 0


async def test_without_a_host_the_gateway_serves_with_its_own_pool(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ELFTIA_HOST_IDLE", "not a number")  # the daemon this gateway starts fails at once
    async with stdio_gateway(data_dir) as (session, _):
        assert text(await session.call_tool("alpha__echo", {"text": "own pool"})) == "own pool"
        assert "alpha__echo" in [t.name for t in (await session.list_tools()).tools]
        assert host_status() is None
    assert await poll(lambda: not elftia_processes(data_dir))


def test_an_unknown_agent_is_refused_at_once_by_a_running_host(shared_dir: Path) -> None:
    assert cli(shared_dir, "daemon", "start").returncode == 0  # the module's host, started now or earlier
    done = subprocess.run(
        gateway_argv("--agent", "Nobody"),
        env=gateway_env(shared_dir),
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("error: --agent: ")

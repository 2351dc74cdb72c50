"""The pool host's faults and life cycle: killed with SIGKILL, a client that dies mid-call, stop, signals.

The tests that only use a host share the module's (``shared_dir``); the others start their own.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from elftia_desktop.host import wire
from elftia_desktop.host.location import host_location
from tests.gateway.gateway_helpers import gateway_argv, gateway_env, poll, stdio_gateway
from tests.gateway.gateway_helpers import text_of as text
from tests.helpers.memory_servers import in_memory_servers
from tests.host.host_helpers import SharedFolders, add_alpha_and_gamma, cli, elftia_processes, host_status, server_pids

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(240)]


@pytest.fixture(scope="module")
def shared_folders(shared_folders: SharedFolders) -> SharedFolders:
    """The module's folders, alpha and gamma in its catalog: one host for the tests that only use it."""
    add_alpha_and_gamma(shared_folders.data_dir)
    return shared_folders


async def test_host_killed_calls_in_flight_fail_and_the_next_call_gets_a_new_host(
    data_dir: Path, tmp_path: Path
) -> None:
    async with stdio_gateway(data_dir) as (session, _):
        await session.list_tools()
        first = host_status()
        assert first is not None
        old_servers = server_pids(data_dir, "features.py") + server_pids(data_dir, "basic.py")
        assert len(old_servers) == 2
        failures: list[Exception] = []

        async def in_flight() -> None:
            try:
                await session.call_tool("gamma__wait", {"seconds": 60, "marker": str(tmp_path / "m")})
            except MCPError as exc:
                failures.append(exc)

        with anyio.fail_after(30):
            async with anyio.create_task_group() as group:
                group.start_soon(in_flight)
                assert await poll(lambda: (host_status() or {}).get("callsRunning") == 1)  # it reached the host
                os.kill(first["pid"], signal.SIGKILL)
        assert failures and "pool host stopped" in str(failures[0])

        assert text(await session.call_tool("alpha__echo", {"text": "again"})) == "again"
        second = host_status()
        assert second is not None and second["pid"] != first["pid"]
        assert await poll(lambda: not (set(old_servers) & set(server_pids(data_dir, ".py"))), limit=30)


def test_a_client_that_dies_mid_call_has_its_call_cancelled(shared_dir: Path, tmp_path: Path) -> None:
    marker = tmp_path / "cancelled.txt"
    shim = subprocess.Popen(
        gateway_argv(), env=gateway_env(shared_dir), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert shim.stdin is not None and shim.stdout is not None
    initialize = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    for message in messages:
        shim.stdin.write(json.dumps(message) + "\n")
    shim.stdin.flush()
    assert json.loads(shim.stdout.readline())["id"] == 1
    assert json.loads(shim.stdout.readline())["id"] == 2
    call = {"name": "gamma__wait", "arguments": {"seconds": 60, "marker": str(marker)}}
    shim.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call}) + "\n")
    shim.stdin.flush()
    status = host_status()
    assert status is not None
    assert anyio.run(poll, lambda: (host_status() or {}).get("callsRunning") == 1)
    shim.kill()
    shim.wait(timeout=10)
    assert anyio.run(poll, marker.exists)
    assert marker.read_text(encoding="utf-8") == "cancelled"


def test_sigterm_stops_an_attached_gateway_with_a_one_line_note(data_dir: Path) -> None:
    shim = subprocess.Popen(
        gateway_argv(), env=gateway_env(data_dir), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )

    def attached() -> bool:
        """The shim and this test's status request are the host's clients."""
        status = host_status()
        return status is not None and len(status["clients"]) >= 2

    assert anyio.run(poll, attached, 90.0)  # the shim starts the host: seconds of imports on a busy machine
    shim.send_signal(signal.SIGTERM)
    _out, err = shim.communicate(timeout=20)
    assert shim.returncode == 0, err
    started, stopped = err.decode().strip().splitlines()  # it started the host, and says so once
    assert started.startswith("elftia: started the background pool host")
    assert stopped == "elftia gateway: stopped (SIGTERM)"
    assert host_status() is not None  # the host serves the other apps on


def test_daemon_stop_leaves_no_process(data_dir: Path) -> None:
    called = cli(data_dir, "call", "alpha", "echo", "--args", '{"text": "warm"}')
    assert called.returncode == 0, called.stderr
    assert called.stdout.strip() == "warm"
    status = json.loads(cli(data_dir, "daemon", "status", "--json").stdout)
    assert status["running"] and [s["name"] for s in status["servers"]] == ["alpha"]
    assert len(status["processes"]) == 1
    assert elftia_processes(data_dir)
    stopped = cli(data_dir, "daemon", "stop", "--json")
    assert json.loads(stopped.stdout) == {"stopped": True, "pid": status["pid"]}
    assert anyio.run(poll, lambda: not elftia_processes(data_dir))
    assert json.loads(cli(data_dir, "daemon", "status", "--json").stdout) == {"running": False}


def test_one_host_per_data_folder_a_second_start_attaches(data_dir: Path) -> None:
    started = json.loads(cli(data_dir, "daemon", "start", "--json").stdout)
    again = json.loads(cli(data_dir, "daemon", "start", "--json").stdout)
    assert started["started"] and not again["started"] and again["pid"] == started["pid"]
    second = cli(data_dir, "daemon", "run", process=True)  # it would stay running if it did not refuse
    assert second.returncode == 0 and "already runs" in second.stderr
    location = host_location(data_dir)
    assert stat.S_IMODE(location.socket.stat().st_mode) == 0o600
    assert stat.S_IMODE(location.socket.parent.stat().st_mode) == 0o700


def test_another_protocol_version_is_refused(shared_dir: Path) -> None:
    assert cli(shared_dir, "daemon", "start").returncode == 0  # the module's host, started now or earlier
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(str(host_location(shared_dir).socket))
        sock.sendall(wire.encode({"elftiaHost": 99, "role": "command"}))
        reply = wire.decode(wire.read_frame(sock) or b"{}")
    assert reply["ok"] is False and "version 1" in reply["error"]


def test_call_gives_the_same_results_with_and_without_the_host(shared_dir: Path) -> None:
    cases = [
        ("alpha", "echo", '{"text": "same"}'),
        ("alpha", "add", '{"a": 2, "b": 3}'),
        ("alpha", "fail", '{"reason": "broken"}'),
        ("alpha", "nosuch", "{}"),
        ("alpha", "add", '{"a": "two"}'),  # does not fit the input schema: nothing sent, exit 2
        ("alpha", "echo", "{}"),  # a required argument missing
        ("nobody", "echo", "{}"),
    ]
    for server, tool, args in cases:
        for extra in ([], ["--json"]):
            with in_memory_servers():  # the result of the tool is the oracle: no process needed for it
                direct = cli(shared_dir, "call", server, tool, "--args", args, "--no-daemon", *extra)
            attached = cli(shared_dir, "call", server, tool, "--args", args, *extra)
            assert (attached.returncode, attached.stdout) == (direct.returncode, direct.stdout), (server, tool)
            said = [line for line in attached.stderr.splitlines() if "started the background pool host" not in line]
            assert said[-1:] == direct.stderr.splitlines()[-1:]
    assert host_status() is not None


if sys.platform != "linux":  # pragma: no cover
    pytestmark.append(pytest.mark.skip(reason="/proc and SO_PEERCRED"))

"""The fast lane: a gateway's ``tools/call`` past the SDK server session, shaped as the SDK server shapes it.

Over the host's socket for every handshake version, and on ``serve --no-daemon``'s own stdio
(here with stdout a regular file, which the event loop cannot watch: it is written directly).
"""

from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp_types import version as version_registry

from elftia_desktop.host import wire
from elftia_desktop.host.location import host_location
from tests.gateway.gateway_helpers import REPO, add_stdio, gateway_argv, gateway_env, open_catalog, poll
from tests.host.host_helpers import cli

pytestmark = pytest.mark.timeout(240)

INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


@pytest.fixture
def data_dir(isolated_data_dir: Path) -> Path:
    """alpha (basic)."""
    add_stdio(open_catalog(isolated_data_dir), "alpha", "basic")
    return isolated_data_dir


def initialize(version: str) -> dict[str, Any]:
    """An ``initialize`` request (id 0) asking for protocol ``version``."""
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    return {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}


def call(request_id: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A ``tools/call`` request."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


def answers_over_the_socket(
    data_dir: Path, version: str, *messages: dict[str, Any], hub: bool = False
) -> dict[Any, dict[str, Any]]:
    """The host's answers, by id, to ``initialize(version)`` and ``messages`` on one gateway connection."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(str(host_location(data_dir).socket))
        sock.sendall(wire.encode(wire.hello("gateway", agent=None, hub=hub, timeout=None)))
        assert wire.decode(wire.read_frame(sock) or b"{}")["ok"]
        for message in (initialize(version), INITIALIZED, *messages):
            sock.sendall(wire.encode(message))
        answers: dict[Any, dict[str, Any]] = {}
        while len(answers) < 1 + sum("id" in m for m in messages):
            answer = wire.decode(wire.read_frame(sock) or b"{}")
            answers[answer.get("id")] = answer
        return answers


def test_the_result_is_the_sdk_servers_for_every_version(data_dir: Path) -> None:
    assert cli(data_dir, "daemon", "start").returncode == 0
    try:
        for version in version_registry.HANDSHAKE_PROTOCOL_VERSIONS:
            lane = answers_over_the_socket(data_dir, version, call(1, "alpha__add", {"a": 2, "b": 3}))[1]
            # the hub's call_tool runs the same call through the SDK server session
            inner = {"name": "alpha__add", "arguments": {"a": 2, "b": 3}}
            sdk = answers_over_the_socket(data_dir, version, call(1, "call_tool", inner), hub=True)[1]
            assert lane == sdk
            assert lane["result"]["structuredContent"] == {"sum": 5}
            assert "resultType" not in lane["result"]  # 2026-07-28 (the host's era toward the server): sieved
    finally:
        cli(data_dir, "daemon", "stop")


def test_an_unknown_name_and_bad_arguments_are_answered_as_the_sdk_server_does(data_dir: Path) -> None:
    assert cli(data_dir, "daemon", "start").returncode == 0
    try:
        answers = answers_over_the_socket(
            data_dir,
            "2025-11-25",
            call(1, "alpha__nope", {}),
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "alpha__echo", "arguments": 7}},
        )
        assert answers[1]["error"]["code"] == -32602 and "Unknown tool 'alpha__nope'" in answers[1]["error"]["message"]
        assert answers[2]["error"]["code"] == -32602  # not the lane's: the SDK server's validation
    finally:
        cli(data_dir, "daemon", "stop")


@pytest.mark.anyio
async def test_no_daemon_serves_a_call_with_stdout_a_regular_file(data_dir: Path, tmp_path: Path) -> None:
    lines = [initialize("2025-06-18"), INITIALIZED, call(1, "alpha__echo", {"text": "hi"})]
    out = tmp_path / "out.jsonl"

    def answers() -> dict[Any, dict[str, Any]]:
        return {a["id"]: a for a in map(json.loads, out.read_bytes().splitlines())}

    with out.open("wb") as sink:
        gateway = await anyio.open_process(
            gateway_argv("--no-daemon"), stdin=subprocess.PIPE, stdout=sink, env=gateway_env(data_dir), cwd=REPO
        )
    assert gateway.stdin is not None
    try:
        await gateway.stdin.send(b"".join(json.dumps(line).encode() + b"\n" for line in lines))
        assert await poll(lambda: 1 in answers(), limit=120)  # a file sends no event to wait on
    finally:
        await gateway.stdin.aclose()
        with anyio.fail_after(60):
            assert await gateway.wait() == 0
    assert answers()[0]["result"]["protocolVersion"] == "2025-06-18"
    assert answers()[1]["result"]["content"] == [{"type": "text", "text": "hi"}]

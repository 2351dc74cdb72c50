"""Issue 34: extensions negotiated in ``capabilities.extensions`` (SEP-2133), on both eras' paths.

Elftia declares what it speaks (Apps, Skills) in the handshake's capabilities and, on a modern
connection, in each request's capabilities (there also Tasks: the SDK declares a result-claiming
extension only where its ``resultType: "task"`` can arrive); the skills test server reports what it received. What
the server declared is kept on the connection and shown in ``test --json``, ``discover`` and the
card's protocol label.
"""

from __future__ import annotations

import json

import pytest

from elftia_desktop.connections.events import ConnectionStateChanged
from elftia_desktop.connections.service import McpService
from elftia_desktop.core.apps import APPS_EXTENSION
from elftia_desktop.core.extensions import SKILLS_EXTENSION, TASKS_EXTENSION, short_label
from tests.connections.pool_helpers import add_server, stdio_input
from tests.helpers.cli_runner import run_cli

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120), pytest.mark.usefixtures("memory_servers")]
BOTH = sorted([APPS_EXTENSION, SKILLS_EXTENSION])
OURS_MODERN = sorted([*BOTH, TASKS_EXTENSION])


async def test_both_sides_declare_their_extensions_on_a_modern_connection(service: McpService) -> None:
    states: list[ConnectionStateChanged] = []
    service.events.on(ConnectionStateChanged, states.append)
    sid = await add_server(service, stdio_input("skilled", "skills"))
    result = await service.test(sid)
    assert result.success and result.server_info is not None
    assert result.server_info["era"]["era"] == "modern"
    assert result.server_info["extensions"] == BOTH
    assert result.server_info["era"]["extensions"] == BOTH
    assert sorted(result.server_info["era"]["clientCapabilities"]["extensions"]) == OURS_MODERN
    told = await service.call_tool(sid, "client_extensions", {})
    assert json.loads(told.content[0]["text"]) == OURS_MODERN  # the server received our declaration
    connected = [s for s in states if s.state == "connected"]
    assert connected and connected[-1].protocol == "2026-07-28 · apps, skills"
    assert any("server extensions: " + ", ".join(BOTH) in line for line in service.server_log(sid))


async def test_the_handshake_carries_our_declaration(service: McpService) -> None:
    """Ours reaches the server in ``initialize``; the SDK's 2025-11-25 ``ServerCapabilities`` has no
    ``extensions`` field, so a handshake-era server's declaration does not reach us."""
    sid = await add_server(service, stdio_input("skilled", "skills", config={"protocol": "legacy"}))
    result = await service.test(sid)
    assert result.success and result.server_info is not None
    assert result.server_info["era"]["era"] == "handshake" and result.server_info["extensions"] == []
    told = await service.call_tool(sid, "client_extensions", {})
    assert json.loads(told.content[0]["text"]) == BOTH


async def test_a_server_declaring_none_shows_none(service: McpService) -> None:
    sid = await add_server(service, stdio_input("plain", "basic"))
    result = await service.test(sid)
    assert result.server_info is not None and result.server_info["extensions"] == []
    discovered = await service.discover(sid)
    assert discovered.server_info is not None and discovered.server_info["extensions"] == []


def test_short_label_names_the_official_ones_and_others_by_their_last_part() -> None:
    assert short_label([SKILLS_EXTENSION, APPS_EXTENSION]) == "apps, skills"
    assert short_label(["com.example/maps"]) == "maps"
    assert short_label([]) == ""


def test_the_cli_shows_the_extensions() -> None:
    command = stdio_input("skilled", "skills").config
    added = run_cli("add", "skilled", "--", command.command or "", *command.args)
    assert added.returncode == 0, added.stderr
    assert run_cli("trust", "skilled", "--yes").returncode == 0
    tested = run_cli("test", "skilled", "--json", "--no-daemon")
    assert tested.returncode == 0, tested.stderr
    assert json.loads(tested.stdout)["serverInfo"]["extensions"] == BOTH
    human = run_cli("discover", "skilled", "--no-daemon")
    assert human.returncode == 0 and f"Extensions: apps, skills ({', '.join(BOTH)})" in human.stdout

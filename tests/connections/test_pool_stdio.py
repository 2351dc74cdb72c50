"""The pool over stdio with real MCPServer subprocesses: connect, test, list, call, discover, callbacks."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest

from elftia_desktop.connections.events import ConnectionStateChanged, LogLine, ServerConnected, ToolCalled, ToolsChanged
from elftia_desktop.connections.listing import tool_id
from elftia_desktop.connections.service import McpService
from elftia_desktop.core.errors import ToolCallError
from elftia_desktop.core.models import ConnectionState
from tests.connections.pool_helpers import add_server, stdio_input

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120), pytest.mark.usefixtures("memory_servers")]


async def test_add_connects_and_call_round_trips(service: McpService) -> None:
    states: list[str] = []
    service.events.on(ConnectionStateChanged, lambda e: states.append(e.state))
    connected: list[ServerConnected] = []
    service.events.on(ServerConnected, connected.append)
    sid = await add_server(service, stdio_input("basic one", "basic"))
    assert service.connection_state(sid) is ConnectionState.CONNECTED
    assert states == ["connecting", "connected"]
    assert connected == [ServerConnected(sid)]

    called: list[ToolCalled] = []
    service.events.on(ToolCalled, called.append)
    response = await service.call_tool(sid, "echo", {"text": "héllo"}, call_id="c1")
    assert response.is_error is False
    assert response.content == [{"type": "text", "text": "héllo"}]
    structured = await service.call_tool(sid, "add", {"a": 2, "b": 3})
    assert structured.structured_content == {"sum": 5}
    assert [c.tool_name for c in called] == ["echo", "add"]
    assert called[0].call_id == "c1" and called[0].ok and called[0].outcome == "ok" and called[0].duration_ms >= 0
    assert called[0].caller is None  # this process's own call


async def test_test_and_discover_report_everything(service: McpService) -> None:
    sid = await add_server(service, stdio_input("basic", "basic", is_active=False))
    assert service.connection_state(sid) is ConnectionState.DISCONNECTED
    result = await service.test(sid)
    assert result.success, result.error
    assert {"echo", "add", "slow", "crash"} <= set(result.tools)
    assert result.duration_ms > 0
    assert result.server_info is not None and result.server_info["name"] == "basic"

    found = await service.discover(sid)
    assert found.success and found.errors == {}
    assert [p["name"] for p in found.prompts] == ["greet"]
    assert [r["uri"] for r in found.resources] == ["memo://hello"]
    assert [t["uriTemplate"] for t in found.resource_templates] == ["memo://item/{key}"]


async def test_tool_ids_and_disabled_tools(service: McpService) -> None:
    sid = await add_server(service, stdio_input("My Server!", "basic", disabled_tools=["crash"]))
    tools = await service.list_server_tools(sid)
    by_name = {t.name: t for t in tools}
    assert "crash" not in by_name
    assert by_name["ask_name"].id == "mcp__My_Server___ask_name" == tool_id("My Server!", "ask_name")
    assert by_name["echo"].input_schema["properties"]["text"]["type"] == "string"
    with pytest.raises(ToolCallError, match="disabled"):
        await service.call_tool(sid, "crash", {})
    with pytest.raises(ToolCallError, match='no tool "nope"'):
        await service.call_tool(sid, "nope", {})
    assert service.connection_state(sid) is ConnectionState.CONNECTED


async def test_pagination_lists_every_page(service: McpService) -> None:
    sid = await add_server(service, stdio_input("paged", "paginated"))
    tools = await service.list_server_tools(sid)
    assert [t.name for t in tools] == [f"tool_{i:02d}" for i in range(25)]
    response = await service.call_tool(sid, "tool_24", {"x": 5})
    assert response.content[0]["text"] == "tool 24: 5"


async def test_list_changed_invalidates_the_cache(service: McpService) -> None:
    sid = await add_server(service, stdio_input("growing", "list_changed"))
    assert [t.name for t in await service.list_server_tools(sid)] == ["grow"]
    changed = asyncio.Event()
    service.events.on(ToolsChanged, lambda e: changed.set() if e.server_id == sid else None)
    await service.call_tool(sid, "grow", {"name": "sprout"})
    await asyncio.wait_for(changed.wait(), 30)
    # the re-list is compared with the pins: a tool added after trust waits for review
    assert {t.name for t in await service.list_server_tools(sid)} == {"grow"}
    assert service.tool_guard.held[sid] == {"sprout"}
    assert service.tool_guard.accept(sid, ["sprout"]) == ["sprout"]
    assert {t.name for t in await service.list_server_tools(sid)} == {"grow", "sprout"}
    assert (await service.call_tool(sid, "sprout", {})).content[0]["text"] == "I am sprout"


@pytest.mark.real_process  # the server's pid shows whether it restarted
async def test_concurrent_init_client_shares_one_attempt(service: McpService) -> None:
    sid = await add_server(service, stdio_input("shared", "basic", is_active=False))
    connecting: list[str] = []
    service.events.on(ConnectionStateChanged, lambda e: connecting.append(e.state))
    await asyncio.gather(*(service.init_client(sid) for _ in range(8)))
    assert connecting == ["connecting", "connected"]
    pids = {(await service.call_tool(sid, "pid", {})).structured_content["result"] for _ in range(3)}  # type: ignore[index]
    assert len(pids) == 1


async def test_roots_elicitation_and_sampling(service: McpService, tmp_path: Any) -> None:
    sid = await add_server(service, stdio_input("callbacks", "basic"))
    service.set_roots([str(tmp_path)])
    roots = await service.call_tool(sid, "roots", {})
    assert roots.structured_content == {"result": [tmp_path.as_uri()]}

    declined = await service.call_tool(sid, "ask_name", {})
    assert declined.content[0]["text"] == "no name: decline"

    asked: list[tuple[str, str, dict[str, Any]]] = []

    async def handler(server_id: str, message: str, schema: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
        asked.append((server_id, message, schema))
        return "accept", {"name": "Grace", "age": 85}

    service.set_elicitation_handler(handler)
    accepted = await service.call_tool(sid, "ask_name", {})
    assert accepted.content[0]["text"] == "hello Grace (85)"
    assert asked[0][0] == sid and asked[0][1] == "What is your name?"
    assert asked[0][2]["properties"]["name"]["default"] == "Ada"

    with pytest.raises(ToolCallError, match="sampling is not supported"):  # the refusal ends the call
        await service.call_tool(sid, "sample", {})


@pytest.mark.real_process
async def test_logs_keep_stderr_and_log_messages(service: McpService) -> None:
    sid = await add_server(service, stdio_input("chatty", "basic"))
    lines: list[str] = []
    service.events.on(LogLine, lambda e: lines.append(e.line) if e.server_id == sid else None)
    await service.call_tool(sid, "log", {"message": "from the server"})
    await service.call_tool(sid, "stderr", {"line": "bad byte: \udcff ok"[:10] + " ✓"})
    for _ in range(200):
        if any("✓" in line for line in service.server_log(sid)):
            break
        await asyncio.sleep(0.05)
    log = service.server_log(sid)
    assert "[info] from the server" in log
    assert any(line.endswith("✓") for line in log)
    assert "[info] from the server" in lines


async def test_secret_env_reaches_the_server_only(service: McpService) -> None:
    server = stdio_input("secretive", "basic", config={"env": {"API_TOKEN": "s3cr3t", "PLAIN": "visible"}})
    sid = await add_server(service, server)
    stored = (await service.list_servers())[0]
    assert stored.config.env["API_TOKEN"] == "${secret:API_TOKEN}"
    assert (await service.call_tool(sid, "env", {"name": "API_TOKEN"})).content[0]["text"] == "s3cr3t"
    assert (await service.call_tool(sid, "env", {"name": "PLAIN"})).content[0]["text"] == "visible"
    assert not any("s3cr3t" in line for line in service.server_log(sid))


async def test_mcp_server_time_from_pypi(service: McpService) -> None:
    from elftia_desktop.core.models import McpServerInput

    server = McpServerInput(
        name="time",
        config={"command": sys.executable, "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]},
        is_trusted=True,
    )
    sid = await add_server(service, server)
    names = {t.name for t in await service.list_server_tools(sid)}
    assert {"get_current_time", "convert_time"} <= names
    response = await service.call_tool(sid, "get_current_time", {"timezone": "Europe/Berlin"})
    assert response.is_error is False
    assert "Europe/Berlin" in response.content[0]["text"]


async def test_list_all_active_server_tools(service: McpService) -> None:
    a = await add_server(service, stdio_input("alpha", "basic"))
    b = await add_server(service, stdio_input("beta", "paginated"))
    await add_server(service, stdio_input("off", "basic", is_active=False))
    listing = await service.list_all_active_server_tools()
    assert listing.errors == {}
    servers = {t.server_id for t in listing.tools}
    assert servers == {a, b}
    assert sum(t.server_id == b for t in listing.tools) == 25

"""McpToolAdapter and load_mcp_tools against the real McpService and real stdio servers."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from elftia_desktop.application import servers
from elftia_desktop.builtin_servers.launcher import builtin_command
from elftia_desktop.connections.events import ToolCalled
from elftia_desktop.connections.service import McpService
from elftia_desktop.core.models import McpServerInput
from elftia_desktop.engine.mcp_tool_adapter import McpToolAdapter, load_mcp_tools
from elftia_desktop.engine.registry import ToolRegistry
from tests.servers.serve_http import server_command

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("memory_servers")]


async def _add(service: McpService, name: str, command: list[str], **fields: object) -> str:
    server = McpServerInput(
        name=name, type="stdio", config={"command": command[0], "args": command[1:]}, is_trusted=True, **fields
    )
    result = await servers.add(service, server)
    assert result.success, result.error
    assert result.server is not None
    return result.server.id


async def test_adapters_call_through_the_service(service: McpService) -> None:
    basic = await _add(service, "basic", server_command("basic"))
    command, args = builtin_command("clock")
    clock = await _add(service, "Clock", [command, *args], install_source="builtin")
    calls: list[ToolCalled] = []
    service.events.on(ToolCalled, calls.append)

    adapters = await load_mcp_tools(service, [basic, clock])
    registry = ToolRegistry()
    registry.register_all(adapters)

    echo = registry.get("mcp__basic__echo")
    assert isinstance(echo, McpToolAdapter)
    assert echo.description == "Return the text unchanged."
    assert echo.parameters["properties"]["text"]["type"] == "string"
    assert await echo.execute({"text": "héllo"}) == "héllo"
    assert calls[-1].tool_name == "echo"
    assert str(calls[-1].call_id).startswith("call_")
    day = await registry.execute("mcp__Clock__day_of_week", {"day": "2024-02-29"})
    assert day == "Thursday"


async def test_an_error_result_is_text_the_agent_can_read(service: McpService) -> None:
    basic = await _add(service, "basic", server_command("basic"))
    command, args = builtin_command("clock")
    clock = await _add(service, "clock", [command, *args])
    registry = ToolRegistry()
    registry.register_all(await load_mcp_tools(service, [basic, clock]))
    # An unexpected exception in the server: the SDK withholds its text.
    crashed = await registry.execute("mcp__basic__fail", {"reason": "the disk is full"})
    assert crashed == "Error: tool mcp__basic__fail reported an error: Error executing tool fail"
    # An anticipated ToolError: its message reaches the agent.
    refused = await registry.execute("mcp__clock__get_current_time", {"timezone": "Moon/Base"})
    assert refused.startswith("Error: tool mcp__clock__get_current_time reported an error: ")
    assert "unknown time zone 'Moon/Base'" in refused


async def test_a_timeout_is_reported_and_the_call_abandoned(service: McpService) -> None:
    basic = await _add(service, "basic", server_command("basic"))
    [slow] = [t for t in await service.list_server_tools(basic) if t.name == "slow"]
    adapter = McpToolAdapter(slow, service, timeout=1.0)
    text = await adapter.execute({"seconds": 60})
    assert text == "Error: tool mcp__basic__slow did not answer within 1 s; the call was abandoned."
    # The server is still usable afterwards.
    [echo] = [t for t in await service.list_server_tools(basic) if t.name == "echo"]
    assert await McpToolAdapter(echo, service).execute({"text": "still here"}) == "still here"


@pytest.mark.real_process
async def test_a_crashed_server_is_an_error_text(service: McpService) -> None:
    basic = await _add(service, "basic", server_command("basic"))
    [crash] = [t for t in await service.list_server_tools(basic) if t.name == "crash"]
    text = await McpToolAdapter(crash, service).execute({"code": 9})
    assert text.startswith("Error: tool mcp__basic__crash "), text


async def test_one_failing_server_does_not_affect_the_others(service: McpService, tmp_path: Path) -> None:
    basic = await _add(service, "basic", server_command("basic"))
    missing = await _add(service, "missing", [str(tmp_path / "no-such-program")])
    broken = await _add(service, "broken", [sys.executable, "-c", "import sys; sys.exit(4)"])
    untrusted_result = await servers.add(
        service, McpServerInput(name="untrusted", type="stdio", config={"command": sys.executable, "args": ["-V"]})
    )
    assert untrusted_result.server is not None
    adapters = await load_mcp_tools(service, [missing, basic, "no-such-id", broken, untrusted_result.server.id])
    assert adapters
    assert {a.mcp_tool.server_name for a in adapters} == {"basic"}

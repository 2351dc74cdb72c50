"""The pool's transport seam: a test server opened in this process over the SDK's in-memory streams."""

from __future__ import annotations

import os

import pytest

from elftia_desktop.connections.service import McpService
from tests.connections.pool_helpers import add_server, stdio_input
from tests.helpers.memory_servers import in_memory_servers

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]


async def test_a_test_server_opens_in_memory_in_this_process(service: McpService, memory_servers: list[str]) -> None:
    sid = await add_server(service, stdio_input("alpha", "basic"))
    assert memory_servers == ["basic"]
    assert (await service.call_tool(sid, "pid", {})).content[0]["text"] == str(os.getpid())
    assert (await service.call_tool(sid, "echo", {"text": "in memory"})).content[0]["text"] == "in memory"


async def test_process_servers_and_servers_after_the_block_open_for_real(service: McpService) -> None:
    with in_memory_servers() as opened:
        gone = await add_server(service, stdio_input("gone", "exit3"))
        assert opened == []  # exit3 is about its process: always real
        assert "fatal: missing API_KEY (exit 3)" in service.server_log(gone)  # its stderr, from a process
    sid = await add_server(service, stdio_input("alpha", "basic"))  # the seam is closed again: a process
    assert (await service.call_tool(sid, "pid", {})).content[0]["text"] != str(os.getpid())


async def test_a_record_that_only_steers_its_server_opens_in_memory_with_that_environment(
    service: McpService, memory_servers: list[str]
) -> None:
    steering = {"MANY_TOOLS": "3", "MANY_TOOLS_PREFIX": "pick"}
    steered = await add_server(service, stdio_input("many", "many_tools", config={"env": steering}))
    assert memory_servers == ["many_tools"]  # MANY_TOOLS* are many_tools' STEERING: still in this process
    assert [t.name for t in await service.list_server_tools(steered)] == ["pick_000", "pick_001", "pick_002"]

    other = await add_server(service, stdio_input("alpha", "basic", config={"env": {"GREETING": "hi"}}))
    assert memory_servers == ["many_tools"]  # any other variable is for a process: a real one
    assert (await service.call_tool(other, "env", {"name": "GREETING"})).content[0]["text"] == "hi"
    assert (await service.call_tool(other, "pid", {})).content[0]["text"] != str(os.getpid())

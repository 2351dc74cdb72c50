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

"""Issue 11: ``set_roots`` tells the sessions already open (``notifications/roots/list_changed``).

A handshake-era feature (the 2026-07-28 spec has no client notifications: a modern server asks for
the roots inside each request), so these servers are pinned to ``legacy``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from elftia_desktop.connections.service import McpService
from tests.connections.pool_helpers import add_server, stdio_input

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60), pytest.mark.usefixtures("memory_servers")]
LEGACY = {"protocol": "legacy"}


async def _changes(service: McpService, sid: str, wanted: int) -> int:
    for _ in range(200):
        seen = (await service.call_tool(sid, "roots_changed", {})).structured_content["result"]  # type: ignore[index]
        if seen >= wanted:
            return int(seen)
        await asyncio.sleep(0.02)
    return int(seen)


async def test_open_sessions_hear_that_the_roots_changed(service: McpService, tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    sid = await add_server(service, stdio_input("watcher", "roots_watcher", config=LEGACY))
    other = await add_server(service, stdio_input("other", "roots_watcher", config=LEGACY))
    assert await _changes(service, sid, 0) == 0
    await service.init_client(other)

    service.set_roots([str(first)])
    assert await _changes(service, sid, 1) == 1
    assert await _changes(service, other, 1) == 1
    roots = await service.call_tool(sid, "roots", {})
    assert roots.structured_content == {"result": [first.as_uri()]}

    service.set_roots([str(second)])
    assert await _changes(service, sid, 2) == 2
    roots = await service.call_tool(sid, "roots", {})
    assert roots.structured_content == {"result": [second.as_uri()]}

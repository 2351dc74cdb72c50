"""Cancelling a caller of the pool cancels that caller: waiting for a cancelled attempt does not swallow it.

A real ``hang_init`` server over stdio: its connect attempt stays in flight until cancelled.
"""

from __future__ import annotations

import asyncio

import pytest

from elftia_desktop.connections.events import ConnectionStateChanged
from elftia_desktop.connections.service import McpService
from elftia_desktop.core.models import ConnectionState
from tests.connections.pool_helpers import add_server, stdio_input

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60), pytest.mark.usefixtures("memory_servers")]


async def test_a_cancelled_reconnect_stops_and_does_not_connect_again(service: McpService) -> None:
    sid = await add_server(service, stdio_input("hangs", "hang_init", is_active=True), connect=False)
    connecting = asyncio.Event()
    service.events.on(
        ConnectionStateChanged, lambda e: connecting.set() if e.state is ConnectionState.CONNECTING else None
    )
    first = asyncio.create_task(service.init_client(sid))
    await connecting.wait()
    attempt = service.pool.entries[sid].attempt
    assert attempt is not None

    reconnect = asyncio.create_task(service.reconnect(sid))
    await asyncio.sleep(0)  # the reconnect cancels the attempt and waits for it to wind down
    assert not attempt.done(), "the attempt ended at once: the reconnect was not waiting for it"
    reconnect.cancel()

    with pytest.raises(asyncio.CancelledError):
        await reconnect
    assert reconnect.cancelled()
    await asyncio.gather(first, return_exceptions=True)
    entry = service.pool.entries[sid]
    assert entry.attempt is None, "a cancelled reconnect went on to connect again"
    assert service.connection_state(sid) is not ConnectionState.CONNECTING

"""The loopback callback server on its own (issue 16): closes after use or after its time limit."""

from __future__ import annotations

import asyncio
import socket

import httpx2
import pytest

from elftia_desktop.connections.oauth_callback import CallbackServer, free_port
from elftia_desktop.core.errors import ServerAuthRequired

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


def _refused(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


async def test_answers_once_then_closes() -> None:
    port = free_port()
    server = CallbackServer("demo", port, expected_state="s1")
    await server.start()
    waiting = asyncio.create_task(server.wait())
    async with httpx2.AsyncClient(timeout=5) as client:
        other = await client.get(f"http://127.0.0.1:{port}/favicon.ico")
        done = await client.get(f"http://127.0.0.1:{port}/callback?code=c1&state=s1&iss=https%3A%2F%2Fas")
    assert other.status_code == 404
    assert done.status_code == 200 and "return to Elftia" in done.text
    result = await waiting
    assert (result.code, result.state, result.iss) == ("c1", "s1", "https://as")
    assert _refused(port)


async def test_gives_up_after_its_time_limit_and_closes() -> None:
    port = free_port()
    server = CallbackServer("demo", port, expected_state="s1")
    await server.start()
    with pytest.raises(ServerAuthRequired, match="no answer from the browser"):
        await server.wait(timeout=0.3)
    assert _refused(port)


async def test_port_in_use_is_a_clear_error() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        with pytest.raises(ServerAuthRequired, match=f"callback port {port} on 127.0.0.1 is in use"):
            await CallbackServer("demo", port, expected_state="s1").start()

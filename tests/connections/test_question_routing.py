"""A server's questions go to the app whose call caused them (``connections/askers.py``), never to another.

Two apps (SDK ``ClientSession``s on the SDK's memory streams) share one in-process gateway and its
pool; the downstream ``basic`` server runs over stdio. A 2026-07-28 server asks through
``input_required``, tied to its call by construction: two apps asking at once each get their own
question. A handshake-era server's question names no request: it goes to the only app with calls
running there; with calls of two apps running it is declined, and from then on the apps' calls to
that server take turns, so each question again has exactly one app.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.client.session import ClientRequestContext, ClientSession
from mcp.shared.memory import create_client_server_memory_streams

from elftia_desktop.connections.service import McpService
from elftia_desktop.gateway.core import Gateway
from elftia_desktop.gateway.scope import ScopeSource
from elftia_desktop.gateway.server import build_server
from tests.gateway.gateway_helpers import add_stdio, open_catalog, stdio_gateway, text_of

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(180)]
in_memory = pytest.mark.usefixtures("memory_servers")
"""The servers in memory. Not for the handshake-era questions, which over stdio name no request (what is
under test): on the in-memory transport the pool did not see them as unrelated (both tests failed)."""


@pytest.fixture
def data_dir(isolated_data_dir: Path) -> Path:
    """``modern`` (basic on 2026-07-28), ``legacy`` and ``legacy2`` (basic on the 2025-11-25 handshake)."""
    catalog = open_catalog(isolated_data_dir)
    add_stdio(catalog, "modern", "basic")
    add_stdio(catalog, "legacy", "basic", config={"protocol": "legacy"})
    add_stdio(catalog, "legacy2", "basic", config={"protocol": "legacy"})
    return isolated_data_dir


class Apps:
    """Who was asked, in order; ``together`` makes each answer wait until that many questions were asked."""

    def __init__(self, together: int = 1) -> None:
        self.asked: list[str] = []
        self.together = together
        self.all_asked = anyio.Event()

    def callback(self, name: str) -> Any:
        """The elicitation callback of app ``name``: notes the question, answers with its own name."""

        async def elicit(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
            self.asked.append(name)
            if len(self.asked) >= self.together:
                self.all_asked.set()
            with anyio.fail_after(60):
                await self.all_asked.wait()
            return types.ElicitResult(action="accept", content={"name": name, "age": 1})

        return elicit


@asynccontextmanager
async def two_apps(data_dir: Path, apps: Apps) -> AsyncIterator[tuple[McpService, ClientSession, ClientSession]]:
    """``ann`` and ``bob``: two clients of one gateway (one pool) in this process."""
    service = McpService(open_catalog(data_dir), runtime_dir=data_dir / "runtime")
    gateway = Gateway(service, ScopeSource().current)
    server = build_server(gateway)
    tasks: list[asyncio.Task[Any]] = []
    try:
        async with AsyncExitStack() as stack:
            sessions = []
            for name in ("ann", "bob"):
                client, served = await stack.enter_async_context(create_client_server_memory_streams())
                options = server.create_initialization_options()
                tasks.append(asyncio.get_running_loop().create_task(server.run(served[0], served[1], options)))
                session = await stack.enter_async_context(
                    ClientSession(client[0], client[1], elicitation_callback=apps.callback(name))
                )
                await session.initialize()
                sessions.append(session)
            yield service, sessions[0], sessions[1]
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await gateway.close()


@in_memory
async def test_two_apps_asking_a_modern_server_at_once_each_get_their_own_question(data_dir: Path) -> None:
    apps = Apps(together=2)  # neither answers before both were asked: both questions are open at once
    async with two_apps(data_dir, apps) as (_service, ann, bob):
        results: dict[str, str] = {}

        async def ask(name: str, session: ClientSession) -> None:
            results[name] = text_of(await session.call_tool("modern__ask_name", {}))

        async with anyio.create_task_group() as group:
            group.start_soon(ask, "ann", ann)
            group.start_soon(ask, "bob", bob)
    assert sorted(apps.asked) == ["ann", "bob"]
    assert results == {"ann": "hello ann (1)", "bob": "hello bob (1)"}


async def test_a_handshake_server_asks_the_only_app_then_apps_take_turns(data_dir: Path) -> None:
    apps = Apps()
    async with two_apps(data_dir, apps) as (service, ann, bob):
        in_flight, legacy = service.pool.callbacks.in_flight, open_catalog(data_dir).find("legacy").id
        assert text_of(await ann.call_tool("legacy__ask_name", {})) == "hello ann (1)"
        assert apps.asked == ["ann"] and in_flight.asks_unrelated(legacy)

        async def ann_sleeps() -> None:
            await ann.call_tool("legacy__slow", {"seconds": 1.5})
            apps.asked.append("ann's call ended")

        async def bob_asks() -> None:
            with anyio.fail_after(60):
                while in_flight.running(legacy) == 0:  # noqa: ASYNC110 - ann's call has started
                    await anyio.sleep(0.01)
            assert text_of(await bob.call_tool("legacy__ask_name", {})) == "hello bob (1)"

        async with anyio.create_task_group() as group:
            group.start_soon(ann_sleeps)
            group.start_soon(bob_asks)
    assert apps.asked == ["ann", "ann's call ended", "bob"]  # bob's call waited for ann's to end before it ran


async def test_a_handshake_question_during_two_apps_calls_is_declined_not_misrouted(data_dir: Path) -> None:
    apps = Apps()
    async with two_apps(data_dir, apps) as (service, ann, bob):
        in_flight, legacy2 = service.pool.callbacks.in_flight, open_catalog(data_dir).find("legacy2").id
        await ann.call_tool("legacy2__echo", {"text": "connect first"})
        async with anyio.create_task_group() as group:
            group.start_soon(ann.call_tool, "legacy2__slow", {"seconds": 1.5})
            with anyio.fail_after(60):
                while in_flight.running(legacy2) == 0:  # noqa: ASYNC110 - ann's call is running there
                    await anyio.sleep(0.01)
            answer = text_of(await bob.call_tool("legacy2__ask_name", {}))
        assert answer == "no name: decline"
        assert apps.asked == [] and in_flight.asks_unrelated(legacy2)


@pytest.mark.daemon
async def test_two_apps_on_the_pool_host_asking_at_once_each_get_their_own_question(data_dir: Path) -> None:
    """The same through ``elftia-mcp serve``: both apps' gateways attached to one pool host."""
    apps = Apps(together=2)
    results: dict[str, str] = {}
    async with AsyncExitStack() as stack:
        sessions = {}
        for name in ("ann", "bob"):
            session, _ = await stack.enter_async_context(
                stdio_gateway(data_dir, elicitation_callback=apps.callback(name))
            )
            sessions[name] = session

        async def ask(name: str) -> None:
            results[name] = text_of(await sessions[name].call_tool("modern__ask_name", {}))

        async with anyio.create_task_group() as group:
            group.start_soon(ask, "ann")
            group.start_soon(ask, "bob")
    assert sorted(apps.asked) == ["ann", "bob"]
    assert results == {"ann": "hello ann (1)", "bob": "hello bob (1)"}

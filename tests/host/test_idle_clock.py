"""The idle stop's rules on a clock the test advances: servers in memory, no daemon, no waiting out the idle time.

The daemon's own idle stop (a real process stopping its real servers, and exiting when empty)
is tests/host/test_server_idle.py; here are the rules: the unused server stops and the used one
stays, and a call in flight or a follower holds its server however long it lasts.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from keyring.backends.fail import Keyring as NoKeyring

from elftia_desktop.connections.service import McpService
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.models import ConnectionState
from elftia_desktop.core.secrets import SecretVault
from elftia_desktop.host.idle import ServerIdle
from elftia_desktop.host.links import Asker, Callers
from tests.connections.pool_helpers import add_server, stdio_input

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120), pytest.mark.usefixtures("memory_servers")]

LIMIT = 2.0
"""The idle time of these tests (seconds of the test's clock)."""


class Clock:
    """Seconds that pass only when the test says so; it starts at ``time.monotonic()``, as the pool's times."""

    def __init__(self) -> None:
        self.now = time.monotonic()

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Let ``seconds`` pass."""
        self.now += seconds


class NoAsker:
    """A client that makes calls but is never asked anything here (the servers ask nothing)."""

    async def elicit(self, server_id: str, message: str, schema: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
        raise AssertionError(f"{server_id} asked {message!r}")

    async def sample(self, server_id: str, params: Any) -> Any:
        raise AssertionError(f"{server_id} asked for a sample")


@pytest.fixture
async def pool(tmp_path: Path) -> AsyncIterator[tuple[McpService, dict[str, str]]]:
    """A service with alpha (basic) and gamma (features) connected in memory; the ids by name."""
    vault = SecretVault(backend=NoKeyring(), fallback_path=tmp_path / "secrets.json")
    service = McpService(ServerCatalog(ConfigStore(tmp_path / "mcp-config.json"), vault), runtime_dir=tmp_path / "run")
    try:
        ids = {
            name: await add_server(service, stdio_input(name, server))
            for name, server in [("alpha", "basic"), ("gamma", "features")]
        }
        yield service, ids
    finally:
        await service.cleanup()


def watcher(service: McpService) -> tuple[Clock, Callers, ServerIdle]:
    """A clock started now (after the servers' starts), the callers on it, and the idle stop reading both."""
    clock = Clock()
    callers = Callers(clock)
    return clock, callers, ServerIdle(service, callers)


def states(service: McpService, ids: dict[str, str]) -> dict[str, ConnectionState]:
    """Each server's connection state, by name."""
    return {name: service.connection_state(sid) for name, sid in ids.items()}


async def test_only_the_unused_server_stops(pool: tuple[McpService, dict[str, str]]) -> None:
    service, ids = pool
    clock, callers, idle = watcher(service)
    clock.advance(1.5)
    with callers.calling(ids["alpha"], NoAsker()):
        assert (await service.call_tool(ids["alpha"], "echo", {"text": "warm"})).content[0]["text"] == "warm"
    clock.advance(1.0)
    assert idle.idle_seconds(ids["alpha"]) == 1.0 and idle.idle_seconds(ids["gamma"]) == 2.5
    await idle.stop_idle(LIMIT)
    assert states(service, ids) == {"alpha": ConnectionState.CONNECTED, "gamma": ConnectionState.DISCONNECTED}
    clock.advance(1.0)
    await idle.stop_idle(LIMIT)  # alpha's 2 s have come now
    assert states(service, ids)["alpha"] is ConnectionState.DISCONNECTED


async def test_a_call_in_flight_holds_its_server_however_long_it_runs(pool: tuple[McpService, dict[str, str]]) -> None:
    service, ids = pool
    clock, callers, idle = watcher(service)
    asker: Asker = NoAsker()
    with callers.calling(ids["gamma"], asker):
        clock.advance(3600.0)
        assert idle.idle_seconds(ids["gamma"]) == 0.0
        await idle.stop_idle(LIMIT)
        assert states(service, ids) == {"alpha": ConnectionState.DISCONNECTED, "gamma": ConnectionState.CONNECTED}
    clock.advance(LIMIT - 0.5)
    await idle.stop_idle(LIMIT)  # the call's end was a use: the idle time counts from it
    assert states(service, ids)["gamma"] is ConnectionState.CONNECTED
    clock.advance(0.5)
    await idle.stop_idle(LIMIT)
    assert states(service, ids)["gamma"] is ConnectionState.DISCONNECTED


async def test_a_follower_holds_its_server_until_it_leaves(pool: tuple[McpService, dict[str, str]]) -> None:
    service, ids = pool
    clock, callers, idle = watcher(service)
    with callers.listening(ids["alpha"]):
        clock.advance(3600.0)
        await idle.stop_idle(LIMIT)
        assert states(service, ids) == {"alpha": ConnectionState.CONNECTED, "gamma": ConnectionState.DISCONNECTED}
    await idle.stop_idle(LIMIT)  # unfollowed and unused for an hour
    assert states(service, ids)["alpha"] is ConnectionState.DISCONNECTED

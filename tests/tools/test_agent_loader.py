"""Issue 9: the loader follows an agent's mode, servers and tools, against the test servers in memory
(the ``memory_servers`` seam; exit3, the failing one, stays a real process)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from elftia_desktop.connections.service import McpService
from elftia_desktop.core.agent_store import AgentStore
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.models import Agent, McpMode
from elftia_desktop.core.secrets import SecretVault
from elftia_desktop.tools.loader import fetch_mcp_tools, setup_mcp_tools
from tests.helpers.live_router import server_input

pytestmark = pytest.mark.usefixtures("memory_servers")


def _catalog() -> ServerCatalog:
    return ServerCatalog(ConfigStore(), SecretVault(), AgentStore())


def _add(name: str, module: str = "basic", **extra: Any) -> str:
    record = _catalog().add(server_input(name, module, **extra))
    assert record is not None
    return record.id


def _run(body: Callable[[McpService], Awaitable[None]]) -> None:
    async def main() -> None:
        service = McpService(_catalog())
        try:
            await asyncio.wait_for(body(service), 120)
        finally:
            await service.cleanup()

    asyncio.run(main())


def test_modes_servers_and_tool_selection() -> None:
    alpha = _add("alpha", disabledTools=["crash"])
    beta = _add("beta")
    off = _add("off", isActive=False)

    async def body(service: McpService) -> None:
        assert (await fetch_mcp_tools(service, None)).tools == []
        assert (await fetch_mcp_tools(service, Agent(name="d", mcp_mode=McpMode.DISABLED))).tools == []
        auto = await fetch_mcp_tools(service, Agent(name="a"))
        assert {t.server_name for t in auto.tools} == {"alpha", "beta"} and auto.errors == {}
        assert ("alpha", "crash") not in {(t.server_name, t.name) for t in auto.tools}  # disabled on the server
        assert ("beta", "crash") in {(t.server_name, t.name) for t in auto.tools}
        manual = Agent(name="m", mcp_mode=McpMode.MANUAL, selected_servers=[beta, off, "mcp_gone"])
        listing = await fetch_mcp_tools(service, manual)
        assert {t.server_id for t in listing.tools} == {beta}
        assert listing.errors == {
            off: "off is turned off",
            "mcp_gone": "this server is no longer configured (it was removed)",
        }
        picky = Agent(name="p", selected_tools={alpha: ["echo", "crash"], beta: []})
        assert [(t.server_name, t.name) for t in (await fetch_mcp_tools(service, picky)).tools] == [("alpha", "echo")]

    _run(body)


def test_a_failing_server_is_reported_not_fatal() -> None:
    good = _add("good")
    broken = _add("broken", "exit3")

    async def body(service: McpService) -> None:
        agent = Agent(name="m", mcp_mode=McpMode.MANUAL, selected_servers=[broken, good])
        setup = await setup_mcp_tools(service, agent, "anthropic")
        assert setup is not None
        assert {t["name"] for t in setup["tools"]} >= {"mcp__good__echo", "mcp__good__add"}
        assert list(setup["errors"]) == [broken] and "exit" in setup["errors"][broken].lower()
        auto = await fetch_mcp_tools(service, Agent(name="a"))
        assert broken in auto.errors and {t.server_id for t in auto.tools} == {good}

    _run(body)

"""Issue 12: ``serve --agent NAME`` serves that agent's servers and tools, and follows its changes."""

from __future__ import annotations

from pathlib import Path

import mcp_types as types
import pytest

from elftia_desktop.core.agent_store import AgentStore
from elftia_desktop.core.models import Agent, McpMode
from tests.gateway.gateway_helpers import add_stdio, open_catalog, text_of
from tests.helpers.cli_runner import run_cli
from tests.helpers.memory_gateway import memory_gateway

pytestmark = pytest.mark.anyio


@pytest.mark.usefixtures("memory_servers")  # the gateway in this process, the test servers in memory
async def test_an_agents_servers_and_tool_selection_and_its_changes(isolated_data_dir: Path) -> None:
    catalog = open_catalog(isolated_data_dir)
    alpha = add_stdio(catalog, "alpha", "basic")
    gamma = add_stdio(catalog, "gamma", "features")
    agents = AgentStore(isolated_data_dir / "agents.json")
    agents.add(
        Agent(name="Writer", mcp_mode=McpMode.MANUAL, selected_servers=[alpha.id], selected_tools={alpha.id: ["echo"]})
    )
    async with memory_gateway(agent="writer") as (session, inbox):
        assert [t.name for t in (await session.list_tools()).tools] == ["alpha__echo"]
        assert text_of(await session.call_tool("alpha__echo", {"text": "mine"})) == "mine"
        assert [p.name for p in (await session.list_prompts()).prompts] == ["alpha__greet"]

        agents.update("Writer", {"selectedServers": [alpha.id, gamma.id]})
        await inbox.wait_for(lambda: inbox.count(types.ToolListChangedNotification) >= 1)
        names = [t.name for t in (await session.list_tools()).tools]
        assert names[0] == "alpha__echo"
        assert {"gamma__count", "gamma__wait", "gamma__shout"} <= set(names)
        assert "alpha__add" not in names

        agents.update("Writer", {"mcpMode": "disabled"})
        await inbox.wait_for(lambda: inbox.count(types.ToolListChangedNotification) >= 2)
        assert (await session.list_tools()).tools == []


def test_an_unknown_agent_is_bad_input(isolated_data_dir: Path) -> None:
    AgentStore(isolated_data_dir / "agents.json").add(Agent(name="Writer"))
    done = run_cli("serve", "--agent", "nobody")
    assert done.returncode == 2
    assert '--agent: No agent named "nobody"' in done.stderr
    assert "Writer" in done.stderr
    assert done.stdout == ""

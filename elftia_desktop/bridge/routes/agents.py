"""Agent channels: the agents, which tools each gets, and what each provider would receive."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING

from elftia_desktop.bridge.pending import Pending
from elftia_desktop.bridge.plumbing import Route

if TYPE_CHECKING:
    from elftia_desktop.bridge.channels import AgentDraftInput, AgentInput
    from elftia_desktop.bridge.services import AppServices
    from elftia_desktop.core.models import Agent, AgentToolSummary, AgentUpdate, McpToolListing, ProviderPayload


class AgentRoute(Route):
    """``agents:list``, ``agents:add``, ``agents:update``, ``agents:duplicate``, ``agents:remove``,
    ``agents:tools``, ``agents:preview``, ``agents:summaries``."""

    def all(self) -> Pending[list[Agent]]:
        """``agents:list``: every agent, in file order."""
        return self._core.submit("agents:list", lambda s: asyncio.to_thread(s.agents.list))

    def add(self, agent: Mapping[str, object]) -> Pending[Agent]:
        """``agents:add``: ``agent`` in the ``AgentInput`` shape (``name``, ``mcpMode`` ...); the saved agent."""
        from elftia_desktop.bridge.channels import AgentInput

        async def work(s: AppServices, data: AgentInput) -> Agent:
            """``agents:add`` on the service loop."""
            from elftia_desktop.core.models import Agent

            return await asyncio.to_thread(s.agents.add, Agent.model_validate(data.model_dump()))

        return self._core.call("agents:add", AgentInput, agent, work)

    def update(self, agent_id: str, change: AgentUpdate) -> Pending[Agent]:
        """``agents:update``: set the fields ``change`` gives (the agent is checked whole); the saved agent."""
        from elftia_desktop.bridge.channels import AgentUpdateInput

        channel = "agents:update"
        params = {"id": agent_id, "updates": change.to_updates()}
        return self._core.call(
            channel, AgentUpdateInput, params, lambda s, u: asyncio.to_thread(s.agents.update, u.id, u.updates)
        )

    def duplicate(self, agent_id: str, name: str | None = None) -> Pending[Agent]:
        """``agents:duplicate``: a copy under ``name`` (default ``<name> copy``)."""
        from elftia_desktop.bridge.channels import AgentDuplicateInput

        return self._core.call(
            "agents:duplicate",
            AgentDuplicateInput,
            {"id": agent_id, "name": name},
            lambda s, d: asyncio.to_thread(s.agents.duplicate, d.id, d.name),
        )

    def remove(self, agent_id: str) -> Pending[Agent]:
        """``agents:remove``: delete an agent; the removed agent."""
        from elftia_desktop.bridge.channels import AgentRefInput

        return self._core.call(
            "agents:remove", AgentRefInput, {"id": agent_id}, lambda s, r: asyncio.to_thread(s.agents.remove, r.id)
        )

    def tools(self, agent: Agent, *, start: bool = True) -> Pending[McpToolListing]:
        """``agents:tools``: the tools an agent (as edited, saved or not) could tick.

        The servers its mode gives it, without the agent's own tool selection; tools the server
        disables are not offered. Failing servers are in ``errors``. With ``start=False`` only the
        servers connected now are asked (none is started); the others are in ``errors`` as not connected.
        """
        from elftia_desktop.bridge.channels import AgentDraftInput

        async def work(s: AppServices, data: AgentDraftInput) -> McpToolListing:
            """``agents:tools`` on the service loop."""
            from elftia_desktop.tools.connected import ConnectedTools
            from elftia_desktop.tools.loader import fetch_agent_server_tools

            return await fetch_agent_server_tools(s.mcp if start else ConnectedTools(s.mcp), _draft(data))

        draft = {"agent": agent.model_dump(mode="json", by_alias=True)}
        return self._core.call("agents:tools", AgentDraftInput, draft, work)

    def preview(self, agent: Agent, strict: bool = False, *, start: bool = True) -> Pending[list[ProviderPayload]]:
        """``agents:preview``: the exact payload per provider for the agent's tools (as edited, saved or not).

        ``start=False``: only the tools of the servers connected now (none is started).
        """
        from elftia_desktop.bridge.channels import AgentDraftInput

        async def work(s: AppServices, data: AgentDraftInput) -> list[ProviderPayload]:
            """``agents:preview`` on the service loop."""
            from elftia_desktop.tools.connected import connected_agent_tools
            from elftia_desktop.tools.loader import fetch_mcp_tools
            from elftia_desktop.tools.preview import preview_payloads

            draft = _draft(data)
            listing = await (fetch_mcp_tools(s.mcp, draft) if start else connected_agent_tools(s.mcp, draft))
            return await asyncio.to_thread(preview_payloads, listing.tools, strict=data.strict)

        draft = {"agent": agent.model_dump(mode="json", by_alias=True), "strict": strict}
        return self._core.call("agents:preview", AgentDraftInput, draft, work)

    def summaries(self) -> Pending[list[AgentToolSummary]]:
        """``agents:summaries``: per agent, its tool count and the tokens of its definitions."""

        async def work(s: AppServices) -> list[AgentToolSummary]:
            """``agents:summaries`` on the service loop."""
            from elftia_desktop.tools.connected import connected_agent_tools
            from elftia_desktop.tools.preview import tool_summary

            summaries = []
            for agent in await asyncio.to_thread(s.agents.list):
                listing = await connected_agent_tools(s.mcp, agent)  # counting tools never starts a server
                summaries.append(await asyncio.to_thread(tool_summary, agent.id, listing.tools, listing.errors))
            return summaries

        return self._core.submit("agents:summaries", work)


def _draft(data: AgentDraftInput) -> Agent:
    from elftia_desktop.core.models import Agent

    return Agent.model_validate(data.agent)

"""Agent channels: the agents, which tools each gets, and what each provider would receive."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from elftia_desktop.bridge.plumbing import Done, Failed, RouterCore

if TYPE_CHECKING:
    from elftia_desktop.bridge.services import AppServices
    from elftia_desktop.core.models import Agent


def _draft(data: Any) -> Agent:
    from elftia_desktop.core.models import Agent

    return Agent.model_validate(data.agent)


class AgentChannels(RouterCore):
    """``agents:list``, ``agents:add``, ``agents:update``, ``agents:duplicate``, ``agents:remove``,
    ``agents:tools``, ``agents:preview``, ``agents:summaries``."""

    def list_agents(self, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``agents:list``: every agent (``Agent``), in file order."""
        return self._submit("agents:list", lambda s: asyncio.to_thread(s.agents.list), on_done, on_error)

    def add_agent(self, params: dict[str, Any], on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``agents:add``: ``AgentInput``; the saved ``Agent``."""
        data, refused = self._validated("agents:add", "AgentInput", params, on_error)
        if data is None:
            return refused

        async def work(s: AppServices) -> Agent:
            from elftia_desktop.core.models import Agent

            return await asyncio.to_thread(s.agents.add, Agent.model_validate(data.model_dump()))

        return self._submit("agents:add", work, on_done, on_error)

    def update_agent(
        self, agent_id: str, updates: dict[str, Any], on_done: Done | None = None, on_error: Failed | None = None
    ) -> int:
        """``agents:update``: merge ``updates`` into an agent; the new ``Agent``."""
        data, refused = self._validated(
            "agents:update", "AgentUpdateInput", {"id": agent_id, "updates": updates}, on_error
        )
        if data is None:
            return refused
        return self._submit(
            "agents:update", lambda s: asyncio.to_thread(s.agents.update, data.id, data.updates), on_done, on_error
        )

    def duplicate_agent(
        self, agent_id: str, name: str | None = None, on_done: Done | None = None, on_error: Failed | None = None
    ) -> int:
        """``agents:duplicate``: a copy under ``name`` (default ``<name> copy``)."""
        data, refused = self._validated(
            "agents:duplicate", "AgentDuplicateInput", {"id": agent_id, "name": name}, on_error
        )
        if data is None:
            return refused
        return self._submit(
            "agents:duplicate", lambda s: asyncio.to_thread(s.agents.duplicate, data.id, data.name), on_done, on_error
        )

    def remove_agent(self, agent_id: str, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``agents:remove``: delete an agent; the removed ``Agent``."""
        data, refused = self._validated("agents:remove", "AgentRefInput", {"id": agent_id}, on_error)
        if data is None:
            return refused
        return self._submit("agents:remove", lambda s: asyncio.to_thread(s.agents.remove, data.id), on_done, on_error)

    def agent_tools(self, agent: dict[str, Any], on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``agents:tools``: the tools an agent (as edited, saved or not) could tick: an ``McpToolListing``.

        The servers its mode gives it, without the agent's own tool selection; tools the server
        disables are not offered. Failing servers are in ``errors``.
        """
        data, refused = self._validated("agents:tools", "AgentDraftInput", {"agent": agent}, on_error)
        if data is None:
            return refused

        async def work(s: AppServices) -> Any:
            from elftia_desktop.tools.loader import fetch_agent_server_tools

            return await fetch_agent_server_tools(s.mcp, _draft(data))

        return self._submit("agents:tools", work, on_done, on_error)

    def preview_payload(
        self, agent: dict[str, Any], strict: bool = False, on_done: Done | None = None, on_error: Failed | None = None
    ) -> int:
        """``agents:preview``: the exact payload per provider (``list[ProviderPayload]``) for the agent's tools."""
        data, refused = self._validated(
            "agents:preview", "AgentDraftInput", {"agent": agent, "strict": strict}, on_error
        )
        if data is None:
            return refused

        async def work(s: AppServices) -> Any:
            from elftia_desktop.tools.loader import fetch_mcp_tools
            from elftia_desktop.tools.preview import preview_payloads

            listing = await fetch_mcp_tools(s.mcp, _draft(data))
            return await asyncio.to_thread(preview_payloads, listing.tools, strict=data.strict)

        return self._submit("agents:preview", work, on_done, on_error)

    def agent_summaries(self, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``agents:summaries``: per agent, its tool count and the tokens of its definitions (``AgentToolSummary``)."""

        async def work(s: AppServices) -> Any:
            from elftia_desktop.tools.connected import connected_agent_tools
            from elftia_desktop.tools.preview import tool_summary

            summaries = []
            for agent in await asyncio.to_thread(s.agents.list):
                listing = await connected_agent_tools(s.mcp, agent)  # counting tools never starts a server
                summaries.append(await asyncio.to_thread(tool_summary, agent.id, listing.tools, listing.errors))
            return summaries

        return self._submit("agents:summaries", work, on_done, on_error)

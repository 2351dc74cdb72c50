"""Skills channels (SEP-2640): a server's skills with their pin status, accepting a held-back one, reading a file."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from elftia_desktop.bridge.pending import Pending
from elftia_desktop.bridge.plumbing import Route

if TYPE_CHECKING:
    from elftia_desktop.bridge.results_explore import SkillView
    from elftia_desktop.bridge.services import AppServices


class SkillRoute(Route):
    """``mcp:skills``, ``mcp:accept-skill``, ``mcp:read-skill``: Discover's Skills tab."""

    def skills(self, server_id: str) -> Pending[list[SkillView]]:
        """``mcp:skills``: every skill with its pin status (the first listing pins them all)."""

        async def work(s: AppServices, sid: str) -> list[SkillView]:
            """``mcp:skills`` on the service loop."""
            from elftia_desktop.bridge.explore_views import skill_view

            return [skill_view(listed) for listed in await s.mcp.skills.list(sid)]

        return self._by_id("mcp:skills", server_id, work)

    def accept(self, server_id: str, uri: str) -> Pending[list[str]]:
        """``mcp:accept-skill``: pin a held-back skill as its last listing said it; the URIs accepted."""

        async def work(s: AppServices, sid: str) -> list[str]:
            """``mcp:accept-skill`` on the service loop (the pins file written off it)."""
            return await asyncio.to_thread(s.mcp.skills.pins.accept, sid, [uri])

        return self._by_id("mcp:accept-skill", server_id, work)

    def read(self, server_id: str, skill_uri: str, file_uri: str | None = None) -> Pending[str]:
        """``mcp:read-skill``: a file of an accepted skill (default its SKILL.md), checked against its digests."""

        async def work(s: AppServices, sid: str) -> str:
            """``mcp:read-skill`` on the service loop."""
            return await s.mcp.skills.read(sid, skill_uri, file_uri)

        return self._by_id("mcp:read-skill", server_id, work)

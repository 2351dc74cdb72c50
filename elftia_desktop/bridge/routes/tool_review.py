"""Tool pinning channels: which servers have tools held back, their review, and accepting them."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from elftia_desktop.bridge.plumbing import Done, Failed, RouterCore

if TYPE_CHECKING:
    from elftia_desktop.bridge.services import AppServices


class ToolReviewChannels(RouterCore):
    """``mcp:held-tools``, ``mcp:tool-review`` and ``mcp:accept-tools``."""

    def held_tools(self, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:held-tools``: ``{serverId: {held: [names], flagged: [names]}}`` (for the cards' banner)."""

        async def work(s: AppServices) -> dict[str, dict[str, list[str]]]:
            from elftia_desktop.connections.tool_guard import held_tools

            return await asyncio.to_thread(held_tools, s.mcp.tool_guard.store)

        return self._submit("mcp:held-tools", work, on_done, on_error)

    def tool_review(self, server_id: str, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:tool-review``: the held tools of one server with their diffs and lint findings (JSON dict)."""

        async def work(s: AppServices, i: str) -> dict[str, Any]:
            records = await s.mcp.current_records()
            names = {r.id: r.name for r in records}
            review = await asyncio.to_thread(s.mcp.tool_guard.review, i, names)
            return review.to_json_dict()

        return self._by_id("mcp:tool-review", server_id, work, on_done, on_error)

    def accept_tools(
        self,
        server_id: str,
        names: Sequence[str] | None = None,
        on_done: Done | None = None,
        on_error: Failed | None = None,
    ) -> int:
        """``mcp:accept-tools``: pin ``names`` (None: every held tool) as they are now; the names accepted."""
        chosen = None if names is None else [str(n) for n in names]

        async def work(s: AppServices, i: str) -> list[str]:
            guard = s.mcp.tool_guard
            accepted = await asyncio.to_thread(guard.store_accept, i, chosen)
            guard.release([i])  # on the service loop: drops the tool cache and tells the pages
            return accepted

        return self._by_id("mcp:accept-tools", server_id, work, on_done, on_error)

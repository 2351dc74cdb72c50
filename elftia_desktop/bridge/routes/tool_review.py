"""Tool pinning channels: which servers have tools held back, their review, and accepting them."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from elftia_desktop.bridge.pending import Pending
from elftia_desktop.bridge.plumbing import Route
from elftia_desktop.bridge.results_servers import HeldTools

if TYPE_CHECKING:
    from elftia_desktop.bridge.services import AppServices


class ToolReviewRoute(Route):
    """``mcp:held-tools``, ``mcp:tool-review`` and ``mcp:accept-tools``."""

    def held(self) -> Pending[dict[str, HeldTools]]:
        """``mcp:held-tools``: server id -> what its card's "Changed tools" banner shows (none: not listed)."""

        async def work(s: AppServices) -> dict[str, HeldTools]:
            """``mcp:held-tools`` on the service loop."""
            from elftia_desktop.connections.tool_guard import held_tools

            every = await asyncio.to_thread(held_tools, s.mcp.tool_guard.store)
            return {
                server_id: HeldTools(tuple(held["held"]), tuple(held["flagged"]), tuple(held["findings"]))
                for server_id, held in every.items()
            }

        return self._core.submit("mcp:held-tools", work)

    def review(self, server_id: str) -> Pending[dict[str, Any]]:
        """``mcp:tool-review``: ``{serverId, pinned, held, items: [{name, status, before, after, diff,
        findings}], pinnedFindings}`` (see ``ToolReview.to_json_dict``)."""

        async def work(s: AppServices, i: str) -> dict[str, Any]:
            """``mcp:tool-review`` on the service loop."""
            names = {r.id: r.name for r in await s.mcp.current_records()}
            review = await asyncio.to_thread(s.mcp.tool_guard.review, i, names)
            return review.to_json_dict()

        return self._by_id("mcp:tool-review", server_id, work)

    def accept(self, server_id: str, names: Sequence[str] | None = None) -> Pending[list[str]]:
        """``mcp:accept-tools``: pin ``names`` (None: every held tool) as they are now; the names accepted."""
        chosen = None if names is None else [str(n) for n in names]

        async def work(s: AppServices, i: str) -> list[str]:
            """``mcp:accept-tools`` on the service loop."""
            guard = s.mcp.tool_guard
            accepted = await asyncio.to_thread(guard.store_accept, i, chosen)
            guard.release([i])  # on the service loop: drops the tool cache and tells the pages
            return accepted

        return self._by_id("mcp:accept-tools", server_id, work)

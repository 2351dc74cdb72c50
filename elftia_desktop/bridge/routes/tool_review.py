"""Tool pinning channels: which servers have tools held back, their review, and accepting them."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject

from elftia_desktop.bridge.plumbing import Done, Failed, Reply, Route

if TYPE_CHECKING:
    from elftia_desktop.bridge.services import AppServices

HeldTools = dict[str, dict[str, Any]]
"""Server id -> ``{held: [names], flagged: [names], findings: [{tool, rule, detail}]}``: tools held back
since they changed, tools the lint flagged when the server was first trusted (not yet looked at), and
what it found in those."""


class ToolReviewRoute(Route):
    """``mcp:held-tools``, ``mcp:tool-review`` and ``mcp:accept-tools``."""

    def held(
        self,
        *,
        receiver: QObject | None = None,
        on_done: Done[HeldTools] | None = None,
        on_error: Failed | None = None,
    ) -> int:
        """``mcp:held-tools``: what the cards' "Changed tools" banners show."""

        async def work(s: AppServices) -> HeldTools:
            """``mcp:held-tools`` on the service loop."""
            from elftia_desktop.connections.tool_guard import held_tools

            return await asyncio.to_thread(held_tools, s.mcp.tool_guard.store)

        return self._core.submit(Reply("mcp:held-tools", receiver, on_done, on_error), work)

    def review(
        self,
        server_id: str,
        *,
        receiver: QObject | None = None,
        on_done: Done[dict[str, Any]] | None = None,
        on_error: Failed | None = None,
    ) -> int:
        """``mcp:tool-review``: ``{serverId, pinned, held, items: [{name, status, before, after, diff,
        findings}], pinnedFindings}`` (see ``ToolReview.to_json_dict``)."""

        async def work(s: AppServices, i: str) -> dict[str, Any]:
            """``mcp:tool-review`` on the service loop."""
            names = {r.id: r.name for r in await s.mcp.current_records()}
            review = await asyncio.to_thread(s.mcp.tool_guard.review, i, names)
            return review.to_json_dict()

        return self._by_id(Reply("mcp:tool-review", receiver, on_done, on_error), server_id, work)

    def accept(
        self,
        server_id: str,
        names: Sequence[str] | None = None,
        *,
        receiver: QObject | None = None,
        on_done: Done[list[str]] | None = None,
        on_error: Failed | None = None,
    ) -> int:
        """``mcp:accept-tools``: pin ``names`` (None: every held tool) as they are now; the names accepted."""
        chosen = None if names is None else [str(n) for n in names]

        async def work(s: AppServices, i: str) -> list[str]:
            """``mcp:accept-tools`` on the service loop."""
            guard = s.mcp.tool_guard
            accepted = await asyncio.to_thread(guard.store_accept, i, chosen)
            guard.release([i])  # on the service loop: drops the tool cache and tells the pages
            return accepted

        return self._by_id(Reply("mcp:accept-tools", receiver, on_done, on_error), server_id, work)

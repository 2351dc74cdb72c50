"""The explore half of ``McpService``: get a prompt, read a resource, cancel a running call.

Results are converted at this boundary into JSON dicts with the protocol's field names
(``messages`` of a prompt, ``contents`` of a resource), so no SDK type leaves ``connections``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from elftia_desktop.connections import listing

if TYPE_CHECKING:
    from elftia_desktop.connections.live_calls import LiveCalls
    from elftia_desktop.connections.pool import ConnectionPool
    from elftia_desktop.core.models import McpServerRecord


class ExploreMixin:
    """get_prompt / read_resource / cancel_call."""

    _pool: ConnectionPool
    _live: LiveCalls

    async def _record(self, server_id: str) -> McpServerRecord:
        raise NotImplementedError

    async def get_prompt(self, server_id: str, name: str, arguments: dict[str, str]) -> dict[str, Any]:
        """``prompts/get``: ``{description?, messages: [{role, content}]}``."""
        record = await self._record(server_id)
        result = await self._pool.use(
            record, "list", self._pool.timeouts(record)[2], lambda session: session.get_prompt(name, arguments or None)
        )
        return listing.as_dict(result)

    async def read_resource(self, server_id: str, uri: str) -> dict[str, Any]:
        """``resources/read``: ``{contents: [{uri, mimeType?, text | blob}]}``."""
        record = await self._record(server_id)
        result = await self._pool.use(
            record, "list", self._pool.timeouts(record)[2], lambda session: session.read_resource(uri)
        )
        return listing.as_dict(result)

    def cancel_call(self, call_id: str) -> bool:
        """Cancel the running tool call ``call_id`` (the server is told); False when none runs (sync)."""
        return self._live.cancel(call_id)

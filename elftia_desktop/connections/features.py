"""What a server offers beyond tools: prompts, resources, completions and log levels.

The SDK's types come out as the server sent them (the gateway passes them on unchanged; the bridge
turns them into the window's own types).

A kind the server does not offer (no capability in its initialize result) lists as empty and is
never asked for. Failures come out translated, as for tool calls.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import mcp_types as types
from mcp.client.session import ClientSession

from elftia_desktop.connections import listing
from elftia_desktop.connections.pool import ConnectionPool
from elftia_desktop.connections.records import ServerRecords

T = TypeVar("T")


class ServerFeatures:
    """Prompts, resources, completions and logging of one saved server."""

    def __init__(self, records: ServerRecords, pool: ConnectionPool) -> None:
        self._records = records
        self._pool = pool

    async def _ask(self, server_id: str, op: Callable[[ClientSession], Awaitable[T]], *, may_ask: bool = False) -> T:
        """Run ``op`` on the server's session; ``may_ask``: the server may ask its app (registered like a call)."""
        record = await self._records.get(server_id)
        request = self._pool.use(record, "list", self._pool.timeouts(record).list_, op)
        if not may_ask:
            return await request
        async with self._pool.callbacks.in_flight.call(server_id):  # its questions are asked of its app
            return await request

    async def server_capabilities(self, server_id: str) -> types.ServerCapabilities | None:
        """What the server offers (connects it when needed)."""
        connection = await self._pool.ensure(await self._records.get(server_id))
        return connection.init_result.capabilities if connection.init_result else None

    async def list_prompts(self, server_id: str) -> list[types.Prompt]:
        """The server's prompts (empty when it offers none)."""
        caps = await self.server_capabilities(server_id)
        if caps is not None and caps.prompts is None:
            return []
        return await self._ask(server_id, listing.list_prompts)

    async def list_resources(self, server_id: str) -> list[types.Resource]:
        """The server's resources (empty when it offers none)."""
        caps = await self.server_capabilities(server_id)
        if caps is not None and caps.resources is None:
            return []
        return await self._ask(server_id, listing.list_resources)

    async def list_resource_templates(self, server_id: str) -> list[types.ResourceTemplate]:
        """The server's resource templates (empty when it offers none)."""
        caps = await self.server_capabilities(server_id)
        if caps is not None and caps.resources is None:
            return []
        return await self._ask(server_id, listing.list_resource_templates)

    async def get_prompt(self, server_id: str, name: str, arguments: dict[str, str] | None) -> types.GetPromptResult:
        """One prompt, filled in with ``arguments``."""
        return await self._ask(server_id, lambda session: session.get_prompt(name, arguments), may_ask=True)

    async def read_resource(self, server_id: str, uri: str) -> types.ReadResourceResult:
        """The contents of one resource."""
        return await self._ask(server_id, lambda session: session.read_resource(uri), may_ask=True)

    async def complete(
        self,
        server_id: str,
        ref: types.ResourceTemplateReference | types.PromptReference,
        argument: dict[str, str],
        context: dict[str, str] | None = None,
    ) -> types.CompleteResult:
        """Completions of one prompt or template argument (empty when the server offers none)."""
        caps = await self.server_capabilities(server_id)
        if caps is not None and caps.completions is None:
            return types.CompleteResult(completion=types.Completion(values=[]))
        return await self._ask(server_id, lambda session: session.complete(ref, argument, context))

    async def set_logging_level(self, server_id: str, level: types.LoggingLevel) -> bool:
        """Ask a connected server for log messages at ``level`` and above; False when it has no logging."""
        entry = self._pool.entries.get(server_id)
        connection = entry.connection if entry is not None else None
        caps = connection.init_result.capabilities if connection and connection.init_result else None
        if caps is None or caps.logging is None:
            return False
        await self._ask(server_id, lambda session: _set_level(session, level))
        return True


async def _set_level(session: ClientSession, level: types.LoggingLevel) -> Any:
    request = types.SetLevelRequest(params=types.SetLevelRequestParams(level=level))
    return await session.send_request(request, types.EmptyResult)

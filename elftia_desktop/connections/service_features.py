"""The protocol half of ``McpService`` beyond tools: full tool definitions, prompts, resources,
completions and log levels, as the SDK returns them (the gateway passes them on unchanged).

A kind the server does not offer (no capability in its initialize result) lists as empty and is
never asked for. Failures come out translated, as for tool calls.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

import mcp_types as types
from mcp.client.session import ClientSession

from elftia_desktop.connections import listing
from elftia_desktop.connections.pool import timeouts_of

if TYPE_CHECKING:
    from elftia_desktop.connections.pool import ConnectionPool
    from elftia_desktop.core.models import McpServerRecord, MCPTool

T = TypeVar("T")


class FeaturesMixin:
    """Tool definitions, prompts, resources, completions and logging of one server."""

    _pool: ConnectionPool

    async def _record(self, server_id: str) -> McpServerRecord:
        raise NotImplementedError

    async def _tools_of(self, record: McpServerRecord) -> list[MCPTool]:
        raise NotImplementedError

    async def _ask(self, server_id: str, op: Callable[[ClientSession], Awaitable[T]], phase: str = "list") -> T:
        record = await self._record(server_id)
        return await self._pool.use(record, phase, timeouts_of(record)[1], op)

    async def server_capabilities(self, server_id: str) -> types.ServerCapabilities | None:
        """What the server offers (connects it when needed)."""
        connection = await self._pool.ensure(await self._record(server_id))
        return connection.init_result.capabilities if connection.init_result else None

    async def list_tool_defs(self, server_id: str) -> list[types.Tool]:
        """The server's enabled tools with everything the server sent (title, annotations, output schema)."""
        record = await self._record(server_id)
        enabled = await self._tools_of(record)
        defs = self._pool.entry(server_id).tool_defs
        return [defs[tool.name] for tool in enabled if tool.name in defs]

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
        return await self._ask(server_id, lambda session: session.get_prompt(name, arguments))

    async def read_resource(self, server_id: str, uri: str) -> types.ReadResourceResult:
        """The contents of one resource."""
        return await self._ask(server_id, lambda session: session.read_resource(uri))

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

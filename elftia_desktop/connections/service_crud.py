"""The CRUD half of ``McpService``: the server list through the catalog, connecting where due.

Catalog calls touch files and the keyring, so they run in a worker thread.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from elftia_desktop.core.catalog import ConflictPolicy
from elftia_desktop.core.errors import ElftiaError, JsonInputError
from elftia_desktop.core.models import McpActionResult, McpServerInput, McpServerJsonInput, McpServerRecord
from elftia_desktop.core.server_json import parse_servers_json
from elftia_desktop.core.text_rules import display_name
from elftia_desktop.core.trust import launch_of, needs_confirmation

if TYPE_CHECKING:
    from elftia_desktop.connections.pool import ConnectionPool
    from elftia_desktop.connections.tool_guard import ToolGuard
    from elftia_desktop.core.catalog import ServerCatalog


class CrudMixin:
    """list / add / add_json / update / remove / trust."""

    catalog: ServerCatalog
    _pool: ConnectionPool
    tool_guard: ToolGuard

    def _changed(self) -> None:
        raise NotImplementedError

    async def list_servers(self) -> list[McpServerRecord]:
        """All configured servers in file order."""
        return await asyncio.to_thread(self.catalog.all)

    async def _connect_quietly(self, record: McpServerRecord) -> str | None:
        """Connect an active, trusted server; returns why it failed (never raises)."""
        if not record.is_active or needs_confirmation(record):
            return None
        try:
            await self._pool.ensure(record)
        except ElftiaError as exc:
            return str(exc)
        return None

    async def add(self, server: McpServerInput, on_conflict: ConflictPolicy = "fail") -> McpActionResult:
        """Save a server (saved first); then connect it when active. A failed connect keeps the server."""
        try:
            record = await asyncio.to_thread(self.catalog.add, server, on_conflict)
        except ElftiaError as exc:
            return McpActionResult(success=False, error=f"{server.name}: {exc}")
        if record is None:
            return McpActionResult(success=False, error=f"{server.name}: the name is taken; skipped")
        self._changed()
        problem = await self._connect_quietly(record)
        message = f"Added {record.name}." + (f" It did not connect: {problem}" if problem else "")
        return McpActionResult(success=True, message=message, server=record)

    async def add_json(self, data: McpServerJsonInput) -> McpActionResult:
        """Add every server in pasted JSON; one result per server, one bad entry does not stop the rest."""
        try:
            parsed = parse_servers_json(data.json_text)
        except JsonInputError as exc:
            return McpActionResult(success=False, error=str(exc), results=[])
        results: list[McpActionResult] = []
        for entry in parsed:
            if entry.server is None:
                error = entry.error or "not a server definition"
                label = display_name(entry.name)
                prefixed = error if error.startswith(f"{label}:") else f"{label}: {error}"
                results.append(McpActionResult(success=False, error=prefixed))
                continue
            entry.server.is_trusted = data.trust
            results.append(await self.add(entry.server, data.on_conflict))
        ok = sum(r.success for r in results)
        return McpActionResult(
            success=bool(results) and ok == len(results),
            message=f"Added {ok} of {len(results)} servers.",
            error=None if ok == len(results) else f"{len(results) - ok} of {len(results)} servers were not added",
            results=results,
        )

    async def update(self, server_id: str, updates: dict[str, Any]) -> McpActionResult:
        """Merge ``updates`` into a server; reconnect when what it runs or where it connects changed.

        ``updates["secretKeys"]`` (optional) names env/header keys the user marked secret.
        """
        updates = dict(updates)
        secret_keys = set(updates.pop("secretKeys", None) or updates.pop("secret_keys", None) or [])
        try:
            before, after = await asyncio.to_thread(self.catalog.update, server_id, updates, secret_keys)
        except ElftiaError as exc:
            return McpActionResult(success=False, error=str(exc))
        self._changed()
        relaunch = (
            before.type != after.type
            or before.config != after.config
            or launch_of(before) != launch_of(after)
            or before.is_active != after.is_active
            or before.is_trusted != after.is_trusted
        )
        problem = None
        if relaunch:
            await self._pool.disconnect(server_id)
            problem = await self._connect_quietly(after)
        elif before.name != after.name or before.disabled_tools != after.disabled_tools:
            self._pool.invalidate_tools(server_id, emit=True)
        message = f"Updated {after.name}." + (f" It did not connect: {problem}" if problem else "")
        return McpActionResult(success=True, message=message, server=after)

    async def remove(self, server_id: str) -> McpActionResult:
        """Disconnect a server, then delete it and its secrets and take it out of every agent.

        The result names the agents that had selected it (``agentsUpdated``).
        """
        await self._pool.disconnect(server_id)
        try:
            removed, lost = await asyncio.to_thread(self.catalog.remove, server_id)
        except ElftiaError as exc:
            return McpActionResult(success=False, error=str(exc))
        self._pool.entries.pop(server_id, None)
        await asyncio.to_thread(self.tool_guard.forget, server_id)
        self._changed()
        names = [agent.name for agent in lost]
        message = f"Removed {removed.name}." + (f" Taken out of agents: {', '.join(names)}." if names else "")
        return McpActionResult(success=True, message=message, server=removed, agents_updated=names)

    async def trust(self, server_id: str) -> McpActionResult:
        """Record that the user confirmed what the server runs (or where it connects)."""
        result = await self.update(server_id, {"isTrusted": True})
        if result.success and result.server is not None:
            result.message = f"{result.server.name} is trusted." + (
                result.message.split(".", 1)[1] if result.message and "." in result.message else ""
            )
        return result

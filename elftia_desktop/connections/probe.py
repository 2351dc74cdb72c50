"""Trying servers: Test (connect and list tools), Test of an unsaved server, and Discover (everything offered).

Each returns a result instead of raising: success with what was found, or the specific failure.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from mcp.client.session import ClientSession

from elftia_desktop.connections import listing
from elftia_desktop.connections.pool import ConnectionPool
from elftia_desktop.connections.records import ServerRecords
from elftia_desktop.connections.server_tools import ServerTools
from elftia_desktop.connections.sign_in import retry_signed_in
from elftia_desktop.core.errors import ElftiaError
from elftia_desktop.core.models import McpDiscoverResult, McpServerInput, McpTestResult
from elftia_desktop.core.trust import mark_trusted


def _ms_since(started: float) -> float:
    return (time.perf_counter() - started) * 1000


class ServerProbe:
    """Test, test an unsaved server, discover."""

    def __init__(
        self, records: ServerRecords, pool: ConnectionPool, trial_pool: ConnectionPool, tools: ServerTools
    ) -> None:
        self._records = records
        self._pool = pool
        self._trial_pool = trial_pool
        """Connections of servers tried before they are saved; their events reach nobody."""
        self._tools = tools

    async def test(self, server_id: str) -> McpTestResult:
        """Connect and list tools: success with tool names and time taken, or the specific failure."""
        record = await self._records.get(server_id)
        started = time.perf_counter()
        try:
            self._tools.cache.invalidate(server_id)
            tools = (await self._tools.fetch(record)).tools
        except ElftiaError as exc:
            return McpTestResult(success=False, error=str(exc), reason=exc.reason, duration_ms=_ms_since(started))
        connection = self._pool.entry(server_id).connection
        return McpTestResult(
            success=True,
            tools=[t.name for t in tools],
            duration_ms=_ms_since(started),
            server_info=connection.server_info() if connection else None,
        )

    async def test_config(
        self, server: McpServerInput, server_id: str | None = None, *, sign_in: bool = False
    ) -> McpTestResult:
        """Try a server that is not saved (the form's Test). See ``McpService.test_config``."""
        record = server.to_record()
        if server_id is not None:
            record.id = server_id
        mark_trusted(record)
        started = time.perf_counter()
        pool = self._trial_pool

        async def attempt() -> list[Any]:
            """Connect the trial server and list its tools."""
            return await pool.use(record, "list", pool.timeouts(record).list_, listing.list_tools)

        try:
            tools = await (retry_signed_in(pool, record.id, attempt) if sign_in else attempt())
            connection = pool.entry(record.id).connection
            info = connection.server_info() if connection else None
        except ElftiaError as exc:
            return McpTestResult(success=False, error=str(exc), reason=exc.reason, duration_ms=_ms_since(started))
        finally:
            await pool.disconnect(record.id)
            pool.entries.pop(record.id, None)
            if server_id is None and record.config.oauth is not None:  # a throwaway id: its tokens go too
                await asyncio.to_thread(self._records.catalog.vault.forget_session, record.id)
        return McpTestResult(
            success=True, tools=[t.name for t in tools], duration_ms=_ms_since(started), server_info=info
        )

    async def discover(self, server_id: str) -> McpDiscoverResult:
        """Tools, prompts, resources and resource templates; a kind that fails is named in ``errors``."""
        record = await self._records.get(server_id)
        try:
            connection = await self._pool.ensure(record)
        except ElftiaError as exc:
            return McpDiscoverResult(success=False, error=str(exc))
        caps = connection.init_result.capabilities if connection.init_result else None
        list_timeout = self._pool.timeouts(record).list_
        kinds: dict[str, tuple[Callable[[ClientSession], Awaitable[list[Any]]], bool]] = {
            "tools": (listing.list_tools, True),
            "prompts": (listing.list_prompts, caps is None or caps.prompts is not None),
            "resources": (listing.list_resources, caps is None or caps.resources is not None),
            "resourceTemplates": (listing.list_resource_templates, caps is None or caps.resources is not None),
        }
        found: dict[str, list[dict[str, Any]]] = {}
        errors: dict[str, str] = {}
        for kind, (fetch, offered) in kinds.items():
            found[kind] = []
            if not offered:
                continue
            try:
                items = await self._pool.use(record, "list", list_timeout, fetch)
                found[kind] = [listing.as_dict(item) for item in items]
            except ElftiaError as exc:
                errors[kind] = str(exc)
        return McpDiscoverResult(
            success="tools" not in errors,
            tools=found["tools"],
            prompts=found["prompts"],
            resources=found["resources"],
            resource_templates=found["resourceTemplates"],
            errors=errors,
            error=errors.get("tools"),
            server_info=connection.server_info(),
        )

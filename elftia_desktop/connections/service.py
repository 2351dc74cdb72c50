"""``McpService``: server CRUD, the connection pool, tool listing and tool calls.

The public API other layers code against (see SERVICE_API.md). All methods are coroutines on
the service loop unless marked sync. Errors raised are those of ``core/errors.py``.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.client.session import ClientSession
from mcp.shared.dispatcher import ProgressFnT

from elftia_desktop.connections import listing
from elftia_desktop.connections.callbacks import ElicitationHandler, SamplingHandler
from elftia_desktop.connections.events import ServiceEvents
from elftia_desktop.connections.live_calls import LiveCalls
from elftia_desktop.connections.pool import ConnectionPool, PoolDefaults, PoolEntry
from elftia_desktop.connections.process_tracker import ProcessTracker, TrackedProcess, kill_leftovers
from elftia_desktop.connections.service_auth import AuthMixin, retry_signed_in
from elftia_desktop.connections.service_crud import CrudMixin
from elftia_desktop.connections.service_explore import ExploreMixin
from elftia_desktop.connections.tool_guard import ToolGuard
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.errors import ElftiaError, ToolCallCancelled, ToolCallError
from elftia_desktop.core.models import (
    ConnectionState,
    MCPCallToolResponse,
    McpDiscoverResult,
    McpServerInput,
    McpServerRecord,
    McpTestResult,
    MCPTool,
    McpToolListing,
)
from elftia_desktop.core.paths import data_dir
from elftia_desktop.core.tool_pin_store import PINS_FILE_NAME, PinStore
from elftia_desktop.core.trust import mark_trusted

TOOL_CACHE_TTL = 300.0
"""Seconds a server's tool list is reused."""


class McpService(CrudMixin, ExploreMixin, AuthMixin):
    """The MCP connection pool and server list.

    Events (``events.on(name, callback)``): ``server:connected``, ``connection:state``,
    ``servers:changed``, ``tool:called``, ``tool:progress``, ``tools:changed``, ``log`` (see ``events.py``).
    """

    def __init__(self, catalog: ServerCatalog, *, runtime_dir: Path | None = None) -> None:
        self.catalog = catalog
        self.events = ServiceEvents()
        runtime_dir = runtime_dir if runtime_dir is not None else data_dir() / "runtime"
        self.leftovers_killed: list[TrackedProcess] = kill_leftovers(runtime_dir)
        """Server processes of an earlier run that were killed at start."""
        tracker = ProcessTracker.for_dir(runtime_dir)
        self._pool = ConnectionPool(catalog.vault, self.events, tracker)
        self._trial_pool = ConnectionPool(catalog.vault, ServiceEvents(), tracker)
        """Connections of servers tried before they are saved; their events reach nobody."""
        self._live = LiveCalls(self.events)
        store = PinStore(catalog.store.path.with_name(PINS_FILE_NAME))
        self.tool_guard = ToolGuard(store, lambda sid: self._pool.invalidate_tools(sid, emit=True))
        """Holds back changed tools until reviewed (tool pinning)."""
        self._records: dict[str, McpServerRecord] = {}
        self._records_stamp: tuple[int, int, int] | None = None

    # -- records -------------------------------------------------------------------------------

    def _config_stamp(self) -> tuple[int, int, int] | None:
        try:
            st = os.stat(self.catalog.store.path)
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    async def _current_records(self) -> dict[str, McpServerRecord]:
        """The records, re-read (in a worker thread) only when the config file changed."""
        stamp = self._config_stamp()
        if stamp != self._records_stamp or (not self._records and stamp is not None):
            records = await asyncio.to_thread(self.catalog.all)
            self._records = {r.id: r for r in records}
            self._records_stamp = stamp
        return self._records

    async def current_records(self) -> list[McpServerRecord]:
        """The records in file order, re-read only when the config file changed (cheap when it did not)."""
        return list((await self._current_records()).values())

    def cached_record(self, server_id: str) -> McpServerRecord | None:
        """The record as last read, without touching the file (sync; for messages)."""
        return self._records.get(server_id)

    async def _record(self, server_id: str) -> McpServerRecord:
        record = (await self._current_records()).get(server_id)
        return record if record is not None else await asyncio.to_thread(self.catalog.get, server_id)

    def _changed(self) -> None:
        self._records_stamp = None
        self.events.emit("servers:changed", {})

    # -- connections ---------------------------------------------------------------------------

    async def init_client(self, server_id: str) -> None:
        """Make sure the server is connected (a shared attempt; health check before reuse)."""
        await self._pool.ensure(await self._record(server_id))

    async def disconnect(self, server_id: str) -> None:
        """Close the server's connection; its state becomes ``disconnected``."""
        await self._pool.disconnect(server_id)

    async def reconnect(self, server_id: str) -> None:
        """Disconnect, then connect again when the server is active."""
        await self._pool.disconnect(server_id)
        record = await self._record(server_id)
        if record.is_active:
            await self._pool.ensure(record)

    async def cleanup(self) -> None:
        """Close every connection in parallel (bounded in time) and clear the pool."""
        await asyncio.gather(self._pool.close_all(), self._trial_pool.close_all())

    def connection_state(self, server_id: str) -> ConnectionState:
        """The live state of a server's connection (sync)."""
        entry = self._pool.entries.get(server_id)
        return entry.state if entry is not None else ConnectionState.DISCONNECTED

    def connection_error(self, server_id: str) -> str | None:
        """The last error of a server's connection (sync)."""
        entry = self._pool.entries.get(server_id)
        return entry.error if entry is not None else None

    def server_log(self, server_id: str) -> list[str]:
        """The server's last log lines (500 unless the settings say otherwise): stderr and log messages (sync)."""
        entry = self._pool.entries.get(server_id)
        return entry.log.lines() if entry is not None else []

    def set_elicitation_handler(self, handler: ElicitationHandler | None) -> None:
        """Let the UI answer servers' questions; None declines them (the default)."""
        self._pool.callbacks.elicitation_handler = handler

    def set_sampling_handler(self, handler: SamplingHandler | None) -> None:
        """Answer servers' sampling requests (the gateway forwards them); None declines them (the default)."""
        self._pool.callbacks.sampling_handler = handler

    def set_roots(self, folders: list[str]) -> None:
        """The folders servers see as roots (the agent's or project's); open sessions are told (sync).

        Each connected server gets ``notifications/roots/list_changed`` (sent in the background
        when called on the service loop) and asks for the new list when it cares.
        """
        self._pool.callbacks.roots = list(folders)
        self._pool.notify_roots_changed()

    def set_defaults(self, connect_timeout: float, call_timeout: float, log_lines: int) -> None:
        """Defaults for servers without their own timeouts, and the log lines kept per server (sync)."""
        defaults = PoolDefaults(connect=connect_timeout, call=call_timeout, log_lines=log_lines)
        self._pool.set_defaults(defaults)
        self._trial_pool.set_defaults(defaults)

    async def connect_active(self) -> dict[str, str]:
        """Connect every active, trusted server at once (the "connect at start" setting).

        Returns ``{server id: why it failed}``; a failure never stops the others.
        """
        records = list((await self._current_records()).values())
        problems = await asyncio.gather(*(self._connect_quietly(r) for r in records))
        return {r.id: p for r, p in zip(records, problems, strict=True) if p}

    def notify_servers_changed(self) -> None:
        """Tell subscribers the list changed behind the service's back (an import through the catalog)."""
        self._changed()

    # -- capabilities --------------------------------------------------------------------------

    async def test(self, server_id: str) -> McpTestResult:
        """Connect and list tools: success with tool names and time taken, or the specific failure."""
        record = await self._record(server_id)
        started = time.perf_counter()
        try:
            self._pool.invalidate_tools(server_id)
            tools = await self._fetch_tools(record)
        except ElftiaError as exc:
            elapsed = (time.perf_counter() - started) * 1000
            return McpTestResult(success=False, error=str(exc), duration_ms=elapsed)
        connection = self._pool.entry(server_id).connection
        return McpTestResult(
            success=True,
            tools=[t.name for t in tools],
            duration_ms=(time.perf_counter() - started) * 1000,
            server_info=listing.server_info(connection.init_result if connection else None),
        )

    async def test_config(
        self, server: McpServerInput, server_id: str | None = None, *, sign_in: bool = False
    ) -> McpTestResult:
        """Try a server that is not saved (the form's Test): connect, list tools, disconnect.

        With ``server_id`` (editing a saved server), ``${secret:NAME}`` values resolve from that
        server's stored secrets and a sign-in is kept for it. The user is looking at what runs,
        so no trust prompt applies. ``sign_in``: sign in in place when the server asks.
        """
        record = server.to_record()
        if server_id is not None:
            record.id = server_id
        mark_trusted(record)
        started = time.perf_counter()

        async def attempt() -> list[Any]:
            return await self._trial_pool.use(record, "list", self._trial_pool.timeouts(record)[1], listing.list_tools)

        try:
            tools = await (retry_signed_in(self._trial_pool, record.id, attempt) if sign_in else attempt())
            connection = self._trial_pool.entry(record.id).connection
            info = listing.server_info(connection.init_result if connection else None)
        except ElftiaError as exc:
            return McpTestResult(success=False, error=str(exc), duration_ms=(time.perf_counter() - started) * 1000)
        finally:
            await self._trial_pool.disconnect(record.id)
            self._trial_pool.entries.pop(record.id, None)
            if server_id is None and record.config.oauth is not None:  # a throwaway id: its tokens go too
                await asyncio.to_thread(self.catalog.vault.forget_session, record.id)
        return McpTestResult(
            success=True,
            tools=[t.name for t in tools],
            duration_ms=(time.perf_counter() - started) * 1000,
            server_info=info,
        )

    async def discover(self, server_id: str) -> McpDiscoverResult:
        """Tools, prompts, resources and resource templates; a kind that fails is named in ``errors``."""
        record = await self._record(server_id)
        try:
            connection = await self._pool.ensure(record)
        except ElftiaError as exc:
            return McpDiscoverResult(success=False, error=str(exc))
        caps = connection.init_result.capabilities if connection.init_result else None
        list_timeout = self._pool.timeouts(record)[1]
        kinds: dict[str, tuple[Callable[[ClientSession], Awaitable[list[Any]]], bool]] = {
            "tools": (listing.list_tools, True),
            "prompts": (listing.list_prompts, caps is None or caps.prompts is not None),
            "resources": (listing.list_resources, caps is None or caps.resources is not None),
            "resourceTemplates": (listing.list_resource_templates, caps is None or caps.resources is not None),
        }
        found: dict[str, list[dict[str, Any]]] = {}
        errors: dict[str, str] = {}
        for kind, (fetch, offered) in kinds.items():
            if not offered:
                found[kind] = []
                continue
            try:
                items = await self._pool.use(record, "list", list_timeout, fetch)
                found[kind] = [listing.as_dict(item) for item in items]
            except ElftiaError as exc:
                errors[kind], found[kind] = str(exc), []
        return McpDiscoverResult(
            success="tools" not in errors,
            tools=found["tools"],
            prompts=found["prompts"],
            resources=found["resources"],
            resource_templates=found["resourceTemplates"],
            errors=errors,
            error=errors.get("tools"),
            server_info=listing.server_info(connection.init_result),
        )

    def _fresh_tools(self, entry: PoolEntry, record: McpServerRecord) -> list[MCPTool] | None:
        if entry.tools is None or entry.tools_key != record.name:
            return None
        if time.monotonic() - entry.tools_at > TOOL_CACHE_TTL:
            return None
        return entry.tools

    async def _fetch_tools(self, record: McpServerRecord) -> list[MCPTool]:
        entry = self._pool.entry(record.id)
        tools = await self._pool.use(record, "list", self._pool.timeouts(record)[1], listing.list_tools)
        init = entry.connection.init_result if entry.connection is not None else None
        tools = await self.tool_guard.admit(record, tools, init.instructions if init is not None else None)
        entry.tools = [listing.to_mcp_tool(record, tool) for tool in tools]
        entry.tool_defs = {tool.name: tool for tool in tools}
        entry.tool_names = frozenset(t.name for t in entry.tools)
        entry.tools_at, entry.tools_key = time.monotonic(), record.name
        return entry.tools

    async def _tools_of(self, record: McpServerRecord) -> list[MCPTool]:
        entry = self._pool.entry(record.id)
        tools = self._fresh_tools(entry, record)
        if tools is None:
            tools = await self._fetch_tools(record)
        disabled = record.disabled_tools
        return [t for t in tools if t.name not in disabled] if disabled else list(tools)

    async def list_server_tools(self, server_id: str) -> list[MCPTool]:
        """The server's enabled tools (cached 5 minutes; a list change drops the cache)."""
        return await self._tools_of(await self._record(server_id))

    async def list_all_active_server_tools(self) -> McpToolListing:
        """Tools of all active servers, fetched concurrently; a failing server is named in ``errors``."""
        result = McpToolListing()
        pending: list[McpServerRecord] = []
        for record in (await self._current_records()).values():
            if not record.is_active:
                continue
            entry = self._pool.entries.get(record.id)
            cached = self._fresh_tools(entry, record) if entry is not None else None
            if cached is None:
                pending.append(record)
            elif record.disabled_tools:
                result.tools.extend(t for t in cached if t.name not in record.disabled_tools)
            else:
                result.tools.extend(cached)
        if pending:
            fetched = await asyncio.gather(*(self._tools_of(r) for r in pending), return_exceptions=True)
            for record, outcome in zip(pending, fetched, strict=True):
                if isinstance(outcome, ElftiaError):
                    result.errors[record.id] = str(outcome)
                elif isinstance(outcome, BaseException):
                    raise outcome
                else:
                    result.tools.extend(outcome)
        return result

    async def _callable(self, record: McpServerRecord, tool_name: str) -> None:
        """Refuse a disabled or unknown tool (the tool list is refreshed when stale)."""
        if tool_name in record.disabled_tools:
            raise ToolCallError(f"The tool {tool_name!r} of {record.name} is disabled.")
        entry = self._pool.entry(record.id)
        if self._fresh_tools(entry, record) is None or tool_name not in entry.tool_names:
            await self._fetch_tools(record)
            if tool_name not in entry.tool_names:
                self.tool_guard.check_callable(record, tool_name)
                known = ", ".join(sorted(entry.tool_names)) or "none"
                raise ToolCallError(f"{record.name} has no tool {tool_name!r} (its tools: {known}).")

    async def call_tool(
        self,
        server_id: str,
        tool_name: str,
        args: dict[str, Any],
        call_id: str | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - the API's name; it bounds the call on the server too
        progress_callback: ProgressFnT | None = None,
    ) -> MCPCallToolResponse:
        """Call one tool (never replayed); raises ToolCallError, ServerConnectionError or ServerTimeout.

        With a ``call_id``, progress notifications become ``tool:progress`` events and :meth:`cancel_call`
        can stop the call (``ToolCallCancelled``). A ``tool:called`` event ends every call; its ``outcome``
        is ``ok``, ``error`` (an ``isError`` result), ``failed`` or ``cancelled``. ``progress_callback``
        also receives the server's progress notifications for this call.
        """
        result = await self.call_tool_raw(server_id, tool_name, args, call_id, timeout, progress_callback)
        return listing.to_call_response(result)

    async def call_tool_raw(
        self,
        server_id: str,
        tool_name: str,
        args: dict[str, Any],
        call_id: str | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - as in call_tool
        progress_callback: ProgressFnT | None = None,
    ) -> types.CallToolResult:
        """``call_tool`` with the SDK's result as the server sent it (the gateway passes it on unchanged)."""
        record = await self._record(server_id)
        await self._callable(record, tool_name)
        call_timeout = timeout if timeout is not None else self._pool.timeouts(record)[2]
        progress = _both(
            self._live.progress_callback(server_id, tool_name, call_id) if call_id else None, progress_callback
        )
        started, outcome = time.perf_counter(), "failed"
        try:
            call = self._pool.use(
                record,
                "call",
                None,
                lambda session: session.call_tool(
                    tool_name, args, read_timeout_seconds=call_timeout, progress_callback=progress
                ),
            )
            result = await (self._live.run(call_id, f"{record.name}: {tool_name}", call) if call_id else call)
            outcome = "error" if result.is_error else "ok"
            return result
        except ToolCallCancelled:
            outcome = "cancelled"
            raise
        finally:
            called = {"serverId": server_id, "toolName": tool_name, "callId": call_id, "outcome": outcome}
            duration = (time.perf_counter() - started) * 1000
            self.events.emit(
                "tool:called", called | {"duration": duration, "success": outcome == "ok", "at": time.time()}
            )


def _both(first: ProgressFnT | None, second: ProgressFnT | None) -> ProgressFnT | None:
    """One progress callback that feeds both (either may be None)."""
    if first is None or second is None:
        return first or second

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        await first(progress, total, message)
        await second(progress, total, message)

    return on_progress

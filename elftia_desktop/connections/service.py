"""``McpService``: the MCP side of the app, a small object holding parts with one job each.

==================  ======================================================================"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import mcp_types as types
from mcp.shared.dispatcher import ProgressFnT

from elftia_desktop.connections import listing
from elftia_desktop.connections.callbacks import ElicitationHandler, SamplingHandler
from elftia_desktop.connections.events import ServiceEvents, TaskStatus
from elftia_desktop.connections.features import ServerFeatures
from elftia_desktop.connections.icons import ICONS_FOLDER, IconFetcher
from elftia_desktop.connections.live_calls import LiveCalls
from elftia_desktop.connections.oauth_gate import SignInPrompt
from elftia_desktop.connections.pool import ConnectionPool, PoolDefaults
from elftia_desktop.connections.probe import ServerProbe
from elftia_desktop.connections.process_tracker import ProcessTracker, TrackedProcess, kill_leftovers
from elftia_desktop.connections.records import ServerRecords
from elftia_desktop.connections.server_edits import ServerEdits
from elftia_desktop.connections.server_tools import ServerTools
from elftia_desktop.connections.sign_in import SignIn
from elftia_desktop.connections.skills import ServerSkills
from elftia_desktop.connections.task_book import task_book_path
from elftia_desktop.connections.task_runner import TaskCalls
from elftia_desktop.connections.tool_cache import ToolCache
from elftia_desktop.connections.tool_calls import ToolCalls
from elftia_desktop.connections.tool_guard import ToolGuard
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.errors import ElftiaError
from elftia_desktop.core.models import (
    ConnectionState,
    McpAuthStatus,
    MCPCallToolResponse,
    McpDiscoverResult,
    McpServerInput,
    McpServerRecord,
    McpTestResult,
    MCPTool,
    McpToolListing,
)
from elftia_desktop.core.skill_pins import SkillPins, skill_pin_store
from elftia_desktop.core.tool_pin_store import PINS_FILE_NAME, PinStore

T = TypeVar("T")


class McpService:
    """The MCP connection pool and server list.

    Events (``events.on(ToolCalled, callback)``): one frozen dataclass per event, listed in ``events.py``.
    """

    def __init__(self, catalog: ServerCatalog, *, runtime_dir: Path | None = None) -> None:
        """Wire the parts (no I/O). ``runtime_dir``: where started processes are recorded (default: by the config)."""
        self.catalog = catalog
        self.events = ServiceEvents()
        self.runtime_dir = runtime_dir if runtime_dir is not None else catalog.store.path.parent / "runtime"
        self.leftovers_killed: list[TrackedProcess] = []
        """Server processes of an earlier run that :meth:`start` killed."""
        self.records = ServerRecords(catalog)
        self.tool_cache = ToolCache(self.events)
        self.pool = ConnectionPool(catalog.vault, self.events, self.runtime_dir, self.tool_cache)
        trials = ServiceEvents()  # servers tried before they are saved: their events reach nobody
        self._trial_pool = ConnectionPool(catalog.vault, trials, self.runtime_dir, ToolCache(trials))
        pins = PinStore(catalog.store.path.with_name(PINS_FILE_NAME))
        self.tool_guard = ToolGuard(pins, lambda sid: self.tool_cache.invalidate(sid, emit=True))
        """Holds back tools changed since the server was trusted until the user reviews them (tool pinning)."""
        self.tools = ServerTools(self.records, self.pool, self.tool_cache, self.tool_guard)
        tasks = TaskCalls(self.pool, self.events, task_book_path(catalog.store.path))
        self.calls = ToolCalls(self.records, self.pool, self.tools, LiveCalls(self.events), self.events, tasks)
        self.features = ServerFeatures(self.records, self.pool)
        self.skills = ServerSkills(self.records, self.pool, SkillPins(skill_pin_store(catalog.store.path)))
        """Skills over MCP (SEP-2640), pinned by digest like tools."""
        self.probe = ServerProbe(self.records, self.pool, self._trial_pool, self.tools)
        self.auth = SignIn(self.records, self.pool, self._trial_pool)
        self.edits = ServerEdits(self.records, self.pool, self.tool_cache, self.events)
        self.icons = IconFetcher(self.events, catalog.store.path.parent / ICONS_FOLDER, self._icons_of, None)
        """Each connected server's icon (``ServerIcon``)."""

    def _icons_of(self, server_id: str) -> tuple[list[dict[str, Any]], Callable[[str], None]] | None:
        """The icons a connected server declared, and its log."""
        entry = self.pool.entries.get(server_id)
        connection = entry.connection if entry is not None else None
        info = connection.init_result.server_info if connection and connection.init_result else None
        if connection is None or info is None or not info.icons:
            return None
        return [i.model_dump(mode="json", by_alias=True, exclude_none=True) for i in info.icons], connection.log.add

    async def start(self) -> None:
        """Stop the server processes an earlier run left behind (a ``/proc`` scan: in a worker thread)."""

        def scan() -> list[TrackedProcess]:
            """Stop the leftover processes (blocking)."""
            ProcessTracker.for_dir(self.runtime_dir)  # reads this process's identity once, off the loop
            return kill_leftovers(self.runtime_dir)

        self.leftovers_killed = await asyncio.to_thread(scan)

    async def cleanup(self) -> None:
        """Close every connection in parallel (bounded in time), clear the pool, let the task book reach the disk."""
        await asyncio.gather(self.pool.close_all(), self._trial_pool.close_all())
        await self.calls.tasks.book.flush()

    # -- records -------------------------------------------------------------------------------

    async def list_servers(self) -> list[McpServerRecord]:
        """All configured servers in file order (read from the file now)."""
        return await asyncio.to_thread(self.catalog.all)

    async def current_records(self) -> list[McpServerRecord]:
        """The records in file order, re-read only when the config file changed (cheap when it did not)."""
        return list((await self.records.current()).values())

    def cached_record(self, server_id: str) -> McpServerRecord | None:
        """The record as last read, without touching the file (sync; for messages)."""
        return self.records.cached(server_id)

    def notify_servers_changed(self) -> None:
        """Tell subscribers the list changed behind the service's back (an import through the catalog)."""
        self.edits.changed()

    # -- connections ---------------------------------------------------------------------------

    async def init_client(self, server_id: str) -> None:
        """Make sure the server is connected (a shared attempt; health check before reuse)."""
        await self.pool.ensure(await self.records.get(server_id))

    async def disconnect(self, server_id: str) -> None:
        """Close the server's connection; its state becomes ``disconnected``."""
        await self.pool.disconnect(server_id)

    async def reconnect(self, server_id: str) -> None:
        """Disconnect, then connect again when the server is active."""
        await self.pool.disconnect(server_id)
        record = await self.records.get(server_id)
        if record.is_active:
            await self.pool.ensure(record)

    async def connect_active(self) -> dict[str, str]:
        """Connect every active, trusted server at once (the "connect at start" setting).

        Returns ``{server id: why it failed}``; a failure never stops the others.
        """
        return await self.edits.connect_active()

    def connection_state(self, server_id: str) -> ConnectionState:
        """The live state of a server's connection (sync)."""
        entry = self.pool.entries.get(server_id)
        return entry.state if entry is not None else ConnectionState.DISCONNECTED

    def connection_error(self, server_id: str) -> str | None:
        """The last error of a server's connection (sync)."""
        entry = self.pool.entries.get(server_id)
        return entry.error if entry is not None else None

    def connection_failure(self, server_id: str) -> ElftiaError | None:
        """The last failure of a server's connection, its ``server_name`` and ``reason`` apart (sync)."""
        entry = self.pool.entries.get(server_id)
        return entry.failure if entry is not None else None

    def server_log(self, server_id: str) -> list[str]:
        """The server's last log lines (500 unless the settings say otherwise): stderr and log messages (sync)."""
        entry = self.pool.entries.get(server_id)
        return entry.log.lines() if entry is not None else []

    def set_elicitation_handler(self, handler: ElicitationHandler | None) -> None:
        """Let the UI answer servers' questions; None declines them (the default)."""
        self.pool.callbacks.elicitation_handler = handler

    def set_sampling_handler(self, handler: SamplingHandler | None) -> None:
        """Answer servers' sampling requests (the gateway forwards them); None declines them (the default)."""
        self.pool.callbacks.sampling_handler = handler

    def set_roots(self, folders: list[str]) -> None:
        """The folders servers see as roots; each open session gets ``roots/list_changed`` (sync)."""
        self.pool.callbacks.roots = list(folders)
        self.pool.notify_roots_changed()

    def set_defaults(self, connect_timeout: float, call_timeout: float, log_lines: int) -> None:
        """Defaults for servers without their own timeouts, and the log lines kept per server (sync)."""
        defaults = PoolDefaults(connect=connect_timeout, call=call_timeout, log_lines=log_lines)
        self.pool.set_defaults(defaults)
        self._trial_pool.set_defaults(defaults)

    # -- trying servers ------------------------------------------------------------------------

    async def test(self, server_id: str) -> McpTestResult:
        """Connect and list tools: success with tool names and time taken, or the specific failure."""
        return await self.probe.test(server_id)

    async def test_config(
        self, server: McpServerInput, server_id: str | None = None, *, sign_in: bool = False
    ) -> McpTestResult:
        """Try a server that is not saved (the form's Test): connect, list tools, disconnect.

        With ``server_id`` (editing a saved server), ``${secret:NAME}`` values resolve from that
        server's stored secrets and a sign-in is kept for it. The user is looking at what runs,
        so no trust prompt applies. ``sign_in``: sign in in place when the server asks.
        """
        return await self.probe.test_config(server, server_id, sign_in=sign_in)

    async def discover(self, server_id: str) -> McpDiscoverResult:
        """Tools, prompts, resources and resource templates; a kind that fails is named in ``errors``."""
        return await self.probe.discover(server_id)

    # -- tools ---------------------------------------------------------------------------------

    async def list_server_tools(self, server_id: str) -> list[MCPTool]:
        """The server's enabled tools (cached 5 minutes; a list change drops the cache)."""
        return await self.tools.of_server(server_id)

    async def list_all_active_server_tools(self) -> McpToolListing:
        """Tools of all active servers, fetched concurrently; a failing server is named in ``errors``."""
        return await self.tools.of_active_servers()

    async def list_tool_defs(self, server_id: str) -> list[types.Tool]:
        """The server's enabled tools with everything the server sent (title, annotations, output schema)."""
        return await self.tools.defs(server_id)

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

        With a ``call_id``, progress notifications become ``ToolProgress`` events and :meth:`cancel_call`
        can stop the call (``ToolCallCancelled``). A ``ToolCalled`` event ends every call; its ``outcome``
        is ``ok``, ``error`` (an ``isError`` result), ``failed`` or ``cancelled``. ``progress_callback``
        also receives the server's progress notifications for this call.
        """
        result = await self.calls.call(server_id, tool_name, args, call_id, timeout, progress_callback)
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
        return await self.calls.call(server_id, tool_name, args, call_id, timeout, progress_callback)

    def cancel_call(self, call_id: str) -> bool:
        """Cancel the running tool call ``call_id`` (the server is told); False when none runs (sync)."""
        return self.calls.live.cancel(call_id)

    async def list_tasks(self) -> list[TaskStatus]:
        """The tasks the pool follows and followed (their latest states, oldest first); the unfinished
        ones an earlier pool host saved are followed again first."""
        await self.calls.tasks.resume(self.records)
        return [entry.snapshot() for entry in self.calls.tasks.book.entries()]

    async def cancel_task(self, server_id: str, task_id: str) -> bool:
        """Cancel a running task (``tasks/cancel``); False when the pool does not follow it."""
        return await self.calls.tasks.cancel(await self.records.get(server_id), task_id)

    # -- prompts, resources, completions, logging ----------------------------------------------

    async def server_capabilities(self, server_id: str) -> types.ServerCapabilities | None:
        """What the server offers (connects it when needed)."""
        return await self.features.server_capabilities(server_id)

    async def list_prompts(self, server_id: str) -> list[types.Prompt]:
        """The server's prompts (empty when it offers none)."""
        return await self.features.list_prompts(server_id)

    async def list_resources(self, server_id: str) -> list[types.Resource]:
        """The server's resources (empty when it offers none)."""
        return await self.features.list_resources(server_id)

    async def list_resource_templates(self, server_id: str) -> list[types.ResourceTemplate]:
        """The server's resource templates (empty when it offers none)."""
        return await self.features.list_resource_templates(server_id)

    async def get_prompt(self, server_id: str, name: str, arguments: dict[str, str] | None) -> types.GetPromptResult:
        """One prompt, filled in with ``arguments``."""
        return await self.features.get_prompt(server_id, name, arguments)

    async def read_resource(self, server_id: str, uri: str) -> types.ReadResourceResult:
        """The contents of one resource."""
        return await self.features.read_resource(server_id, uri)

    async def complete(
        self,
        server_id: str,
        ref: types.ResourceTemplateReference | types.PromptReference,
        argument: dict[str, str],
        context: dict[str, str] | None = None,
    ) -> types.CompleteResult:
        """Completions of one prompt or template argument (empty when the server offers none)."""
        return await self.features.complete(server_id, ref, argument, context)

    async def set_logging_level(self, server_id: str, level: types.LoggingLevel) -> bool:
        """Ask a connected server for log messages at ``level`` and above; False when it has no logging."""
        return await self.features.set_logging_level(server_id, level)

    # -- sign-in -------------------------------------------------------------------------------

    def set_sign_in_prompt(self, prompt: SignInPrompt | None) -> None:
        """Who shows the authorization URL during foreground actions (None: nobody; sign-in is refused)."""
        self.auth.set_prompt(prompt)

    async def signed_in(self, server_id: str, action: Callable[[], Awaitable[T]]) -> T:
        """Run a foreground action on a saved server, signing in in place when the server asks."""
        return await self.auth.signed_in(server_id, action)

    async def sign_in(self, server_id: str) -> McpAuthStatus:
        """Connect with sign-in allowed (the browser opens when there are no usable tokens)."""
        return await self.auth.sign_in(server_id)

    async def sign_out(self, server_id: str) -> McpAuthStatus:
        """Close the connection and delete the server's tokens and registered client from the keyring."""
        return await self.auth.sign_out(server_id)

    async def auth_status(self, server_id: str) -> McpAuthStatus:
        """Whether the server is signed in, until when, with which scopes, and for whom."""
        return await self.auth.auth_status(server_id)

"""The connection pool: one entry per server with its state, connection, log and sign-in gate.

``ensure`` connects lazily (concurrent callers share one attempt), checks the health of an
idle connection before reuse (``ping``, or ``tools/list`` where ping is unknown) and
reconnects a dead one. ``use`` runs one request with a timeout and translates failures; a
lost connection moves the state to ``error`` and the next use reconnects. Requests are
never replayed. The tool lists live in :class:`ToolCache`; the pool drops a server's when its
session starts, ends or the server says its tools changed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shlex
import time
import warnings
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import anyio
import httpx2
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

from elftia_desktop.connections.callbacks import ClientCallbacks
from elftia_desktop.connections.connection import ConnectionHooks, ServerConnection
from elftia_desktop.connections.errors import is_connection_lost, is_timeout, leaf_exception, translate
from elftia_desktop.connections.events import (
    ConnectionStateChanged,
    ListsChanged,
    LogLine,
    LogMessage,
    ServerConnected,
    ServiceEvents,
)
from elftia_desktop.connections.logs import LOG_LINES, ServerLog
from elftia_desktop.connections.oauth_gate import SignInGate, SignInPrompt, oauth_applies
from elftia_desktop.connections.oauth_storage import VaultTokenStorage
from elftia_desktop.connections.placeholders import expand_record
from elftia_desktop.connections.process_tracker import ProcessTracker
from elftia_desktop.connections.stdio_process import StdioProcess
from elftia_desktop.connections.tasks import await_cancelled
from elftia_desktop.connections.tool_cache import ToolCache
from elftia_desktop.core.errors import (
    ElftiaError,
    ServerAuthRequired,
    ServerConnectionError,
    ServerNotTrusted,
    ToolCallError,
)
from elftia_desktop.core.login_env import login_env
from elftia_desktop.core.models import ConnectionState, McpServerRecord
from elftia_desktop.core.secrets import SecretVault
from elftia_desktop.core.trust import launch_of, needs_confirmation

log = logging.getLogger(__name__)

DEFAULT_CONNECT_TIMEOUT = 30.0
DEFAULT_LIST_TIMEOUT = 30.0
DEFAULT_CALL_TIMEOUT = 120.0
HEALTH_CHECK_IDLE = 30.0
"""A connection idle longer than this is pinged before reuse."""

T = TypeVar("T")


@dataclass
class PoolEntry:
    """Everything the pool knows about one server."""

    server_id: str
    log: ServerLog
    state: ConnectionState = ConnectionState.DISCONNECTED
    failure: ElftiaError | None = None
    """Why the last attempt failed (its ``server_name`` and ``reason`` apart), or None."""
    connection: ServerConnection | None = None
    attempt: asyncio.Task[ServerConnection] | None = None
    last_used: float = 0.0
    gate: SignInGate = field(default_factory=SignInGate)
    """OAuth: whether a sign-in may happen now, and why the last flow failed."""

    @property
    def error(self) -> str | None:
        """The last failure as one message ("name: reason"), or None."""
        return str(self.failure) if self.failure is not None else None


@dataclass(frozen=True)
class PoolDefaults:
    """What a server without its own setting gets (the Settings page changes these)."""

    connect: float = DEFAULT_CONNECT_TIMEOUT
    list_: float = DEFAULT_LIST_TIMEOUT
    call: float = DEFAULT_CALL_TIMEOUT
    log_lines: int = LOG_LINES


class Timeouts(NamedTuple):
    """The seconds one server gets to connect, to answer a list request and to finish a tool call."""

    connect: float
    list_: float
    call: float


class ConnectionPool:
    """Connections by server id."""

    def __init__(self, vault: SecretVault, events: ServiceEvents, runtime_dir: Path, tools: ToolCache) -> None:
        self.vault = vault
        self.events = events
        self.runtime_dir = runtime_dir
        """Where started processes are recorded (:class:`ProcessTracker`), so a later start can stop leftovers."""
        self.tools = tools
        self.callbacks = ClientCallbacks()
        self.entries: dict[str, PoolEntry] = {}
        self.sign_in_prompt: SignInPrompt | None = None
        """Shows a person the authorization URL during foreground actions (None: nobody can sign in)."""
        self._notices: set[asyncio.Task[None]] = set()
        self.defaults = PoolDefaults()

    def timeouts(self, record: McpServerRecord) -> Timeouts:
        """The timeouts of a server: its own settings, else this pool's defaults (the one place they are read)."""
        t, d = record.config.timeout, self.defaults
        return Timeouts((t and t.connect) or d.connect, (t and t.list_) or d.list_, (t and t.call) or d.call)

    def set_defaults(self, defaults: PoolDefaults) -> None:
        """New defaults for the next connections and calls; every log is resized at once."""
        self.defaults = defaults
        for entry in self.entries.values():
            entry.log.resize(defaults.log_lines)

    def entry(self, server_id: str) -> PoolEntry:
        """The entry of a server (created on first use)."""
        entry = self.entries.get(server_id)
        if entry is None:

            def emit_line(line: str) -> None:
                """Emit one log line as ``LogLine``."""
                self.events.emit(LogLine(server_id, line))

            entry = self.entries[server_id] = PoolEntry(server_id, ServerLog(emit_line, self.defaults.log_lines))
        return entry

    def foreground(self, server_id: str) -> contextlib.AbstractContextManager[None]:
        """Let a sign-in happen (in place) while the block runs: a person is waiting on this action."""
        gate = self.entry(server_id).gate
        gate.prompt = self.sign_in_prompt
        return gate.open()

    def _failed(self, entry: PoolEntry, record: McpServerRecord, error: ElftiaError, status: int | None) -> ElftiaError:
        """Set the state a failure leads to (``auth required`` for sign-in problems); returns the error to raise."""
        error = entry.gate.explain(error, record, status)
        auth = isinstance(error, ServerAuthRequired)
        self.set_state(entry, ConnectionState.AUTH_REQUIRED if auth else ConnectionState.ERROR, error)
        return error

    def set_state(self, entry: PoolEntry, state: ConnectionState, failure: ElftiaError | None = None) -> None:
        """Change a state and emit ``ConnectionStateChanged``.

        ``error``: the message, ``reason``: it without the name, ``protocol``: the agreed protocol when connected,
        with the server's extensions (``2026-07-28 · apps, skills``, ``handshake 2025-11-25``).
        """
        entry.state, entry.failure = state, failure
        reason = failure.reason if failure is not None else None
        era = entry.connection.era if entry.connection is not None else None
        protocol = era.card_label if state is ConnectionState.CONNECTED and era is not None else None
        self.events.emit(ConnectionStateChanged(entry.server_id, state, entry.error, reason, protocol))

    async def ensure(self, record: McpServerRecord) -> ServerConnection:
        """A healthy connection to the server, connecting or reconnecting as needed."""
        entry = self.entry(record.id)
        connection = entry.connection
        if connection is not None and _launch_changed(connection.launch, record):
            await self._drop(record.id, connection)  # edited outside this process: connect anew (and ask trust)
            connection = None
        if (
            connection is not None
            and connection.alive
            and (time.monotonic() - entry.last_used < HEALTH_CHECK_IDLE or await self._healthy(record, connection))
        ):
            entry.last_used = time.monotonic()
            return connection
        if entry.attempt is None or entry.attempt.done():
            if entry.state is ConnectionState.AUTH_REQUIRED and not entry.gate.interactive:
                why = entry.failure.reason if entry.failure is not None else "sign-in required"
                raise ServerAuthRequired(why, record.id, server_name=record.name)
            entry.attempt = asyncio.get_running_loop().create_task(self._connect(record, entry))
        attempt = entry.attempt
        try:
            return await asyncio.shield(attempt)
        finally:
            if attempt.done() and entry.attempt is attempt:
                entry.attempt = None
                if not attempt.cancelled():
                    attempt.exception()  # retrieved: every waiter saw it

    async def _healthy(self, record: McpServerRecord, connection: ServerConnection) -> bool:
        session = connection.session
        if session is None:
            return False
        try:
            with anyio.fail_after(self.timeouts(record).list_):
                try:
                    await session.send_ping()
                except MCPError as exc:
                    if exc.code != types.METHOD_NOT_FOUND:
                        raise
                    await session.list_tools()
        except Exception as exc:
            log.info("health check of %s failed: %r; reconnecting", record.name, exc)
            await self._drop(record.id, connection)
            return False
        return True

    async def _connect(self, record: McpServerRecord, entry: PoolEntry) -> ServerConnection:
        if entry.connection is not None:
            await self._drop(record.id, entry.connection)
        if needs_confirmation(record):
            error = ServerNotTrusted(
                f"{record.name} is not trusted yet, so it was not started. Check what it runs, then trust it "
                f"(in the app, or: elftia-mcp trust {shlex.quote(record.name)}).",
                record.id,
            )
            self.set_state(entry, ConnectionState.ERROR, error)
            raise error
        self.set_state(entry, ConnectionState.CONNECTING)
        entry.gate.failure = None
        connection: ServerConnection | None = None
        try:
            launch = expand_record(record, os.environ | await login_env())
            launch = await asyncio.to_thread(self.vault.resolve_url, launch)
            env, headers = await asyncio.to_thread(self.vault.resolve, launch)
            auth = await asyncio.to_thread(self._auth_of, launch, entry) if oauth_applies(launch) else None
            connection = ServerConnection(
                launch, env, headers, self.callbacks, entry.log, self._hooks(record), auth, entry.gate.person_time
            )
            connection.launch = launch_of(record)  # as configured: ``ensure`` compares it with the unexpanded record
            await connection.open(self.timeouts(record).connect)
        except ElftiaError as exc:
            raise self._failed(entry, record, exc, connection.http_status if connection else None) from exc
        except asyncio.CancelledError:
            self.set_state(entry, ConnectionState.DISCONNECTED)
            raise
        entry.connection, entry.last_used = connection, time.monotonic()
        self.tools.invalidate(record.id)
        self.set_state(entry, ConnectionState.CONNECTED)
        self.events.emit(ServerConnected(record.id))
        return connection

    def _auth_of(self, record: McpServerRecord, entry: PoolEntry) -> httpx2.Auth:
        """The OAuth provider of a record (reads the keyring: run in a worker thread)."""
        from elftia_desktop.connections.oauth_provider import build_auth  # JWT, cryptography: only to sign in

        storage = VaultTokenStorage(self.vault, record.id)
        return build_auth(record, storage, self.vault.resolve_oauth(record), entry.gate)

    def _hooks(self, record: McpServerRecord) -> ConnectionHooks:
        server_id = record.id

        def on_tools_changed() -> None:
            """The server's tool list changed: drop the cache."""
            self.tools.invalidate(server_id, emit=True)

        def on_lost(connection: ServerConnection, error: ServerConnectionError) -> None:
            """The connection ended on its own: the state says why (the next use reconnects)."""
            entry = self.entries.get(server_id)
            if entry is not None and entry.connection is connection:
                entry.connection = None
                self.tools.invalidate(server_id)
                self._failed(entry, record, error, connection.http_status)

        def on_spawn(process: StdioProcess) -> None:
            """Record the started process (a crashed run's leftovers are found by it)."""
            ProcessTracker.for_dir(self.runtime_dir).add(server_id, process.pid, process.argv)

        def on_exit(process: StdioProcess) -> None:
            """Forget the ended process."""
            ProcessTracker.for_dir(self.runtime_dir).remove(process.pid)

        def on_list_changed(kind: str) -> None:
            """Emit ``ListsChanged`` (prompts or resources)."""
            self.events.emit(ListsChanged(server_id, kind))

        def on_log_message(params: types.LoggingMessageNotificationParams) -> None:
            """Emit a server's log message as ``LogMessage``."""
            self.events.emit(LogMessage(server_id, params.level, params.logger, params.data))

        return ConnectionHooks(on_tools_changed, on_lost, on_spawn, on_exit, on_list_changed, on_log_message)

    async def _drop(self, server_id: str, connection: ServerConnection) -> None:
        entry = self.entries.get(server_id)
        if entry is not None and entry.connection is connection:
            entry.connection = None
        await connection.close()

    async def use(
        self, record: McpServerRecord, phase: str, limit: float | None, op: Callable[[ClientSession], Awaitable[T]]
    ) -> T:
        """Run ``op`` on a connected session within ``limit`` seconds; failures come out translated.

        ``limit=None``: ``op`` bounds itself (a tool call's read timeout, which also cancels it on the server).
        """
        connection = await self.ensure(record)
        session = connection.session
        if session is None:  # died between ensure and here
            raise translate(EOFError(), connection.failure_context(phase))
        try:
            if limit is None:
                return await op(session)
            with anyio.fail_after(limit):
                return await op(session)
        except ElftiaError:
            raise
        except Exception as exc:
            raise await self.failure(record, connection, phase, limit, exc) from exc

    async def failure(
        self, record: McpServerRecord, connection: ServerConnection, phase: str, limit: float | None, exc: Exception
    ) -> ElftiaError:
        """The error a failed request on ``connection`` comes out as; a lost connection is dropped (the next use
        reconnects)."""
        leaf = leaf_exception(exc)
        if phase == "call" and isinstance(leaf, MCPError) and not is_timeout(leaf) and not is_connection_lost(leaf):
            return ToolCallError(f"the tool call failed: {leaf.message} (code {leaf.code})", server_name=record.name)
        error: ElftiaError = translate(exc, connection.failure_context(phase, limit))
        if is_connection_lost(exc) or not connection.alive:
            entry = self.entry(record.id)
            await self._drop(record.id, connection)
            self.tools.invalidate(record.id)
            error = self._failed(entry, record, error, connection.http_status)
        return error

    async def disconnect(self, server_id: str) -> None:
        """Close a server's connection (or cancel its attempt); state ``disconnected``."""
        entry = self.entries.get(server_id)
        if entry is None:
            return
        attempt, entry.attempt = entry.attempt, None
        if attempt is not None and not attempt.done():
            attempt.cancel()
            await await_cancelled(attempt)
        connection, entry.connection = entry.connection, None
        if connection is not None:
            await connection.close()
        self.tools.invalidate(server_id)
        if entry.state is not ConnectionState.DISCONNECTED:
            self.set_state(entry, ConnectionState.DISCONNECTED)

    def notify_roots_changed(self) -> None:
        """Send ``notifications/roots/list_changed`` to every open session, in the background."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not on the service loop: no session can be open here
            return
        for entry in self.entries.values():
            connection = entry.connection
            if connection is not None and connection.alive and connection.session is not None:
                task = loop.create_task(_send_roots_changed(entry.server_id, connection.session))
                self._notices.add(task)
                task.add_done_callback(self._notices.discard)

    async def close_all(self) -> None:
        """Close every connection in parallel and clear the pool."""
        await asyncio.gather(*(self.disconnect(sid) for sid in list(self.entries)), return_exceptions=True)
        self.entries.clear()


async def _send_roots_changed(server_id: str, session: ClientSession) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)  # roots are deprecated by the 2026-07-28 spec
        try:
            await session.send_roots_list_changed()
        except Exception as exc:  # a session closing under us: it gets the new roots when it reconnects
            log.info("could not tell %s that the roots changed: %r", server_id, exc)


def _launch_changed(connected: dict[str, Any], current: McpServerRecord) -> bool:
    """Whether what runs (or where it connects), or its trust, changed since the connection (``connected``) was made."""
    now = launch_of(current)  # once per use: a call's path pays for one fingerprint, not three
    return needs_confirmation(current, now) or connected != now

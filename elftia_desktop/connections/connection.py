"""One server connection, owned by one task.

The owner task enters the transport and the session (``EraSession``: ``server/discover`` with the
handshake as fallback, or the era the server's ``protocol`` field pins), then waits until
it is told to stop or the server goes away, and exits both in the same task (anyio requires
the task that entered a cancel scope to exit it). Other tasks use ``session`` for requests
and ``open``/``close`` to start and stop; they never touch the exit stack.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio
import httpx2
import mcp_types as types
from mcp.client.session import ClientSession

from elftia_desktop import APP_NAME, __version__
from elftia_desktop.connections import askers, listing
from elftia_desktop.connections.callbacks import ClientCallbacks, logging_callback, message_handler
from elftia_desktop.connections.era_client import EraSession
from elftia_desktop.connections.era_info import EraInfo, attempted, era_failure, era_info, mode_of, synthetic_init
from elftia_desktop.connections.era_listen import ACK_TIMEOUT, ListenHooks, listen_for_changes
from elftia_desktop.connections.errors import FailureContext, translate
from elftia_desktop.connections.logs import ServerLog
from elftia_desktop.connections.stdio_process import STDIN_CLOSE_GRACE, TERM_GRACE, StdioProcess
from elftia_desktop.connections.task_calls import TASK_CLAIM
from elftia_desktop.connections.tasks import await_cancelled, caller_cancelled
from elftia_desktop.connections.transports import TransportHooks, open_transport, sse_fallback
from elftia_desktop.core.errors import ServerConnectionError, ServerStartFailed
from elftia_desktop.core.extensions import TASKS_EXTENSION, client_extensions
from elftia_desktop.core.models import McpServerRecord, McpServerTransport
from elftia_desktop.core.secret_detect import url_secrets
from elftia_desktop.core.trust import launch_of

log = logging.getLogger(__name__)

CLOSE_TIMEOUT = STDIN_CLOSE_GRACE + 2 * TERM_GRACE + 2.0
"""Seconds ``close`` waits for the owner task before cancelling it."""
CLIENT_INFO = types.Implementation(name=APP_NAME, version=__version__)
_TRANSPORT_LABELS = {
    McpServerTransport.STDIO: "stdio",
    McpServerTransport.SSE: "SSE",
    McpServerTransport.HTTP: "Streamable HTTP",
}


@dataclass
class ConnectionHooks:
    """What the service wants to hear from a connection."""

    on_tools_changed: Callable[[], None]
    on_lost: Callable[[ServerConnection, ServerConnectionError], None]
    """The connection ended on its own: why (its ``server_name`` and ``reason`` apart)."""
    """The connection died after it was up; the argument says why."""
    on_spawn: Callable[[StdioProcess], None]
    on_exit: Callable[[StdioProcess], None]
    on_list_changed: Callable[[str], None] | None = None
    """The server's prompt or resource list changed (``prompts`` | ``resources``)."""
    on_log_message: Callable[[types.LoggingMessageNotificationParams], None] | None = None
    """The server sent a ``notifications/message``."""


class ServerConnection:
    """A live connection to one server (use ``open`` then ``close``)."""

    def __init__(
        self,
        record: McpServerRecord,
        env: dict[str, str],
        headers: dict[str, str],
        callbacks: ClientCallbacks,
        server_log: ServerLog,
        hooks: ConnectionHooks,
        auth: httpx2.Auth | None = None,
        person_time: Callable[[], float] | None = None,
    ) -> None:
        self.record = record
        self.launch = launch_of(record)
        """The trust fingerprint of what this connection runs (``core.trust.launch_of``), taken once."""
        self._auth = auth
        self._person_time = person_time or (lambda: 0.0)
        """Seconds spent waiting on a person signing in: the connect timeout does not count them."""
        self._env = env
        self._headers = headers
        self._callbacks = callbacks
        self.log = server_log
        self._log_mark = server_log.added
        """The log's lines before this connection: a failure quotes only this connection's stderr."""
        self._hooks = hooks
        self.session: ClientSession | None = None
        """An ``EraSession``, typed as the SDK's session its users call (plain calls return final results)."""
        self.process: StdioProcess | None = None
        self.init_result: types.InitializeResult | None = None
        """The handshake's result (for a modern server: the same facts from ``server/discover``)."""
        self.era: EraInfo | None = None
        """Era, protocol version and both sides' capabilities, once connected."""
        self.http_status: int | None = None
        self.transport = record.type
        """The transport that answered (SSE for a Streamable HTTP entry that fell back: :func:`sse_fallback`)."""
        self.closed = False
        self._stop = anyio.Event()
        self._listening = asyncio.Event()
        """Set once a modern server acknowledged the list-change stream (or refused it)."""
        self._ready: asyncio.Future[None] | None = None
        self._owner: asyncio.Task[None] | None = None
        self._connect_timeout = 30.0

    @property
    def target(self) -> str:
        """The command line or URL, for messages (a URL's credentials shown as ``${secret:…}``)."""
        if self.record.type is McpServerTransport.STDIO:
            return " ".join([self.record.config.command or "", *self.record.config.args])
        return url_secrets(self.record.config.url or "")[0]

    def failure_context(self, phase: str, timeout: float | None = None) -> FailureContext:
        """What is known now about this connection, to explain a failure."""
        exited = self.process is not None and self.process.exited.is_set()
        return FailureContext(
            server_name=self.record.name,
            server_id=self.record.id,
            target=self.target,
            phase=phase,
            exit_code=self.process.returncode if exited and self.process is not None else None,
            stderr_tail=self.log.tail(since=self._log_mark) if self.record.type is McpServerTransport.STDIO else [],
            http_status=self.http_status,
            timeout=timeout,
            protocol=self.era.label
            if self.era is not None
            else f"tried {attempted(self.record.config.protocol or 'auto')}",
        )

    def server_info(self) -> dict[str, Any] | None:
        """Name, version and protocol of the server, with the agreed era and both sides' capabilities."""
        info = listing.server_info(self.init_result)
        if info is not None and self.era is not None:
            info["era"] = self.era.as_dict()
            info["extensions"] = self.era.extensions
        if info is not None:
            info["transport"] = self.transport.value
        return info

    @property
    def alive(self) -> bool:
        """True while the session is up and the process (if any) runs."""
        if self.closed or self.session is None:
            return False
        return self.process is None or not self.process.exited.is_set()

    def _on_status(self, status: int) -> None:
        if status >= 400 or self.http_status is None:
            self.http_status = status

    def _on_spawn(self, process: StdioProcess) -> None:
        self.process = process
        self._hooks.on_spawn(process)

    async def open(self, limit: float) -> None:
        """Start the owner task and wait until the session is initialized (or raise why not)."""
        loop = asyncio.get_running_loop()
        self._connect_timeout = limit
        self._ready = loop.create_future()
        self._ready.add_done_callback(lambda f: f.cancelled() or f.exception())
        self._owner = loop.create_task(self._run(), name=f"mcp-owner-{self.record.name}")
        try:
            await self._wait_ready(loop, limit)
            await self._wait_listening()
        except TimeoutError as exc:
            context = self.failure_context("start", limit)  # before the close kills the process
            await self.close()
            raise translate(TimeoutError(), context) from exc
        except ServerConnectionError:
            await self.close()
            raise
        except asyncio.CancelledError:
            await asyncio.shield(self.close())
            raise

    async def _wait_listening(self) -> None:
        """A modern server's list-change stream is acknowledged (or known refused) before the connection is used.

        A change right after connecting (a tool added by the first call) is then never missed.
        """
        if self.era is None or self.era.era != "modern" or self._owner is None:
            return
        listening = asyncio.ensure_future(self._listening.wait())
        try:
            await asyncio.wait({listening, self._owner}, timeout=ACK_TIMEOUT, return_when=asyncio.FIRST_COMPLETED)
        finally:
            listening.cancel()

    async def _wait_ready(self, loop: asyncio.AbstractEventLoop, limit: float) -> None:
        """Wait for the session, up to ``limit`` seconds plus the time a person spent signing in."""
        assert self._ready is not None
        start = loop.time()
        while True:
            remaining = start + limit + self._person_time() - loop.time()
            if remaining <= 0:
                raise TimeoutError
            try:
                await asyncio.wait_for(asyncio.shield(self._ready), remaining)
                return
            except TimeoutError:
                continue

    async def _run(self) -> None:
        assert self._ready is not None
        # The session's own tasks serve every app: none inherits the call that happened to start it.
        askers.CALL.set(None)
        askers.APP.set(None)
        try:
            mode = self._mode()
            try:
                await self._session_over(self.record, mode)
            except Exception:
                fallback = None if self._ready.done() else sse_fallback(self.record, self.http_status)
                if fallback is None:
                    raise
                self.log.add(f"Streamable HTTP answered HTTP status {self.http_status}: trying SSE at the same URL")
                self.http_status = None
                await self._session_over(fallback, mode)
        except BaseException as exc:
            self._fail(exc)
            if not isinstance(exc, Exception):
                raise
        finally:
            self.session = None
            self.closed = True
            if self.process is not None and self.process.exited.is_set():
                self._hooks.on_exit(self.process)

    async def _session_over(self, record: McpServerRecord, mode: str) -> None:
        """Open ``record``'s transport and a session over it, then serve until closed."""
        assert self._ready is not None
        hooks = TransportHooks(on_stderr=self.log.add, on_spawn=self._on_spawn, on_http_status=self._on_status)
        async with (
            open_transport(record, self._env, self._headers, self._connect_timeout, hooks, self._auth) as transport,
            self._new_session(transport.read, transport.write) as session,
        ):
            await session.connect(mode)
            self.era = era_info(session, mode)
            self.transport = record.type
            self.init_result = synthetic_init(session, self.record.name)
            self.log.add(f"{self.era.summary()} over {_TRANSPORT_LABELS[record.type]}")
            self.session = session
            self._ready.set_result(None)
            await self._serve(transport.process, session)

    def _mode(self) -> str:
        """The record's protocol mode, or ``ServerStartFailed`` naming the field."""
        try:
            return mode_of(self.record)
        except ValueError as exc:
            raise ServerStartFailed(str(exc), self.record.id) from exc

    def _new_session(self, read: Any, write: Any) -> EraSession:
        """A session over our transport speaking either era (``connect`` negotiates it)."""
        handle = message_handler(self._hooks.on_tools_changed, self.log.add, self._hooks.on_list_changed)

        async def evict_then_handle(message: Any) -> None:
            """Forget the cached lists the message makes stale, then handle it."""
            await session.evict(message)
            await handle(message)

        session = EraSession(
            read,
            write,
            sampling_callback=self._callbacks.sample(self.record.id),
            elicitation_callback=self._callbacks.elicit(self.record.id, self.log.add),
            list_roots_callback=self._callbacks.list_roots(),
            logging_callback=logging_callback(self.log.add, self._hooks.on_log_message),
            message_handler=evict_then_handle,
            client_info=CLIENT_INFO,
            log_level="info",
            extensions=client_extensions(),
            result_claims={TASKS_EXTENSION: [TASK_CLAIM]},
        )
        return session

    async def _serve(self, process: StdioProcess | None, session: EraSession) -> None:
        """Wait for ``close`` or the death of the process; a modern server's list changes arrive by listening."""
        async with anyio.create_task_group() as tg:

            async def watch_exit(proc: StdioProcess) -> None:
                """End the connection when the server process exits."""
                await proc.exited.wait()
                tg.cancel_scope.cancel()

            if process is not None:
                tg.start_soon(watch_exit, process)
            if self.era is not None and self.era.era == "modern":
                hooks = ListenHooks(
                    self._hooks.on_tools_changed, self._on_list_changed, self.log.add, self._listening.set
                )
                tg.start_soon(listen_for_changes, session, hooks)
            await self._stop.wait()
            tg.cancel_scope.cancel()
        if not self._stop.is_set() and process is not None:
            await anyio.sleep(0.05)  # let the stderr reader catch the last lines
            self._hooks.on_lost(self, translate(EOFError(), self.failure_context("call")))

    def _on_list_changed(self, kind: str) -> None:
        if self._hooks.on_list_changed is not None:
            self._hooks.on_list_changed(kind)

    def _fail(self, exc: BaseException) -> None:
        assert self._ready is not None
        if not self._ready.done():
            if isinstance(exc, asyncio.CancelledError):
                self._ready.cancel()
            else:
                era = era_failure(exc, self.record, self.record.config.protocol or "auto")
                self._ready.set_exception(era or translate(exc, self.failure_context("start")))
        elif isinstance(exc, Exception) and not self._stop.is_set():
            log.info("connection to %s ended: %r", self.record.name, exc)
            self._hooks.on_lost(self, translate(exc, self.failure_context("call")))

    async def close(self) -> None:
        """Stop the owner task: graceful close of session and transport, bounded in time.

        An owner still connecting is cancelled at once: only a served session waits for the stop,
        and the transport's close (stdin, then terminate, then kill) runs shielded either way.
        """
        self._stop.set()
        owner = self._owner
        if owner is None or owner.done():
            return
        try:
            if self._ready is not None and self._ready.done():
                await asyncio.wait_for(asyncio.shield(owner), CLOSE_TIMEOUT)
        except TimeoutError:
            pass
        except asyncio.CancelledError:
            if caller_cancelled():  # the owner, asked to stop, goes on closing by itself
                raise
        if not owner.done():
            owner.cancel()
            await await_cancelled(owner)

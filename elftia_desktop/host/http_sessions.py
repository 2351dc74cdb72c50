"""The pool host's HTTP sessions as its clients, and a line in the host's log for every request failing inside it.

Each HTTP session is a client of the host (role ``http``, :class:`SessionClients`): its calls, the
servers it called, its app's ``clientInfo`` and process (``platform/tcp_peers.py``) show in the Activity and
``daemon status``. A request of the stateless protocol (2026-07-28) has no session: it is a client
while it runs. :class:`LogFailures` logs the cause of a request that fails inside the host (the app
only sees -32603).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Callable
from typing import Any, Protocol

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from elftia_desktop.connections.call_origin import ORIGIN
from elftia_desktop.host.clients import CURRENT, Client
from elftia_desktop.platform.tcp_peers import peer_pid

log = logging.getLogger(__name__)

PROCESS_LOOKUP_LIMIT = 0.5
"""Seconds a session's first request may wait while the app's process is looked up (``platform/tcp_peers.py``)."""


class ClientBook(Protocol):
    """Where the host keeps its clients."""

    def add_client(self, client: Client) -> Callable[[], None]:
        """Register a client that has no connection of its own; the callable removes it."""
        ...

    def touch(self) -> None:
        """Note a use (the host is not idle)."""
        ...


class LogFailures:
    """A server middleware: a request that fails inside the host leaves a line with its cause in the host's log."""

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Serve the request; log an unexpected exception (with its traceback) before the SDK answers -32603."""
        try:
            return await call_next(ctx)
        except (MCPError, ValidationError):
            raise
        except Exception:
            log.exception("HTTP gateway: %s failed inside the host", ctx.method)
            raise


async def _process_of(ctx: ServerRequestContext[Any, Any]) -> int | None:
    """The pid of the app whose HTTP request this is (found while its connection is open; None when not in time)."""
    scope = getattr(ctx.request, "scope", None)
    if not isinstance(scope, dict) or not scope.get("client") or not scope.get("server"):
        return None
    peer = (str(scope["client"][0]), int(scope["client"][1]))
    server = (str(scope["server"][0]), int(scope["server"][1]))
    try:
        return await asyncio.wait_for(asyncio.to_thread(peer_pid, peer, server), PROCESS_LOOKUP_LIMIT)
    except TimeoutError:
        return None


def _make_current(client: Client) -> None:
    """``client`` is whom the running request serves: its calls are noted on it and name it as their origin."""
    CURRENT.set(client)
    ORIGIN.set(client)


class SessionClients:
    """A server middleware: each HTTP session is a client of the host, current in its requests."""

    def __init__(self, book: ClientBook, agent: str | None, hub: bool) -> None:
        self._book = book
        self._agent = agent
        self._hub = hub
        self._sessions: dict[int, Client] = {}

    def _client(self, pid: int | None = None) -> tuple[Client, Callable[[], None]]:
        client = Client("http", pid, self._agent, self._hub)
        return client, self._book.add_client(client)

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Make the session's client (made on its first request) the current one, then serve the request."""
        self._book.touch()
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            if ctx.request_id is None:
                return await call_next(ctx)
            client, remove = self._client()
            _make_current(client)
            try:
                return await call_next(ctx)
            finally:
                remove()
        # The SDK has no public accessor from a handler's session to its Connection (whose exit
        # stack runs when the session ends); ServerSession keeps it as ``_connection``.
        connection = ctx.session._connection
        key = id(connection)
        known = self._sessions.get(key)
        if known is not None:
            client = known
        else:
            client, remove = self._client(await _process_of(ctx))
            self._sessions[key] = client

            async def forget() -> None:
                """The session ended: it is no client any more."""
                self._sessions.pop(key, None)
                remove()

            connection.exit_stack.push_async_callback(forget)
        _make_current(client)
        return await call_next(ctx)


def no_client() -> contextvars.Context:
    """This task's context without its client: the sessions' requests each name their own (``SessionClients``)."""
    context = contextvars.copy_context()
    context.run(CURRENT.set, None)
    context.run(ORIGIN.set, None)
    return context

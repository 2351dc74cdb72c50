"""The pool host serving an attached ``elftia-mcp serve --http``: the port that process owns, on the host's loop.

After the ``http`` hello (its welcome carries the scope's ``label``; the host reads nothing more
from the stream until then) the ``serve --http`` process (the owner, ``http_owner.py``) passes
its listening socket with ``SCM_RIGHTS`` on one byte; the host answers ``{"op": "serving"}`` and
serves the gateway's Streamable HTTP app on it (``gateway/http.py``: the bearer token, the origin
check, one MCP session per client) with the scope's :class:`HostedGateway` and the host's pool,
or answers ``{"op": "error", "message": ...}``. When the owner closes the connection (its
SIGTERM/SIGINT) or the host stops, the host ends the sessions (2 s at most), closes its copy of
the socket and closes the connection; the owner's copy keeps the port.

Each HTTP session is a client of the host (role ``http``, :class:`SessionClients`): its calls, the
servers it called, its app's ``clientInfo`` and process (``http_peers.py``) show in the Activity and
``daemon status``. A
request of the stateless protocol (2026-07-28) has no session: it is a client while it runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import os
import socket
from collections.abc import Callable
from typing import Any, Protocol

from mcp.server.context import CallNext, HandlerResult, ServerMiddleware, ServerRequestContext
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from elftia_desktop.connections.call_origin import ORIGIN
from elftia_desktop.gateway.http import http_app, serve_http
from elftia_desktop.gateway.http_address import DEFAULT_HOST, Address
from elftia_desktop.gateway.token import current_token
from elftia_desktop.host import wire
from elftia_desktop.host.clients import CURRENT, Client, ClientInfoNote
from elftia_desktop.host.http_owner import LISTENER_TAG
from elftia_desktop.host.http_peers import peer_pid
from elftia_desktop.host.links import HostedGateway, read_frame

log = logging.getLogger(__name__)

RECEIVE_TIMEOUT = 30.0
"""Seconds the host waits for the owner's socket after the welcome."""
PROCESS_LOOKUP_LIMIT = 0.5
"""Seconds a session's first request may wait while the app's process is looked up (``http_peers.py``)."""
_CLOEXEC = getattr(socket, "MSG_CMSG_CLOEXEC", 0)


class ListenerRefused(Exception):
    """What came is not a listening TCP socket (or nothing came)."""


class ClientBook(Protocol):
    """Where the host keeps its clients."""

    def add_client(self, client: Client) -> Callable[[], None]:
        """Register a client that has no connection of its own; the callable removes it."""
        ...

    def touch(self) -> None:
        """Note a use (the host is not idle)."""
        ...


def _checked_listener(data: bytes, fds: list[int], flags: int) -> socket.socket:
    if not data:
        raise ListenerRefused("the serve --http process left before it passed its socket")
    if data != LISTENER_TAG or len(fds) != 1 or flags & socket.MSG_CTRUNC:
        for fd in fds:
            os.close(fd)
        raise ListenerRefused("expected one listening socket")
    listener = socket.socket(fileno=fds[0])
    listening = listener.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN)
    if listener.family not in (socket.AF_INET, socket.AF_INET6) or listener.type != socket.SOCK_STREAM or not listening:
        listener.close()
        raise ListenerRefused("the socket passed is not a listening TCP socket")
    return listener


async def _readable(fd: int) -> None:
    loop = asyncio.get_running_loop()
    ready: asyncio.Future[None] = loop.create_future()

    def wake() -> None:
        """The socket is readable."""
        if not ready.done():
            ready.set_result(None)

    loop.add_reader(fd, wake)
    try:
        await ready
    finally:
        loop.remove_reader(fd)


async def receive_listener(writer: asyncio.StreamWriter) -> socket.socket:
    """The listening socket the owner passes on this connection (its reading paused); ``ListenerRefused``.

    The stream's transport reads with ``recv``, which drops passed descriptors: the byte that
    carries the socket is read with ``recvmsg`` on a duplicate of the connection's descriptor.
    """
    link = socket.socket(fileno=os.dup(writer.get_extra_info("socket").fileno()))
    link.setblocking(False)

    async def receive() -> socket.socket:
        """Read the byte and its socket, waiting while none is there."""
        while True:
            try:
                data, fds, flags, _address = socket.recv_fds(link, 1, 4, _CLOEXEC)
            except BlockingIOError:
                await _readable(link.fileno())
                continue
            return _checked_listener(data, fds, flags)

    try:
        return await asyncio.wait_for(receive(), RECEIVE_TIMEOUT)
    except TimeoutError as exc:
        raise ListenerRefused(f"no socket came within {RECEIVE_TIMEOUT:.0f} s") from exc
    except OSError as exc:
        raise ListenerRefused(f"the socket could not be received: {exc}") from exc
    finally:
        link.close()


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


def _no_client() -> contextvars.Context:
    """This task's context without its client: the sessions' requests each name their own (``SessionClients``)."""
    context = contextvars.copy_context()
    context.run(CURRENT.set, None)
    context.run(ORIGIN.set, None)
    return context


async def _answer(writer: asyncio.StreamWriter, message: dict[str, Any]) -> None:
    writer.write(wire.encode(message))
    with contextlib.suppress(ConnectionError):
        await writer.drain()


async def serve_listener(
    book: ClientBook,
    gateway: HostedGateway,
    hello: dict[str, Any],
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    changed: Callable[[], None],
) -> None:
    """Take the owner's socket (the welcome sent, reading paused) and serve it until the owner or the host ends."""
    try:
        listener = await receive_listener(writer)
    except ListenerRefused as exc:
        log.info("serve --http: %s", exc)
        await _answer(writer, {"op": "error", "message": str(exc)})
        return
    finally:
        writer.transport.resume_reading()  # type: ignore[attr-defined]
    agent, hub = hello.get("agent"), bool(hello.get("hub"))
    address = Address(str(hello.get("host") or DEFAULT_HOST), listener.getsockname()[1])
    vault = gateway.service.catalog.vault
    middleware: list[ServerMiddleware[Any]] = [
        SessionClients(book, agent if isinstance(agent, str) else None, hub),
        ClientInfoNote(changed),
    ]
    app = http_app(gateway, lambda: current_token(vault), address, hub_mode=hub, middleware=middleware)
    stop = asyncio.Event()
    served = asyncio.get_running_loop().create_task(serve_http(app, listener, stop, hosted=True), context=_no_client())
    log.info("serving %s for serve --http", address.url)
    await _answer(writer, {"op": "serving"})
    try:
        await _until_closed(reader, served)
    finally:
        stop.set()
        failure = await _finish(served)
        listener.close()
    if failure is not None:  # not the host's going away: the owner serves it itself
        await _answer(writer, {"op": "error", "message": failure})
    log.info("stopped serving %s", address.url)


async def _until_closed(reader: asyncio.StreamReader, served: asyncio.Task[None]) -> None:
    """Until the owner closes the connection (or the HTTP server ended by itself)."""

    async def drain() -> None:
        """Read (and drop) the owner's frames until it closes."""
        with contextlib.suppress(wire.WireError, ConnectionError):
            while await read_frame(reader) is not None:
                pass

    reading = asyncio.get_running_loop().create_task(drain())
    try:
        await asyncio.wait({reading, served}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        reading.cancel()
        await asyncio.gather(reading, return_exceptions=True)


async def _finish(served: asyncio.Task[None]) -> str | None:
    """Let the HTTP server shut down (its sessions end; cancelled, it is cancelled too); why it failed, if it did."""
    try:
        await asyncio.shield(served)
    except asyncio.CancelledError:
        served.cancel()
        await asyncio.gather(served, return_exceptions=True)
        raise
    except Exception as exc:
        log.exception("the HTTP gateway of serve --http failed")
        return f"the pool host's HTTP gateway failed: {exc}"
    return None

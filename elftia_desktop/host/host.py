"""The pool host: one ``McpService`` for a data folder, served to many clients on a local endpoint.

Clients connect to the endpoint (``platform/endpoint.py``: a 0600 Unix socket, on Linux with the
peer's uid checked, or 127.0.0.1 with the token of the claim on Windows) found through the data
folder's claim (``location.py``), and open with a hello line (``wire.py``):

* ``gateway`` (``elftia-mcp serve``): the app's MCP session, one JSON-RPC message per line, on
  the gateway of its scope (``--agent``, ``--hub``, ``--timeout``); every attached gateway of a
  scope shares one :class:`HostedGateway` (one catalog) and every scope shares the pool, so each
  server runs once. The SDK's server session carries every message.
* ``command`` (the CLI): ``call``, ``test``, ``discover``, ``logs``, ``status``, ``stop``, ``stay`` and
  ``handover`` requests (``commands.py``).
* ``http`` (``elftia-mcp serve --http`` run by hand): the host listens on the address it asks for
  and serves the scope's gateway over Streamable HTTP there (``http_link.py``).

The host also serves Streamable HTTP itself on 127.0.0.1 (``http_endpoint.py``; where is written to
``<data folder>/host-http.json``): each HTTP session is a client.

Who is attached, and what each client calls, is kept in ``clients.py``; ``changed`` is told
about every change (the window shows it).

Two kinds of host: the ``daemon`` owns its pool: it stops each server unused for ``idle``
seconds (``idle.py``; the others stay warm) and exits once it has had no client, no call and no
running server for ``EMPTY_EXIT`` seconds (or on ``stop``, SIGTERM, SIGINT), stopping every server
it started; a daemon that ``stay``s (``daemon run --stay``, started at login for apps that reach
it over HTTP) still stops idle servers but never exits for being empty. The ``window`` hosts the
desktop app's own pool: no idle stop, ``stop`` is refused (quitting the window ends it), and its
servers are the window's to close.
A ``handover`` (the window starting while a daemon runs) stops accepting, lets the calls in
flight finish (at most ``DRAIN_LIMIT`` s), closes the clients' connections (their next call
reconnects) and exits like a stop. An error while serving a client is logged with its cause.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from mcp.server import Server

from elftia_desktop.application.services import Services
from elftia_desktop.connections.call_origin import ORIGIN
from elftia_desktop.core.errors import ElftiaError
from elftia_desktop.engine.approval import Asker
from elftia_desktop.gateway.http import TokenSource
from elftia_desktop.gateway.scope import ScopeSource
from elftia_desktop.gateway.server import build_server
from elftia_desktop.gateway.token import StoredToken
from elftia_desktop.gateway.watch import watch
from elftia_desktop.host import wire
from elftia_desktop.host.attach import EMPTY_EXIT
from elftia_desktop.host.clients import CURRENT, Client, ClientCalls, ClientInfoNote, ElicitFn
from elftia_desktop.host.commands import CommandLink
from elftia_desktop.host.http_endpoint import start_host_endpoint
from elftia_desktop.host.http_link import serve_owner
from elftia_desktop.host.idle import ServerIdle
from elftia_desktop.host.links import FramedChannel, HostedGateway, read_frame, serve_gateway_link
from elftia_desktop.host.location import HostLocation
from elftia_desktop.host.status import RUNNING, describe
from elftia_desktop.platform import endpoint

log = logging.getLogger(__name__)

DISCONNECT_TIMEOUT = 5.0
"""Seconds the host, stopping, waits for its clients' handlers to end after closing their connections."""
DEFAULT_IDLE = 600.0
"""Seconds without use after which a server stops."""
DRAIN_LIMIT = 10.0
"""Seconds a host handing its pool over lets the calls in flight finish before it closes the connections."""


class WindowHostError(ElftiaError):
    """A request only a daemon can grant (``stop``, ``handover``) reached the window's host."""


class Host:
    """Serves one pool to every client on the socket of ``location``."""

    def __init__(
        self,
        services: Services,
        location: HostLocation,
        *,
        idle: float | None = DEFAULT_IDLE,
        kind: str = "daemon",
        stay: bool = False,
        changed: Callable[[], None] | None = None,
        fallback: ElicitFn | None = None,
        approve: Asker | None = None,
    ) -> None:
        """``idle``: None for no idle stop (the window); ``changed``: told when a client or a call comes or goes;
        ``stay``: a daemon that does not exit when empty;
        ``fallback``: who answers a server's question during the host's own calls (the window); ``approve``:
        who approves a tool call of an app that cannot be asked itself (the window)."""
        self.approve = approve
        self.services = services
        self.service = services.mcp
        self.location = location
        self.gateway_token: TokenSource = StoredToken(self.service.catalog.vault, location.data_dir)
        """The HTTP gateway's bearer token, read again after a reset (``gateway/token.py``)."""
        self.idle = idle
        self.kind = kind
        self.stay = stay
        self._changed = changed or (lambda: None)
        self.callers = ClientCalls(self._changed, fallback)
        self.callers.install(self.service)
        self.server_idle = ServerIdle(self.service, self.callers)
        """How long each server went unused (the daemon stops those unused for ``idle`` seconds)."""
        self.started = time.time()
        self.listening = asyncio.Event()
        """Set once the socket listens."""
        self._drain = False
        self._gateways: dict[tuple[str | None, float | None], HostedGateway] = {}
        self._servers: dict[tuple[str | None, float | None, bool], Server[Any]] = {}
        self._watchers: list[asyncio.Task[None]] = []
        self._clients: dict[int, Client] = {}
        self._connections: dict[int, tuple[asyncio.StreamWriter, asyncio.Task[Any]]] = {}
        self.address: endpoint.Address = {}
        """Where this host listens (``platform/endpoint.py``), once it does."""
        self._last_use = time.monotonic()
        self._stopping = asyncio.Event()

    def touch(self) -> None:
        """Note a use (a message from a client)."""
        self._last_use = time.monotonic()

    def stop(self, *, drain: bool = False) -> None:
        """Ask the host to stop: it closes the socket, its clients (after their calls, with ``drain``) and
        (a daemon) its servers."""
        self._drain = self._drain or drain
        self._stopping.set()

    def clients(self) -> list[Client]:
        """The attached clients, in the order they came."""
        return list(self._clients.values())

    def add_client(self, client: Client) -> Callable[[], None]:
        """Register a client without a connection of its own (an HTTP session); the callable removes it."""
        key = id(client)
        self._clients[key] = client
        self._changed()

        def remove() -> None:
            """Forget the client."""
            if self._clients.pop(key, None) is not None:
                self._changed()

        return remove

    def _request_stop(self) -> None:
        if self.kind == "window":
            raise WindowHostError(
                f"the pool is hosted by the Elftia Desktop window (pid {os.getpid()}); quit the window to stop it"
            )
        self.stop()

    def _request_handover(self) -> None:
        if self.kind == "window":
            raise WindowHostError(f"the Elftia Desktop window (pid {os.getpid()}) hosts the pool and keeps it")
        log.info("handing the pool over: no new clients, the calls in flight finish, then this host exits")
        self.stop(drain=True)

    def _request_stay(self) -> None:
        if self.kind == "daemon" and not self.stay:
            log.info("staying when empty from now on (asked by daemon start --stay or gateway install)")
            self.stay = True

    async def run(self) -> None:
        """Listen until stopped (or, a daemon, empty for long enough); then stop every server."""
        listener, self.address = await endpoint.listen(self.location.socket, self._on_client, wire.MAX_FRAME)
        tasks = [asyncio.get_running_loop().create_task(self._idle_loop())] if self.idle is not None else []
        self.location.write_claim(self.address)
        port = self.services.settings.gateway_http_port
        http = await start_host_endpoint(self, self._changed, self.location.data_dir, port)
        self.listening.set()
        where = endpoint.describe(self.address)
        log.info("pool host %d (%s) listening on %s for %s", os.getpid(), self.kind, where, self.location.data_dir)
        try:
            await self._stopping.wait()
        finally:
            listener.close()
            self.location.remove_claim()
            endpoint.remove(self.address)
            if self._drain and not await self.callers.wait_quiet(DRAIN_LIMIT):
                running = self.callers.running
                log.warning("%d call(s) still ran after %.0f s: their clients get an error", running, DRAIN_LIMIT)
            for task in [*tasks, *self._watchers]:
                task.cancel()
            self.service.calls.tasks.close()  # the tasks go on upstream; the next host follows them
            await self._disconnect_all()
            if http is not None:
                await http.close()
            if self.kind == "daemon":
                await self.service.cleanup()
            log.info("pool host %d stopped", os.getpid())

    async def _disconnect_all(self) -> None:
        """Close every client's connection and let its handler finish (its calls are cancelled)."""
        for writer, _task in self._connections.values():
            writer.close()
        tasks = [task for _writer, task in self._connections.values()]
        if tasks:
            _done, pending = await asyncio.wait(tasks, timeout=DISCONNECT_TIMEOUT)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)

    def _empty(self) -> bool:
        """No client, no call and no running server (a daemon like that has nothing to keep)."""
        servers = any(self.service.connection_state(s) in RUNNING for s in self.service.pool.entries)
        return not self._clients and not self.callers.running and not servers

    async def _idle_loop(self) -> None:
        """Stop each server unused for ``idle`` seconds; exit once empty for ``EMPTY_EXIT`` (at most ``idle``)."""
        idle = self.idle or DEFAULT_IDLE
        empty_exit = min(EMPTY_EXIT, idle)
        tick = max(0.05, min(empty_exit / 4, 5.0))
        empty_since: float | None = None
        while True:
            await asyncio.sleep(tick)
            try:
                await self.server_idle.stop_idle(idle)
            except Exception:  # the next tick tries again; the cause is in the log
                log.exception("stopping the idle servers failed")
            if self.stay or not self._empty():
                empty_since = None
                continue
            empty_since = empty_since or time.monotonic()
            if time.monotonic() - max(empty_since, self._last_use) >= empty_exit:
                log.info("no client and no running server for %.0f s: exiting", empty_exit)
                self.stop()
                return

    async def _records(self) -> list[Any]:
        return await self.service.current_records()

    # -- clients ------------------------------------------------------------------------------

    async def _on_client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        key = id(writer)
        task = asyncio.current_task()
        assert task is not None
        self._connections[key] = (writer, task)
        try:
            allowed, peer_pid = endpoint.peer_check(writer)
            if not allowed:
                log.warning("refused a connection of another user")
                return
            payload = await read_frame(reader)
            if payload is None:
                return
            hello = wire.decode(payload)
            if not endpoint.token_ok(self.address, hello):
                log.warning("refused a connection without the endpoint's token")
                return
            await self._serve(hello, reader, writer, key, peer_pid)
        except (wire.WireError, ConnectionError) as exc:
            log.info("a client left: %s", exc)
        except asyncio.CancelledError:
            if not self._stopping.is_set():
                raise
            # the host stops: end quietly (asyncio logs a cancelled connection handler as an unhandled error)
        except Exception:
            log.exception("serving a client failed")  # the cause, in the host's log; the client sees the close
        finally:
            await self._forget(key, writer)

    async def _forget(self, key: int, writer: asyncio.StreamWriter) -> None:
        """A connection ended: drop its client and close it."""
        self._connections.pop(key, None)
        if self._clients.pop(key, None) is not None:
            self._changed()
        self.touch()
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()

    async def _refuse(self, writer: asyncio.StreamWriter, message: str, kind: str | None = None) -> None:
        writer.write(wire.encode({"elftiaHost": wire.VERSION, "ok": False, "error": message, "kind": kind}))
        await writer.drain()

    def _attach(self, key: int, client: Client) -> None:
        """Register ``client`` and make it the current client of this connection's tasks."""
        self._clients[key] = client
        CURRENT.set(client)
        ORIGIN.set(client)
        self._changed()

    async def _serve(
        self,
        hello: dict[str, Any],
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        key: int,
        peer_pid: int | None,
    ) -> None:
        if hello.get("elftiaHost") != wire.VERSION:
            await self._refuse(writer, f"this host speaks version {wire.VERSION}, not {hello.get('elftiaHost')!r}")
            return
        role = hello.get("role")
        pid = peer_pid if peer_pid is not None else hello.get("pid") if isinstance(hello.get("pid"), int) else None
        if role == "gateway":
            agent, hub, timeout = hello.get("agent"), bool(hello.get("hub")), hello.get("timeout")
            try:
                server = await self._server_for(agent, float(timeout) if timeout else None, hub)
            except ElftiaError as exc:
                await self._refuse(writer, str(exc), type(exc).__name__)
                return
            await self._welcome(writer)
            self._attach(key, Client("gateway", pid, agent, hub))
            await serve_gateway_link(server, FramedChannel(reader, writer), self.touch)
        elif role == "command":
            await self._welcome(writer)
            self._attach(key, Client("command", pid))
            stops = (self._request_stop, self._request_handover, self._request_stay)
            await CommandLink(self.service, self.callers, reader, writer, self.status, *stops).run()
        elif role == "http":
            await self._serve_http(hello, reader, writer, key, pid)
        else:
            await self._refuse(writer, f"unknown role {role!r}")

    async def _serve_http(
        self,
        hello: dict[str, Any],
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        key: int,
        pid: int | None,
    ) -> None:
        """``elftia-mcp serve --http``: the host listens where it asks, with its scope (``http_link.py``)."""
        client = Client("listener", pid, hello.get("agent"), bool(hello.get("hub")))
        replies = partial(self._welcome, writer), partial(self._refuse, writer)
        await serve_owner(self, self._changed, hello, reader, replies, partial(self._attach, key, client))

    async def _welcome(self, writer: asyncio.StreamWriter, **extra: Any) -> None:
        reply = {
            "elftiaHost": wire.VERSION,
            "ok": True,
            "pid": os.getpid(),
            "dataDir": str(self.location.data_dir),
            "hostedBy": self.kind,
            **extra,
        }
        writer.write(wire.encode(reply))
        await writer.drain()

    async def _server_for(self, agent: str | None, call_timeout: float | None, hub: bool) -> Server[Any]:
        """The MCP server of a scope (made on first use); ``AgentNotFound`` for an unknown agent."""
        server = self._servers.get((agent, call_timeout, hub))
        if server is not None:
            return server
        gateway = await self.hosted_gateway(agent, call_timeout)
        server = self._servers[(agent, call_timeout, hub)] = build_server(gateway, hub_mode=hub)
        server.middleware.append(ClientInfoNote(self._changed))
        return server

    async def hosted_gateway(self, agent: str | None, call_timeout: float | None) -> HostedGateway:
        """The gateway of a scope, shared by its clients (made on first use); ``AgentNotFound`` for an unknown agent."""
        gateway = self._gateways.get((agent, call_timeout))
        if gateway is None:
            source = await asyncio.to_thread(self._scope_source, agent)
            gateway = HostedGateway(self.service, source.current, self.callers, call_timeout)
            gateway.window_approval = self.approve
            self._gateways[(agent, call_timeout)] = gateway
            self._watchers.append(asyncio.get_running_loop().create_task(watch(gateway, source.refresh)))
        return gateway

    def _scope_source(self, agent: str | None) -> ScopeSource:
        if agent is None:
            return ScopeSource()
        store = self.services.agents
        agent_id = store.get(agent).id
        return ScopeSource(lambda: store.get(agent_id), store.path)

    async def status(self) -> dict[str, Any]:
        """What ``elftia-mcp daemon status`` shows: this host, its clients, its servers and their processes."""
        return await describe(self, await self._records())

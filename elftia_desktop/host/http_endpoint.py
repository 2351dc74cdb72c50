"""The pool host serving Streamable HTTP itself: apps that speak HTTP reach the pool with no process between.

:func:`start_host_endpoint` (one call from the host's start) listens on 127.0.0.1, on the port of
the setting ``gatewayHttpPort`` (0, the default: a port the OS picks; a fixed port that is taken
falls back to one the OS picks, with a warning in the host's log), and writes where it listens to
``<data folder>/host-http.json`` (mode 0600: ``url``, ``port``, ``pid``), removed when the host
stops. The scope is in the URL path:

* ``/mcp``: every active server; ``/hub/mcp``: the same as ``find_tools`` and ``call_tool``;
* ``/agents/<name>/mcp`` and ``/agents/<name>/hub/mcp``: the agent's servers and tools (the name
  URL-encoded; an unknown agent is answered 404 saying which agents there are).

Every request needs the gateway's bearer token and passes the Origin check (``gateway/http.py``).
Each scope has one SDK session manager on the host's loop; each HTTP session (or request of the
stateless protocol) is a client of the host with that scope (``http_sessions.SessionClients``).
``serve --http`` run by hand gets its own listener of one scope (``http_link.serve_owner``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from mcp.server import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import Receive, Scope, Send

from elftia_desktop.core.atomic_file import atomic_write_text
from elftia_desktop.core.errors import ElftiaError
from elftia_desktop.gateway.http import BearerGuard, TokenSource, refuse, serve_http
from elftia_desktop.gateway.http_address import (
    DEFAULT_HOST,
    LOOPBACK_HOSTS,
    MCP_PATH,
    Address,
    endpoint_file,
    listen,
    parse_scope_path,
    read_endpoint,
)
from elftia_desktop.gateway.server import build_server
from elftia_desktop.host.clients import ClientInfoNote
from elftia_desktop.host.http_sessions import ClientBook, LogFailures, SessionClients, no_client
from elftia_desktop.host.links import HostedGateway

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ScopeKey:
    """What one URL path serves: an agent (None: every active server), hub mode, a call timeout."""

    agent: str | None = None
    hub: bool = False
    timeout: float | None = None


def host_route(path: str) -> ScopeKey | None:
    """The scope of a path on the host's endpoint (``http_address.parse_scope_path``); None for any other path."""
    scope = parse_scope_path(path)
    return ScopeKey(*scope) if scope is not None else None


class EndpointHost(ClientBook, Protocol):
    """What the endpoint needs of the host."""

    gateway_token: TokenSource
    """The gateway's bearer token stored now (``gateway.token.StoredToken``)."""

    async def hosted_gateway(self, agent: str | None, call_timeout: float | None) -> HostedGateway:
        """The gateway of a scope (``AgentNotFound`` for an unknown agent)."""
        ...


def _security(host: str) -> TransportSecuritySettings | None:
    """The SDK's DNS-rebinding protection on a loopback address, as its ``streamable_http_app`` sets it."""
    if host not in LOOPBACK_HOSTS:
        return None
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
    )


class ScopeManagers:
    """One SDK session manager per scope, made on its first request and run on the host's loop until closed."""

    def __init__(self, host: EndpointHost, changed: Callable[[], None], security: TransportSecuritySettings | None):
        self._host = host
        self._changed = changed
        self._security = security
        self._managers: dict[ScopeKey, StreamableHTTPSessionManager] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._lock = asyncio.Lock()
        self._closing = asyncio.Event()

    async def _server(self, key: ScopeKey) -> Server[Any]:
        gateway = await self._host.hosted_gateway(key.agent, key.timeout)
        server = build_server(gateway, hub_mode=key.hub)
        sessions = SessionClients(self._host, key.agent, key.hub)
        server.middleware[:0] = [LogFailures(), sessions, ClientInfoNote(self._changed)]
        return server

    async def get(self, key: ScopeKey) -> StreamableHTTPSessionManager:
        """The running manager of ``key`` (``ElftiaError`` when the scope cannot be had)."""
        manager = self._managers.get(key)
        if manager is not None:  # every request but a scope's first: no lock to take
            return manager
        async with self._lock:
            manager = self._managers.get(key)
            if manager is None:
                manager = StreamableHTTPSessionManager(app=await self._server(key), security_settings=self._security)
                started = asyncio.Event()
                loop = asyncio.get_running_loop()
                self._tasks.append(loop.create_task(self._run(manager, started), context=no_client()))
                await started.wait()
                self._managers[key] = manager
            return manager

    async def _run(self, manager: StreamableHTTPSessionManager, started: asyncio.Event) -> None:
        async with manager.run():
            started.set()
            await self._closing.wait()

    async def close(self) -> None:
        """End every session of every scope."""
        self._closing.set()
        await asyncio.gather(*self._tasks, return_exceptions=True)


class Router:
    """The ASGI app behind the guard: the path picks the scope's session manager."""

    def __init__(self, managers: ScopeManagers, route: Callable[[str], ScopeKey | None]) -> None:
        self._managers = managers
        self._route = route

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one HTTP request (uvicorn's lifespan messages are acknowledged)."""
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        key = self._route(str(scope.get("path") or ""))
        if key is None:
            await refuse(send, 404, "not_found", f"no MCP endpoint here; the gateway's is at {MCP_PATH}")
            return
        try:
            manager = await self._managers.get(key)
        except ElftiaError as exc:
            await refuse(send, 404, "not_found", str(exc))
            return
        try:
            await manager.handle_request(scope, receive, send)
        except Exception:
            log.exception("HTTP gateway: %s %s failed", scope.get("method"), scope.get("path"))
            raise


class HttpEndpoint:
    """A Streamable HTTP listener of the host on ``address`` (port 0: one the OS picks)."""

    def __init__(
        self, host: EndpointHost, changed: Callable[[], None], route: Callable[[str], ScopeKey | None] = host_route
    ) -> None:
        self._host = host
        self._changed = changed
        self._route = route
        self.address: Address | None = None
        self._stop = asyncio.Event()
        self._served: asyncio.Task[None] | None = None
        self._managers: ScopeManagers | None = None

    async def start(self, address: Address) -> Address:
        """Listen on ``address`` and serve (``OSError`` when it cannot be had); where it really listens."""
        sock, self.address = listen(address)
        self._managers = ScopeManagers(self._host, self._changed, _security(address.host))
        app = BearerGuard(Router(self._managers, self._route), self._host.gateway_token, self.address)
        serving = serve_http(app, sock, self._stop, hosted=True)
        self._served = asyncio.get_running_loop().create_task(serving, context=no_client())
        return self.address

    @property
    def served(self) -> asyncio.Task[None] | None:
        """The task that serves (done when the listener failed or was stopped)."""
        return self._served

    async def close(self) -> None:
        """Stop listening, end the sessions (2 s at most for open streams); the port is free afterwards."""
        self._stop.set()
        if self._served is not None:
            with contextlib.suppress(Exception):
                await self._served
        if self._managers is not None:
            await self._managers.close()


class HostEndpoint:
    """The host's own endpoint and its file: started by :func:`start_host_endpoint`, ended by :meth:`close`."""

    def __init__(self, endpoint: HttpEndpoint, data_dir: Path) -> None:
        self.endpoint = endpoint
        self.data_dir = data_dir

    @property
    def url(self) -> str:
        """The URL of every active server's scope."""
        assert self.endpoint.address is not None
        return self.endpoint.address.url

    async def close(self) -> None:
        """Remove the file (when it is still this host's), stop serving."""
        written = read_endpoint(self.data_dir)
        if written is not None and written.get("pid") == os.getpid():
            with contextlib.suppress(OSError):
                endpoint_file(self.data_dir).unlink()
        await self.endpoint.close()


async def start_host_endpoint(
    host: EndpointHost, changed: Callable[[], None], data_dir: Path, port: int
) -> HostEndpoint | None:
    """Serve the host's Streamable HTTP endpoint on 127.0.0.1:``port`` and write where (None when it cannot listen)."""
    endpoint = HttpEndpoint(host, changed)
    try:
        try:
            address = await endpoint.start(Address(DEFAULT_HOST, port))
        except OSError as exc:
            if not port:
                raise
            log.warning("HTTP gateway: port %d cannot be had (%s); listening on a port the OS picks", port, exc)
            address = await endpoint.start(Address(DEFAULT_HOST, 0))
    except OSError as exc:
        log.error("HTTP gateway: cannot listen on %s: %s", DEFAULT_HOST, exc)
        return None
    record = {"url": address.url, "port": address.port, "pid": os.getpid()}
    await asyncio.to_thread(atomic_write_text, endpoint_file(data_dir), json.dumps(record, indent=2) + "\n")
    log.info("HTTP gateway at %s", address.url)
    return HostEndpoint(endpoint, data_dir)

"""Who is attached to the host: each client's app, process, start, the servers it called and its calls in flight.

The host makes a :class:`Client` for every connection once its hello is accepted and sets it as
:data:`CURRENT` in the connection's task, so every task that serves the connection (the SDK's
request handlers, a command's call) sees it. :class:`ClientCalls` (the host's ``Callers``) notes
each call on the current client while it runs; :class:`ClientInfoNote` (a middleware of every
hosted gateway server) takes the app's ``clientInfo`` from its ``initialize`` (or, in the
stateless protocol, from the request's envelope). The process id comes from the socket's peer
credentials where the OS gives them (Linux ``SO_PEERCRED``), else from the hello.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
import time
from collections.abc import Awaitable, Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext

from elftia_desktop.host.links import Asker, Callers

CURRENT: ContextVar[Client | None] = ContextVar("elftia_host_client", default=None)
"""The client whose connection the running task serves (None: the host's own work, the window's)."""

ElicitFn = Callable[[str, str, dict[str, Any]], Awaitable[tuple[str, dict[str, Any] | None]]]


@dataclass
class Client:
    """One attached client, as ``status`` reports it."""

    role: str
    """``gateway`` (``elftia-mcp serve``) or ``command`` (the CLI)."""
    pid: int | None
    agent: str | None = None
    hub: bool = False
    since: float = field(default_factory=time.time)
    name: str | None = None
    """The app's ``clientInfo.name`` (a gateway's app), None until it said."""
    version: str | None = None
    servers: list[str] = field(default_factory=list)
    """Ids of the servers it called, in the order of their first call."""
    calls: int = 0
    """Its calls in flight."""

    @property
    def label(self) -> str:
        """The app's name for a call's origin (``call_origin.py``): its ``clientInfo`` name, else its role."""
        if self.name:
            return self.name
        return "elftia-mcp" if self.role == "command" else "an attached app"

    def to_json(self, names: dict[str, str]) -> dict[str, Any]:
        """The client as ``daemon status --json`` lists it (``names``: server id -> name)."""
        return {
            "role": self.role,
            "pid": self.pid,
            "agent": self.agent,
            "hub": self.hub,
            "since": self.since,
            "clientName": self.name,
            "clientVersion": self.version,
            "servers": list(self.servers),
            "serverNames": [names.get(server_id, server_id) for server_id in self.servers],
            "callsInFlight": self.calls,
        }


def peer_credentials(sock: socket.socket | None) -> tuple[int, int] | None:
    """``(pid, uid)`` of the process at the other end (Linux ``SO_PEERCRED``); None where the OS does not say."""
    option = getattr(socket, "SO_PEERCRED", None)
    if sock is None or option is None:
        return None
    pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i")))
    return int(pid), int(uid)


class ClientCalls(Callers):
    """``Callers`` that also notes each call on the calling client and tells ``changed`` about it.

    ``fallback``: who answers a server's question when no client's call runs there (the window's
    own calls: its dialog); without one the question is declined, as before.
    """

    def __init__(self, changed: Callable[[], None], fallback: ElicitFn | None = None) -> None:
        super().__init__()
        self._changed = changed
        self._fallback = fallback
        self._quiet = asyncio.Event()
        self._quiet.set()

    @contextlib.contextmanager
    def calling(self, server_id: str, asker: Asker) -> Iterator[None]:
        """While a call of ``asker`` runs on ``server_id`` (noted on the current client)."""
        client = CURRENT.get()
        if client is not None:
            if server_id not in client.servers:
                client.servers.append(server_id)
            client.calls += 1
        self._quiet.clear()
        self._changed()
        try:
            with super().calling(server_id, asker):
                yield
        finally:
            if client is not None:
                client.calls -= 1
            if not self.running:
                self._quiet.set()
            self._changed()

    async def wait_quiet(self, limit: float) -> bool:
        """Wait until no call runs, at most ``limit`` seconds; whether none runs."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._quiet.wait(), limit)
        return not self.running

    async def elicit(self, server_id: str, message: str, schema: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
        """Ask the client whose call runs on ``server_id``; else the fallback (the window), else decline."""
        if self._asker(server_id) is None and self._fallback is not None:
            return await self._fallback(server_id, message, schema)
        return await super().elicit(server_id, message, schema)


def _client_info(ctx: ServerRequestContext[Any, Any]) -> dict[str, Any] | None:
    if ctx.method == "initialize":
        info = (ctx.params or {}).get("clientInfo")
        return info if isinstance(info, dict) else None
    params = ctx.session.client_params
    if params is None:
        return None
    return {"name": params.client_info.name, "version": params.client_info.version}


class ClientInfoNote:
    """A server middleware that notes the current client's ``clientInfo`` (name, version) once it is known."""

    def __init__(self, changed: Callable[[], None]) -> None:
        self._changed = changed

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Note the app's name and version, then serve the request."""
        client = CURRENT.get()
        if client is not None and client.name is None:
            info = _client_info(ctx)
            if info is not None and isinstance(info.get("name"), str):
                client.name = info["name"]
                client.version = str(info.get("version") or "") or None
                self._changed()
        return await call_next(ctx)

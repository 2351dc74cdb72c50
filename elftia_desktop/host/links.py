"""The host's side of its clients: MCP over a local connection, and who asks the user when a server asks.

:func:`serve_gateway_link` runs the gateway's SDK server on one connection (one MCP
session per attached gateway, so progress, cancellation and log levels stay per client, as over
stdio). :class:`Callers` knows which client's call runs on which server: a server's elicitation or
sampling request goes to the client whose call caused it (the pool asks it in that call's context,
``connections/askers.py``).
:class:`HostedGateway` is the gateway of one scope inside the host: its calls register with
``Callers``, and it never stops the shared pool's servers.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any, Protocol

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.shared.message import SessionMessage

from elftia_desktop.connections.askers import APP
from elftia_desktop.connections.service import McpService
from elftia_desktop.gateway.core import Context, Gateway
from elftia_desktop.gateway.scope import Scope
from elftia_desktop.host import wire
from elftia_desktop.tools.names import ToolRef

log = logging.getLogger(__name__)

_ASKER: ContextVar[Asker | None] = ContextVar("elftia_host_asker", default=None)
"""The client whose call the current task runs (set by :meth:`Callers.calling`)."""

SamplingAnswer = types.CreateMessageResult | types.CreateMessageResultWithTools | types.ErrorData


class Asker(Protocol):
    """A client that can answer a server's questions for the call it made."""

    async def elicit(self, server_id: str, message: str, schema: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
        """Ask the user (form mode); ``(action, content)``."""
        ...

    async def sample(self, server_id: str, params: types.CreateMessageRequestParams) -> SamplingAnswer:
        """Forward a sampling request."""
        ...


class Callers:
    """Which client's calls run on which server, for routing the server's questions back."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        """``clock``: the seconds counter the times of calls are read from (tests pass one they advance)."""
        self.clock = clock
        self._calls: dict[str, list[Asker]] = {}
        self.running = 0
        """Calls running now (the host is not idle while any runs)."""
        self.last_call: dict[str, float] = {}
        """When a call on each server last started or ended (``clock``)."""
        self._listeners: dict[str, int] = {}

    @contextlib.contextmanager
    def calling(self, server_id: str, asker: Asker) -> Iterator[None]:
        """While a call of ``asker`` runs on ``server_id``."""
        calls = self._calls.setdefault(server_id, [])
        calls.append(asker)
        self.running += 1
        self.last_call[server_id] = self.clock()
        tokens = (_ASKER.set(asker), APP.set(asker))
        try:
            yield
        finally:
            _ASKER.reset(tokens[0])
            APP.reset(tokens[1])
            self.running -= 1
            self.last_call[server_id] = self.clock()
            calls.remove(asker)
            if not calls:
                self._calls.pop(server_id, None)

    @contextlib.contextmanager
    def listening(self, server_id: str) -> Iterator[None]:
        """While a client listens to ``server_id`` (``logs --follow``): the server is busy."""
        self._listeners[server_id] = self._listeners.get(server_id, 0) + 1
        try:
            yield
        finally:
            self._listeners[server_id] -= 1
            if not self._listeners[server_id]:
                del self._listeners[server_id]

    def busy(self, server_id: str) -> bool:
        """Whether a call runs on ``server_id`` now, or a client listens to it."""
        return bool(self._calls.get(server_id)) or server_id in self._listeners

    def install(self, service: McpService) -> None:
        """Make this registry the service's answer to elicitation and sampling."""
        service.set_elicitation_handler(self.elicit)
        service.set_sampling_handler(self.sample)

    def _asker(self, server_id: str) -> Asker | None:
        """The client of the call the question is asked in (``connections/askers.py``); None: no client's."""
        asker = _ASKER.get()
        return asker if asker is not None and asker in self._calls.get(server_id, ()) else None

    async def elicit(self, server_id: str, message: str, schema: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
        """Ask the client whose call runs on ``server_id``; declined when none does."""
        asker = self._asker(server_id)
        if asker is None:
            return "decline", None
        return await asker.elicit(server_id, message, schema)

    async def sample(self, server_id: str, params: types.CreateMessageRequestParams) -> SamplingAnswer:
        """Forward to the client whose call runs on ``server_id``; refused when none does."""
        asker = self._asker(server_id)
        if asker is None:
            return types.ErrorData(code=types.INVALID_REQUEST, message="No client of Elftia's host can answer this.")
        return await asker.sample(server_id, params)


class HostedGateway(Gateway):
    """The gateway of one scope inside the host: many clients, the host's shared pool."""

    def __init__(
        self, service: McpService, scope: Callable[[], Scope], callers: Callers, call_timeout: float | None
    ) -> None:
        super().__init__(service, scope, call_timeout=call_timeout)
        self._callers = callers
        callers.install(service)  # the base class made its own upstreams the service's handler

    async def call_ref(self, ctx: Context, ref: ToolRef, arguments: dict[str, Any]) -> types.CallToolResult:
        """Call ``ref``'s tool; the server's questions during the call go to this gateway's clients."""
        with self._callers.calling(ref.server_id, self):
            return await super().call_ref(ctx, ref, arguments)

    async def elicit(self, server_id: str, message: str, schema: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
        """Ask the client of this gateway whose call runs on ``server_id``."""
        return await self.upstreams.elicit(server_id, message, schema)

    async def sample(self, server_id: str, params: types.CreateMessageRequestParams) -> SamplingAnswer:
        """Forward sampling to the client of this gateway whose call runs on ``server_id``."""
        return await self.upstreams.sample(server_id, params)


async def read_frame(reader: asyncio.StreamReader) -> bytes | None:
    """The next line's payload (without its line end); None when the client closed."""
    try:
        line = await reader.readuntil(b"\n")
    except asyncio.IncompleteReadError as exc:
        if exc.partial:
            raise wire.WireError("the connection closed in the middle of a message") from exc
        return None
    except asyncio.LimitOverrunError as exc:
        raise wire.WireError(f"a message longer than the limit of {wire.MAX_FRAME} bytes") from exc
    return line[:-1]


class Channel(Protocol):
    """One client's messages, one JSON-RPC message per item, both ways."""

    async def read(self) -> bytes | None:
        """The next message; None when the client closed."""
        ...

    def write(self, payload: bytes) -> None:
        """Queue one message for the client (sent in order, whole)."""
        ...

    async def drain(self) -> None:
        """Wait until what was queued is on its way (a client that went away is not an error)."""
        ...


class FramedChannel:
    """An attached gateway's socket: one message per line (``wire.py``)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer

    async def read(self) -> bytes | None:
        """The next frame's payload."""
        return await read_frame(self._reader)

    def write(self, payload: bytes) -> None:
        """One frame."""
        self._writer.write(wire.frame(payload))

    async def drain(self) -> None:
        """Wait for the socket's buffer to empty."""
        with contextlib.suppress(ConnectionError):
            await self._writer.drain()


async def serve_gateway_link(server: Server[Any], channel: Channel, touch: Callable[[], None]) -> None:
    """Serve one gateway client on ``channel`` until it goes away; its running requests are cancelled then."""
    read_in, read_out = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_in, write_out = anyio.create_memory_object_stream[SessionMessage](0)

    async def pump_in() -> None:
        """The client's messages to the SDK server."""
        async with read_in:
            while (payload := await channel.read()) is not None:
                touch()
                try:
                    message = types.jsonrpc_message_adapter.validate_json(payload, by_name=False)
                except Exception as exc:  # the SDK answers a malformed message with a parse error
                    await read_in.send(exc)
                    continue
                await read_in.send(SessionMessage(message))

    async def pump_out() -> None:
        """The SDK server's messages to the client."""
        async with write_out:
            async for item in write_out:
                channel.write(item.message.model_dump_json(by_alias=True, exclude_unset=True).encode())
                await channel.drain()

    async with anyio.create_task_group() as group:
        group.start_soon(pump_in)
        group.start_soon(pump_out)
        await server.run(read_out, write_in, server.create_initialization_options())
        group.cancel_scope.cancel()

"""The gateway in the test's own process, on the path the pool host serves each app on, with no pipes.

    async with memory_gateway(hub=False, elicitation_callback=elicit) as (session, inbox):
        ...                      # session: the SDK's ClientSession; inbox: notifications and log messages
    async with http_gateway_here() as url:      # ``serve --http 0 --no-daemon`` in this process
        ...                      # real Streamable HTTP on 127.0.0.1, behind the stored token

As ``elftia-mcp serve --no-daemon`` runs it on stdio (``cli/gateway_serve.py``): the services of the
test's data folder, a ``HostedGateway`` of every active server (or of ``agent``), the config and the
agent watched for changes, and ``links.serve_gateway_link`` (the host's per-client path), whose JSON-RPC
lines go through memory instead of stdin and stdout; the gateway's servers stop when the session ends.
``http_gateway_here`` is ``serve --http --no-daemon``'s gateway and guarded app, served on a real socket.
With the ``memory_servers`` fixture the test servers run in memory too: no process at all. The
gateway's process, the pool host and the servers' processes are tests/gateway's stdio and HTTP
tests and tests/host.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import AsyncIterator
from typing import Any

import anyio
import mcp_types as types
from anyio.abc import TaskStatus
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.client._transport import TransportStreams
from mcp.client.session import ClientSession
from mcp.shared.message import SessionMessage

from elftia_desktop.application.services import open_services
from elftia_desktop.cli.gateway_serve import scope_source
from elftia_desktop.core.paths import data_dir
from elftia_desktop.gateway.core import Gateway
from elftia_desktop.gateway.http import http_app, serve_http
from elftia_desktop.gateway.http_address import listen, parse_address
from elftia_desktop.gateway.server import build_server
from elftia_desktop.gateway.token import StoredToken
from elftia_desktop.gateway.watch import watch
from elftia_desktop.host.links import Callers, HostedGateway, serve_gateway_link
from tests.gateway.gateway_helpers import Inbox

CLOSE_LIMIT = 30.0
"""Seconds the gateway may take to see the app gone and stop its servers (generous: a loaded machine)."""


class MemoryChannel:
    """The gateway's end of an app's stdin and stdout: one JSON-RPC message per item, in memory."""

    def __init__(self, incoming: MemoryObjectReceiveStream[bytes], outgoing: MemoryObjectSendStream[bytes]) -> None:
        self._incoming = incoming
        self._outgoing = outgoing

    async def read(self) -> bytes | None:
        """The app's next message; None once the app closed its end (its stdin's end of input)."""
        try:
            return await self._incoming.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            return None

    def write(self, payload: bytes) -> None:
        """One message to the app (the buffer is unbounded, as a pipe the app reads is for these tests)."""
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            self._outgoing.send_nowait(payload)

    async def drain(self) -> None:
        """Nothing waits in memory; a checkpoint, as a drain is one."""
        await anyio.lowlevel.checkpoint()

    def close(self) -> None:
        """The gateway's end of its output closed, as its stdout at its exit."""
        self._outgoing.close()


async def _app_to_gateway(
    session_out: MemoryObjectReceiveStream[SessionMessage], lines: MemoryObjectSendStream[bytes]
) -> None:
    """The session's messages as the lines an app writes (``stdio_client``'s serialization)."""
    async with session_out, lines:
        async for item in session_out:
            await lines.send(item.message.model_dump_json(by_alias=True, exclude_unset=True).encode())


async def _gateway_to_app(
    lines: MemoryObjectReceiveStream[bytes], session_in: MemoryObjectSendStream[SessionMessage | Exception]
) -> None:
    """The gateway's lines parsed as ``stdio_client`` parses a server's stdout."""
    async with lines, session_in:
        async for line in lines:
            with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                await session_in.send(SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False)))


async def _serve(
    channel: MemoryChannel,
    hub: bool,
    agent: str | None,
    done: anyio.Event,
    *,
    task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Serve one app on ``channel`` until it leaves, watching the config; then stop the gateway's servers."""
    source = scope_source(agent)
    try:
        async with open_services(builtin_servers=False) as services:
            gateway = HostedGateway(services.mcp, source.current, Callers(), None)
            task_status.started()
            try:
                async with anyio.create_task_group() as group:
                    group.start_soon(watch, gateway, source.refresh)
                    await serve_gateway_link(build_server(gateway, hub_mode=hub), channel, lambda: None)
                    group.cancel_scope.cancel()
            finally:
                await gateway.close()
    finally:
        channel.close()
        done.set()


@contextlib.asynccontextmanager
async def gateway_transport(*, hub: bool = False, agent: str | None = None) -> AsyncIterator[TransportStreams]:
    """A client's streams to an in-process gateway (``--hub``, ``--agent``): the SDK ``Transport`` the
    modern ``Client(gateway_transport(), mode="auto")`` takes. The gateway has stopped its servers when
    the block ends."""
    to_gateway, gateway_in = anyio.create_memory_object_stream[bytes](math.inf)
    gateway_out, from_gateway = anyio.create_memory_object_stream[bytes](math.inf)
    session_out_send, session_out = anyio.create_memory_object_stream[SessionMessage](0)
    session_in, session_in_receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    done = anyio.Event()
    async with anyio.create_task_group() as group:
        await group.start(_serve, MemoryChannel(gateway_in, gateway_out), hub, agent, done)
        group.start_soon(_app_to_gateway, session_out, to_gateway)
        group.start_soon(_gateway_to_app, from_gateway, session_in)
        try:
            yield session_in_receive, session_out_send
        finally:
            await session_out_send.aclose()  # the app left: its end of the pipe closed
            with anyio.fail_after(CLOSE_LIMIT):  # the gateway ends by itself, its servers stopped
                await done.wait()
            session_in_receive.close()


@contextlib.asynccontextmanager
async def memory_gateway(
    *, hub: bool = False, agent: str | None = None, **callbacks: Any
) -> AsyncIterator[tuple[ClientSession, Inbox]]:
    """An initialized handshake-era client session on an in-process gateway (``--hub``, ``--agent``);
    ``callbacks`` go to the ``ClientSession`` (elicitation, sampling). The gateway has stopped its
    servers when the block ends."""
    inbox = Inbox()
    async with (
        gateway_transport(hub=hub, agent=agent) as (read, write),
        ClientSession(read, write, message_handler=inbox.on_message, logging_callback=inbox.on_log, **callbacks) as s,
    ):
        await s.initialize()
        yield s, inbox


@contextlib.asynccontextmanager
async def http_gateway_here(*, hub: bool = False, bind: str = "127.0.0.1:0") -> AsyncIterator[str]:
    """``serve --http BIND --no-daemon`` (``--hub``) in this process: its URL while it serves.

    The gateway of every active server behind the stored token (``gateway_token_of``), watching
    the config, its servers stopped when the last client leaves and at the end.
    """
    sock, address = listen(parse_address(bind))
    stop, served = asyncio.Event(), anyio.Event()
    source = scope_source(None)

    async def serve(app: Any) -> None:
        """Serve until ``stop`` (a graceful shutdown), then say so."""
        try:
            await serve_http(app, sock, stop=stop, hosted=True)
        finally:
            served.set()

    with sock:
        async with open_services(builtin_servers=False) as services:
            gateway = Gateway(services.mcp, source.current, release_when_idle=True)
            app = http_app(gateway, StoredToken(services.mcp.catalog.vault, data_dir()), address, hub_mode=hub)
            async with anyio.create_task_group() as group:
                group.start_soon(watch, gateway, source.refresh)
                group.start_soon(serve, app)
                try:
                    yield address.url
                finally:
                    stop.set()
                    with anyio.fail_after(CLOSE_LIMIT):
                        await served.wait()
                    group.cancel_scope.cancel()
            await gateway.close()

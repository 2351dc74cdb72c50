"""``elftia-mcp serve --http`` run by hand while a host runs: the host listens where it asks.

``serve --http`` attached (``http_owner.py``) says ``http`` in its hello with the address it wants;
:func:`serve_owner` has the host listen there itself (``http_endpoint.HttpEndpoint``, its scope at
``/mcp``) and answers with the URL, or refuses (an unknown agent; a port that cannot be had, with
the same words as without a host). It serves until the owner closes the connection (its SIGTERM or
SIGINT) or the host stops, then closes the listener (the port is free) and the connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from elftia_desktop.core.errors import ElftiaError
from elftia_desktop.gateway.http_address import DEFAULT_HOST, MCP_PATH, Address, cannot_listen
from elftia_desktop.gateway.token import gateway_token
from elftia_desktop.host import wire
from elftia_desktop.host.http_endpoint import EndpointHost, HttpEndpoint, ScopeKey
from elftia_desktop.host.links import read_frame

log = logging.getLogger(__name__)

CANNOT_LISTEN = "CannotListen"
"""The ``kind`` of the refusal when the asked address cannot be had."""

Reply = Callable[..., Awaitable[None]]
"""The host's welcome (``**fields``) or refusal (``message, kind``) on the owner's connection."""


async def serve_owner(
    host: EndpointHost,
    changed: Callable[[], None],
    hello: dict[str, Any],
    reader: asyncio.StreamReader,
    replies: tuple[Reply, Reply],
    attached: Callable[[], None],
) -> None:
    """Listen where the ``serve --http`` owner asks, with its scope, until it closes the connection or the host ends."""
    welcome, refuse = replies
    agent, timeout = hello.get("agent"), hello.get("timeout")
    key = ScopeKey(
        agent if isinstance(agent, str) else None, bool(hello.get("hub")), float(timeout) if timeout else None
    )
    address = Address(str(hello.get("host") or DEFAULT_HOST), int(hello.get("port") or 0))
    try:
        gateway = await host.hosted_gateway(key.agent, key.timeout)
        await asyncio.to_thread(gateway_token, gateway.service.catalog.vault)  # made on first use
    except ElftiaError as exc:
        await refuse(str(exc), type(exc).__name__)
        return
    endpoint = HttpEndpoint(host, changed, lambda path: key if path == MCP_PATH else None)
    try:
        address = await endpoint.start(address)
    except OSError as exc:
        await refuse(cannot_listen(address, exc), CANNOT_LISTEN)
        return
    try:
        await welcome(url=address.url, host=address.host, port=address.port, label=gateway.scope().label)
        attached()
        log.info("serving %s for serve --http", address.url)
        await _until_closed(reader, endpoint.served)
    finally:
        await endpoint.close()
        log.info("stopped serving %s", address.url)


async def _until_closed(reader: asyncio.StreamReader, served: asyncio.Task[None] | None) -> None:
    """Until the owner closes the connection (or the HTTP server ended by itself)."""

    async def drain() -> None:
        """Read (and drop) the owner's frames until it closes."""
        with contextlib.suppress(wire.WireError, ConnectionError):
            while await read_frame(reader) is not None:
                pass

    reading = asyncio.get_running_loop().create_task(drain())
    try:
        await asyncio.wait({reading, *([served] if served else [])}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        reading.cancel()
        await asyncio.gather(reading, return_exceptions=True)

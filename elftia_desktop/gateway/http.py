"""The gateway over Streamable HTTP, on 127.0.0.1 by default, behind a bearer token.

Every HTTP request must carry ``Authorization: Bearer <token>`` (``elftia-mcp gateway token``; the
scheme in any case); anything else is answered 401 before it reaches the MCP session manager. The
token is compared with the value stored now (``token.StoredToken``: read again after a reset), so
``gateway token --reset`` revokes the old one at once. A request from a browser page (an ``Origin``
header) is refused with 403 unless the page is on this computer or is the gateway itself, on every
bind address; the SDK's DNS-rebinding protection applies on the loopback addresses too. Each client
gets its own MCP session. In ``serve --http --no-daemon`` all of them share that process's pool, whose
servers stop when the last session ends or the gateway stops; attached, the pool host serves the same
app (``host/http_link.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import socket
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import Any
from urllib.parse import urlsplit

import uvicorn
from mcp.server.context import ServerMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

from elftia_desktop.gateway.core import Gateway
from elftia_desktop.gateway.http_address import LOOPBACK_HOSTS, MCP_PATH, Address
from elftia_desktop.gateway.http_answers import PlainAnswer
from elftia_desktop.gateway.server import build_server

TokenSource = Callable[[], Awaitable[str | None]]
"""Returns the token stored now, or None when there is none (``token.StoredToken``)."""


class BearerGuard:
    """ASGI middleware: 403 for a foreign ``Origin``, 401 without the currently stored bearer token."""

    def __init__(self, app: ASGIApp, token: str | TokenSource, address: Address | None = None) -> None:
        self.app = app
        self._token: TokenSource = _fixed(token) if isinstance(token, str) else token
        self._address = address

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The ASGI entry: checks the origin, then the token, then passes the request on (a POST's answer
        as plain JSON when its event stream would carry nothing else: ``http_answers.PlainAnswer``)."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        origin = headers.get(b"origin")
        if origin is not None and not self.origin_allowed(origin.decode("latin-1")):
            await refuse(send, 403, "forbidden", "requests from web pages on other sites are not accepted")
            return
        expected = await self._token()
        if not (expected and _bearer_matches(headers.get(b"authorization", b""), expected)):
            await refuse(send, 401, "unauthorized", "a valid bearer token is required")
        elif scope["method"] == "POST":
            answer = PlainAnswer(send)
            try:
                await self.app(scope, receive, answer)
            finally:
                await answer.finish()
        else:
            await self.app(scope, receive, send)

    def origin_allowed(self, origin: str) -> bool:
        """True for a page served from this computer or from the gateway's own address."""
        try:
            parts = urlsplit(origin.strip())
            host, port = (parts.hostname or "").lower(), parts.port
        except ValueError:
            return False
        if parts.scheme not in ("http", "https"):
            return False
        if host in LOOPBACK_HOSTS:
            return True
        own = self._address
        default_port = 443 if parts.scheme == "https" else 80
        return own is not None and host == own.host.lower() and (port or default_port) == own.port


def _fixed(token: str) -> TokenSource:
    async def source() -> str:
        """The one token the gateway was started with."""
        return token

    return source


def _bearer_matches(given: bytes, expected: str) -> bool:
    """``Authorization: <scheme> <token>`` with the scheme ``Bearer`` in any case and the token equal."""
    scheme, _, value = given.strip().partition(b" ")
    if scheme.lower() != b"bearer":
        return False
    return hmac.compare_digest(value.strip(), expected.encode())


async def refuse(send: Send, status: int, error: str, description: str) -> None:
    """Answer with ``status`` and a JSON ``error`` (401: with the ``WWW-Authenticate`` the scheme needs)."""
    body = json.dumps({"error": error, "error_description": description})
    headers = [(b"content-type", b"application/json")]
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="elftia-gateway"'))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body.encode()})


def http_app(
    gateway: Gateway,
    token: str | TokenSource,
    address: Address,
    *,
    hub_mode: bool = False,
    middleware: Sequence[ServerMiddleware[Any]] = (),
) -> ASGIApp:
    """The guarded Streamable HTTP app of the gateway; ``token`` is best the stored value's source.

    ``middleware`` wraps every request of every session, outside the gateway's own.
    """
    server = build_server(gateway, hub_mode=hub_mode)
    server.middleware[:0] = middleware
    app: Any = server.streamable_http_app(streamable_http_path=MCP_PATH, host=address.host)
    return BearerGuard(app, token, address)


class _QuietServer(uvicorn.Server):
    """A uvicorn server that leaves the process's signals alone (the pool host's loop owns them)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        """Nothing to capture: the owner of the loop stops the server (``stop``)."""
        yield


async def serve_http(
    app: ASGIApp, sock: socket.socket, stop: asyncio.Event | None = None, *, hosted: bool = False
) -> None:
    """Serve ``app`` on ``sock`` until cancelled, interrupted, or ``stop`` is set (then it shuts down gracefully).

    ``hosted``: inside the pool host, which owns the signals and the logging of its process.
    """
    # an app's open stream (subscriptions/listen, a GET stream) holds a graceful shutdown for 2 s at most
    options: dict[str, Any] = {"log_config": None, "access_log": False} if hosted else {}
    config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=2, **options)
    server = _QuietServer(config) if hosted else uvicorn.Server(config)

    async def exit_on_stop() -> None:
        """Ask uvicorn to shut down once ``stop`` is set."""
        if stop is not None:
            await stop.wait()
            server.should_exit = True

    stopper = asyncio.ensure_future(exit_on_stop())
    try:
        await server.serve(sockets=[sock])
    except SystemExit as exc:  # uvicorn exits the process when its start fails: not the host's process
        if not hosted:
            raise
        raise RuntimeError(f"the HTTP server did not start (code {exc.code})") from None
    finally:
        stopper.cancel()

"""The gateway over Streamable HTTP, on 127.0.0.1 by default, behind a bearer token.

Every HTTP request must carry ``Authorization: Bearer <token>`` (``elftia-mcp gateway token``; the
scheme in any case); anything else is answered 401 before it reaches the MCP session manager. The
token is compared with the value stored now, on every request, so ``gateway token --reset``
revokes the old one at once. A request from a browser page (an ``Origin`` header) is refused with
403 unless the page is on this computer or is the gateway itself, on every bind address; the SDK's
DNS-rebinding protection applies on the loopback addresses too. Each client gets its own MCP session; all of them
share this process's pool, whose servers stop when the last session ends or the gateway stops.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send

from elftia_desktop.gateway.core import Gateway
from elftia_desktop.gateway.server import build_server

DEFAULT_HOST = "127.0.0.1"
MCP_PATH = "/mcp"


@dataclass(frozen=True)
class Address:
    """Where the HTTP gateway listens."""

    host: str
    port: int

    @property
    def url(self) -> str:
        """The MCP endpoint's URL."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}{MCP_PATH}"


def parse_address(text: str) -> Address:
    """``PORT``, ``HOST:PORT`` or ``[IPv6]:PORT``; ``ValueError`` saying what was expected."""
    host, port_text = DEFAULT_HOST, text.strip()
    if port_text.startswith("["):
        inner, sep, rest = port_text[1:].partition("]:")
        if not sep:
            raise ValueError(f"--http: {text!r} is not [HOST]:PORT")
        host, port_text = inner, rest
    elif ":" in port_text:
        host, port_text = port_text.rsplit(":", 1)
    if not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise ValueError(f"--http: {text!r}: expected a port from 0 to 65535, optionally HOST:PORT (e.g. 8765)")
    return Address(host or DEFAULT_HOST, int(port_text))


TokenSource = Callable[[], str | None]
"""Returns the token stored now (blocking: it reads the keyring), or None when there is none."""
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


class BearerGuard:
    """ASGI middleware: 403 for a foreign ``Origin``, 401 without the currently stored bearer token."""

    def __init__(self, app: ASGIApp, token: str | TokenSource, address: Address | None = None) -> None:
        self.app = app
        self._token: TokenSource = (lambda: token) if isinstance(token, str) else token
        self._address = address

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The ASGI entry: checks the origin, then the token, then passes the request on."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        origin = headers.get(b"origin")
        if origin is not None and not self.origin_allowed(origin.decode("latin-1")):
            await _refuse(send, 403, "forbidden", "requests from web pages on other sites are not accepted")
            return
        expected = await asyncio.to_thread(self._token)
        if expected and _bearer_matches(headers.get(b"authorization", b""), expected):
            await self.app(scope, receive, send)
            return
        await _refuse(send, 401, "unauthorized", "a valid bearer token is required")

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


def _bearer_matches(given: bytes, expected: str) -> bool:
    """``Authorization: <scheme> <token>`` with the scheme ``Bearer`` in any case and the token equal."""
    scheme, _, value = given.strip().partition(b" ")
    if scheme.lower() != b"bearer":
        return False
    return hmac.compare_digest(value.strip(), expected.encode())


async def _refuse(send: Send, status: int, error: str, description: str) -> None:
    body = json.dumps({"error": error, "error_description": description})
    headers = [(b"content-type", b"application/json")]
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="elftia-gateway"'))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body.encode()})


def http_app(gateway: Gateway, token: str | TokenSource, address: Address, *, hub_mode: bool = False) -> ASGIApp:
    """The guarded Streamable HTTP app of the gateway; ``token`` is best the stored value's source."""
    server = build_server(gateway, hub_mode=hub_mode)
    app: Any = server.streamable_http_app(streamable_http_path=MCP_PATH, host=address.host)
    return BearerGuard(app, token, address)


def bind(address: Address) -> socket.socket:
    """A listening socket on ``address`` (port 0: a free one)."""
    family = socket.AF_INET6 if ":" in address.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((address.host, address.port))
    sock.listen(128)
    return sock


async def serve_http(app: ASGIApp, sock: socket.socket, stop: asyncio.Event | None = None) -> None:
    """Serve ``app`` on ``sock`` until cancelled, interrupted, or ``stop`` is set (then it shuts down gracefully)."""
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)

    async def exit_on_stop() -> None:
        if stop is not None:
            await stop.wait()
            server.should_exit = True

    stopper = asyncio.ensure_future(exit_on_stop())
    try:
        await server.serve(sockets=[sock])
    finally:
        stopper.cancel()

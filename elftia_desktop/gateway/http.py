"""The gateway over Streamable HTTP, on 127.0.0.1 by default, behind a bearer token.

Every HTTP request must carry ``Authorization: Bearer <token>`` (``elftia-mcp gateway token``);
anything else is answered 401 before it reaches the MCP session manager. The SDK's DNS-rebinding
protection applies on the loopback addresses. Each client gets its own MCP session; all of them
share this process's pool, whose servers stop when the last session ends or the gateway stops.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import socket
from dataclasses import dataclass
from typing import Any

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


class BearerGuard:
    """ASGI middleware: an HTTP request without the right bearer token gets 401."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The ASGI entry: requests without the right bearer token get 401."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = dict(scope.get("headers") or []).get(b"authorization", b"")
        if hmac.compare_digest(given, self._expected):
            await self.app(scope, receive, send)
            return
        body = json.dumps({"error": "unauthorized", "error_description": "a valid bearer token is required"})
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"www-authenticate", b'Bearer realm="elftia-gateway"'),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body.encode()})


def http_app(gateway: Gateway, token: str, address: Address, *, hub_mode: bool = False) -> ASGIApp:
    """The guarded Streamable HTTP app of the gateway."""
    server = build_server(gateway, hub_mode=hub_mode)
    app: Any = server.streamable_http_app(streamable_http_path=MCP_PATH, host=address.host)
    return BearerGuard(app, token)


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

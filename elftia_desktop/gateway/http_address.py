"""Where the HTTP gateway listens: ``--http [HOST:]PORT`` parsed, its listening socket, the host's endpoint.

The pool host's own endpoint (``host/http_endpoint.py``) serves a scope per URL path
(:func:`scope_path`) and writes where it listens to ``<data folder>/host-http.json``
(:func:`read_endpoint`). Standard library only: ``serve --http`` and ``gateway install`` read it.
"""

from __future__ import annotations

import json
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

DEFAULT_HOST = "127.0.0.1"
MCP_PATH = "/mcp"
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
ENDPOINT_FILE = "host-http.json"
"""Where the pool host writes its HTTP endpoint, in the data folder."""


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


def bind(address: Address) -> socket.socket:
    """A listening socket on ``address`` (port 0: a free one).

    Made with the protocol named (``IPPROTO_TCP``): asyncio sets ``TCP_NODELAY`` only on a connection
    whose socket says TCP, and without it a kept-alive connection's answer waits for the client's
    delayed ACK (about 40 ms on Linux) between the headers and the body.
    """
    family = socket.AF_INET6 if ":" in address.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((address.host, address.port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def listen(address: Address) -> tuple[socket.socket, Address]:
    """A listening socket on ``address`` and where it really listens (port 0: the free port picked)."""
    sock = bind(address)
    return sock, Address(address.host, sock.getsockname()[1])


def cannot_listen(address: Address, exc: OSError) -> str:
    """The error ``serve --http`` reports when its port cannot be had (in use, not permitted ...)."""
    return f"--http: cannot listen on {address.host}:{address.port}: {exc.strerror or exc}"


def exposure_warning(address: Address) -> str | None:
    """The warning for a listener that other computers can reach; None on a loopback address."""
    if address.host in LOOPBACK_HOSTS:
        return None
    return f"--http: listening on {address.host}, not only on this computer; the token is all that protects it"


def scope_path(agent: str | None = None, hub: bool = False) -> str:
    """The URL path of a scope on the host's endpoint: ``/mcp``, ``/hub/mcp``, ``/agents/<name>[/hub]/mcp``."""
    prefix = f"/agents/{quote(agent, safe='')}" if agent else ""
    return f"{prefix}{'/hub' if hub else ''}{MCP_PATH}"


def parse_scope_path(path: str) -> tuple[str | None, bool] | None:
    """``(agent, hub)`` of a path of the host's endpoint (the inverse of :func:`scope_path`); None for another path."""
    parts = path.rstrip("/").split("/")[1:]
    agent = None
    if len(parts) >= 3 and parts[0] == "agents" and parts[1]:
        agent, parts = unquote(parts[1]), parts[2:]
    hub = parts[:1] == ["hub"]
    if parts[hub:] != [MCP_PATH.strip("/")]:
        return None
    return agent, hub


def endpoint_file(data_dir: Path) -> Path:
    """Where a data folder's pool host writes its HTTP endpoint."""
    return data_dir / ENDPOINT_FILE


def read_endpoint(data_dir: Path) -> dict[str, Any] | None:
    """The host's HTTP endpoint as written (``url``, ``port``, ``pid``); None when none is written."""
    try:
        data = json.loads(endpoint_file(data_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("url"), str) else None

"""The HTTP proxy a sandboxed server reaches the network through: only the hosts its profile allows.

It answers ``CONNECT host:port`` (HTTPS) and absolute-form requests (``GET http://host/…``, plain
HTTP), opens the connection when the host is on the allow-list and pipes bytes both ways;
a host off the list gets ``403`` and is reported through ``on_denied`` (each host once per
server start). It listens on a Unix socket only that server's sandbox can see.
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
from collections.abc import Callable
from urllib.parse import urlsplit

HEAD_LIMIT = 65536
"""Most bytes of a request head."""


def host_allowed(allowed: list[str], host: str, port: int) -> bool:
    """True when ``host:port`` matches an entry (``host``, ``host:port``, ``*.example.com``)."""
    host = host.strip("[]").lower()
    for entry in allowed:
        name, _, entry_port = entry.rpartition(":") if _has_port(entry) else (entry, "", "")
        if entry_port and int(entry_port) != port:
            continue
        if fnmatch.fnmatchcase(host, name.strip("[]").lower()):
            return True
    return False


def _has_port(entry: str) -> bool:
    return (entry.startswith("[") and "]:" in entry) or (entry.count(":") == 1 and not entry.startswith("["))


def _target(head: bytes) -> tuple[str, str, int]:
    """``(method, host, port)`` of a request head (``ValueError`` when it has none)."""
    method, target, _ = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ", 2)
    if method == "CONNECT":
        host, _, port = target.rpartition(":")
        return method, host, int(port)
    url = urlsplit(target)
    if not url.hostname:
        raise ValueError(f"not a proxy request: {target!r}")
    return method, url.hostname, url.port or 80


class SandboxProxy:
    """An allow-list HTTP proxy on a Unix socket; ``denied`` lists the refused ``host:port`` in order."""

    def __init__(self, allowed: list[str], on_denied: Callable[[str], None]) -> None:
        self.allowed = allowed
        self.on_denied = on_denied
        self.denied: list[str] = []
        self._server: asyncio.AbstractServer | None = None

    async def start(self, path: str) -> None:
        """Listen on the Unix socket ``path``."""
        self._server = await asyncio.start_unix_server(self._handle, path=path, limit=HEAD_LIMIT)

    async def start_tcp(self) -> int:
        """Listen on a free port of 127.0.0.1 (macOS, where the sandbox shares the network); returns it."""
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0, limit=HEAD_LIMIT)
        return int(self._server.sockets[0].getsockname()[1])

    async def close(self) -> None:
        """Stop listening and drop open tunnels."""
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2.0)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            method, host, port = _target(head)
        except (ValueError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            await _answer(writer, b"400 Bad Request")
            return
        if not host_allowed(self.allowed, host, port):
            self._deny(f"{host}:{port}")
            await _answer(writer, b"403 Forbidden")
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(host, port)
        except OSError:
            await _answer(writer, b"502 Bad Gateway")
            return
        if method == "CONNECT":
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        else:
            up_writer.write(head)
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))

    def _deny(self, target: str) -> None:
        if target not in self.denied:
            self.denied.append(target)
            self.on_denied(target)


async def _answer(writer: asyncio.StreamWriter, status: bytes) -> None:
    body = b"blocked by the server's sandbox\n" if status.startswith(b"403") else b""
    writer.write(b"HTTP/1.1 " + status + b"\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)
    with contextlib.suppress(OSError):
        await writer.drain()
    writer.close()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except OSError:
        pass
    finally:
        writer.close()

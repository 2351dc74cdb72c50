"""The pool host's local endpoint: a 0600 Unix socket on Linux and macOS, 127.0.0.1 with a token on Windows.

Both are asyncio streams on the serving side and a blocking socket on the client's. An endpoint is
described by a small JSON object, written into the data folder's claim so that every client finds
it whatever its environment: ``{"unix": PATH}`` or ``{"tcp": "127.0.0.1:PORT", "token": TOKEN}``.
A TCP client proves it is the user by sending the token (read from the claim, a file only the user
can read) in its hello; on a Unix socket the file mode, the 0700 folder and (Linux) the peer's
uid do it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import socket
import struct
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from elftia_desktop.platform.runtime import user_id

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
Address = dict[str, str]
"""``{"unix": PATH}`` or ``{"tcp": "127.0.0.1:PORT", "token": TOKEN}``."""
CONNECT_TIMEOUT = 5.0
"""Seconds a client waits for the endpoint to accept its connection."""


def unix_sockets() -> bool:
    """Whether the host listens on a Unix socket here (not on Windows, whose AF_UNIX asyncio lacks)."""
    return sys.platform != "win32" and hasattr(socket, "AF_UNIX")


async def listen(path: Path, handler: Handler, limit: int) -> tuple[asyncio.AbstractServer, Address]:
    """Serve ``handler`` on this OS's local endpoint (``path``: the Unix socket's, unused on Windows)."""
    if not unix_sockets():
        server = await asyncio.start_server(handler, "127.0.0.1", 0, limit=limit)
        port = server.sockets[0].getsockname()[1]
        return server, {"tcp": f"127.0.0.1:{port}", "token": secrets.token_urlsafe(32)}
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    old_umask = os.umask(0o177)  # the socket is created 0600
    try:
        server = await asyncio.start_unix_server(handler, str(path), limit=limit)
    finally:
        os.umask(old_umask)
    os.chmod(path, 0o600)
    return server, {"unix": str(path)}


def describe(address: Address) -> str:
    """Where ``address`` listens, for people and logs (never its token)."""
    return address.get("unix") or address.get("tcp", "")


def remove(address: Address) -> None:
    """Remove what the endpoint left on disk (a Unix socket's file)."""
    if "unix" in address:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(address["unix"])


def connect(address: Address) -> socket.socket:
    """A blocking socket connected to ``address`` (``ConnectionRefusedError``, ``FileNotFoundError``: none listens)."""
    if "unix" in address:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        target: Any = address["unix"]
    else:
        host, _, port = address["tcp"].rpartition(":")
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        target = (host, int(port))
    try:
        sock.settimeout(CONNECT_TIMEOUT)
        sock.connect(target)
        sock.settimeout(None)
    except BaseException:
        sock.close()
        raise
    if "tcp" in address:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def peer_check(writer: asyncio.StreamWriter) -> tuple[bool, int | None]:
    """Whether the peer may use the endpoint by what the OS says (its uid, Linux), and its pid where known."""
    sock = writer.get_extra_info("socket")
    option = getattr(socket, "SO_PEERCRED", None)
    if sock is None or option is None or sock.family != getattr(socket, "AF_UNIX", None):
        return True, None
    pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i")))
    return uid == user_id(), int(pid)


def token_ok(address: Address, hello: dict[str, Any]) -> bool:
    """Whether a hello carries the endpoint's token (always true on a Unix socket, which has none)."""
    token = address.get("token")
    return token is None or secrets.compare_digest(str(hello.get("token", "")), token)

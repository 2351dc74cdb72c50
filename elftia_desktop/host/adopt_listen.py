"""The host's listening socket: each client's first frame is read with the file descriptors it carries.

An attached ``elftia-mcp serve`` sends its hello with the app's stdin, stdout and its in-flight
region attached (SCM_RIGHTS). asyncio's streams cannot receive ancillary data, so the first frame is
read here with ``recv_fds`` on the accepted socket, exactly (no byte of the next frame), and only then
is the socket wrapped in streams for the rest of the connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from collections.abc import Awaitable, Callable

from elftia_desktop.host import wire

MAX_FDS = 8
"""The most descriptors a first frame may carry (more are closed by the kernel)."""

ClientHandler = Callable[[asyncio.StreamReader, asyncio.StreamWriter, bytes | None, list[int]], Awaitable[None]]
"""``(reader, writer, first frame or None at once-closed, descriptors it carried)``; the handler closes them."""


async def _readable(sock: socket.socket) -> None:
    loop = asyncio.get_running_loop()
    ready = loop.create_future()

    def wake() -> None:
        """The socket has data."""
        if not ready.done():
            ready.set_result(None)

    loop.add_reader(sock.fileno(), wake)
    try:
        await ready
    finally:
        loop.remove_reader(sock.fileno())


async def read_first_frame(sock: socket.socket) -> tuple[bytes | None, list[int]]:
    """The first frame's payload (None when the client closed first) and the descriptors that came with it."""
    data = b""
    fds: list[int] = []
    wanted = 4
    while len(data) < wanted:
        await _readable(sock)
        try:
            chunk, got, _flags, _address = socket.recv_fds(sock, wanted - len(data), MAX_FDS)
        except BlockingIOError:
            continue
        except OSError:
            chunk, got = b"", []
        fds += got
        if not chunk:
            if data:
                _close_all(fds)
                raise wire.WireError("the connection closed in the middle of a message")
            return None, fds
        data += chunk
        if len(data) == 4 and wanted == 4:
            wanted = 4 + wire.payload_size(data)
    return data[4:], fds


def _close_all(fds: list[int]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


class Listener:
    """A Unix socket listener that hands each client's first frame and descriptors to ``handler``."""

    def __init__(self, sock: socket.socket, handler: ClientHandler) -> None:
        self._sock = sock
        self._handler = handler
        self._waiting: set[asyncio.Task[None]] = set()
        """Connections whose first frame is still on its way (the host's handler has the others)."""
        self._accepting = asyncio.get_running_loop().create_task(self._accept())

    async def _accept(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            connection, _address = await loop.sock_accept(self._sock)
            task = loop.create_task(self._first(connection))
            self._waiting.add(task)
            task.add_done_callback(self._waiting.discard)

    async def _first(self, connection: socket.socket) -> None:
        connection.setblocking(False)
        fds: list[int] = []
        try:
            payload, fds = await read_first_frame(connection)
            reader, writer = await asyncio.open_unix_connection(sock=connection, limit=wire.MAX_FRAME)
        except (OSError, wire.WireError, asyncio.CancelledError):
            _close_all(fds)
            connection.close()
            return
        finally:
            task = asyncio.current_task()
            if task is not None:
                self._waiting.discard(task)
        await self._handler(reader, writer, payload, fds)

    def close(self) -> None:
        """Stop accepting (the connections being served go on)."""
        self._accepting.cancel()
        for task in self._waiting:
            task.cancel()
        self._sock.close()


async def listen(path: str, handler: ClientHandler) -> Listener:
    """Listen on the Unix socket ``path`` (created with the caller's umask)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(path)
        sock.listen(128)
        sock.setblocking(False)
    except BaseException:
        sock.close()
        raise
    return Listener(sock, handler)

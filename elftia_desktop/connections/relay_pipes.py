"""A stdio server's stdin and stdout as asyncio pipes, so a relayed call costs no task and no stream hop.

The server's stdout is read by protocol callbacks (:class:`OutputLines`): each line is offered
to the relay's tap at once, in the callback (a relayed call's response is answered there); the
other lines wait in a queue for the session's reader. When the session falls ``PAUSE_AT`` lines
behind, the pipe is not read until it catches up (the back-pressure the SDK's zero-buffer stream
gave). The server's stdin is an asyncio ``StreamWriter``: the session's messages and the relay's
lines are each one ``write`` of a whole line, so they never interleave.
"""

from __future__ import annotations

import asyncio
import os
from collections import deque
from collections.abc import Callable
from typing import Protocol

PAUSE_AT = 64
"""Lines waiting for the session at which stdout is no longer read (until half of them are taken)."""


class StdoutTap(Protocol):
    """Takes some of the server's output lines before the session sees them (``relay.StdioRelay``)."""

    def take(self, line: str) -> bool:
        """Whether ``line`` was the tap's (then the session never sees it)."""
        ...

    def closed(self) -> None:
        """The server's output ended."""
        ...


class OutputLines(asyncio.Protocol):
    """The server's stdout, line by line: the tap's taken at once, the rest queued for the session."""

    def __init__(self, tap: Callable[[], StdoutTap | None]) -> None:
        self._tap = tap
        self._buffer = b""
        self._queue: deque[str] = deque()
        self._ready = asyncio.Event()
        self._ended = False
        self._paused = False
        self._transport: asyncio.ReadTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Keep the transport (to pause and resume it)."""
        assert isinstance(transport, asyncio.ReadTransport)
        self._transport = transport

    def data_received(self, data: bytes) -> None:
        """Split into lines (UTF-8, bad bytes replaced); the tap's go to it, the others to the queue."""
        *lines, self._buffer = (self._buffer + data).split(b"\n")
        tap = self._tap()
        for raw in lines:
            line = raw.decode("utf-8", "replace")
            if line.strip() and not (tap is not None and tap.take(line)):
                self._queue.append(line)
        if self._queue:
            self._ready.set()
            if len(self._queue) >= PAUSE_AT and not self._paused and self._transport is not None:
                self._paused = True
                self._transport.pause_reading()

    def eof_received(self) -> bool | None:
        """The server closed its stdout."""
        self._end()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        """The pipe is gone."""
        self._end()

    def _end(self) -> None:
        if self._ended:
            return
        self._ended = True
        self._ready.set()
        tap = self._tap()
        if tap is not None:
            tap.closed()

    async def next_line(self) -> str | None:
        """The next line for the session; None once stdout ended and every line was taken."""
        while not self._queue:
            if self._ended:
                return None
            self._ready.clear()
            self._resume()
            await self._ready.wait()
        line = self._queue.popleft()
        if len(self._queue) < PAUSE_AT // 2:
            self._resume()
        return line

    def _resume(self) -> None:
        if self._paused and self._transport is not None and not self._transport.is_closing():
            self._paused = False
            self._transport.resume_reading()

    def close(self) -> None:
        """Stop reading and close the pipe."""
        if self._transport is not None:
            self._transport.close()


async def open_stdout(fd: int, tap: Callable[[], StdoutTap | None]) -> OutputLines:
    """Read the pipe ``fd`` (this takes it over) as :class:`OutputLines`."""
    loop = asyncio.get_running_loop()
    _transport, lines = await loop.connect_read_pipe(lambda: OutputLines(tap), os.fdopen(fd, "rb", buffering=0))
    return lines


async def open_stdin(fd: int) -> asyncio.StreamWriter:
    """A writer on the pipe ``fd`` (this takes it over)."""
    loop = asyncio.get_running_loop()
    pipe = os.fdopen(fd, "wb", buffering=0)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, pipe)
    return asyncio.StreamWriter(transport, protocol, None, loop)


def line_writer(stdin: asyncio.StreamWriter) -> Callable[[bytes], bool]:
    """Writes one whole line to ``stdin`` now (one ``write``: never interleaved); False when stdin is closed."""

    def send_line(line: bytes) -> bool:
        """Write ``line`` (ending in a newline) unless stdin is closed."""
        if stdin.is_closing():
            return False
        stdin.write(line)
        return True

    return send_line

"""``elftia-mcp serve --no-daemon`` on stdio: the gateway served the way the host serves an attached one.

The in-process gateway runs the host's per-client path (``links.serve_gateway_link``: the SDK's
server session) on this process's stdin and stdout, so a tool call goes the same way here as
through the host. Both pipes are read and written by the event loop itself: the SDK's stdio transport
reads each line in a worker thread and writes each message in another, two thread hops per
message (on Windows, whose loop cannot wait on an inherited pipe, one reader thread feeds the loop
and lines are written directly: :mod:`elftia_desktop.platform.pipes`). stdin is the signal relay's
pipe (``cli/gateway_signals.py``), so a signal ends the session as the app's leaving does. While
the gateway serves, file descriptor 1 points at stderr and the protocol has a private copy of
stdout: nothing printed by accident reaches the app.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import warnings
from collections.abc import AsyncIterator

from mcp.shared.exceptions import MCPDeprecationWarning

from elftia_desktop.gateway.server import build_server
from elftia_desktop.host import wire
from elftia_desktop.host.links import HostedGateway, serve_gateway_link
from elftia_desktop.platform.pipes import feed_from_thread, loop_reads_pipes


class LineChannel:
    """One JSON-RPC message per line on a pair of pipes (the app's side of a stdio server)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter | None, out_fd: int) -> None:
        self._reader = reader
        self._writer = writer
        self._out_fd = out_fd

    async def read(self) -> bytes | None:
        """The next non-empty line (without its line end); None at the end of input."""
        while line := await self._reader.readline():
            if line.strip():
                return line.strip()
        return None

    def write(self, payload: bytes) -> None:
        """One line to the app (a blocking write when stdout is a regular file, which never waits long)."""
        data = payload + b"\n"
        if self._writer is not None:
            self._writer.write(data)
            return
        while data:
            data = data[os.write(self._out_fd, data) :]

    async def drain(self) -> None:
        """Wait until the app's pipe took what was written (a closed pipe is not an error)."""
        if self._writer is not None:
            with contextlib.suppress(ConnectionError):
                await self._writer.drain()


async def _pipe_writer(loop: asyncio.AbstractEventLoop, out_fd: int) -> asyncio.StreamWriter | None:
    """A loop-driven writer on ``out_fd``; None when it is a regular file (written directly)."""
    try:
        out = os.fdopen(out_fd, "wb", buffering=0, closefd=False)  # closed with the transport
        transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, out)
    except ValueError:
        return None
    return asyncio.StreamWriter(transport, protocol, None, loop)


@contextlib.asynccontextmanager
async def stdio_channel(system: str = sys.platform) -> AsyncIterator[LineChannel]:
    """The app's stdin and stdout as a :class:`LineChannel` on this loop; fd 1 goes to stderr meanwhile.

    Where the loop cannot wait on pipes (Windows, :func:`~elftia_desktop.platform.pipes.loop_reads_pipes`)
    a thread reads stdin and each line is written to stdout directly.
    """
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=wire.MAX_FRAME)
    in_fd = os.dup(sys.stdin.fileno())  # the transport (or the reader thread) owns and closes it
    read_transport: asyncio.BaseTransport | None = None
    if loop_reads_pipes(system):
        stdin = os.fdopen(in_fd, "rb", buffering=0)
        read_transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stdin)
    else:
        feed_from_thread(in_fd, reader, loop)
    sys.stdout.flush()
    out_fd = os.dup(1)
    os.dup2(2, 1)
    writer: asyncio.StreamWriter | None = None
    try:
        if loop_reads_pipes(system):
            writer = await _pipe_writer(loop, out_fd)
        yield LineChannel(reader, writer, out_fd)
    finally:
        if read_transport is not None:
            read_transport.close()
        if writer is not None:  # the loop's pipe transport made the descriptor non-blocking
            with contextlib.suppress(ConnectionError):
                await writer.drain()
            writer.close()
            os.set_blocking(out_fd, True)
        os.dup2(out_fd, 1)
        os.close(out_fd)


async def serve_stdio(gateway: HostedGateway, *, hub: bool) -> None:
    """Serve the app on stdio until it closes stdin (or a signal closes the relay); the caller stops the servers."""
    server = build_server(gateway, hub_mode=hub)
    warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
    async with stdio_channel() as channel:
        await serve_gateway_link(server, channel, lambda: None)

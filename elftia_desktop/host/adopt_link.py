"""The host's side of an adopted app: it reads and writes the app's own pipes, one process hop fewer.

An attached ``elftia-mcp serve`` (the shim) passes the app's stdin and stdout and its in-flight region
(``adopt_region.py``) with its hello; the host serves the gateway session on those pipes itself, on
its event loop, and keeps the socket as the control link. On the control link the host tells the
shim, as frames (``wire.py``):

* ``{"op": "handshake", "line": ...}``: each of the app's handshake lines the host read
  (``initialize``, ``notifications/initialized``), so the shim can replay them to a new host;
* ``{"op": "ended"}``: the app closed its stdin (the shim exits 0);
* ``{"op": "rest", "data": base64}``: the host stops (a stop, a handover): the bytes it read from the
  app and did not process; the shim reads the app's stdin again from there.

The control link closing without either means the host died: the shim answers the requests the
region lists with an error and reads the app's stdin again. The control link closing from the shim's
side (a signal) ends the session: the host stops reading the app's pipes and cancels its calls.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import contextvars
import json
import logging
import os
from collections.abc import Awaitable, Callable
from typing import Any

from elftia_desktop.host import wire
from elftia_desktop.host.adopt_region import InFlight

BACKLOG = 1 << 20
"""Bytes of the app's lines the host holds before it lets the pipe fill instead (the app waits then)."""
REST_CHUNK = 16 << 20
"""Bytes handed back per control frame when the host stops (base64 of it fits a frame)."""
log = logging.getLogger(__name__)

_PREFIX = b'{"jsonrpc":"2.0","id":'
_DECODER = json.JSONDecoder()
_HANDSHAKE = (b'"initialize"', b'"notifications/initialized"')


def classify(payload: bytes) -> tuple[str, Any]:
    """``("request" | "response" | "other", id)`` of one JSON-RPC message, cheaply for the usual shapes."""
    if payload.startswith(_PREFIX):
        head = payload[len(_PREFIX) : len(_PREFIX) + 256].decode("utf-8", "replace")
        with contextlib.suppress(ValueError):
            request_id, end = _DECODER.raw_decode(head)
            after = head[end : end + 9]
            if after == ',"method"':
                return "request", request_id
            if after.startswith((',"result"', ',"error"')):
                return "response", request_id
    if b'"id"' not in payload:
        return "other", None
    try:
        message = json.loads(payload)
    except ValueError:
        return "other", None
    if not isinstance(message, dict) or "id" not in message:
        return "other", None
    return ("request" if "method" in message else "response"), message["id"]


class AppPipe(asyncio.Protocol):
    """The app's stdin as the loop reads it: a buffer of what came and was not taken yet."""

    def __init__(self, pending: bytes) -> None:
        self.buffer = bytearray(pending)
        self.eof = False
        """The app closed its stdin."""
        self.stopped = False
        """The host stopped reading (the rest of the buffer is handed back)."""
        self._held = False
        self._paused = False
        self._transport: asyncio.ReadTransport | None = None
        self._waiter: asyncio.Future[None] | None = None
        self.on_line: Callable[[bytes], bool] | None = None
        """Offered each whole line as it arrives while the reader waits (``AdoptedChannel.offer``)."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """The pipe's transport (paused while the buffer is full)."""
        assert isinstance(transport, asyncio.ReadTransport)
        self._transport = transport

    def data_received(self, data: bytes) -> None:
        """Keep what the app sent (lines the lane takes at once are gone); a full buffer pauses the reading."""
        self.buffer += data
        if self.on_line is not None and self._waiter is not None and not self._waiter.done() and not self.stopped:
            self._offer(self.on_line)
            if self.buffer.find(b"\n") < 0 and len(self.buffer) <= wire.MAX_FRAME:
                return  # every whole line was taken: the reader has nothing to do
        if len(self.buffer) > BACKLOG and (len(self.buffer) > wire.MAX_FRAME or self.buffer.rfind(b"\n") >= 0):
            self._pause(True)
        self._wake()

    def _offer(self, on_line: Callable[[bytes], bool]) -> None:
        """Hand the whole lines to ``on_line`` in order until one is refused (the reader gets it and the rest)."""
        while (end := self.buffer.find(b"\n")) >= 0:
            line = bytes(self.buffer[:end]).strip()
            if line:
                try:
                    taken = on_line(line)
                except Exception:  # the reader offers it again, and fails where it always did
                    log.exception("an app's line could not be taken on arrival")
                    taken = False
                if not taken:
                    return
            del self.buffer[: end + 1]

    def taken(self) -> None:
        """A line was taken: read again once the buffer emptied (or holds no whole line)."""
        if not self._paused or self._held or len(self.buffer) > wire.MAX_FRAME:
            return
        if len(self.buffer) <= BACKLOG // 2 or self.buffer.find(b"\n") < 0:
            self._pause(False)

    def hold(self) -> None:
        """Read no more of the pipe (the host stops: what the app sends waits for the shim)."""
        self._held = True
        self._pause(True)

    def _pause(self, pause: bool) -> None:
        if self._transport is not None and self._paused != pause and not self._transport.is_closing():
            self._paused = pause
            if pause:
                self._transport.pause_reading()
            else:
                self._transport.resume_reading()

    def eof_received(self) -> bool | None:
        """The app closed its stdin."""
        self.eof = True
        self._wake()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        """The pipe is gone."""
        self.eof = True
        self._wake()

    def stop(self) -> None:
        """Read no more (what is in the buffer stays there)."""
        self.stopped = True
        self._wake()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    async def wait(self) -> None:
        """Until something changes."""
        self._waiter = asyncio.get_running_loop().create_future()
        await self._waiter


class AdoptedChannel:
    """The app's pipes as a ``links.Channel``: one message per line, its requests noted in the region."""

    def __init__(
        self, pipe: AppPipe, writer: asyncio.StreamWriter, region: InFlight, report: Callable[[bytes], None]
    ) -> None:
        self._pipe = pipe
        self._writer = writer
        self._region = region
        self._report = report
        self._reported = 0
        self._unflushed: list[Any] = []

    async def read(self) -> bytes | None:
        """The app's next non-empty line; None at its end (or when the host stops reading)."""
        pipe = self._pipe
        while not pipe.stopped:
            end = pipe.buffer.find(b"\n")
            if end >= 0:
                line = bytes(pipe.buffer[:end]).strip()
                del pipe.buffer[: end + 1]
            elif pipe.eof:
                line = bytes(pipe.buffer).strip()
                pipe.buffer.clear()
                if not line:
                    return None
            elif len(pipe.buffer) > wire.MAX_FRAME:
                raise wire.WireError(f"the app sent a line of more than {wire.MAX_FRAME} bytes")
            else:
                pipe.taken()
                await pipe.wait()
                continue
            pipe.taken()
            if line:
                self._took(line)
                return line
        return None

    def offer(self, take: Callable[[bytes], bool]) -> None:
        """Let ``take`` have each line as it arrives, without a wake-up of the reader (``links.Offering``).

        ``take`` runs in the caller's context (the pipe's callbacks run in the loop's): the attached
        client (``clients.CURRENT``, ``call_origin.ORIGIN``) is the one of this connection.
        """
        context = contextvars.copy_context()

        def on_line(line: bytes) -> bool:
            """The line, if ``take`` takes it, noted as a read one is."""
            if not context.run(take, line):
                return False
            self._took(line)
            return True

        self._pipe.on_line = on_line

    def _took(self, line: bytes) -> None:
        kind, request_id = classify(line)
        if kind == "request":
            self._region.add(request_id)
        elif b'"notifications/cancelled"' in line:
            with contextlib.suppress(ValueError, AttributeError, TypeError):
                self._region.remove(json.loads(line)["params"]["requestId"])
        if self._reported < 2 and any(marker in line for marker in _HANDSHAKE):
            self._reported += 1
            self._report(line)

    def write(self, payload: bytes) -> None:
        """One line to the app (the answer to a replayed ``initialize`` is the shim's, already given)."""
        kind, request_id = classify(payload)
        if kind == "response" and request_id == wire.REPLAY_ID:
            self._region.remove(request_id)
            return
        self._writer.write(payload + b"\n")
        if kind == "response":
            if self._writer.transport.get_write_buffer_size():
                self._unflushed.append(request_id)  # answered once it left this process
            else:
                self._region.remove(request_id)

    async def drain(self) -> None:
        """Wait until the app's pipe took what was written (a closed pipe is not an error)."""
        with contextlib.suppress(ConnectionError):
            await self._writer.drain()
        if self._unflushed and not self._writer.transport.get_write_buffer_size():
            answered, self._unflushed = self._unflushed, []
            for request_id in answered:
                self._region.remove(request_id)


class AdoptedLink:
    """One adopted app: its pipes, its region, and the control link to its shim."""

    def __init__(self, fds: list[int], pending: bytes, control: asyncio.StreamWriter) -> None:
        """``fds``: the app's stdin, stdout and the region (duplicated here; the caller closes its own)."""
        self._fds = [os.dup(fd) for fd in fds[:3]]
        self._closed = False
        self._control = control
        self._pipe = AppPipe(pending)
        self._handing_back = False
        self._shim_left = False
        self._transports: list[asyncio.BaseTransport] = []
        self.region = InFlight(self._fds[2])
        self.channel: AdoptedChannel | None = None

    async def open(self) -> None:
        """Put the app's pipes on this loop; ``ValueError`` when one is not a pipe (a regular file)."""
        loop = asyncio.get_running_loop()
        stdin = os.fdopen(self._fds[0], "rb", buffering=0)
        stdout = os.fdopen(self._fds[1], "wb", buffering=0)
        try:
            read, _ = await loop.connect_read_pipe(lambda: self._pipe, stdin)
            self._transports.append(read)
            transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, stdout)
            self._transports.append(transport)
        except BaseException:
            self.close()
            stdin.close()
            stdout.close()
            raise
        writer = asyncio.StreamWriter(transport, protocol, None, loop)
        self.channel = AdoptedChannel(self._pipe, writer, self.region, self._report)

    def _report(self, line: bytes) -> None:
        self._send({"op": "handshake", "line": line.decode("utf-8", "replace")})

    def _send(self, message: dict[str, Any]) -> None:
        if not self._control.is_closing():
            self._control.write(wire.encode(message))

    async def serve(self, reader: asyncio.StreamReader, session: Callable[[AdoptedChannel], Awaitable[None]]) -> None:
        """Run ``session`` on the app's pipes until the app leaves, the shim leaves or the host stops."""
        assert self.channel is not None
        watcher = asyncio.get_running_loop().create_task(self._watch(reader))
        try:
            await session(self.channel)
        finally:
            watcher.cancel()
            await self._finish()

    async def _watch(self, reader: asyncio.StreamReader) -> None:
        """The shim closing the control link (a signal) ends the session."""
        with contextlib.suppress(ConnectionError):
            while await reader.read(4096):
                pass
        self._shim_left = True
        self._pipe.stop()

    def pause(self) -> None:
        """Read no more of the app (the host stops: what it sent meanwhile waits for the shim)."""
        self._handing_back = True
        self._pipe.hold()

    def end(self) -> None:
        """End the session now, handing back what was read and not processed."""
        self.pause()
        self._pipe.stop()

    async def _finish(self) -> None:
        if self.channel is not None:
            await self.channel.drain()
        self.close()
        if not self._shim_left:
            if self._handing_back:
                rest = bytes(self._pipe.buffer)
                for start in range(0, max(len(rest), 1), REST_CHUNK):
                    self._send({"op": "rest", "data": base64.b64encode(rest[start : start + REST_CHUNK]).decode()})
            elif self._pipe.eof:
                self._send({"op": "ended"})
            with contextlib.suppress(ConnectionError):
                await self._control.drain()

    def close(self) -> None:
        """Let go of the app's pipes and the region."""
        if self._closed:
            return
        self._closed = True
        for transport in self._transports:
            transport.close()
        self._transports.clear()
        self.region.close()
        with contextlib.suppress(OSError):
            os.close(self._fds[2])


async def adopt(hello: dict[str, Any], fds: list[int], control: asyncio.StreamWriter) -> AdoptedLink | None:
    """The app's pipes a gateway's hello brought, on this loop; None when it brought none (or not pipes)."""
    pending = hello.get("adopt")
    if len(fds) < 3 or not isinstance(pending, dict) or not isinstance(pending.get("pending"), str):
        return None
    link = AdoptedLink(fds, base64.b64decode(pending["pending"]), control)
    try:
        await link.open()
    except (ValueError, OSError) as exc:
        log.info("the app's pipes cannot be read here (%s): forwarding through the gateway", exc)
        return None
    return link

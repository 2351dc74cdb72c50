"""The shim's side of adoption: its reading of the app's stdin, which it can hand over, and the control link.

:class:`StdinReader` reads the app's stdin line by line in a thread, and can be parked at a line
boundary of what it read (``park``): the host reads the pipe from then on, and gets the lines the
shim read and did not send yet, and the partial line after them. ``resume`` takes the pipe back,
from the bytes the host handed back (a stop) or, after the host died, from the next line end.

:class:`Adopted` is an adopted session as the shim holds it: the control socket (``adopt_link.py``
says what comes on it) and the in-flight region. Standard library only.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import socket
import threading
from collections.abc import Callable
from typing import Any

from elftia_desktop.host import wire
from elftia_desktop.host.adopt_region import InFlight

READING, PARKED, ENDED = "reading", "parked", "ended"


def _a_message(line: bytes) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


class StdinReader:
    """The app's stdin, read in a thread, line by line, into ``forward``; starts parked."""

    def __init__(self, fd: int, forward: Callable[[bytes], None], ended: Callable[[], None]) -> None:
        self._fd = fd
        self._forward = forward
        self._ended = ended
        self._wake_read, self._wake_write = os.pipe()
        self._state = PARKED
        self._park_asked = False
        self._changed = threading.Condition()
        self.rest = b""
        """What was read after the last line end (while parked: the caller's to hand over)."""
        self._skip_partial = False

    def run(self) -> None:
        """Read until the app closes stdin (the thread's body)."""
        try:
            while self._wait_reading():
                if not self._read_until_parked():
                    return
        finally:
            with self._changed:
                self._state = ENDED
                self._changed.notify_all()
            self._ended()

    def _wait_reading(self) -> bool:
        with self._changed:
            while self._state == PARKED:
                self._changed.wait()
            return self._state == READING

    def _read_until_parked(self) -> bool:
        """Read and forward; True once parked, False at the end of input."""
        self._take(b"")
        while True:
            ready, _, _ = select.select([self._fd, self._wake_read], [], [])
            if self._wake_read in ready:
                os.read(self._wake_read, 64)
                with self._changed:
                    if self._park_asked:
                        self._park_asked, self._state = False, PARKED
                        self._changed.notify_all()
                        return True
            if self._fd in ready:
                chunk = os.read(self._fd, 1 << 16)
                if not chunk:
                    if self.rest.strip():
                        self._forward(self.rest.strip())
                    return False
                self._take(chunk)

    def _take(self, chunk: bytes) -> None:
        *lines, self.rest = (self.rest + chunk).split(b"\n")
        for raw in lines:
            line = raw.strip()
            if self._skip_partial:
                self._skip_partial = False
                if not _a_message(line):
                    continue  # the tail of a line the host had read when it died
            if line:
                self._forward(line)

    def park(self) -> bytes | None:
        """Stop reading at a line boundary: the partial line after it; None when stdin ended."""
        with self._changed:
            if self._state == READING:
                self._park_asked = True
                os.write(self._wake_write, b"p")
                while self._state == READING:
                    self._changed.wait()
            return self.rest if self._state == PARKED else None

    def resume(self, rest: bytes | None = None, *, skip_partial: bool = False) -> None:
        """Read again: from ``rest`` when given (else the partial line kept), skipping a first partial line."""
        with self._changed:
            if self._state != PARKED:
                return
            if rest is not None:
                self.rest, self._skip_partial = rest, skip_partial
            self._state = READING
            self._changed.notify_all()


class Adopted:
    """An adopted session: the host reads the app's pipes; the shim holds the control link and the region."""

    lost_message = "Elftia's pool host stopped while this request ran; try again."

    def __init__(self, sock: socket.socket, region_fd: int) -> None:
        self._sock = sock
        self._region_fd = region_fd
        self._region = InFlight(region_fd)
        self.ended = False
        """The host said the app closed its stdin."""
        self.rest: bytes | None = None
        """What the host handed back when it stopped (None when it died)."""

    def follow(self, record: Callable[[bytes], None]) -> None:
        """Read the control link until it closes (``record`` gets each handshake line the host read)."""
        while True:
            try:
                payload = wire.read_frame(self._sock)
            except (OSError, wire.WireError):
                payload = None
            if payload is None:
                return
            with contextlib.suppress(wire.WireError, ValueError, KeyError, TypeError):
                self._on(wire.decode(payload), record)

    def _on(self, message: dict[str, Any], record: Callable[[bytes], None]) -> None:
        op = message.get("op")
        if op == "handshake":
            record(str(message["line"]).encode())
        elif op == "ended":
            self.ended = True
        elif op == "rest":  # in pieces when long
            self.rest = (self.rest or b"") + base64.b64decode(message["data"])

    def in_flight(self) -> list[Any]:
        """The app's requests the host took and did not answer (the region's last whole write)."""
        return [request_id for request_id in self._region.read() if request_id != wire.REPLAY_ID]

    def close(self) -> None:
        """Close the control link (the host stops reading the app's pipes and cancels its calls)."""
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        self._sock.close()

    def release(self) -> None:
        """Let go of the region (after the control link closed)."""
        self._region.close()
        with contextlib.suppress(OSError):
            os.close(self._region_fd)

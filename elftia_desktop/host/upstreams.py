"""Where the attached gateway's messages go: the pool host's socket, or this gateway's own pool in a child.

Used by the forwarder of ``serve`` (``shim.py``). Both carry one JSON-RPC message per line: the
host's endpoint (``wire.py``), and the child ``elftia-mcp serve --no-daemon`` (the fallback when no
host can be reached) on its stdin and stdout. Standard library only.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
from typing import Protocol

from elftia_desktop.host import wire

CHILD_STOP_TIMEOUT = 30.0
"""Seconds the own gateway gets to stop its servers after its stdin closed, before it is terminated."""


class Upstream(Protocol):
    """A bidirectional channel of JSON-RPC messages."""

    lost_message: str
    """What a request in flight is told when the channel goes away."""

    def send(self, payload: bytes) -> None:
        """Send one message (``OSError`` when the other side is gone)."""
        ...

    def receive(self) -> bytes | None:
        """The next message (blocking); None when the other side closed."""
        ...

    def close(self) -> None:
        """Close the channel (the other side cancels what this client left running)."""
        ...


class HostUpstream:
    """An attached gateway connection to the pool host."""

    lost_message = "Elftia's pool host stopped while this request ran; try again."

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._lines = sock.makefile("rb")  # after the hello only this reads the socket: buffered is safe

    def send(self, payload: bytes) -> None:
        """One line to the host."""
        self._sock.sendall(wire.frame(payload))

    def receive(self) -> bytes | None:
        """One whole line from the host; None when it went (a line torn by its death is dropped)."""
        try:
            line = self._lines.readline(wire.MAX_FRAME + 1)
        except (OSError, ValueError):
            return None
        return line[:-1] if line.endswith(b"\n") else None

    def close(self) -> None:
        """Shut the socket down (wakes the reader)."""
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        self._sock.close()
        self._lines.close()


class OwnGateway:
    """``elftia-mcp serve --no-daemon`` in a child process: the gateway's own pool when no host can be had."""

    lost_message = "Elftia's gateway stopped while this request ran; try again."

    def __init__(self, argv: list[str]) -> None:
        self._child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def send(self, payload: bytes) -> None:
        """One line to the child's stdin."""
        assert self._child.stdin is not None
        try:
            self._child.stdin.write(payload + b"\n")
            self._child.stdin.flush()
        except ValueError as exc:  # closed meanwhile
            raise BrokenPipeError(str(exc)) from exc

    def receive(self) -> bytes | None:
        """One non-empty line of the child's stdout."""
        assert self._child.stdout is not None
        while line := self._child.stdout.readline():
            if line.strip():
                return line.rstrip(b"\r\n")
        return None

    def close(self) -> None:
        """Close the child's stdin (it stops its servers and exits); terminate it when it does not."""
        assert self._child.stdin is not None
        with contextlib.suppress(OSError):
            self._child.stdin.close()
        try:
            self._child.wait(CHILD_STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self._child.terminate()
            self._child.wait()

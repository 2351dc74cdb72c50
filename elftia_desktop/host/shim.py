"""``elftia-mcp serve`` attached to the pool host: a stdio forwarder that needs no MCP server of its own.

Each line the app writes on stdin (one JSON-RPC message) goes to the host as one frame, and
each frame from the host goes to stdout as one line, so the gateway's MCP session runs in the
host (its progress, cancellation, elicitation and log level stay this client's). The shim keeps
only what recovery needs: the ``initialize`` request and ``initialized`` notification, and the
ids of requests in flight. When the host goes away, those requests get an error at once; the
next request starts (or finds) a new host, replays the handshake there and carries on.

SIGTERM and SIGINT end the shim with a one-line note; closing the socket lets the host cancel
what this client left running. Standard library only.
"""

from __future__ import annotations

import contextlib
import json
import signal
import socket
import sys
import threading
from types import FrameType
from typing import Any, BinaryIO

from elftia_desktop.host import attach, wire

REPLAY_ID = "elftia-host-replay"
"""The id of an ``initialize`` replayed to a new host (its answer is not passed on)."""
REPLAY_TIMEOUT = 60.0
HOST_LOST = -32603


class Stopped(Exception):
    """SIGTERM or SIGINT arrived."""


class Signals:
    """SIGTERM and SIGINT while the shim runs: the first one stops the forwarding, later ones are noted."""

    NAMES = (signal.SIGTERM, signal.SIGINT)

    def __init__(self) -> None:
        self.received: list[int] = []
        self._previous = {signum: signal.signal(signum, self._on_signal) for signum in self.NAMES}

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        first = not self.received
        self.received.append(signum)
        if first:
            raise Stopped

    def restore(self) -> None:
        """Put the previous handlers back."""
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)

    def note(self) -> None:
        """The one line that says which signal stopped the gateway (nothing when none did)."""
        if self.received:
            note(f"stopped ({signal.Signals(self.received[0]).name})")


def note(text: str) -> None:
    """One line on stderr (the protocol owns stdout)."""
    print(f"elftia gateway: {text}", file=sys.stderr, flush=True)


class Shim:
    """Forwards one app's stdio session to the host, reconnecting after the host went away."""

    def __init__(self, sock: socket.socket, hello: dict[str, Any], stdout: BinaryIO) -> None:
        self._sock: socket.socket | None = sock
        self._hello = hello
        self._stdout = stdout
        self._lock = threading.Lock()
        self._pending: dict[str, Any] = {}
        self._initialize: dict[str, Any] | None = None
        self._initialized: bytes | None = None
        self._replayed = threading.Event()
        self._start_reader(sock)

    # -- host -> app --------------------------------------------------------------------------

    def _start_reader(self, sock: socket.socket) -> None:
        threading.Thread(target=self._read_host, args=(sock,), name="host-reader", daemon=True).start()

    def _write(self, payload: bytes) -> None:
        with self._lock:
            self._stdout.write(payload + b"\n")
            self._stdout.flush()

    def _read_host(self, sock: socket.socket) -> None:
        try:
            while (payload := wire.read_frame(sock)) is not None:
                if self._passes(payload):
                    self._write(payload)
        except (OSError, wire.WireError):
            pass
        self._host_lost(sock)

    def _passes(self, payload: bytes) -> bool:
        """Whether a host message goes to the app (the answer to a replayed ``initialize`` does not)."""
        if b'"id"' not in payload:
            return True  # a notification
        message = json.loads(payload)
        if "method" in message:
            return True  # a request of the host (elicitation, sampling)
        if message.get("id") == REPLAY_ID:
            self._replayed.set()
            return False
        with self._lock:
            self._pending.pop(json.dumps(message.get("id")), None)
        return True

    def _host_lost(self, sock: socket.socket) -> None:
        with self._lock:
            if self._sock is not sock:
                return
            self._sock = None
            failed, self._pending = self._pending, {}
        with contextlib.suppress(OSError):
            sock.close()
        if failed:
            note(f"the pool host went away; {len(failed)} request(s) failed; the next one starts a new host")
        for request_id in failed.values():
            error = {"code": HOST_LOST, "message": "Elftia's pool host stopped while this request ran; try again."}
            self._write(json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}).encode())

    # -- app -> host --------------------------------------------------------------------------

    def _note_sent(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if method == "initialize":
            self._initialize = message
        elif method == "notifications/cancelled":
            self._pending.pop(json.dumps((message.get("params") or {}).get("requestId")), None)
        if method is not None and "id" in message:
            self._pending[json.dumps(message["id"])] = message["id"]

    def _reconnect(self) -> socket.socket:
        """A new host, with this app's handshake replayed on it."""
        sock, _reply = attach.connect("gateway", **self._hello)
        self._replayed.clear()
        with self._lock:
            self._sock = sock
        self._start_reader(sock)
        if self._initialize is not None:
            replay = dict(self._initialize, id=REPLAY_ID)
            sock.sendall(wire.frame(json.dumps(replay).encode()))
            if not self._replayed.wait(REPLAY_TIMEOUT):
                raise attach.NoHost("the new host did not answer the replayed initialize")
            if self._initialized is not None:
                sock.sendall(wire.frame(self._initialized))
        return sock

    def forward(self, line: bytes) -> None:
        """Send one line of the app to the host (reconnecting first when the host went away)."""
        try:
            message = json.loads(line)
        except ValueError:
            message = {}  # the host answers a parse error
        if not isinstance(message, dict):
            message = {}
        if message.get("method") == "notifications/initialized":
            self._initialized = line
        with self._lock:
            sock = self._sock
            self._note_sent(message)
        if sock is None:
            if "id" not in message:
                return  # a notification for a host that is gone
            try:
                sock = self._reconnect()
            except (attach.NoHost, wire.WireError, OSError) as exc:
                self._host_lost_now(message, exc)
                return
        try:
            sock.sendall(wire.frame(line))
        except OSError:
            self._host_lost(sock)

    def _host_lost_now(self, message: dict[str, Any], exc: Exception) -> None:
        with self._lock:
            self._pending.pop(json.dumps(message.get("id")), None)
        error = {"code": HOST_LOST, "message": f"Elftia's pool host could not be started: {exc}"}
        self._write(json.dumps({"jsonrpc": "2.0", "id": message.get("id"), "error": error}).encode())

    def close(self) -> None:
        """Close the connection (the host ends this client's session and cancels its requests)."""
        with self._lock:
            sock, self._sock = self._sock, None
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def run(self, stdin: BinaryIO) -> None:
        """Forward until the app closes stdin."""
        for raw in stdin:
            line = raw.strip()
            if line:
                self.forward(line)


def run_shim(agent: str | None, hub: bool, timeout: float | None) -> int | None:
    """Serve stdio through the host; None when no host can be reached (the caller serves in-process)."""
    hello: dict[str, Any] = {"agent": agent, "hub": hub, "timeout": timeout}
    try:
        sock, _reply = attach.connect("gateway", **hello)
    except wire.HostRefused as exc:
        if exc.kind == "AgentNotFound":
            print(f"error: --agent: {exc}", file=sys.stderr)
            return 2
        note(f"the pool host refused this gateway ({exc}); serving with this process's own pool")
        return None
    except attach.NoHost as exc:
        note(f"{exc}; serving with this process's own pool")
        return None
    shim = Shim(sock, hello, sys.stdout.buffer)
    signals = Signals()
    try:
        with contextlib.suppress(Stopped):
            try:
                shim.run(sys.stdin.buffer)
            finally:
                shim.close()  # a signal here (after the app closed stdin) interrupts nothing that matters
    finally:
        signals.restore()
    signals.note()
    return 0

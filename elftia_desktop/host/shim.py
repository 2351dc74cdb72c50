"""``elftia-mcp serve`` attached to the pool host: a plain forwarder of whole lines, one answer per request.

The shim reads the app's stdin itself, line by line (a message is one line: nothing torn reaches
the host), and sends each line to the host's endpoint (``wire.py``: the same lines); a reader
thread writes the host's lines to stdout, one whole line per write under a lock (never
interleaved). It keeps the ids of the requests it forwarded (``_pending``, as the SDK's
``JSONRPCDispatcher`` does) until their answer passes; when the host goes (killed, stopped, handing
over), every one of them gets a JSON-RPC error at once, exactly once, and the next request reaches
a new host (found, or started on demand). Every new host first gets the app's handshake again:
the ``initialize`` under ``REPLAY_ID`` (its answer is not passed on) and ``notifications/initialized``.

When no host runs yet, the shim answers a well-formed ``initialize`` at once (the gateway's name,
instructions and capabilities are known: ``gateway/announce.py``), so an app's connect check never
waits for a host to start; other messages wait in a queue while the host starts in the background.
When no host can be reached at all, the session runs on this gateway's own pool (``serve
--no-daemon`` in a child process), with the same results.

SIGTERM and SIGINT end the shim with a one-line note; closing the connection lets the host cancel
what this client left running. Standard library only.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable
from typing import Any, BinaryIO

from elftia_desktop import __version__
from elftia_desktop.gateway.announce import initialize_result
from elftia_desktop.host import attach, wire
from elftia_desktop.host.shim_signals import note, serve
from elftia_desktop.host.upstreams import HostUpstream, OwnGateway, Upstream
from elftia_desktop.host.wire import REPLAY_ID

HOST_LOST = -32603
EXIT_BAD_INPUT = 2


def answerable(message: dict[str, Any]) -> bool:
    """Whether ``message`` is a well-formed ``initialize`` (a malformed one goes to the SDK for its error)."""
    params = message.get("params")
    if message.get("method") != "initialize" or "id" not in message or not isinstance(params, dict):
        return False
    info = params.get("clientInfo")
    return (
        isinstance(params.get("protocolVersion"), str)
        and isinstance(params.get("capabilities"), dict)
        and isinstance(info, dict)
        and isinstance(info.get("name"), str)
        and isinstance(info.get("version"), str)
    )


def _key(request_id: Any) -> str:
    return json.dumps(request_id)


def _parse(line: bytes) -> dict[str, Any]:
    """The line's JSON object; empty when it is none (the host's SDK answers the parse error)."""
    try:
        message = json.loads(line)
    except ValueError:
        return {}
    return message if isinstance(message, dict) else {}


class Shim:
    """Forwards one app's stdio session to the host, attaching (again) in the background when needed."""

    def __init__(
        self, hello: dict[str, Any], own_gateway: list[str], stdout: BinaryIO, read_stdin: Callable[[], bytes]
    ) -> None:
        """``read_stdin``: the next bytes of the app's stdin, as they come (empty at its end)."""
        self._hello = hello
        self._own_gateway = own_gateway
        self._stdout = stdout
        self._read_chunk = read_stdin
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._upstream: Upstream | None = None
        self._attaching = False
        self._queue: list[bytes] = []
        """What waits for the next upstream, in order (the handshake first after a loss)."""
        self._pending: dict[str, Any] = {}
        """Requests sent and not answered yet, by their id's JSON."""
        self._gone: set[Upstream] = set()
        """Upstreams whose reader ended (the host went)."""
        self._initialize: bytes | None = None
        self._initialized: bytes | None = None
        self._closing = False
        self.done = threading.Event()
        self.exit_code = 0

    # -- upstream -> app ----------------------------------------------------------------------

    def _write(self, message: bytes) -> None:
        with self._write_lock:
            self._stdout.write(message + b"\n")
            self._stdout.flush()

    def _answer_error(self, request_id: Any, text: str) -> None:
        error = {"code": HOST_LOST, "message": text}
        self._write(json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}).encode())

    def _read(self, upstream: Upstream) -> None:
        """The upstream's lines to the app until it goes; then its requests in flight get their error."""
        while (payload := upstream.receive()) is not None:
            if self._passes(payload):
                self._write(payload)
        with self._lock:
            self._gone.add(upstream)  # gone before ``install`` made it current: it handles the loss then
        self._lost(upstream)

    def _passes(self, payload: bytes) -> bool:
        """Whether a message goes to the app (the answer to the replayed ``initialize`` does not)."""
        if b'"id"' not in payload:
            return True  # a notification
        message = _parse(payload)
        if "method" in message:
            return True  # a request of the host (elicitation, sampling)
        if message.get("id") == REPLAY_ID:
            return False
        if message.get("id") is None:
            return True  # an error about a line that was no request (a parse error)
        with self._lock:  # an answer passes once; one to a request the app cancelled does not
            return self._pending.pop(_key(message.get("id")), None) is not None

    def _lost(self, upstream: Upstream) -> None:
        with self._lock:
            if self._upstream is not upstream:
                return
            self._gone.discard(upstream)
            self._upstream = None
            failed, self._pending = self._pending, {}
            handshake = self._handshake()
            self._queue = [line for line in handshake if line not in self._queue] + self._queue
            waiting = any(line not in handshake for line in self._queue)
        upstream.close()
        if failed and not self._closing:
            note(f"the pool host went away; {len(failed)} request(s) failed; the next one starts a new host")
        for request_id in failed.values():
            self._answer_error(request_id, upstream.lost_message)
        if waiting:
            self.start_attaching()

    # -- attaching ----------------------------------------------------------------------------

    def _handshake(self) -> list[bytes]:
        return [line for line in (self._initialize, self._initialized) if line is not None]

    def start_attaching(self) -> None:
        """Reach the host in the background (unless that runs already); the queue follows."""
        with self._lock:
            if self._attaching or self._upstream is not None or self._closing:
                return
            self._attaching = True
        threading.Thread(target=self._attach, name="host-attach", daemon=True).start()

    def _attach(self) -> None:
        upstream = self._connect()
        if upstream is None:
            self._attach_failed()
        else:
            self.install(upstream)

    def _connect(self) -> Upstream | None:
        """The upstream to use (the host, else this gateway's own pool); None when nothing could be had."""
        try:
            return self.reach_host(start=True)
        except wire.HostRefused as exc:
            if exc.kind == "AgentNotFound":
                print(f"error: --agent: {exc}", file=sys.stderr, flush=True)
                self.finish(EXIT_BAD_INPUT)
                return None
            note(f"the pool host refused this gateway ({exc}); serving with this gateway's own pool")
        except (attach.NoHost, wire.WireError, OSError) as exc:
            note(f"{exc}; serving with this gateway's own pool")
        try:
            return OwnGateway(self._own_gateway)
        except OSError as exc:
            note(f"this gateway's own pool could not be started: {exc}")
            return None

    def reach_host(self, *, start: bool) -> Upstream:
        """The host's connection for this gateway (raises what ``attach.connect`` raises)."""
        sock, _reply = attach.connect("gateway", start=start, **self._hello)
        return HostUpstream(sock)

    def _attach_failed(self) -> None:
        with self._lock:
            self._attaching = False
            handshake = self._handshake()
            failed = [_parse(line) for line in self._queue if line not in handshake]
            self._queue = handshake
        for message in failed:
            if "id" in message and "method" in message:
                self._answer_error(message["id"], "Elftia's pool host could not be reached; try again.")

    def install(self, upstream: Upstream) -> None:
        """Make ``upstream`` the current one: send what waits, then pass messages straight on."""
        threading.Thread(target=self._read, args=(upstream,), name="upstream-reader", daemon=True).start()
        gone = False
        while True:
            with self._lock:
                if self._closing:
                    self._attaching = False
                    break
                batch, self._queue = self._queue, []
                if not batch:
                    self._upstream, self._attaching = upstream, False
                    gone = upstream in self._gone
                    break
                for line in batch:
                    self._note_sent(line)
            for index, line in enumerate(batch):
                try:
                    upstream.send(line)
                except OSError:
                    with self._lock:  # lost on the way: what was not sent waits for the next upstream
                        self._upstream, self._attaching = upstream, False
                        for unsent in batch[index:]:
                            self._pending.pop(_key(_parse(unsent).get("id")), None)
                        self._queue = batch[index:] + self._queue
                    self._lost(upstream)
                    return
        if self._upstream is not upstream:  # closing
            upstream.close()
        elif gone:  # it went while what waited was sent: those requests get their error now
            self._lost(upstream)

    # -- app -> upstream ----------------------------------------------------------------------

    def read_stdin(self) -> None:
        """Forward the app's whole lines until it closes stdin (a thread's body); then the session ends.

        Read in chunks from the descriptor, not through ``sys.stdin`` (a thread blocked in a buffered
        reader holds its lock, and the interpreter aborts at exit when it cannot take it).
        """
        rest = b""
        try:
            while chunk := self._read_chunk():
                *lines, rest = (rest + chunk).split(b"\n")
                for line in lines:
                    if line.strip():
                        self.forward(line.strip())
        except OSError:
            pass
        if rest.strip():
            self.forward(rest.strip())  # the app's last line, without its line end
        self.finish(self.exit_code)

    def _note_sent(self, line: bytes) -> None:
        if b'"id"' not in line:
            return
        message = _parse(line)
        if "method" in message and "id" in message and message["id"] != REPLAY_ID:
            self._pending[_key(message["id"])] = message["id"]

    def forward(self, line: bytes) -> None:
        """Pass one line of the app on (answering a well-formed ``initialize`` here)."""
        message = _parse(line)
        if answerable(message):
            result = initialize_result(
                message["params"]["protocolVersion"], hub=bool(self._hello.get("hub")), version=__version__
            )
            self._write(
                json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}, separators=(",", ":")).encode()
            )
        with self._lock:
            line = self._record(message, line)
            upstream = self._upstream
            if upstream is None:
                self._queue.append(line)
            else:
                self._note_sent(line)
        if upstream is None:
            if "id" in message:
                self.start_attaching()
            return
        try:
            upstream.send(line)
        except OSError:
            self._lost(upstream)

    def _record(self, message: dict[str, Any], line: bytes) -> bytes:
        """Note what a new upstream must replay; the line to send on (``initialize`` under ``REPLAY_ID``)."""
        method = message.get("method")
        if method == "notifications/initialized":
            self._initialized = line
        elif method == "notifications/cancelled":
            self._pending.pop(_key((message.get("params") or {}).get("requestId")), None)
        elif answerable(message):
            line = self._initialize = json.dumps(dict(message, id=REPLAY_ID)).encode()
        return line

    def start_reading(self) -> None:
        """Start the thread that reads the app's stdin."""
        threading.Thread(target=self.read_stdin, name="stdin", daemon=True).start()

    def finish(self, code: int = 0) -> None:
        """End the session with exit code ``code``."""
        self.exit_code = code
        self.done.set()

    def close(self) -> None:
        """Close the upstream (the host ends this client's session and cancels its requests)."""
        with self._lock:
            self._closing = True
            upstream, self._upstream = self._upstream, None
        if upstream is not None:
            upstream.close()


def run_shim(
    agent: str | None,
    hub: bool,
    timeout: float | None,
    own_gateway: list[str],
    unknown_agent: Callable[[str], str | None],
) -> int | None:
    """Serve stdio through the host; None when this environment has no place for a host (the caller serves in-process).

    ``own_gateway``: the command line of ``serve --no-daemon`` with the same options (the fallback).
    ``unknown_agent``: why ``--agent NAME`` names no agent (None when it does), asked when no host
    runs yet to ask.
    """
    hello: dict[str, Any] = {"agent": agent, "hub": hub, "timeout": timeout}
    stdin = sys.stdin.fileno()
    shim = Shim(hello, own_gateway, sys.stdout.buffer, lambda: os.read(stdin, 1 << 16))
    try:
        shim.install(shim.reach_host(start=False))
    except wire.HostRefused as exc:
        if exc.kind == "AgentNotFound":
            print(f"error: --agent: {exc}", file=sys.stderr)
            return EXIT_BAD_INPUT
        note(f"the pool host refused this gateway ({exc}); serving with this process's own pool")
        return None
    except attach.Unreachable as exc:
        note(f"{exc}; serving with this process's own pool")
        return None
    except attach.NoHost:
        problem = unknown_agent(agent) if agent is not None else None
        if problem is not None:
            print(f"error: --agent: {problem}", file=sys.stderr)
            return EXIT_BAD_INPUT
        shim.start_attaching()  # cold: the host starts while the app's initialize is answered here
    return serve(shim)

"""``elftia-mcp serve`` attached to the pool host: it hands the app's pipes to the host and stays, idle.

When a host runs, the shim sends its hello with the app's stdin and stdout attached (and an
in-flight region, ``adopt_region.py``): the host reads and writes the app's pipes itself
(``adopt_link.py``), so a message crosses one process less, and the gateway's MCP session runs
there (its progress, cancellation, elicitation and log level stay this client's). The shim stays
the process the app started, holding the control link: signals and the exit code are its.

When no host runs yet, the shim reads stdin itself and answers ``initialize`` at once (the
gateway's name, instructions and capabilities are known: ``gateway/announce.py``), so an app's
connect check never waits for a host to start; other messages wait in a queue while the host starts
in the background, and go to it with the pipes (the reading stops at a line boundary: no byte is
lost). Every new host first gets the app's handshake (the ``initialize`` under ``REPLAY_ID``, whose
answer is not passed on, and ``notifications/initialized``). When the host goes away, the requests
in flight (the region's) get an error at once, the shim reads stdin again (from what a stopping
host handed back), and the next request starts (or finds) a new host. When stdin or stdout is a
terminal or a file (the host reads only pipes and sockets), or the host does not adopt (an older
one), the shim forwards one JSON-RPC message per frame instead; when no host can be reached at all,
the rest of the session runs on this gateway's own pool (``serve --no-daemon`` in a child
process), with the same results.

SIGTERM and SIGINT end the shim with a one-line note; closing the socket lets the host cancel what
this client left running. Standard library only.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import stat
import sys
import threading
from collections.abc import Callable
from typing import Any, BinaryIO, Literal

from elftia_desktop import __version__
from elftia_desktop.gateway.announce import initialize_result
from elftia_desktop.host import adopt_region, attach, wire
from elftia_desktop.host.adopt_shim import Adopted, StdinReader
from elftia_desktop.host.location import host_location
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


class Shim:
    """Forwards one app's stdio session to the host, attaching (again) in the background when needed."""

    def __init__(self, hello: dict[str, Any], own_gateway: list[str], stdout: BinaryIO, stdin_fd: int) -> None:
        self._hello = hello
        self._own_gateway = own_gateway
        self._stdout = stdout
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._upstream: Upstream | None = None
        self._adopted: Adopted | None = None
        """The host that reads the app's pipes now (the reader is parked meanwhile)."""
        self._stdin_fd = stdin_fd
        self._reader = StdinReader(stdin_fd, self.forward, lambda: self.finish(self.exit_code))
        self._attaching = False
        self._queue: list[bytes] = []
        """What waits for the next upstream, in order (the handshake first after a loss)."""
        self._pending: dict[str, Any] = {}
        """Requests sent and not answered yet, by their id's JSON."""
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
        while (payload := upstream.receive()) is not None:
            if self._passes(payload):
                self._write(payload)
        self._lost(upstream)

    def _passes(self, payload: bytes) -> bool:
        """Whether a message goes to the app (the answer to the replayed ``initialize`` does not)."""
        if b'"id"' not in payload:
            return True  # a notification
        message = json.loads(payload)
        if "method" in message:
            return True  # a request of the host (elicitation, sampling)
        if message.get("id") == REPLAY_ID:
            return False
        with self._lock:
            self._pending.pop(_key(message.get("id")), None)
        return True

    def _lost(self, upstream: Upstream) -> None:
        with self._lock:
            if self._upstream is not upstream:
                return
            self._upstream = None
            failed, self._pending = self._pending, {}
            self._queue = [line for line in self._handshake() if line not in self._queue] + self._queue
            waiting = any(b'"id"' in line and line not in self._handshake() for line in self._queue)
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
            if self._attaching or self._upstream is not None or self._adopted is not None or self._closing:
                return
            self._attaching = True
        threading.Thread(target=self._attach, name="host-attach", daemon=True).start()

    def _attach(self) -> None:
        upstream: Upstream | Literal["adopted"] | None = None
        try:
            upstream = self._connect()
        finally:
            if upstream is None:
                self._attach_failed()
            elif upstream != "adopted":
                self.install(upstream)

    def _connect(self) -> Upstream | Literal["adopted"] | None:
        """The upstream to use, ``"adopted"`` when the host took the app's pipes; None when nothing could be had."""
        try:
            return self.reach_host(start=True) or "adopted"
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

    def _attach_failed(self) -> None:
        with self._lock:
            self._attaching = False
            handshake = self._handshake()
            failed = [json.loads(line) for line in self._queue if line not in handshake]
            self._queue = handshake
        for message in failed:
            if "id" in message and "method" in message:
                self._answer_error(message["id"], "Elftia's pool host could not be reached; try again.")

    def install(self, upstream: Upstream) -> None:
        """Make ``upstream`` the current one: send what waits, then pass messages straight on."""
        threading.Thread(target=self._read, args=(upstream,), name="upstream-reader", daemon=True).start()
        while True:
            with self._lock:
                if self._closing:
                    self._attaching = False
                    break
                batch, self._queue = self._queue, []
                if not batch:
                    self._upstream, self._attaching = upstream, False
                    return
                for line in batch:
                    self._note_sent(line)
            for index, line in enumerate(batch):
                try:
                    upstream.send(line)
                except OSError:
                    with self._lock:  # lost on the way: what was not sent waits for the next upstream
                        self._upstream, self._attaching = upstream, False
                        self._queue = batch[index:] + self._queue
                    self._lost(upstream)
                    return
        upstream.close()

    # -- adoption -----------------------------------------------------------------------------

    def reach_host(self, *, start: bool) -> Upstream | None:
        """Attach, handing the host the app's pipes: None when it adopted them, else the framed upstream.

        Raises what ``attach.connect`` raises (the reader reads again then)."""
        handed: list[int] = []

        def hand_over() -> tuple[list[int], dict[str, Any]]:
            """Park the reader; the pipes, a new region and what the host must read first."""
            if handed or not self._pipes():
                return [], {}
            rest = self._reader.park()
            if rest is None:
                return [], {}
            with self._lock:
                pending = b"".join(line + b"\n" for line in self._queue) + rest
            handed.append(adopt_region.create_fd(host_location().socket.parent))
            fds = [self._stdin_fd, self._stdout.fileno(), handed[0]]
            return fds, {"adopt": {"pending": base64.b64encode(pending).decode()}}

        try:
            sock, reply = attach.connect("gateway", start=start, handover=hand_over, **self._hello)
        except BaseException:
            self._give_back(handed)
            raise
        if handed and reply.get("adopted"):
            self._adopt(Adopted(sock, handed[0]))
            return None
        self._give_back(handed)
        return HostUpstream(sock)

    def _pipes(self) -> bool:
        """Whether stdin and stdout are pipes or sockets (a terminal or a file is not the host's to read)."""
        modes = [os.fstat(fd).st_mode for fd in (self._stdin_fd, self._stdout.fileno())]
        return all(stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) for mode in modes)

    def _give_back(self, handed: list[int]) -> None:
        """The host did not take the pipes: read stdin again."""
        for fd in handed:
            os.close(fd)
        self._reader.resume()

    def _adopt(self, adopted: Adopted) -> None:
        with self._lock:
            self._queue, self._attaching, self._adopted = [], False, adopted
        threading.Thread(target=self._follow, args=(adopted,), name="host-control", daemon=True).start()

    def _follow(self, adopted: Adopted) -> None:
        """Follow the control link; when it ends, end the session or take stdin back."""
        adopted.follow(self._record_line)
        adopted.close()
        with self._lock:
            self._adopted = None
            closing = self._closing
            failed = [] if adopted.ended or closing else adopted.in_flight()
            self._queue = self._handshake() + self._queue
        adopted.release()
        if adopted.ended or closing:
            self.finish(self.exit_code)
            return
        for fd in (self._stdin_fd, self._stdout.fileno()):
            os.set_blocking(fd, True)  # the host's event loop made them non-blocking
        if failed:
            note(f"the pool host went away; {len(failed)} request(s) failed; the next one starts a new host")
        for request_id in failed:
            self._answer_error(request_id, adopted.lost_message)
        self._reader.resume(adopted.rest or b"", skip_partial=adopted.rest is None)

    def _record_line(self, line: bytes) -> None:
        """A handshake line the host read (replayed to the next host)."""
        with contextlib.suppress(ValueError):
            message = json.loads(line)
            if isinstance(message, dict):
                with self._lock:
                    self._record(message, line)

    def start_reading(self) -> None:
        """Start the thread that reads stdin when the shim has it (it starts parked)."""
        threading.Thread(target=self._reader.run, name="stdin", daemon=True).start()

    def resume_reading(self) -> None:
        """Read stdin here (no host took it)."""
        self._reader.resume()

    # -- app -> upstream ----------------------------------------------------------------------

    def _note_sent(self, line: bytes) -> None:
        if not line.startswith(b"{") or b'"id"' not in line:
            return
        message = json.loads(line)
        if "method" in message and "id" in message and message["id"] != REPLAY_ID:
            self._pending[_key(message["id"])] = message["id"]

    def forward(self, line: bytes) -> None:
        """Pass one line of the app on (answering a well-formed ``initialize`` here)."""
        try:
            message = json.loads(line)
        except ValueError:
            message = None  # the SDK answers a parse error
        if not isinstance(message, dict):
            message = {}
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

    def finish(self, code: int = 0) -> None:
        """End the session with exit code ``code``."""
        self.exit_code = code
        self.done.set()

    def close(self) -> None:
        """Close the upstream (the host ends this client's session and cancels its requests)."""
        with self._lock:
            self._closing = True
            upstream, self._upstream = self._upstream, None
            adopted = self._adopted
        if upstream is not None:
            upstream.close()
        if adopted is not None:
            adopted.close()


def run_shim(
    agent: str | None,
    hub: bool,
    timeout: float | None,
    own_gateway: list[str],
    unknown_agent: Callable[[str], str | None],
) -> int | None:
    """Serve stdio through the host; None when this system has no place for a host (the caller serves in-process).

    ``own_gateway``: the command line of ``serve --no-daemon`` with the same options (the fallback).
    ``unknown_agent``: why ``--agent NAME`` names no agent (None when it does), asked when no host
    runs yet to ask.
    """
    hello: dict[str, Any] = {"agent": agent, "hub": hub, "timeout": timeout}
    shim = Shim(hello, own_gateway, sys.stdout.buffer, sys.stdin.fileno())
    try:
        upstream = shim.reach_host(start=False)
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
        shim.resume_reading()
        shim.start_attaching()  # cold: the host starts while the app's initialize is answered here
    else:
        if upstream is not None:  # a host that does not adopt
            shim.install(upstream)
    return serve(shim)

"""Issue 30: the forwarder answers a request exactly once when its host goes at any moment of the attach.

In process: the shim's host is one end of a socket pair whose other end (the "host") reads the
shim's lines and then goes away, before, while or after the shim sends what waited. Whatever the
order of the shim's threads, the app gets exactly one answer per request, an error.
"""

from __future__ import annotations

import json
import socket
import threading
from typing import Any

from elftia_desktop.host.shim import HOST_LOST, Shim
from elftia_desktop.host.upstreams import HostUpstream, Upstream

ROUNDS = 100


class Lines:
    """The app's stdout: whole lines, counted."""

    def __init__(self) -> None:
        self.lines: list[bytes] = []
        self._buffer = b""
        self.changed = threading.Condition()

    def write(self, data: bytes) -> int:
        """Keep ``data``; a line end completes a line."""
        with self.changed:
            *complete, self._buffer = (self._buffer + data).split(b"\n")
            self.lines.extend(complete)
            self.changed.notify_all()
        return len(data)

    def flush(self) -> None:
        """Nothing is buffered."""


class GoneHost(Shim):
    """A shim whose host reads one line and goes (closes its end)."""

    def reach_host(self, *, start: bool) -> Upstream:
        ours, theirs = socket.socketpair()

        def host() -> None:
            with theirs:
                theirs.recv(1)  # something arrived; then the host dies

        threading.Thread(target=host, daemon=True).start()
        return HostUpstream(ours)


def request(request_id: int) -> bytes:
    """A ``tools/call`` line."""
    params: dict[str, Any] = {"name": "alpha__echo", "arguments": {"text": "x"}}
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}).encode()


def test_a_request_sent_while_the_host_goes_is_answered_once_with_an_error() -> None:
    outputs = []
    for index in range(ROUNDS):
        out = Lines()
        shim = GoneHost({"agent": None, "hub": False, "timeout": None}, [], out, lambda: b"")  # type: ignore[arg-type]
        shim.forward(request(index))  # no host yet: it waits, and the attach starts
        with out.changed:
            assert out.changed.wait_for(lambda out=out: out.lines, 60)
        shim.close()
        outputs.append(out)
    for index, out in enumerate(outputs):
        assert len(out.lines) == 1, out.lines
        answer = json.loads(out.lines[0])
        assert answer["id"] == index and answer["error"]["code"] == HOST_LOST

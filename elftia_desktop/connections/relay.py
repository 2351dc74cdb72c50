"""A raw ``tools/call`` relay beside the SDK session, on the same stdio connection.

The SDK's ``ClientSession`` builds a request model per call, runs its dispatcher, and hands the
response to the caller through two memory streams (a task switch each) and a result model. A
relay that only passes a call on needs none of that: :class:`StdioRelay` writes the call line
to the server's stdin itself, with its own string id (``elftia-r-N``: the session's ids are
integers, so the two never collide), and the stdout reader offers it each line first
(``StdioProcess.tap``). A response or a progress notification of one of its ids is the relay's;
every other line (the server's own requests during a relayed call too) goes to the session.

The caller is answered from the reader's own callback (no task, no future per call): ``on_done``
gets the response as a dict, ``{"result": {...}}`` or ``{"error": {...}}``, and ``on_progress``
each progress notification's params. What the SDK does for an abandoned request, the relay
does too: a timeout or :meth:`RelayCall.cancel` sends ``notifications/cancelled`` for the raw
id; the connection closing fails every call in flight with ``CONNECTION_CLOSED``.

A 2026-07-28 server wants the era's per-request ``_meta`` on every request: the relay copies the
stamp of the last request the session itself wrote on this connection (``StdioProcess.stamp``)
and does not relay before the session wrote one.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
from collections.abc import Callable
from typing import Any

import mcp_types as types

from elftia_desktop.connections.stdio_process import StdioProcess

log = logging.getLogger(__name__)

RAW_ID_PREFIX = "elftia-r-"
"""The relay's request ids (and progress tokens): ``elftia-r-<n>``."""
_MARK = '"' + RAW_ID_PREFIX

Outcome = dict[str, Any]
"""A response as the relay hands it back: ``{"result": {...}}`` or ``{"error": {"code", "message", ...}}``."""
OnDone = Callable[[Outcome], None]
OnProgress = Callable[[dict[str, Any]], None]


def closed_outcome() -> Outcome:
    """What a call in flight gets when the connection closes (the SDK's error for it)."""
    return {"error": {"code": types.CONNECTION_CLOSED, "message": "Connection closed"}}


def timeout_outcome(seconds: float) -> Outcome:
    """What a call gets when it ran out of time (the SDK's read-timeout error)."""
    return {
        "error": {"code": types.REQUEST_TIMEOUT, "message": f"Timed out while waiting for response after {seconds}s"}
    }


class RelayCall:
    """One relayed call in flight (see :meth:`StdioRelay.call`)."""

    __slots__ = ("_relay", "on_done", "on_progress", "raw_id", "timer")

    def __init__(self, relay: StdioRelay, raw_id: str, on_done: OnDone, on_progress: OnProgress | None) -> None:
        self._relay = relay
        self.raw_id = raw_id
        self.on_done = on_done
        self.on_progress = on_progress
        self.timer: asyncio.TimerHandle | None = None

    def cancel(self, reason: str = "caller cancelled") -> None:
        """Give the call up: the server is told (``notifications/cancelled``); ``on_done`` is not called."""
        if self._relay.forget(self.raw_id) is self:
            self._relay.send_cancelled(self.raw_id, reason)


class StdioRelay:
    """The raw call path of one stdio connection (one per process: :meth:`of`)."""

    def __init__(self, process: StdioProcess) -> None:
        self._process = process
        self._ids = itertools.count(1)
        self._calls: dict[str, RelayCall] = {}
        self._closed = process.exited.is_set() or process.send_line is None
        process.tap = self

    @classmethod
    def of(cls, process: StdioProcess) -> StdioRelay:
        """The relay of ``process`` (made on first use)."""
        tap = process.tap
        return tap if isinstance(tap, StdioRelay) else cls(process)

    @property
    def ready(self) -> bool:
        """Whether a call can go now: the connection is open and the session wrote its era's stamp."""
        return not self._closed and self._process.stamp is not None

    @property
    def pending(self) -> list[str]:
        """The raw ids of the calls waiting for their response."""
        return list(self._calls)

    # -- calls ---------------------------------------------------------------------------------

    def call(
        self,
        name: str,
        arguments: dict[str, Any],
        on_done: OnDone,
        *,
        timeout: float | None,
        on_progress: OnProgress | None = None,
    ) -> RelayCall | None:
        """Send ``tools/call``; None (nothing sent) when the relay is not :attr:`ready`.

        ``on_done`` gets the response (or the timeout's, the closed connection's error) once,
        from the reader's callback; ``on_progress`` each progress notification's params.
        """
        stamp = self._process.stamp
        if self._closed or stamp is None:
            return None
        raw_id = f"{RAW_ID_PREFIX}{next(self._ids)}"
        params: dict[str, Any] = {"name": name, "arguments": arguments}
        if stamp or on_progress is not None:
            meta = params["_meta"] = dict(stamp)
            if on_progress is not None:
                meta["progressToken"] = raw_id
        call = self._calls[raw_id] = RelayCall(self, raw_id, on_done, on_progress)
        if not self._write({"jsonrpc": "2.0", "id": raw_id, "method": "tools/call", "params": params}):
            del self._calls[raw_id]
            return None
        if timeout is not None:
            call.timer = asyncio.get_running_loop().call_later(timeout, self._timed_out, raw_id, timeout)
        return call

    def forget(self, raw_id: str) -> RelayCall | None:
        """Take a call off the waiting list (its timer stopped); the call, or None when it was not waiting."""
        call = self._calls.pop(raw_id, None)
        if call is not None and call.timer is not None:
            call.timer.cancel()
        return call

    def _timed_out(self, raw_id: str, seconds: float) -> None:
        call = self.forget(raw_id)
        if call is not None:
            self.send_cancelled(raw_id, f"timed out after {seconds}s")
            _deliver(call.on_done, timeout_outcome(seconds))

    def send_cancelled(self, raw_id: str, reason: str) -> None:
        """The courtesy ``notifications/cancelled`` for a raw call given up on (as the SDK sends)."""
        notice = {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": raw_id, "reason": reason},
        }
        self._write(notice)

    def _write(self, message: dict[str, Any]) -> bool:
        send_line = self._process.send_line
        line = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        return send_line is not None and send_line(line)

    # -- the tap ----------------------------------------------------------------------------------

    def take(self, line: str) -> bool:
        """Whether the server's output ``line`` is for a relayed call (then it was delivered)."""
        if _MARK not in line:
            return False
        try:
            message = json.loads(line)
        except ValueError:
            return False
        if not isinstance(message, dict):
            return False
        if "method" in message:
            return self._progress(message)
        raw_id = message.get("id")
        if not isinstance(raw_id, str) or not raw_id.startswith(RAW_ID_PREFIX):
            return False
        call = self.forget(raw_id)
        if call is not None:  # else it was given up on: its late answer is dropped, as the SDK drops one
            _deliver(call.on_done, _outcome(message))
        return True

    def _progress(self, message: dict[str, Any]) -> bool:
        params = message.get("params")
        if message["method"] != "notifications/progress" or not isinstance(params, dict):
            return False
        token = params.get("progressToken")
        if not isinstance(token, str) or not token.startswith(RAW_ID_PREFIX):
            return False
        call = self._calls.get(token)
        if call is not None and call.on_progress is not None:
            _deliver(call.on_progress, params)
        return True

    def closed(self) -> None:
        """The server's output ended: every call in flight fails as the SDK's do on a closed connection."""
        self._closed = True
        for raw_id in list(self._calls):
            call = self.forget(raw_id)
            if call is not None:
                _deliver(call.on_done, closed_outcome())


def _outcome(response: dict[str, Any]) -> Outcome:
    """A response's result, or its error (a malformed one: an internal error, as the SDK's parse failure)."""
    result = response.get("result")
    if isinstance(result, dict):
        return {"result": result}
    error = response.get("error")
    if isinstance(error, dict) and isinstance(error.get("code"), int) and isinstance(error.get("message"), str):
        return {"error": error}
    return {"error": {"code": types.INTERNAL_ERROR, "message": "the server sent a malformed response"}}


def _deliver(callback: Callable[[Any], None], value: Any) -> None:
    """Call back; a failing callback is logged and never stops the reader."""
    try:
        callback(value)
    except Exception:
        log.exception("a relay callback failed")

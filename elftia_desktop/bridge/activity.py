"""Recent tool calls per server, kept in memory from the ``toolCalled`` signal.

The history is bounded (:data:`PER_SERVER` calls per server, the oldest dropped first) and
lives as long as the app: it feeds the Activity tab of the discover panel and the
sparkline on the server cards.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal, Slot

PER_SERVER = 200
"""Calls kept per server."""


@dataclass(frozen=True)
class CallRecord:
    """One finished tool call."""

    server_id: str
    tool_name: str
    outcome: str
    """``ok``, ``error`` (an ``isError`` result), ``failed`` or ``cancelled``."""
    duration_ms: float
    at: float
    """When it finished (seconds since the epoch)."""
    call_id: str | None = None
    caller: str | None = None
    """The attached app that made the call (the window hosts the pool); None for this app's own calls."""

    @property
    def ok(self) -> bool:
        """True when the tool answered without error."""
        return self.outcome == "ok"


class ActivityLog(QObject):
    """The recent calls of every server.

    Signals:
        recorded(str): a call of this server id was added.
    """

    recorded = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._calls: dict[str, deque[CallRecord]] = {}

    @Slot(object)
    def record(self, call: CallRecord) -> None:
        """Add a finished call (from ``toolCalled``)."""
        self._calls.setdefault(call.server_id, deque(maxlen=PER_SERVER)).append(call)
        self.recorded.emit(call.server_id)

    def calls(self, server_id: str) -> list[CallRecord]:
        """The server's kept calls, oldest first."""
        return list(self._calls.get(server_id, ()))

    def last(self, server_id: str) -> CallRecord | None:
        """The server's latest call, if any."""
        calls = self._calls.get(server_id)
        return calls[-1] if calls else None

    def forget(self, server_id: str) -> None:
        """Drop a server's history (a removed server)."""
        if self._calls.pop(server_id, None) is not None:
            self.recorded.emit(server_id)

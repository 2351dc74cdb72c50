"""Recent tool calls per server, kept in memory from the ``toolCalled`` signal, and what sandboxes blocked.

The history is bounded (:data:`PER_SERVER` calls per server, the oldest dropped first) and
lives as long as the app: it feeds the Activity tab of the discover panel and the
sparkline on the server cards. The ``[sandbox] blocked: …`` lines of each server's log (from
``logLine``) are kept too (:data:`BLOCKED_PER_SERVER`, without repeats) for the Activity tab and the card.
"""

from __future__ import annotations

from collections import deque

from PySide6.QtCore import QObject, Signal, Slot

from elftia_desktop.connections.events import ToolCalled
from elftia_desktop.core.sandbox import BLOCKED_PREFIX

PER_SERVER = 200
"""Calls kept per server."""
BLOCKED_PER_SERVER = 50
"""Sandbox denials kept per server (the oldest dropped first)."""


class ActivityLog(QObject):
    """The recent calls of every server.

    Signals:
        recorded(str): a call of this server id was added.
        blockedChanged(str): the sandbox denials of this server id changed.
    """

    recorded = Signal(str)
    blockedChanged = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._calls: dict[str, deque[ToolCalled]] = {}
        self._blocked: dict[str, deque[str]] = {}

    @Slot(str, str)
    def note_log_line(self, server_id: str, line: str) -> None:
        """Keep a ``[sandbox] blocked: …`` line of a server's log (from ``logLine``); ignore the others."""
        if not line.startswith(BLOCKED_PREFIX):
            return
        what = line.removeprefix(BLOCKED_PREFIX).strip()
        kept = self._blocked.setdefault(server_id, deque(maxlen=BLOCKED_PER_SERVER))
        if what in kept:
            kept.remove(what)  # a repeat moves to the end: the latest is last
        kept.append(what)
        self.blockedChanged.emit(server_id)

    def blocked(self, server_id: str) -> list[str]:
        """What the server's sandbox refused (the text after ``[sandbox] blocked:``), oldest first."""
        return list(self._blocked.get(server_id, ()))

    def clear_blocked(self, server_id: str, what: str | None = None) -> None:
        """Forget one denial (``what``, once allowed) or all of the server's."""
        kept = self._blocked.get(server_id)
        if not kept:
            return
        if what is None:
            kept.clear()
        elif what in kept:
            kept.remove(what)
        self.blockedChanged.emit(server_id)

    @Slot(object)
    def record(self, call: ToolCalled) -> None:
        """Add a finished call (from ``toolCalled``)."""
        self._calls.setdefault(call.server_id, deque(maxlen=PER_SERVER)).append(call)
        self.recorded.emit(call.server_id)

    def calls(self, server_id: str) -> list[ToolCalled]:
        """The server's kept calls, oldest first."""
        return list(self._calls.get(server_id, ()))

    def last(self, server_id: str) -> ToolCalled | None:
        """The server's latest call, if any."""
        calls = self._calls.get(server_id)
        return calls[-1] if calls else None

    def forget(self, server_id: str) -> None:
        """Drop a server's history (a removed server)."""
        if self._calls.pop(server_id, None) is not None:
            self.recorded.emit(server_id)
        if self._blocked.pop(server_id, None) is not None:
            self.blockedChanged.emit(server_id)

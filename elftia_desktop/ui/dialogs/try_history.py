"""The calls tried from the window in this app session, per server and tool, for re-running.

Kept in memory only (at most :data:`MAX_ENTRIES` per tool, the oldest dropped first); the
arguments are the ones sent, so a re-run sends exactly the same call.
"""

from __future__ import annotations

import json
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QWidget

from elftia_desktop.ui.widgets.result_view import OUTCOME_STYLE, format_duration

MAX_ENTRIES = 50


@dataclass(frozen=True)
class TriedCall:
    """One call sent from the try-a-tool dialog."""

    server_id: str
    tool_name: str
    args: dict[str, Any]
    outcome: str
    """``ok``, ``error``, ``failed`` or ``cancelled``."""
    duration_ms: float | None
    at: float = field(default_factory=time.time)


class TryHistory:
    """The session's tried calls by (server id, tool name)."""

    def __init__(self) -> None:
        self._calls: dict[tuple[str, str], deque[TriedCall]] = {}

    def add(self, call: TriedCall) -> None:
        """Remember ``call`` (newest last)."""
        self._calls.setdefault((call.server_id, call.tool_name), deque(maxlen=MAX_ENTRIES)).append(call)

    def calls(self, server_id: str, tool_name: str) -> list[TriedCall]:
        """The calls of one tool, newest first."""
        return list(reversed(self._calls.get((server_id, tool_name), ())))


SESSION_HISTORY = TryHistory()
"""The history of this app session, shared by every try-a-tool dialog."""


class HistoryList(QListWidget):
    """The tried calls of one tool, newest first; each item holds its :class:`TriedCall`."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAlternatingRowColors(True)
        self.setStyleSheet("QListWidget::item { padding: 5px 4px; }")
        self.setToolTip("Calls of this tool in this session; double-click one to run it again")

    def show_calls(self, calls: list[TriedCall]) -> None:
        """Replace the list with ``calls``."""
        self.clear()
        for call in calls:
            label, _color = OUTCOME_STYLE.get(call.outcome, (call.outcome, ""))
            took = format_duration(call.duration_ms) if call.duration_ms is not None else "—"
            args = json.dumps(call.args, ensure_ascii=False)
            short = args if len(args) <= 70 else args[:67] + "…"
            item = QListWidgetItem(f"{time.strftime('%H:%M:%S', time.localtime(call.at))}  {label}  {took}\n{short}")
            item.setData(Qt.ItemDataRole.UserRole, call)
            item.setToolTip(json.dumps(call.args, indent=2, ensure_ascii=False))
            self.addItem(item)

    def call_at(self, row: int) -> TriedCall | None:
        """The call of row ``row``."""
        item = self.item(row)
        call = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        return call if isinstance(call, TriedCall) else None

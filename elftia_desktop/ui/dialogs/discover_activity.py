"""The Activity tab of the discover panel: a server's recent tool calls at a glance.

What its sandbox blocked, when it blocked anything, on top (``DenialsBox``: one click allows one).
A summary line (calls, failures, median and slowest latency), the chart of calls over time
and latency, and the table of the latest calls (time, tool, duration, outcome, and the app that made
it), newest first. It follows the router's activity log live.
"""

from __future__ import annotations

import statistics
import time
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Slot
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from elftia_desktop.ui.widgets.activity_chart import ActivityChart
from elftia_desktop.ui.widgets.result_view import OUTCOME_STYLE, format_duration

if TYPE_CHECKING:
    from elftia_desktop.bridge.activity import ActivityLog
    from elftia_desktop.bridge.signals import ToolCalled

TABLE_ROWS = 100


def summary(calls: list[ToolCalled]) -> str:
    """``12 calls · 2 failed · median 40 ms · slowest 2.1 s`` (or that there were none)."""
    if not calls:
        return "No tool calls yet in this session. Calls from agents, Try and apps attached to Elftia appear here."
    bad = sum(1 for c in calls if not c.ok)
    durations = [c.duration_ms for c in calls]
    parts = [f"{len(calls)} call{'s' if len(calls) != 1 else ''}", f"{bad} not OK" if bad else "all OK"]
    parts += [f"median {format_duration(statistics.median(durations))}", f"slowest {format_duration(max(durations))}"]
    return "  ·  ".join(parts)


class ActivityPanel(QWidget):
    """Recent calls of one server: summary, chart and table (and, given, the box of its sandbox denials)."""

    def __init__(
        self, activity: ActivityLog, server_id: str, parent: QWidget | None = None, denials: QWidget | None = None
    ) -> None:
        """``denials``: shown above the calls (a ``DenialsBox`` of the same server)."""
        super().__init__(parent)
        self.denials = denials
        self.activity = activity
        self.server_id = server_id
        self.summary = QLabel(self)
        self.summary.setObjectName("Muted")
        self.summary.setWordWrap(True)
        self.chart = ActivityChart(self)
        self.table = QTreeWidget(self)
        self.table.setRootIsDecorated(False)
        self.table.setAlternatingRowColors(True)
        self.table.setHeaderLabels(["Time", "Tool", "Duration", "Outcome", "By"])
        header = self.table.header()
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setStretchLastSection(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        if denials is not None:
            layout.addWidget(denials)
        layout.addWidget(self.summary)
        layout.addWidget(self.chart)
        layout.addWidget(self.table, 1)
        activity.recorded.connect(self._recorded)
        self.refresh()

    @Slot(str)
    def _recorded(self, server_id: str) -> None:
        if server_id == self.server_id:
            self.refresh()

    def refresh(self) -> None:
        """Show the log's current calls of the server."""
        calls = self.activity.calls(self.server_id)
        self.summary.setText(summary(calls))
        self.chart.set_calls(calls)
        self.table.clear()
        for call in reversed(calls[-TABLE_ROWS:]):
            label, color = OUTCOME_STYLE.get(call.outcome, (call.outcome, ""))
            when = time.strftime("%H:%M:%S", time.localtime(call.at))
            row = [when, call.tool_name, format_duration(call.duration_ms), label, call.caller or "Elftia"]
            item = QTreeWidgetItem(self.table, row)
            item.setTextAlignment(2, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if color:
                item.setForeground(3, QColor(color))
        for column in (0, 2, 3, 4):
            self.table.resizeColumnToContents(column)


class ActivityDialog(QDialog):
    """A server's Activity on its own (from the server card's last-call badge)."""

    def __init__(
        self,
        activity: ActivityLog,
        server_id: str,
        name: str,
        parent: QWidget | None = None,
        denials: QWidget | None = None,
    ) -> None:
        """``denials``: the server's sandbox denials box, shown above its calls."""
        super().__init__(parent)
        self.setWindowTitle(f"Activity — {name}")
        title = QLabel(name, self)
        title.setObjectName("PageTitle")
        self.panel = ActivityPanel(activity, server_id, self, denials)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 14, 16, 14)
        layout.addWidget(title)
        layout.addWidget(self.panel, 1)
        layout.addWidget(buttons)
        self.resize(720, 520)

"""``TaskList``: the tasks the pool follows and followed (the tasks extension), with a Cancel for a running one.

Filled from ``mcp:tasks`` when shown (the pool follows again what an earlier pool host saved, so
a task survives the window's restart) and kept current by the router's ``taskStatus`` signal. One
row per task, newest first: server, tool, status, the server's status message, when it started.
"""

from __future__ import annotations

import time

from PySide6.QtCore import Qt, Slot
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.bridge.signals import TaskStatus

COLUMNS = ["Server", "Tool", "Status", "Message", "Started"]


class TaskList(QWidget):
    """The pool's tasks (see the module docstring)."""

    def __init__(self, router: McpRouter, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.router = router
        self.tasks: dict[tuple[str, str], TaskStatus] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        header = QHBoxLayout()
        self.title = QLabel("Tasks")
        self.title.setObjectName("SectionTitle")
        header.addWidget(self.title)
        header.addStretch(1)
        self.cancel_button = QPushButton("Cancel task")
        self.cancel_button.setEnabled(False)
        self.cancel_button.setToolTip("Ask the server to stop the selected running task (tasks/cancel)")
        self.cancel_button.clicked.connect(self.cancel_selected)
        header.addWidget(self.cancel_button)
        layout.addLayout(header)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QTableWidget.SelectionMode.SingleSelection)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        layout.addWidget(self.table, 1)
        self.empty = QLabel("No task yet: a tool that answers a call with a task shows here while it runs and after.")
        self.empty.setObjectName("Muted")
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.empty)
        router.signals.taskStatus.connect(self.show_task)
        self._show()
        router.tasks.tasks().then(self, self._listed)

    def _listed(self, tasks: list[TaskStatus]) -> None:
        for task in tasks:
            self.tasks[(task.server_id, task.task_id)] = task
        self._show()

    @Slot(object)
    def show_task(self, task: TaskStatus) -> None:
        """Show one task's new state."""
        self.tasks[(task.server_id, task.task_id)] = task
        self._show()

    def selected(self) -> TaskStatus | None:
        """The task of the selected row, None when none is selected."""
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        item = self.table.item(rows[0].row(), 0)
        return self.tasks.get(item.data(Qt.ItemDataRole.UserRole)) if item is not None else None

    def cancel_selected(self) -> None:
        """Cancel the selected running task."""
        task = self.selected()
        if task is None or task.ended:
            return
        self.cancel_button.setEnabled(False)
        self.router.tasks.cancel(task.server_id, task.task_id).then(self)

    def _selection_changed(self) -> None:
        task = self.selected()
        self.cancel_button.setEnabled(task is not None and not task.ended)

    def _show(self) -> None:
        chosen = self.selected()
        ordered = sorted(self.tasks.values(), key=lambda t: t.started_at, reverse=True)
        self.table.setRowCount(len(ordered))
        for row, task in enumerate(ordered):
            key = (task.server_id, task.task_id)
            for column, text in enumerate(_cells(task)):
                item = QTableWidgetItem(text)
                item.setToolTip(f"{text}\ntask {task.task_id}")
                item.setData(Qt.ItemDataRole.UserRole, key)
                self.table.setItem(row, column, item)
            if chosen is not None and (chosen.server_id, chosen.task_id) == key:
                self.table.selectRow(row)
        self.table.setVisible(bool(ordered))
        self.empty.setVisible(not ordered)
        self._selection_changed()


def _cells(task: TaskStatus) -> list[str]:
    """The row of a task."""
    started = time.strftime("%H:%M:%S", time.localtime(task.started_at))
    status = task.status.replace("_", " ")
    return [task.server_name, task.tool_name, status, task.status_message or "", started]

"""The last page of the paste-JSON dialog: what happened to each server."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QColor
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

from elftia_desktop.core.text_rules import display_name
from elftia_desktop.ui.theme import STATE_COLORS

_MARKS = {"added": ("✓", "connected"), "failed": ("✗", "error"), "skipped": ("–", "disconnected")}


class ImportResultsPage(QWidget):
    """A title ("Added 2 of 4 servers — 1 failed") and one row per server with its outcome.

    Signals:
        done(): the user pressed Done.
    """

    done = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.result_title = QLabel(self)
        self.result_title.setObjectName("CardTitle")
        self.result_table = QTableWidget(0, 2, self)
        self.result_table.setHorizontalHeaderLabels(["Server", "Outcome"])
        self.result_table.verticalHeader().hide()
        self.result_table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.result_table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.result_table.horizontalHeader().setStretchLastSection(True)
        self.result_table.setWordWrap(True)
        self.done_button = QPushButton("&Done", self)
        self.done_button.setObjectName("Primary")
        self.done_button.setToolTip("Close this dialog")
        self.done_button.clicked.connect(self.done)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.done_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.result_title)
        layout.addWidget(self.result_table, 1)
        layout.addLayout(buttons)

    def show_results(self, results: list[tuple[str, str, str]]) -> None:
        """Fill the page from ``(name, added|failed|skipped, text)`` rows."""
        added = sum(kind == "added" for _n, kind, _t in results)
        failed = sum(kind == "failed" for _n, kind, _t in results)
        title = f"Added {added} of {len(results)} server{'s' * (len(results) != 1)}"
        self.result_title.setText(title + (f" — {failed} failed" if failed else ""))
        self.result_table.setRowCount(len(results))
        for index, (name, kind, text) in enumerate(results):
            mark, color = _MARKS[kind]
            name_item = QTableWidgetItem(f"{mark}  {display_name(name, 60)}")
            name_item.setToolTip(name)
            name_item.setForeground(QColor(STATE_COLORS[color]))
            self.result_table.setItem(index, 0, name_item)
            item = QTableWidgetItem(text)
            item.setToolTip(text)
            self.result_table.setItem(index, 1, item)
        self.result_table.resizeRowsToContents()
        self.done_button.setDefault(True)
        self.done_button.setFocus()

"""A server's log: stderr and protocol log lines, live, searchable, copyable."""

from __future__ import annotations

from PySide6.QtCore import Qt, Slot
from PySide6.QtGui import QFontDatabase, QGuiApplication, QTextCursor
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from elftia_desktop.bridge.router import McpRouter


class LogsDialog(QDialog):
    """Shows one server's recent log and appends new lines as they arrive."""

    def __init__(self, router: McpRouter, server_id: str, server_name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.router = router
        self.server_id = server_id
        self.lines: list[str] = []
        self.setWindowTitle(f"Logs — {server_name}")
        self.resize(760, 460)
        layout = QVBoxLayout(self)

        bar = QHBoxLayout()
        self.search = QLineEdit(placeholderText="Filter lines…")
        self.search.setClearButtonEnabled(True)
        self.search.setToolTip("Show only the lines that contain this text")
        self.search.textChanged.connect(self._refresh)
        bar.addWidget(self.search, 1)
        self.count = QLabel()
        self.count.setObjectName("Muted")
        bar.addWidget(self.count)
        copy = QPushButton("&Copy")
        copy.setToolTip("Copy the shown lines to the clipboard")
        copy.clicked.connect(self.copy_to_clipboard)
        bar.addWidget(copy)
        layout.addLayout(bar)

        self.view = QPlainTextEdit(readOnly=True)
        self.view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.view.setTextInteractionFlags(  # the keys move through the log too (Ctrl+Home, Ctrl+End, Page Up)
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.view.setPlaceholderText("No log lines yet. Start the server (Test) to see its output here.")
        layout.addWidget(self.view, 1)

        close = QPushButton("Close")
        close.clicked.connect(self.accept)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(close)
        layout.addLayout(row)

        router.signals.logLine.connect(self._on_line)
        router.servers.log(server_id).then(self, self._on_history)
        self._refresh()

    def _on_history(self, lines: list[str]) -> None:
        self.lines = list(lines) + self.lines
        self._refresh()

    @Slot(str, str)
    def _on_line(self, server_id: str, line: str) -> None:
        if server_id != self.server_id:
            return
        self.lines.append(line)
        needle = self.search.text().lower()
        if not needle or needle in line.lower():
            self.view.appendPlainText(line)
        self._update_count()

    def shown_lines(self) -> list[str]:
        """The lines that match the filter."""
        needle = self.search.text().lower()
        return [line for line in self.lines if needle in line.lower()] if needle else list(self.lines)

    def _refresh(self) -> None:
        self.view.setPlainText("\n".join(self.shown_lines()))
        self.view.moveCursor(QTextCursor.MoveOperation.End)  # the newest line, read from its start (column 0)
        self.view.moveCursor(QTextCursor.MoveOperation.StartOfLine)
        self.view.horizontalScrollBar().setValue(0)
        self._update_count()

    def _update_count(self) -> None:
        shown = len(self.shown_lines())
        total = len(self.lines)
        self.count.setText(f"{shown} of {total} lines" if shown != total else f"{total} lines")

    def copy_to_clipboard(self) -> None:
        """Copy the shown lines."""
        QGuiApplication.clipboard().setText("\n".join(self.shown_lines()))

    def done(self, result: int) -> None:
        """Stop following the server's log when the dialog closes."""
        self.router.signals.logLine.disconnect(self._on_line)
        super().done(result)

"""``DiffDialog``: what writing into another app's config would change, shown before anything is written."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from PySide6.QtGui import QColor, QFontDatabase, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from elftia_desktop.bridge.results import placeholder_names
from elftia_desktop.ui.theme import STATE_COLORS

if TYPE_CHECKING:
    from elftia_desktop.bridge.results import ExportPlan


class DiffDialog(QDialog):
    """The unified diff of a planned write (``mcp:plan-export-into-app``); Write accepts it."""

    def __init__(self, app_label: str, plan: ExportPlan, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Write into {app_label}'s config")
        self.resize(760, 520)
        self.plan = plan
        column = QVBoxLayout(self)
        backup = (
            "A backup copy of the file is made next to it first (<i>…elftia-backup-DATE</i>)."
            if plan.exists
            else "The file does not exist yet; it will be created."
        )
        intro = QLabel(f"<b>{escape(plan.path)}</b> will change as shown below. {backup}")
        intro.setWordWrap(True)
        column.addWidget(intro)
        notes = []
        if plan.replaced:
            notes.append(f"Replaced there: {escape(', '.join(plan.replaced))}.")
        if plan.placeholders:
            names = ", ".join(placeholder_names(plan.placeholders))
            notes.append(f"Secrets are written as placeholders ({escape(names)}), never as values.")
        notes += [escape(w) for w in plan.warnings]
        if notes:
            extra = QLabel("<br>".join(notes))
            extra.setObjectName("Muted")
            extra.setWordWrap(True)
            column.addWidget(extra)
        self.diff = QPlainTextEdit()
        self.diff.setReadOnly(True)
        self.diff.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self._fill(plan.diff or "(no change: the file already holds exactly these servers)")
        column.addWidget(self.diff, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.write_button = buttons.addButton("Back up and write", QDialogButtonBox.ButtonRole.AcceptRole)
        self.write_button.setObjectName("Primary")
        self.write_button.setEnabled(bool(plan.diff))
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        column.addWidget(buttons)

    def _fill(self, text: str) -> None:
        cursor = self.diff.textCursor()
        colors = {"+": STATE_COLORS["connected"], "-": STATE_COLORS["error"], "@": STATE_COLORS["connecting"]}
        for line in text.splitlines(keepends=True):
            fmt = QTextCharFormat()
            color = colors.get(line[:1]) if not line.startswith(("+++", "---")) else None
            if color:
                fmt.setForeground(QColor(color))
            cursor.insertText(line, fmt)
        cursor.movePosition(QTextCursor.MoveOperation.Start)
        self.diff.setTextCursor(cursor)

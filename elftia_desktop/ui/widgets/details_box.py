"""The message box behind a "Details…" button: it opens with the full text already shown."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget


def details_box(
    parent: QWidget, title: str, text: str, details: str, icon: QMessageBox.Icon, rich: bool = False
) -> QMessageBox:
    """A box with ``text`` (rich text with ``rich``, else as Qt detects it) and ``details`` expanded below it.

    The user asked for the details once (the "Details…" button): the box does not make them ask again
    with its own "Show Details..." button."""
    box = QMessageBox(icon, title, text, parent=parent)
    box.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.AutoText)
    box.setDetailedText(details)
    for button in box.buttons():
        if box.buttonRole(button) == QMessageBox.ButtonRole.ActionRole:
            button.click()  # the toggle Qt adds for the detailed text: shown from the start
    return box

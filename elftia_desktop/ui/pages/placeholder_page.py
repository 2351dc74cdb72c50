"""A page that says what will be there, for sections that arrive in a later release."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget


class PlaceholderPage(QWidget):
    """A title and an explanation, laid out like the other pages."""

    def __init__(self, title: str, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Page")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 20, 24, 16)
        heading = QLabel(title)
        heading.setObjectName("PageTitle")
        layout.addWidget(heading)
        body = QLabel(text)
        body.setObjectName("Muted")
        body.setWordWrap(True)
        body.setTextFormat(Qt.TextFormat.MarkdownText)
        body.setMaximumWidth(620)
        layout.addWidget(body)
        layout.addStretch(1)

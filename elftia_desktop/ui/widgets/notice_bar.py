"""An inline, dismissable message strip for results and errors, with a Details button."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QMessageBox, QPushButton, QWidget

from elftia_desktop.ui.theme import is_dark

_COLORS = {
    # kind: (light bg, light border, dark bg, dark border)
    "info": ("#eaf0ff", "#b9c8f5", "#243056", "#3b4c86"),
    "success": ("#e6f6ec", "#a9dcbc", "#1f3a2a", "#2f6244"),
    "warning": ("#fff4d6", "#f0d48a", "#4a3b12", "#7a6424"),
    "error": ("#fdeaea", "#f1b1b1", "#4a2222", "#7d3737"),
}


class NoticeBar(QFrame):
    """Shows one message at a time; hidden until :meth:`show_message`."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kind = "info"
        self.details = ""
        layout = QHBoxLayout(self)
        layout.setContentsMargins(12, 8, 8, 8)
        self.label = QLabel()
        self.label.setWordWrap(True)
        layout.addWidget(self.label, 1)
        self.details_button = QPushButton("Details…")
        self.details_button.setToolTip("Show the full error")
        self.details_button.clicked.connect(self._show_details)
        layout.addWidget(self.details_button)
        close = QPushButton("✕")
        close.setFlat(True)
        close.setFixedSize(26, 26)
        close.setStyleSheet("QPushButton { padding: 0; border: none; background: transparent; }")
        close.setToolTip("Dismiss")
        close.clicked.connect(self.hide)
        layout.addWidget(close)
        self.hide()

    def show_message(self, text: str, kind: str = "info", details: str = "") -> None:
        """Show ``text`` (rich text: escape plain text first); ``kind`` is info, success, warning or error.

        Errors of requests go through ``ui.error_presenter.show_error``, which escapes them.
        """
        self.kind, self.details = kind, details
        light_bg, light_border, dark_bg, dark_border = _COLORS.get(kind, _COLORS["info"])
        dark = is_dark(self.palette())
        self.setStyleSheet(
            f"NoticeBar {{ background: {dark_bg if dark else light_bg}; border: 1px solid "
            f"{dark_border if dark else light_border}; border-radius: 8px; }}"
        )
        self.label.setText(text.replace("\n", "<br>"))
        self.details_button.setVisible(bool(details))
        self.show()

    def _show_details(self) -> None:
        box = QMessageBox(self)
        box.setWindowTitle("Details")
        box.setIcon(QMessageBox.Icon.Critical if self.kind == "error" else QMessageBox.Icon.Information)
        box.setTextFormat(Qt.TextFormat.RichText)
        box.setText(self.label.text())
        box.setDetailedText(self.details)
        box.exec()

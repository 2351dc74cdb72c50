"""A server asks the user to open an address (URL-mode elicitation): the domain first, opened only on a click.

The dialog names the server, shows the address's domain large and on its own line, then the full
address (selectable, not a link), warns when it is not HTTPS, and has Open in browser and
Decline. Nothing is opened until Open is clicked; an address that is not ``http(s)://`` cannot be
opened from here at all. The answer (and so the consent) is written to the server's log by the
connection (``[elicitation] the user agreed to open …``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

from elftia_desktop.core.url_elicitation import UrlQuestion


class UrlElicitationDialog(QDialog):
    """Asks whether to open the address a server sent; after it closes, ``action`` is accept, decline or cancel."""

    opener: ClassVar[Callable[[QUrl], bool]] = QDesktopServices.openUrl
    """What opens the address on Open (the system browser; tests put their own)."""

    def __init__(self, server_name: str, message: str, question: UrlQuestion, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.action = "cancel"
        self.question = question
        self.setWindowTitle(f"{server_name} asks you to open an address")
        self.setMinimumWidth(460)
        layout = QVBoxLayout(self)
        text = QLabel(message or f"{server_name} asks you to open this address.")
        text.setWordWrap(True)
        text.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(text)
        layout.addWidget(QLabel("It leads to the site:"))
        self.domain = QLabel(question.domain or "(no domain)")
        self.domain.setObjectName("PageTitle")
        font = self.domain.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.6)
        self.domain.setFont(font)  # prominent whatever the style sheet
        self.domain.setTextFormat(Qt.TextFormat.PlainText)
        self.domain.setToolTip("The site the address leads to: check it is the one you expect")
        self.domain.setAccessibleName(f"Domain: {question.domain}")
        layout.addWidget(self.domain)
        self.address = QLabel(question.url)
        self.address.setObjectName("Muted")
        self.address.setWordWrap(True)
        self.address.setTextFormat(Qt.TextFormat.PlainText)
        self.address.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.address)
        self.warning = QLabel(self._warning())
        self.warning.setObjectName("FieldError")
        self.warning.setWordWrap(True)
        self.warning.setVisible(bool(self.warning.text()))
        layout.addWidget(self.warning)
        buttons = QDialogButtonBox()
        self.open_button = buttons.addButton("Open in browser", QDialogButtonBox.ButtonRole.AcceptRole)
        self.open_button.setToolTip(f"Open {question.domain} in your browser and tell the server you did")
        self.open_button.setEnabled(self._openable)
        self.open_button.setAutoDefault(False)
        self.decline_button = buttons.addButton("Decline", QDialogButtonBox.ButtonRole.RejectRole)
        self.decline_button.setToolTip("Tell the server you will not open it")
        self.decline_button.setDefault(True)
        self.open_button.clicked.connect(self._open)
        self.decline_button.clicked.connect(lambda: self._finish("decline"))
        layout.addWidget(buttons)

    @property
    def _openable(self) -> bool:
        return QUrl(self.question.url).scheme().lower() in ("http", "https") and bool(self.question.domain)

    def _warning(self) -> str:
        if not self._openable:
            return "This is not a web address: Elftia will not open it."
        if not self.question.https:
            return "Not an https:// address: what you type there can be read on the way."
        return ""

    def _open(self) -> None:
        """The user's click: open the address, then answer accept."""
        type(self).opener(QUrl(self.question.url))
        self._finish("accept")

    def _finish(self, action: str) -> None:
        self.action = action
        self.accept() if action == "accept" else self.reject()

    def content(self) -> dict[str, Any]:
        """A URL question has no fields."""
        return {}

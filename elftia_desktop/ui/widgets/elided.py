"""A label and a button that shorten their one line of text with "…" to the width they get, instead of
widening their parent (a long server name, a banner naming many tools)."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QPushButton, QSizePolicy, QWidget


class ElidedLabel(QLabel):
    """A one-line label that shortens its text to the width it gets."""

    def __init__(self, mode: Qt.TextElideMode, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.mode = mode
        self.full_text = ""
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setMinimumWidth(60)

    def set_full_text(self, text: str) -> None:
        """Show ``text``, shortened when it does not fit."""
        self.full_text = text
        self._elide()

    def sizeHint(self) -> QSize:
        """As wide as the whole text."""
        hint = super().sizeHint()
        return QSize(self.fontMetrics().horizontalAdvance(self.full_text) + 4, hint.height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Shorten the text to the new width."""
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        self.setText(self.fontMetrics().elidedText(self.full_text, self.mode, max(20, self.width() - 4)))


class ElidedButton(QPushButton):
    """A push button as wide as its whole text when there is room, shortened in the middle when not (its
    last words, the action, stay).

    The whole text is its accessible name; callers put it (and more) in the tooltip.
    """

    MINIMUM_WIDTH = 120

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.full_text = ""
        self.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)

    def set_full_text(self, text: str) -> None:
        """Show ``text``, shortened when it does not fit."""
        self.full_text = text
        self.setAccessibleName(text)
        self._elide()
        self.updateGeometry()

    def sizeHint(self) -> QSize:
        """As wide as the whole text and the button's own padding."""
        hint = super().sizeHint()
        metrics = self.fontMetrics()
        extra = metrics.horizontalAdvance(self.full_text) - metrics.horizontalAdvance(self.text())
        return QSize(hint.width() + extra, hint.height())

    def minimumSizeHint(self) -> QSize:
        """Narrow: a long text never widens the card it sits in."""
        return QSize(min(self.MINIMUM_WIDTH, self.sizeHint().width()), super().minimumSizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Shorten the text to the new width."""
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        padding = super().sizeHint().width() - self.fontMetrics().horizontalAdvance(self.text())
        room = max(20, self.width() - padding)
        shown = self.fontMetrics().elidedText(self.full_text, Qt.TextElideMode.ElideMiddle, room)
        if shown != self.text():
            self.setText(shown)

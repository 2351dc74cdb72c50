"""A compact on/off switch (a checkable button painted as a switch)."""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent
from PySide6.QtWidgets import QAbstractButton, QWidget

from elftia_desktop.ui.theme import ACCENT, is_dark


class ToggleSwitch(QAbstractButton):
    """A checkable switch; keyboard operable (Space) like any button."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setCheckable(True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    def sizeHint(self) -> QSize:
        """A compact switch: 38 × 22 pixels."""
        return QSize(38, 22)

    def paintEvent(self, event: QPaintEvent) -> None:
        """Draw the track and the knob (dimmed when disabled, ringed when focused)."""
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = QRectF(1, 1, self.width() - 2, self.height() - 2)
        off = QColor("#5a5e66") if is_dark(self.palette()) else QColor("#c4c8d0")
        track = QColor(ACCENT) if self.isChecked() else off
        if not self.isEnabled():
            track.setAlpha(110)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(track)
        painter.drawRoundedRect(rect, rect.height() / 2, rect.height() / 2)
        diameter = rect.height() - 6
        x = rect.right() - diameter - 3 if self.isChecked() else rect.left() + 3
        painter.setBrush(QColor("white"))
        painter.drawEllipse(QRectF(x, rect.top() + 3, diameter, diameter))
        if self.hasFocus():
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.setPen(QColor(ACCENT))
            painter.drawRoundedRect(rect.adjusted(-1, -1, 1, 1), rect.height() / 2, rect.height() / 2)

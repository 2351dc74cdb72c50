"""A tiny bar chart of a server's latest calls: height is the latency (log scale), colour the outcome."""

from __future__ import annotations

import math
from collections.abc import Sequence

from PySide6.QtCore import QRectF, QSize
from PySide6.QtGui import QColor, QPainter, QPaintEvent
from PySide6.QtWidgets import QWidget

from elftia_desktop.bridge.signals import ToolCalled
from elftia_desktop.ui.theme import ACCENT, STATE_COLORS

MAX_BARS = 30


def outcome_color(outcome: str) -> QColor:
    """Accent for a good call, red for an error or failure, amber for a cancelled one."""
    if outcome == "ok":
        return QColor(ACCENT)
    if outcome == "cancelled":
        return QColor(STATE_COLORS["connecting"])
    return QColor(STATE_COLORS["error"])


class Sparkline(QWidget):
    """The latest :data:`MAX_BARS` calls as bars (the slowest fills the height; log scale, so one slow
    call does not flatten the rest)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.calls: list[ToolCalled] = []
        self.setFixedSize(QSize(MAX_BARS * 4, 18))

    def set_calls(self, calls: Sequence[ToolCalled]) -> None:
        """Show the last calls of ``calls`` (oldest first)."""
        self.calls = list(calls)[-MAX_BARS:]
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        """Draw the bars from the left edge (oldest) on, so the first bar sits by the label before it."""
        if not self.calls:
            return
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        slowest = math.log1p(max(c.duration_ms for c in self.calls)) or 1.0
        height = self.height()
        step = self.width() / MAX_BARS
        for index, call in enumerate(self.calls):
            bar = max(2.0, (math.log1p(call.duration_ms) / slowest) * (height - 1))
            painter.fillRect(QRectF(index * step, height - bar, max(step - 1, 1), bar), outcome_color(call.outcome))
        painter.end()

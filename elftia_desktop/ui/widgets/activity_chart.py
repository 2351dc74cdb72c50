"""``ActivityChart``: a server's calls over time (bars) and their latency (a line), with QPainter.

The time axis runs from the first kept call (at least :data:`MIN_SPAN` seconds back) to now,
in :data:`BUCKETS` buckets. Bars stack good calls (accent) under the others (red: tool errors,
failures, cancellations); the line
is the mean latency of each bucket on its own scale (right axis).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPainterPath, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from elftia_desktop.bridge.signals import ToolCalled
from elftia_desktop.ui.theme import ACCENT, STATE_COLORS, muted_text_color
from elftia_desktop.ui.widgets.result_view import format_duration

BUCKETS = 24
MIN_SPAN = 60.0
LATENCY_COLOR = "#d08b16"


@dataclass
class Bucket:
    """The calls that finished in one time slice."""

    ok: int = 0
    bad: int = 0
    durations: list[float] = field(default_factory=list)

    @property
    def mean(self) -> float | None:
        """Mean latency in ms (None: no calls)."""
        return sum(self.durations) / len(self.durations) if self.durations else None


def bucket_calls(calls: Sequence[ToolCalled], now: float, buckets: int = BUCKETS) -> tuple[list[Bucket], float]:
    """The calls in ``buckets`` equal slices ending at ``now``; also the span in seconds."""
    first = min((c.at for c in calls), default=now)
    span = max(now - first, MIN_SPAN)
    slices = [Bucket() for _ in range(buckets)]
    for call in calls:
        index = min(int((call.at - (now - span)) / span * buckets), buckets - 1)
        bucket = slices[max(index, 0)]
        if call.ok:
            bucket.ok += 1
        else:
            bucket.bad += 1
        bucket.durations.append(call.duration_ms)
    return slices, span


def _span_text(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s ago"
    return f"{seconds / 60:.0f} min ago" if seconds < 5400 else f"{seconds / 3600:.1f} h ago"


class ActivityChart(QWidget):
    """Calls per time slice as bars, mean latency as a line."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.calls: list[ToolCalled] = []
        self.now: float | None = None
        """Fixed "now" (tests, screenshots); None: the clock."""
        self.setMinimumHeight(150)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)

    def set_calls(self, calls: Sequence[ToolCalled]) -> None:
        """Show ``calls``."""
        self.calls = list(calls)
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        """Axes, bars, latency line, legend."""
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        muted = muted_text_color()
        small = QFont(self.font())
        small.setPointSizeF(max(7.0, small.pointSizeF() * 0.85))
        painter.setFont(small)
        plot = QRectF(40, 22, max(self.width() - 96, 10), max(self.height() - 44, 10))
        painter.setPen(QPen(muted, 1))
        painter.drawLine(plot.bottomLeft(), plot.bottomRight())
        if not self.calls:
            painter.drawText(plot, Qt.AlignmentFlag.AlignCenter, "No calls yet.")
            painter.end()
            return
        slices, span = bucket_calls(self.calls, self.now if self.now is not None else time.time())
        most = max(max(b.ok + b.bad for b in slices), 1)
        slowest = max((b.mean or 0.0) for b in slices) or 1.0
        self._bars(painter, plot, slices, most)
        self._line(painter, plot, slices, slowest)
        painter.setPen(QPen(muted, 1))
        bottom = plot.bottom() + 4
        painter.drawText(QRectF(plot.left(), bottom, 120, 16), Qt.AlignmentFlag.AlignLeft, _span_text(span))
        painter.drawText(QRectF(plot.right() - 60, bottom, 60, 16), Qt.AlignmentFlag.AlignRight, "now")
        left = QRectF(0, plot.top() - 6, 36, 14)
        painter.drawText(left, Qt.AlignmentFlag.AlignRight, str(most))
        painter.drawText(
            QRectF(plot.right() + 4, plot.top() - 6, 56, 14), Qt.AlignmentFlag.AlignLeft, format_duration(slowest)
        )
        painter.drawText(QRectF(0, plot.bottom() - 8, 36, 14), Qt.AlignmentFlag.AlignRight, "0")
        self._legend(painter, muted)
        painter.end()

    def _bars(self, painter: QPainter, plot: QRectF, slices: list[Bucket], most: int) -> None:
        width = plot.width() / len(slices)
        for index, bucket in enumerate(slices):
            x = plot.left() + index * width + 1
            ok_height = plot.height() * bucket.ok / most
            bad_height = plot.height() * bucket.bad / most
            painter.fillRect(QRectF(x, plot.bottom() - ok_height, width - 2, ok_height), QColor(ACCENT))
            painter.fillRect(
                QRectF(x, plot.bottom() - ok_height - bad_height, width - 2, bad_height), QColor(STATE_COLORS["error"])
            )

    def _line(self, painter: QPainter, plot: QRectF, slices: list[Bucket], slowest: float) -> None:
        width = plot.width() / len(slices)
        path = QPainterPath()
        started = False
        points: list[QPointF] = []
        for index, bucket in enumerate(slices):
            if bucket.mean is None:
                continue
            point = QPointF(plot.left() + (index + 0.5) * width, plot.bottom() - plot.height() * bucket.mean / slowest)
            points.append(point)
            if started:
                path.lineTo(point)
            else:
                path.moveTo(point)
                started = True
        painter.setPen(QPen(QColor(LATENCY_COLOR), 2))
        painter.drawPath(path)
        painter.setBrush(QColor(LATENCY_COLOR))
        for point in points:
            painter.drawEllipse(point, 2.5, 2.5)
        painter.setBrush(Qt.BrushStyle.NoBrush)

    def _legend(self, painter: QPainter, muted: QColor) -> None:
        x = 40.0
        for color, text in ((ACCENT, "calls"), (STATE_COLORS["error"], "not OK"), (LATENCY_COLOR, "mean latency")):
            painter.fillRect(QRectF(x, 6, 10, 10), QColor(color))
            painter.setPen(QPen(muted, 1))
            painter.drawText(QRectF(x + 14, 3, 100, 16), Qt.AlignmentFlag.AlignLeft, text)
            x += 14 + painter.fontMetrics().horizontalAdvance(text) + 16

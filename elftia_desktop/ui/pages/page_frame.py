"""The frame every sidebar page shares (as on the servers page): title and summary, actions, notice bar;
and :class:`FirstShow`, which loads a page once it is first on screen."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from elftia_desktop.ui.widgets.fixed_space import steady_width
from elftia_desktop.ui.widgets.notice_bar import NoticeBar


class PageFrame(QWidget):
    """A page: a header (title, muted summary, action buttons on the right), a notice bar, the content.

    Subclasses put buttons into ``header_actions`` and widgets into ``body``.
    """

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Page")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 20, 24, 16)
        layout.setSpacing(12)
        header = QHBoxLayout()
        titles = QVBoxLayout()
        self.title = QLabel(title)
        self.title.setObjectName("PageTitle")
        titles.addWidget(self.title)
        self.summary = QLabel("Loading…")
        self.summary.setObjectName("Muted")
        titles.addWidget(self.summary)
        header.addLayout(titles)
        header.addStretch(1)
        self.header_actions = QHBoxLayout()
        header.addLayout(self.header_actions)
        layout.addLayout(header)
        self.notice = NoticeBar()
        self.notice.float_over(self)
        self.body = QVBoxLayout()
        self.body.setSpacing(10)
        layout.addLayout(self.body, 1)

    @staticmethod
    def card_scroll() -> tuple[QScrollArea, QVBoxLayout]:
        """A borderless scroll area over the page background, and the column to put cards in."""
        scroll = QScrollArea()
        scroll.setObjectName("CardScroll")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        holder = QWidget()
        holder.setObjectName("CardHolder")
        column = QVBoxLayout(holder)
        column.setContentsMargins(0, 0, 4, 0)
        column.setSpacing(10)
        column.addStretch(1)
        scroll.setWidget(holder)
        steady_width(scroll, column)
        return scroll, column


class FirstShow(QObject):
    """Runs ``load`` once, on the next turn of the event loop after ``widget`` is first shown.

    A page loads its data only when a person opens it, so the window paints first;
    ``started`` tells the page whether a reload may run yet.
    """

    def __init__(self, widget: QWidget, load: Callable[[], None]) -> None:
        """Watch ``widget``'s show events."""
        super().__init__(widget)
        self.started = False
        self._load = load
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """On the first show: mark started and schedule ``load``; never consumes the event."""
        if event.type() == QEvent.Type.Show and not self.started:
            self.started = True
            QTimer.singleShot(0, self._load)
        return False

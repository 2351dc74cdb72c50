"""A dismissable message strip for results and errors, with a Details button.

Inline in a layout, or floating over the bottom of a page (:meth:`NoticeBar.float_over`) so that a
message that comes or goes never moves the page's cards and fields under the pointer.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QHideEvent
from PySide6.QtWidgets import QApplication, QFrame, QHBoxLayout, QLabel, QLayout, QMessageBox, QPushButton, QWidget

from elftia_desktop.ui.theme import notice_colors
from elftia_desktop.ui.widgets.details_box import details_box

_PALETTE_EVENTS = (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange)


class NoticeBar(QFrame):
    """Shows one message at a time; hidden until :meth:`show_message`."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kind = "info"
        self.details = ""
        self.colors = ("", "", "")
        self._margin: int | None = None
        """The distance to the host's edges while floating (:meth:`float_over`); None when inline."""
        self._room: tuple[QLayout, int] | None = None
        """A scrolled column that grows at its end while the notice shows, and its own bottom margin."""
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
        self._restyle()
        self.label.setText(text.replace("\n", "<br>"))
        self.details_button.setVisible(bool(details))
        self.show()
        self._place()

    def float_over(self, host: QWidget, margin: int = 16) -> None:
        """Float over the bottom of ``host`` (not in its layout): showing or hiding moves nothing there.

        It lines up with the host layout's margins; ``margin`` applies when the host has no layout."""
        self.setParent(host)
        self._margin = margin
        host.installEventFilter(self)
        self.hide()

    def keep_room_in(self, column: QLayout) -> None:
        """While floating and shown, grow ``column`` (the content of a scroll area) at its end by the notice's
        height: its last card can be scrolled out from under the notice, and nothing above it moves."""
        self._room = (column, column.contentsMargins().bottom())

    def hideEvent(self, event: QHideEvent) -> None:
        """Give back the room kept in the column (when the notice itself is hidden, not its page)."""
        if self.isHidden():
            self._set_room(0)
        super().hideEvent(event)

    def _set_room(self, height: int) -> None:
        if self._room is not None:
            column, bottom = self._room
            margins = column.contentsMargins()
            margins.setBottom(bottom + height)
            column.setContentsMargins(margins)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Follow the host's size while floating."""
        if watched is self.parentWidget() and event.type() in (QEvent.Type.Resize, QEvent.Type.Show):
            self._place()
        return False

    def _place(self) -> None:
        """Over the host's bottom edge, as wide as the host less the margins, as tall as the text needs."""
        host = self.parentWidget()
        if self._margin is None or host is None:
            return
        layout = host.layout()  # in line with the page's content when it has margins
        margins = layout.contentsMargins() if layout is not None else None
        left = margins.left() if margins is not None else self._margin
        right = margins.right() if margins is not None else self._margin
        bottom = margins.bottom() if margins is not None else self._margin
        width = max(host.width() - left - right, 200)
        # the wrapped text's height at this width (the size hint wraps at a narrow guess: too tall)
        height = self.heightForWidth(width) if self.hasHeightForWidth() else self.sizeHint().height()
        height = max(height, self.minimumSizeHint().height())
        self.setGeometry(left, host.height() - height - bottom, width, height)
        self.raise_()
        if not self.isHidden():
            self._set_room(height + bottom)

    def _restyle(self) -> None:
        self.colors = notice_colors(self.kind, QApplication.palette())
        background, border, text = self.colors
        self.setStyleSheet(
            f"NoticeBar {{ background: {background}; border: 1px solid {border}; border-radius: 8px; }}"
            f" NoticeBar > QLabel {{ color: {text}; background: transparent; }}"
        )

    def changeEvent(self, event: QEvent) -> None:
        """Follow a theme switch: the colours come from the application's palette."""
        super().changeEvent(event)
        if event.type() in _PALETTE_EVENTS and self.colors != notice_colors(self.kind):
            self._restyle()

    def _show_details(self) -> None:
        icons = {"error": QMessageBox.Icon.Critical, "warning": QMessageBox.Icon.Warning}
        icon = icons.get(self.kind, QMessageBox.Icon.Information)
        details_box(self, "Details", self.label.text(), self.details, icon, rich=True).exec()

"""Space reserved for text and controls that come and go, so nothing else moves under the pointer."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QLayout, QScrollArea, QWidget


def reserve_lines(label: QLabel, lines: int) -> QLabel:
    """Give ``label`` the height of ``lines`` lines whatever it shows (empty, one line or several)."""
    label.setFixedHeight(label.fontMetrics().lineSpacing() * lines + 4)
    label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
    return label


def keep_place(widget: QWidget) -> QWidget:
    """Keep ``widget``'s space in its layout while it is hidden."""
    policy = widget.sizePolicy()
    policy.setRetainSizeWhenHidden(True)
    widget.setSizePolicy(policy)
    return widget


def steady_width(scroll: QScrollArea, column: QLayout) -> None:
    """Keep the width of ``column`` (the content of ``scroll``) the same whether its scroll bar shows or not.

    While the vertical bar is hidden, the column's right margin takes the bar's place, so a bar that
    comes (a notice keeping room below the last card, one card more) moves nothing sideways.
    """
    bar = scroll.verticalScrollBar()
    right = column.contentsMargins().right()

    def follow(_low: int = 0, high: int = 0) -> None:
        """Keep the scroll bar's width as right margin while the bar is hidden."""
        margins = column.contentsMargins()
        gutter = 0 if high > 0 else bar.sizeHint().width()
        margins.setRight(right + gutter)
        column.setContentsMargins(margins)

    bar.rangeChanged.connect(follow)
    follow(bar.minimum(), bar.maximum())

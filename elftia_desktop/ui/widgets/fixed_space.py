"""Space reserved for text and controls that come and go, so nothing else moves under the pointer."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget


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

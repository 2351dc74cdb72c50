"""Driving modal dialogs (``exec()``) from a test: act on the dialog once it is shown."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QWidget


def when_modal(act: Callable[[QWidget], None], attempts: int = 400) -> list[QWidget]:
    """Call ``act(dialog)`` as soon as a modal dialog is active; returns the dialogs seen."""
    seen: list[QWidget] = []

    def poll(left: int = attempts) -> None:
        dialog = QApplication.activeModalWidget()
        if dialog is None:
            if left:
                QTimer.singleShot(25, lambda: poll(left - 1))
            return
        seen.append(dialog)
        act(dialog)

    QTimer.singleShot(0, poll)
    return seen

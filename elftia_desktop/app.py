"""The composition root: starts the service loop and shows the main window."""

from __future__ import annotations

import sys


def main() -> int:
    """Start the desktop app."""
    from PySide6.QtWidgets import QApplication, QLabel

    app = QApplication.instance() or QApplication(sys.argv)
    label = QLabel("Elftia Desktop")
    label.show()
    return app.exec()

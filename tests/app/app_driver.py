"""Runs the real desktop app (``elftia_desktop.app.main``) and plays the user for the quit tests.

Usage: ``python app_driver.py SERVER_NAME`` (``'*'``: every server). Once the window shows the
server's card, it clicks the card's Test button; when the server is connected it prints
``CONNECTED`` and waits. A line
``close`` on stdin closes the window, ``ctrl+q`` presses Ctrl+Q in it (as the user would);
signals come from outside (SIGTERM, SIGINT).
"""

from __future__ import annotations

import sys

from PySide6.QtCore import QSocketNotifier, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from elftia_desktop import app as desktop
from elftia_desktop.ui.main_window import MainWindow


def main(server_name: str) -> int:
    """Start the app and drive it."""
    qt_app = QApplication(sys.argv[:1])
    clicked: set[str] = set()
    reported = [False]

    def window() -> MainWindow | None:
        found = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow)]
        return found[0] if found else None

    def step() -> None:
        main_window = window()
        if main_window is None:
            return
        page = main_window.servers_page
        ids = [r.id for r in page.records if server_name in ("*", r.name)]
        for server_id in ids:
            if server_id not in clicked and server_id in page.cards:
                page.cards[server_id].buttons["test"].click()
                clicked.add(server_id)
        connected = [i for i in ids if page.states.get(i, ("",))[0] == "connected"]
        if ids and len(connected) == len(ids) and not reported[0]:
            reported[0] = True
            print("CONNECTED", flush=True)

    def on_stdin() -> None:
        line = sys.stdin.readline().strip()
        main_window = window()
        if main_window is None:
            return
        if line == "close":
            main_window.close()
        elif line == "ctrl+q":
            handle = main_window.windowHandle()
            handle.requestActivate()
            QTest.keyClick(handle, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)

    timer = QTimer(qt_app)
    timer.timeout.connect(step)
    timer.start(50)
    notifier = QSocketNotifier(sys.stdin.fileno(), QSocketNotifier.Type.Read, qt_app)
    notifier.activated.connect(on_stdin)
    return desktop.main(sys.argv[:1])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))

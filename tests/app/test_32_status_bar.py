"""Issue 32: the status bar does not repeat an error the page already shows; it shows only the ones nobody shows."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QObject, QSettings
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.errors import BridgeError
from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.ui.main_window import MainWindow

WAIT = 30_000
pytestmark = pytest.mark.timeout(120)


def test_the_status_bar_shows_only_failures_no_page_shows(qtbot: QtBot, router: McpRouter, tmp_path: Path) -> None:
    window = MainWindow(router, QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.show()
    bar = window.statusBar()
    shown: list[BridgeError] = []
    page = window.servers_page
    router.tools.call("", "echo").then(page, on_error=shown.append)  # the asker shows it (its notice)
    qtbot.waitUntil(lambda: len(shown) == 1, timeout=WAIT)
    assert bar.currentMessage() == "", "the page's own notice says it; the status bar does not repeat it"
    with qtbot.waitSignal(router.signals.unanswered, timeout=WAIT):
        router.tools.call("", "echo").then(QObject(), lambda _r: None)  # nobody shows its failure
    assert bar.currentMessage() == shown[0].message and "server" in shown[0].message.lower()


def test_a_closed_window_no_longer_hears_the_unanswered_failures(
    qtbot: QtBot, router: McpRouter, tmp_path: Path
) -> None:
    """The status bar's slot goes with the window: a failure after the window is gone raises nothing (a
    lambda holding the bar outlived it and touched a deleted status bar)."""
    window = MainWindow(router, QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat))
    window.show()
    qtbot.waitUntil(lambda: window.servers_page.loaded, timeout=WAIT)  # its first load is done
    window.close()
    window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    with qtbot.captureExceptions() as raised, qtbot.waitSignal(router.signals.unanswered, timeout=WAIT):
        router.tools.call("", "echo").then(QObject(), lambda _r: None)  # nobody shows its failure
    QCoreApplication.processEvents()  # a queued slot would run here
    assert raised == []

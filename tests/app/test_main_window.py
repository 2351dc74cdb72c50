"""The main window: pages from the keyboard, remembered geometry, a server's questions answered."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication, QLineEdit
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.bridge.signals import ToolCalled
from elftia_desktop.ui.dialogs.elicitation_dialog import ElicitationDialog
from elftia_desktop.ui.main_window import MainWindow
from tests.helpers.live_router import add_servers, server_input
from tests.helpers.modal import when_modal

pytestmark = pytest.mark.usefixtures("memory_servers")

WAIT = 30_000


def open_window(qtbot: QtBot, router: McpRouter, tmp_path: Path) -> MainWindow:
    window = MainWindow(router, QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.show()
    handle = window.windowHandle()
    assert handle is not None
    handle.requestActivate()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=WAIT)
    return window


def test_pages_switch_from_the_keyboard(qtbot: QtBot, router: McpRouter, tmp_path: Path) -> None:
    window = open_window(qtbot, router, tmp_path)
    qtbot.keySequence(window, QKeySequence("Ctrl+4"))
    assert window.stack.currentWidget() is window.pages["import"]
    qtbot.keySequence(window, QKeySequence("Ctrl+1"))
    assert window.stack.currentWidget() is window.servers_page
    assert all(window.sidebar.item(i).toolTip() for i in range(window.sidebar.count()))


def test_window_remembers_its_geometry(qtbot: QtBot, router: McpRouter, tmp_path: Path) -> None:
    window = open_window(qtbot, router, tmp_path)
    window.resize(window.minimumWidth(), 587)  # the offscreen screen is only 800 px wide
    window.close()
    assert QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat).value("window/geometry")
    again = open_window(qtbot, router, tmp_path)
    assert again.height() == 587


def test_a_server_question_is_asked_and_answered(qtbot: QtBot, router: McpRouter, tmp_path: Path) -> None:
    (record,) = add_servers(server_input("Curious"))
    window = open_window(qtbot, router, tmp_path)
    qtbot.waitUntil(lambda: window.servers_page.record(record.id) is not None, timeout=WAIT)

    def answer(dialog: object) -> None:
        assert isinstance(dialog, ElicitationDialog)
        assert dialog.windowTitle() == "Curious asks"
        name = dialog.fields["name"]
        assert isinstance(name, QLineEdit)
        name.setText("Ada")
        dialog.send_button.click()

    seen = when_modal(answer)
    results: list[object] = []
    router.tools.call(record.id, "ask_name", {}).then(router.signals, results.append)
    qtbot.waitUntil(lambda: bool(results), timeout=WAIT)
    assert seen and results[0].content[0]["text"] == "hello Ada (36)"  # type: ignore[attr-defined]

    seen = when_modal(lambda dialog: dialog.reject())
    results.clear()
    router.tools.call(record.id, "ask_name", {}).then(router.signals, results.append)
    qtbot.waitUntil(lambda: bool(results), timeout=WAIT)
    assert results[0].content[0]["text"] == "no name: cancel"  # type: ignore[attr-defined]


def test_the_status_bar_tells_this_apps_calls_not_other_apps(qtbot: QtBot, router: McpRouter, tmp_path: Path) -> None:
    window = open_window(qtbot, router, tmp_path)
    window.statusBar().clearMessage()
    router.signals.toolCalled.emit(ToolCalled("s1", "echo", "ok", 2.0, 1.0, caller="Claude Code"))
    assert window.statusBar().currentMessage() == ""  # another app's call: the Activity page has it
    router.signals.toolCalled.emit(ToolCalled("s1", "echo", "ok", 2.0, 1.0))
    assert window.statusBar().currentMessage() == "Tool echo ok in 2 ms"

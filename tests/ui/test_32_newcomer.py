"""Issue 32, the newcomer's list: each fixed item, checked as the user meets it."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.ui.dialogs.logs_dialog import LogsDialog

WAIT = 30_000
pytestmark = pytest.mark.timeout(120)


def test_logs_open_at_column_0_and_ctrl_home_goes_to_the_first_line(qtbot: QtBot, router: McpRouter) -> None:
    dialog = LogsDialog(router, "no-such-server", "wide")
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    long_lines = [f"line {n} " + "x" * 400 for n in range(200)]
    dialog._on_history(long_lines)
    view = dialog.view
    assert view.horizontalScrollBar().maximum() > 0  # the lines are wider than the view
    assert view.horizontalScrollBar().value() == 0  # yet it shows their start
    assert view.textCursor().blockNumber() == 199 and view.textCursor().positionInBlock() == 0
    assert view.viewport().rect().contains(view.cursorRect())  # the newest line is in sight

    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_Home, Qt.KeyboardModifier.ControlModifier)
    assert view.textCursor().position() == 0
    assert view.verticalScrollBar().value() == 0

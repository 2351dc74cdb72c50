"""The tool picker opens the try-a-tool dialog for the tool the user picked, and the call reaches the server."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPlainTextEdit, QTableWidgetItem
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.models import MCPTool
from elftia_desktop.ui.dialogs.try_tool_dialog import TryToolDialog
from tests.app.test_agents_page import WAIT, open_dialog, open_page
from tests.helpers.live_router import add_servers, connect_servers, server_input

pytestmark = pytest.mark.usefixtures("memory_servers")


def test_try_from_the_picker_calls_the_selected_tool(qtbot: QtBot, router: McpRouter) -> None:
    add_servers(server_input("alpha"))
    page = open_page(qtbot, router, 1)
    dialog = open_dialog(qtbot, page, "Assistant")
    picker = dialog.picker
    assert not picker.try_button.isEnabled(), "nothing selected yet"
    server_row = picker.model.row_of(picker.model.checked_tools()[0].server_id)
    echo_row = picker.model.row_of(picker.model.checked_tools()[0].server_id, "echo")
    assert picker.model.tool_at(server_row) is None
    picker.tree.setCurrentIndex(picker.model.index(echo_row, 0))
    assert picker.try_button.isEnabled()
    requested: list[MCPTool] = []
    picker.tryRequested.connect(requested.append)
    qtbot.mouseClick(picker.try_button, Qt.MouseButton.LeftButton)
    assert [t.name for t in requested] == ["echo"]
    qtbot.waitUntil(lambda: bool(dialog.findChildren(TryToolDialog)), timeout=WAIT)
    (trial,) = dialog.findChildren(TryToolDialog)
    assert "echo" in trial.windowTitle()
    trial.form.set_value({"text": "from the picker"})
    qtbot.mouseClick(trial.call_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: trial.result_view.outcome == "ok", timeout=WAIT)
    texts = [b.toPlainText() for b in trial.result_view.blocks if isinstance(b, QPlainTextEdit)]
    assert texts == ["from the picker"]
    trial.close()


def test_the_agents_table_marks_only_estimates_as_approximate(qtbot: QtBot, router: McpRouter) -> None:
    connect_servers(qtbot, router, *add_servers(server_input("alpha")))
    page = open_page(qtbot, router, 1)
    qtbot.waitUntil(lambda: (page.table.item(0, 4) or QTableWidgetItem("…")).text() != "…", timeout=WAIT)
    cell = page.table.item(0, 4)
    assert cell is not None and "cl100k_base tokenizer" in cell.toolTip()
    assert cell.text().endswith(" tokens") and not cell.text().startswith("≈"), "an exact count is not marked ≈"

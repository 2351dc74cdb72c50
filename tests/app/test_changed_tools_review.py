"""Tool pinning in the window: a tool that changed after trust leaves the picker, its card shows a
"Changed tools" banner, the review dialog shows the diff and the lint, and accepting brings it back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication, QLabel, QPlainTextEdit
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.models import Agent, McpMode
from elftia_desktop.ui.dialogs.tool_review_dialog import ToolReviewDialog
from elftia_desktop.ui.widgets.tool_picker import ToolPicker
from tests.app.test_servers_page import WAIT, open_page
from tests.helpers.live_router import add_servers, server_input

pytestmark = pytest.mark.usefixtures("memory_servers")


def _picker_has_weather(qtbot: QtBot, router: McpRouter, picker: ToolPicker, server_id: str) -> bool:
    got: list[Any] = []
    router.agents.tools(Agent(name="all", mcp_mode=McpMode.AUTO)).then(picker, got.append)
    qtbot.waitUntil(lambda: bool(got), timeout=WAIT)
    picker.set_tools(got[0].tools, None)
    assert picker.model.row_of(server_id, "echo") >= 0
    return picker.model.row_of(server_id, "weather") >= 0


def test_changed_tool_banner_review_and_accept(qtbot: QtBot, router: McpRouter, tmp_path: Path) -> None:
    state = tmp_path / "listings"
    state.write_text("benign")
    server = server_input("Rug", module="rug_pull")
    server.config.env = {"RUG_STATE": str(state)}
    (record,) = add_servers(server)
    page = open_page(qtbot, router, 1)
    card = page.cards[record.id]
    picker = ToolPicker()
    qtbot.addWidget(picker)
    assert _picker_has_weather(qtbot, router, picker, record.id)  # the first listing pins it
    assert not card.changed_tools.isVisible()

    qtbot.waitUntil(lambda: card.tool_count is not None, timeout=WAIT)  # the page listed too (connected)
    state.write_text("hostile")
    done: list[Any] = []
    router.tools.call(record.id, "relist", {}).then(page, done.append)
    qtbot.waitUntil(lambda: card.changed_tools.isVisible(), timeout=WAIT)  # list_changed: re-listed, held
    assert card.changed_tools.full_text == "⚠  1 tool held back, changed since you trusted it: weather — Review…"
    assert "elftia-mcp review Rug" in card.changed_tools.toolTip()
    assert not _picker_has_weather(qtbot, router, picker, record.id)

    card.changed_tools.click()
    qtbot.waitUntil(lambda: _dialog() is not None and bool(_dialog().checks), timeout=WAIT)  # type: ignore[union-attr]
    dialog = _dialog()
    assert dialog is not None
    assert list(dialog.checks) == ["weather"]
    texts = [label.text() for label in dialog.findChildren(QLabel)]
    assert any("hide-from-user</span>: &#x27;Do not tell the user&#x27;" in t for t in texts)
    assert any("credential-path</span>: mentions &#x27;~/.ssh&#x27;" in t for t in texts)
    view = dialog.findChildren(QPlainTextEdit)[0]
    qtbot.waitUntil(view.isVisible, timeout=WAIT)
    diff = view.toPlainText()
    assert '-  "description": "Current weather for a city.",' in diff and "~/.ssh/id_rsa" in diff
    dialog.grab().save(str(tmp_path / "review.png"))
    page.grab().save(str(tmp_path / "page.png"))

    with qtbot.waitSignal(dialog.toolsAccepted, timeout=WAIT) as accepted:
        dialog.accept_all.click()
    assert accepted.args == [["weather"]]
    qtbot.waitUntil(lambda: not card.changed_tools.isVisible(), timeout=WAIT)
    assert _picker_has_weather(qtbot, router, picker, record.id)


def _dialog() -> ToolReviewDialog | None:
    return next((w for w in QApplication.topLevelWidgets() if isinstance(w, ToolReviewDialog) and w.isVisible()), None)

"""Issue 10: prompts and resources in the discover panel, against the real ``explore`` server."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel, QPlainTextEdit
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.ui.dialogs.discover_dialog import DiscoverDialog
from elftia_desktop.ui.dialogs.try_tool_dialog import TryToolDialog
from tests.helpers.live_router import add_servers, server_input

WAIT = 30_000
pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("memory_servers")]


@pytest.fixture
def dialog(qtbot: QtBot, router: McpRouter) -> DiscoverDialog:
    (record,) = add_servers(server_input("explore", "explore"))
    dialog = DiscoverDialog(router, record)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: dialog.discovered is not None, timeout=WAIT)
    return dialog


def texts(widgets: list[Any]) -> list[str]:
    return [w.toPlainText() for w in widgets if isinstance(w, QPlainTextEdit)]


def test_try_button_opens_the_tool_with_its_form(qtbot: QtBot, dialog: DiscoverDialog) -> None:
    qtbot.mouseClick(dialog.cards["create_order"].try_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: any(isinstance(w, TryToolDialog) for w in QApplication.topLevelWidgets()), timeout=WAIT)
    tried = next(w for w in QApplication.topLevelWidgets() if isinstance(w, TryToolDialog))
    assert tried.tool_name == "create_order" and tried.server_id == dialog.record.id
    assert {"customer", "items", "priority", "gift", "note"} <= set(tried.form.spec.properties)
    tried.close()


def test_activity_tab_counts_the_calls(qtbot: QtBot, dialog: DiscoverDialog, router: McpRouter) -> None:
    assert dialog.tabs.tabText(3) == "&Activity (0)"
    picture = dialog.discovered.tool("picture") if dialog.discovered else None
    assert picture is not None
    tried = dialog.try_tool(picture)
    qtbot.addWidget(tried)
    tried.call()
    qtbot.waitUntil(lambda: dialog.tabs.tabText(3) == "&Activity (1)", timeout=WAIT)
    assert dialog.activity.table.topLevelItem(0).text(1) == "picture"


def test_prompt_arguments_form_and_rendered_messages(qtbot: QtBot, dialog: DiscoverDialog) -> None:
    panel = dialog.prompts
    dialog.show_tab("prompts")
    assert dialog.tabs.tabText(1) == "&Prompts (1)"
    assert panel.list.count() == 1 and panel.form is not None
    qtbot.mouseClick(panel.get_button, Qt.MouseButton.LeftButton)
    assert panel.form.field("language").error.isVisible(), "required arguments are checked before asking"
    panel.form.field("language").editor.setText("Python")  # type: ignore[attr-defined]
    panel.form.field("code").editor.setText("x = 1")  # type: ignore[attr-defined]
    qtbot.mouseClick(panel.get_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.result_view.outcome == "ok", timeout=WAIT)
    roles = [w.text() for w in panel.result_view.blocks if isinstance(w, QLabel)]
    assert roles == ["<b>user</b>", "<b>assistant</b>"]
    assert texts(panel.result_view.blocks) == ["Review this Python code:\nx = 1", "Sure, here is what I notice:"]


def test_resources_read_with_text_and_image_preview(qtbot: QtBot, dialog: DiscoverDialog) -> None:
    panel = dialog.resources
    assert dialog.tabs.tabText(2) == "R&esources (3)"
    panel.select("memo://readme")
    qtbot.mouseClick(panel.read_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.result_view.outcome == "ok", timeout=WAIT)
    (box,) = panel.result_view.blocks
    assert texts(box.findChildren(QPlainTextEdit)) == ["Read me first.\nSecond line."]
    panel.select("memo://logo")
    qtbot.mouseClick(panel.read_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.result_view.outcome == "ok", timeout=WAIT)
    (box,) = panel.result_view.blocks
    (image,) = [label for label in box.findChildren(QLabel) if label.objectName() == "ResultImage"]
    assert image.pixmap().width() == 24


def test_resource_template_variables_fill_the_uri(qtbot: QtBot, dialog: DiscoverDialog) -> None:
    panel = dialog.resources
    panel.select("memo://readme")
    read_at = panel.read_button.mapTo(dialog, panel.read_button.rect().topLeft())
    panel.select("memo://notes/{topic}")
    assert panel.form is not None and list(panel.form.spec.properties) == ["topic"]
    assert panel.read_button.mapTo(dialog, panel.read_button.rect().topLeft()) == read_at, "Read stays put"
    qtbot.mouseClick(panel.read_button, Qt.MouseButton.LeftButton)
    assert "every variable" in panel.status.text() and panel.result_view.outcome == ""
    qtbot.keyClicks(panel.form.field("topic").editor, "cats & dogs")  # type: ignore[attr-defined]
    assert panel.uri.text() == "memo://notes/cats%20%26%20dogs"
    panel.form.field("topic").editor.clear()  # type: ignore[attr-defined]
    qtbot.keyClicks(panel.form.field("topic").editor, "cats")  # type: ignore[attr-defined]
    qtbot.mouseClick(panel.read_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.result_view.outcome == "ok", timeout=WAIT)
    (box,) = panel.result_view.blocks
    assert texts(box.findChildren(QPlainTextEdit)) == ["Notes about cats."]


def test_explore_channels_refuse_bad_parameters(qtbot: QtBot, router: McpRouter) -> None:
    outcomes: list[Any] = []
    router.explore.try_tool("s", "", {}).then(router.signals, on_error=outcomes.append)
    router.explore.get_prompt("s", "", {}).then(router.signals, on_error=outcomes.append)
    router.explore.read_resource("s", "").then(router.signals, on_error=outcomes.append)
    qtbot.waitUntil(lambda: len(outcomes) == 3, timeout=WAIT)
    assert [o.kind for o in outcomes] == ["InvalidParameters"] * 3
    assert "toolName" in outcomes[0].message or "tool_name" in outcomes[0].message

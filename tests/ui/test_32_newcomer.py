"""Issue 32, the newcomer's list: each fixed item, checked as the user meets it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QInputDialog, QLabel, QWidget
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.models import Agent, McpMode
from elftia_desktop.ui.dialogs.logs_dialog import LogsDialog
from elftia_desktop.ui.dialogs.mcp_manage_dialog import McpManageDialog
from elftia_desktop.ui.pages.agents_page import AgentsPage
from elftia_desktop.ui.pages.import_export_page import ImportExportPage
from elftia_desktop.ui.pages.settings_page import SettingsPage
from elftia_desktop.ui.theme import is_dark, set_theme_mode
from tests.helpers.live_router import add_servers, server_input, settle
from tests.helpers.modal import when_modal

WAIT = 30_000
pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("memory_servers")]


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


def test_import_counts_only_rows_it_will_import_and_nothing_imported_is_not_a_success(
    qtbot: QtBot, router: McpRouter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    claude = home / ".config" / "Claude" / "claude_desktop_config.json"
    claude.parent.mkdir(parents=True)
    claude.write_text(json.dumps({"mcpServers": {"taken": {"command": "uvx", "args": ["one"]}}}), encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "CLAUDE_CONFIG_DIR", "APPDATA"):
        monkeypatch.delenv(name, raising=False)
    add_servers(server_input("taken"))
    page = ImportExportPage(router)
    qtbot.addWidget(page)
    page.show()
    panel = page.import_panel
    qtbot.waitUntil(lambda: len(panel.policy_boxes) == 1, timeout=WAIT)
    (box,) = panel.policy_boxes.values()
    assert box.currentData() == "skip"
    assert panel.import_button.text() == "Import" and not panel.import_button.isEnabled()  # a skipped row is no import
    box.setCurrentIndex(box.findData("rename"))
    assert panel.import_button.text() == "Import 1 server" and panel.import_button.isEnabled()

    box.setCurrentIndex(box.findData("skip"))
    with qtbot.waitSignal(panel.imported, timeout=WAIT) as imported:  # the button is off; what a click would send
        router.integrations.import_servers(panel.checked_sources(), panel.choices()).then(panel, panel._imported)
    assert imported.args == [0]
    assert page.notice.kind == "info" and "Nothing was imported (1 skipped, 0 failed)" in page.notice.label.text()


def test_the_agent_dialog_starts_no_server_and_uses_the_servers_page_words(qtbot: QtBot, router: McpRouter) -> None:
    trusted, untrusted = add_servers(server_input("ready"), server_input("imported", trusted=False))
    agent = Agent(name="Helper", mcp_mode=McpMode.MANUAL, selected_servers=[trusted.id, untrusted.id])
    states: list[tuple[str, str]] = []
    router.signals.connectionStateChanged.connect(lambda e: states.append((e.server_id, e.state)))
    dialog = McpManageDialog(router, agent, [trusted, untrusted], {})
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: bool(dialog.picker.problems.text()), timeout=WAIT)
    settle(qtbot, router)
    assert states == []  # nothing was started by opening it
    texts = {dialog.server_list.item(i).text().split("\n")[0]: dialog.server_list.item(i).text() for i in range(2)}
    assert "Needs trust" in texts["imported"] and "failing" not in texts["imported"]
    assert "Not connected" in texts["ready"] and "Error" not in texts["ready"]

    dialog.start_button.click()
    qtbot.waitUntil(lambda: dialog.picker.model.total() > 0, timeout=WAIT)
    assert (trusted.id, "connected") in states
    assert (untrusted.id, "connecting") not in states  # an untrusted server is never started
    imported = next(dialog.server_list.item(i) for i in range(2) if dialog.server_list.item(i).text().startswith("imp"))
    assert "Needs trust" in imported.text()


def test_settings_theme_applies_when_chosen_and_the_saved_message_fits(qtbot: QtBot, router: McpRouter) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    page = SettingsPage(router)
    qtbot.addWidget(page)
    page.show()
    qtbot.waitUntil(lambda: page.info is not None, timeout=WAIT)
    try:
        texts = " ".join(label.text() for label in page.findChildren(QLabel))
        assert "after a restore" not in texts  # the Backup card offers no restore, so it does not promise one
        page.values.theme.setCurrentIndex(page.values.theme.findData("dark"))
        assert is_dark(app.palette())  # in force at once, before Save
        page.revert_button.click()
        assert not is_dark(app.palette()) or (page.saved is not None and page.saved.theme == "dark")

        page.values.theme.setCurrentIndex(page.values.theme.findData("dark"))
        page.save_button.click()
        qtbot.waitUntil(lambda: "Saved" in page.notice.label.text(), timeout=WAIT)
        assert page.notice.label.text() == "Saved. The theme is in force."  # not the timeouts' note
        page.values.log_lines.setValue(900)
        page.save_button.click()
        qtbot.waitUntil(lambda: "log size" in page.notice.label.text(), timeout=WAIT)
        assert "timeouts" not in page.notice.label.text()
    finally:
        set_theme_mode(app, "system")


def test_a_too_long_agent_name_is_asked_again_with_the_text_kept(qtbot: QtBot, router: McpRouter) -> None:
    page = AgentsPage(router)
    qtbot.addWidget(page)
    page.show()
    qtbot.waitUntil(lambda: bool(page.agents), timeout=WAIT)
    long_name = "A very long agent name " * 20
    asked: list[tuple[str, str]] = []

    def answer(dialog: QWidget) -> None:
        assert isinstance(dialog, QInputDialog)
        asked.append((dialog.textValue(), dialog.labelText()))
        dialog.reject()

    when_modal(lambda d: (d.setTextValue(long_name), d.accept()) if isinstance(d, QInputDialog) else None)
    page.create_agent()
    when_modal(answer, attempts=2400)
    qtbot.waitUntil(lambda: bool(asked), timeout=WAIT)
    assert asked[0][0] == long_name  # nothing typed is lost
    assert "⚠" in asked[0][1] and "characters" in asked[0][1]  # the reason, in the dialog
    assert not page.notice.isVisible()

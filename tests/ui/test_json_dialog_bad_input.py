"""Issue 14 through the paste-JSON dialog: each bad input is shown where it is, and nothing is stored."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.ui.dialogs.json_import_dialog import JsonImportDialog

WAIT = 30_000


def open_dialog(qtbot: QtBot, router: McpRouter) -> JsonImportDialog:
    dialog = JsonImportDialog(router, existing_names=[])
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def config_bytes() -> bytes:
    path = ConfigStore().path
    return path.read_bytes() if path.exists() else b""


def test_a_file_that_is_not_utf8_says_which_byte(qtbot: QtBot, router: McpRouter, tmp_path: Path) -> None:
    path = tmp_path / "cursor-export.json"
    path.write_bytes('{"mcpServers": {"café": {"command": "x"}}}'.encode("latin-1"))
    before = config_bytes()
    dialog = open_dialog(qtbot, router)
    dialog.open_file(str(path))
    qtbot.waitUntil(lambda: dialog.error is not None, timeout=WAIT)
    text = dialog.error_label.text()
    assert "cursor-export.json is not valid UTF-8: byte 0xe9 at offset 20 (line 1, column 21)" in text
    assert dialog.error_label.isVisible() and not dialog.submit.isEnabled() and dialog.open_button.isEnabled()
    good = tmp_path / "good.json"
    good.write_bytes(b'\xef\xbb\xbf{"mcpServers": {"tea": {"command": "echo"}}}')  # a UTF-8 BOM is fine
    dialog.open_file(str(good))
    qtbot.waitUntil(lambda: bool(dialog.rows), timeout=WAIT)
    assert dialog.error is None and [r.name for r in dialog.rows] == ["tea"]
    assert config_bytes() == before


def test_deep_nesting_points_at_the_spot(qtbot: QtBot, router: McpRouter) -> None:
    dialog = open_dialog(qtbot, router)
    dialog.set_text('{"mcpServers": ' + "[" * 3000 + "]" * 3000 + "}")
    assert dialog.error is not None and (dialog.error.line, dialog.error.column) == (1, 115)
    assert "deeper than 100 levels" in dialog.error_label.text() and "Go to line 1, column 115" in (
        dialog.error_label.text()
    )
    assert dialog.table.rowCount() == 0 and not dialog.submit.isEnabled()


def test_nul_in_a_command_and_a_huge_name_cannot_be_added(qtbot: QtBot, router: McpRouter) -> None:
    before = config_bytes()
    dialog = open_dialog(qtbot, router)
    servers = {"nul": {"command": "ec\u0000ho"}, "n" * 5000: {"command": "echo"}, "fine": {"command": "echo"}}
    dialog.set_text(json.dumps({"mcpServers": servers}))
    assert [r.action for r in dialog.rows] == ["invalid", "invalid", "add"]
    assert dialog.rows[0].error == "command: contains a NUL character at position 3"
    assert dialog.rows[1].error == "name: 5000 characters is too long; at most 100 are allowed"
    shown = dialog.table.item(1, 0)
    assert shown is not None and len(shown.text()) == 60 and shown.toolTip() == "n" * 5000, "the cell is elided"
    assert dialog.table.columnWidth(0) < 600, "a huge name does not stretch the table"
    with qtbot.waitSignal(dialog.imported, timeout=WAIT) as done:
        qtbot.mouseClick(dialog.submit, Qt.MouseButton.LeftButton)
    outcome = {name[:10]: kind for name, kind, _text in done.args[0]}
    assert outcome == {"nul": "failed", "nnnnnnnnnn": "failed", "fine": "added"}
    stored = ConfigStore().records()
    assert [r.name for r in stored] == ["fine"]
    assert before != config_bytes()


def test_only_bad_servers_leave_the_file_byte_for_byte(qtbot: QtBot, router: McpRouter) -> None:
    before = config_bytes()
    dialog = open_dialog(qtbot, router)
    dialog.set_text(json.dumps({"mcpServers": {"nul": {"command": "a\u0000"}}}))
    assert not dialog.submit.isEnabled(), "nothing can be added"
    dialog.start_import()
    assert dialog.stack.currentIndex() == 0 and config_bytes() == before

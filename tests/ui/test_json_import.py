"""The paste-JSON dialog: syntax errors with line/column, the preview, per-server conflict choices."""

from __future__ import annotations

import json

from PySide6.QtWidgets import QComboBox
from pytestqt.qtbot import QtBot

from elftia_desktop.ui.dialogs.json_import_dialog import JsonImportDialog
from elftia_desktop.ui.dialogs.json_preview import group_json, preview_rows, submission_groups, utf16_offset

SERVERS = {
    "mcpServers": {
        "time": {"command": "uvx", "args": ["mcp-server-time", "--local-timezone", "Europe/Berlin"]},
        "fetch": {"command": "uvx", "args": ["mcp-server-fetch"]},
        "remote": {"type": "streamableHttp", "url": "https://mcp.example.com/mcp"},
        "broken": {"type": "carrier-pigeon", "command": "x"},
    }
}


def make_dialog(qtbot: QtBot, existing: list[str] | None = None) -> JsonImportDialog:
    dialog = JsonImportDialog(None, existing_names=existing or [])
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def test_syntax_error_names_line_and_column_and_highlights_it(qtbot: QtBot) -> None:
    dialog = make_dialog(qtbot)
    text = '{\n  "mcpServers": {\n    "a": { "command": "uvx" }\n    "b": { "command": "npx" }\n  }\n}'
    dialog.set_text(text)
    assert dialog.error is not None
    assert (dialog.error.line, dialog.error.column) == (4, 5)
    assert "line 4, column 5" in dialog.error_label.text()
    assert dialog.error_label.isVisible()
    cursor = dialog.editor.textCursor()
    assert (cursor.blockNumber(), cursor.positionInBlock()) == (3, 4), "the cursor sits on the error"
    selections = dialog.editor.extraSelections()
    assert len(selections) == 2
    assert selections[1].cursor.selectedText() == '"'
    assert selections[0].cursor.block().blockNumber() == 3
    assert dialog.table.rowCount() == 0
    assert not dialog.submit.isEnabled()


def test_typing_does_not_move_the_cursor_but_the_link_does(qtbot: QtBot) -> None:
    dialog = make_dialog(qtbot)
    dialog.editor.setFocus()
    qtbot.keyClicks(dialog.editor, '{"a": , "b": 1}')
    qtbot.waitUntil(lambda: dialog.error is not None and dialog.error_label.isVisible(), timeout=5000)
    assert dialog.editor.textCursor().position() == 15, "typing keeps the cursor where the user types"
    assert dialog.error is not None and (dialog.error.line, dialog.error.column) == (1, 7)
    dialog.error_label.linkActivated.emit("goto")
    assert dialog.editor.textCursor().position() == 6
    dialog.editor.moveCursor(dialog.editor.textCursor().MoveOperation.Start)
    dialog.go_to_error()
    assert dialog.editor.textCursor().position() == 6


def test_error_column_counts_characters_not_utf16_units() -> None:
    assert utf16_offset("ab😀cd", 4) == 4  # the emoji is two UTF-16 units
    assert utf16_offset("abc", 1) == 0


def test_shape_errors_without_position(qtbot: QtBot) -> None:
    dialog = make_dialog(qtbot)
    dialog.set_text("[1, 2]")
    assert dialog.error is not None and dialog.error.line is None
    assert "has no 'name'" in dialog.error_label.text()
    assert dialog.editor.extraSelections() == []


def test_preview_lists_servers_with_transport_runs_and_conflicts(qtbot: QtBot) -> None:
    dialog = make_dialog(qtbot, existing=["Time"])
    dialog.set_text(json.dumps(SERVERS, indent=2))
    assert dialog.error is None
    cells = [[dialog.table.item(r, c).text() for c in range(4)] for r in range(dialog.table.rowCount())]
    assert cells[0] == ["time", "stdio", "uvx mcp-server-time --local-timezone Europe/Berlin", "Name taken"]
    assert cells[1] == ["fetch", "stdio", "uvx mcp-server-fetch", "New"]
    assert cells[2] == ["remote", "Streamable HTTP", "https://mcp.example.com/mcp", "New"]
    assert cells[3][0] == "broken" and "is not a transport" in cells[3][1]  # spans Transport to Status
    box = dialog.table.cellWidget(0, 4)
    assert isinstance(box, QComboBox)
    assert [box.itemData(i) for i in range(box.count())] == ["rename", "skip", "replace"]
    assert dialog.summary.text() == "4 servers · 1 name taken · 1 cannot be added"
    assert dialog.submit.text() == "&Add 3 servers"


def test_conflict_choices_split_the_submission(qtbot: QtBot) -> None:
    dialog = make_dialog(qtbot, existing=["time", "fetch"])
    dialog.set_text(json.dumps(SERVERS))
    box = dialog.table.cellWidget(1, 4)
    assert isinstance(box, QComboBox)
    box.setCurrentIndex(box.findData("replace"))
    assert dialog.rows[1].action == "replace"
    dialog.set_action(2, "skip")
    groups = submission_groups(dialog.rows)
    assert [(policy, [r.name for r in rows]) for policy, rows in groups] == [
        ("replace", ["fetch"]),
        ("rename", ["time"]),
    ]
    assert dialog.submit.text() == "&Add 2 servers"
    dialog.set_action(0, "skip")
    dialog.set_action(1, "skip")
    assert not dialog.submit.isEnabled()


def test_duplicates_inside_the_paste_conflict_too() -> None:
    rows = preview_rows(json.dumps([{"name": "a", "command": "x"}, {"name": "A", "command": "y"}]), set())
    assert [r.taken for r in rows] == [False, True]
    as_json = json.loads(group_json(rows))
    assert as_json == [{"name": "a", "command": "x"}, {"name": "A", "command": "y"}]

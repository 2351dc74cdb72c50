"""Issue 32: the Paste JSON preview shows each rejected row's whole reason, checks each command on this
machine before the user trusts the servers (as the Add form does), and its rows are all as tall."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.ui.dialogs.json_import_dialog import JsonImportDialog

SERVERS = {
    "mcpServers": {
        "here": {"command": sys.executable, "args": ["-m", "tests.servers.basic"]},
        "ghost": {"command": "no-such-command-32c", "args": ["serve"]},
        "remote": {"type": "streamableHttp", "url": "https://mcp.example.com/mcp"},
        "broken": {"type": "carrier-pigeon", "command": "x"},
    }
}


def test_preview_reasons_command_check_and_even_rows(qtbot: QtBot, router: McpRouter, tmp_path: Path) -> None:
    dialog = JsonImportDialog(router, existing_names=[])
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.set_text(json.dumps(SERVERS, indent=2))
    table = dialog.table
    qtbot.waitUntil(lambda: "not found" in table.item(1, 3).text(), timeout=30_000)
    status = {table.item(r, 0).text(): table.item(r, 3).text() for r in range(table.rowCount())}
    assert status["ghost"] == "New · ✗ command not found"
    assert status["here"] == "New"  # found: nothing to say
    assert status["remote"] == "New"  # no command to check

    broken = 3
    reason = '✗ type: "carrier-pigeon" is not a transport (expected stdio, sse, http or streamableHttp)'
    assert table.item(broken, 1).text() == reason and table.columnSpan(broken, 1) == 3
    assert table.visualItemRect(table.item(broken, 1)).width() >= table.fontMetrics().horizontalAdvance(reason)

    assert table.columnWidth(1) < table.fontMetrics().horizontalAdvance(reason) / 2  # Transport stays narrow
    assert table.item(0, 3).foreground().color().name() != table.item(1, 3).foreground().color().name()
    heights = {table.rowHeight(r) for r in range(table.rowCount())}
    assert len(heights) == 1 and heights.pop() >= table.cellWidget(0, 4).sizeHint().height()
    QApplication.processEvents()
    dialog.grab().save(str(tmp_path / "paste-json.png"))

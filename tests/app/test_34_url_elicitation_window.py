"""Issue 34: a server's URL-mode question in the window opens the URL dialog (domain first), opens the
address only on the user's click, and the answer reaches the server and its log."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, QUrl
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.ui.dialogs.approval_dialog import ApprovalDialog
from elftia_desktop.ui.dialogs.url_elicitation_dialog import UrlElicitationDialog
from elftia_desktop.ui.main_window import MainWindow
from tests.helpers.live_router import add_servers, server_input
from tests.helpers.modal import when_modal

WAIT = 30_000
pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("memory_servers")]


def test_the_url_dialog_is_shown_and_only_a_click_opens(
    qtbot: QtBot, router: McpRouter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[str] = []
    monkeypatch.setattr(UrlElicitationDialog, "opener", lambda url: bool(opened.append(QUrl(url).toString())) or True)
    (record,) = add_servers(server_input("linker", "linker"))
    window = MainWindow(router, QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.servers_page.record(record.id) is not None, timeout=WAIT)
    shown: list[str] = []

    def act(dialog: QWidget) -> None:
        if isinstance(dialog, ApprovalDialog):  # the call itself may be asked about first
            dialog.once_button.click()
            when_modal(act)
            return
        assert isinstance(dialog, UrlElicitationDialog)
        shown.append(dialog.domain.text())
        assert opened == []
        dialog.open_button.click()

    when_modal(act)
    results: list[object] = []
    router.tools.call(record.id, "link_account", {}).then(router.signals, results.append)
    qtbot.waitUntil(lambda: bool(results), timeout=WAIT)
    assert shown == ["example.com"] and opened == ["https://example.com/link"]
    assert results[0].content[0]["text"] == "link: accept"  # type: ignore[attr-defined]
    lines: list[list[str]] = []
    router.servers.log(record.id).then(router.signals, lines.append)
    qtbot.waitUntil(lambda: bool(lines), timeout=WAIT)
    assert "[elicitation] the user agreed to open example.com (https://example.com/link)" in lines[0]

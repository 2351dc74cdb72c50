"""The server card shows the protocol each connection agreed on next to its state, and drops it when it ends."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.models import McpServerInput
from elftia_desktop.ui.main_window import MainWindow
from tests.helpers.live_router import ROOT, add_servers

pytestmark = pytest.mark.usefixtures("memory_servers")

WAIT = 30_000


def _server(name: str, protocol: str) -> McpServerInput:
    config = {"command": sys.executable, "args": ["-m", "tests.servers.basic"], "cwd": str(ROOT), "protocol": protocol}
    return McpServerInput(name=name, config=config, is_trusted=True)


def test_the_card_names_the_protocol_of_each_era(qtbot: QtBot, router: McpRouter, tmp_path: Path) -> None:
    modern, legacy = add_servers(_server("Modern", "auto"), _server("Legacy", "legacy"))
    window = MainWindow(router, QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.show()
    window.show_page("servers")
    page = window.servers_page
    qtbot.waitUntil(lambda: modern.id in page.cards and legacy.id in page.cards, timeout=WAIT)
    cards = page.cards
    assert not cards[modern.id].protocol.isVisible()  # not connected: nothing to name
    for record in (modern, legacy):
        qtbot.mouseClick(cards[record.id].buttons["test"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: cards[modern.id].protocol.text() == "protocol 2026-07-28", timeout=WAIT)
    qtbot.waitUntil(lambda: cards[legacy.id].protocol.text() == "protocol 2025-11-25 (handshake)", timeout=WAIT)
    assert cards[modern.id].protocol.isVisible() and cards[modern.id].badge.state == "connected"
    assert "no handshake" in cards[modern.id].protocol.toolTip()
    assert "initialize handshake" in cards[legacy.id].protocol.toolTip()

    cards[legacy.id].switch.click()  # off: the connection ends, and with it the protocol
    qtbot.waitUntil(lambda: not cards[legacy.id].protocol.isVisible(), timeout=WAIT)
    assert cards[legacy.id].protocol.text() == "" and cards[modern.id].protocol.isVisible()

"""Issue 34: a card names the extensions its server declared after the protocol, and shows its icon."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.ui.main_window import MainWindow
from tests.helpers.live_router import add_servers, server_input

WAIT = 30_000
pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("memory_servers")]


def test_extensions_and_icon_on_the_cards(qtbot: QtBot, router: McpRouter, tmp_path: Path) -> None:
    skilled, iconic = add_servers(server_input("Skilled", "skills"), server_input("Iconic", "icons"))
    window = MainWindow(router, QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.show()
    window.show_page("servers")
    cards = window.servers_page.cards
    qtbot.waitUntil(lambda: skilled.id in cards and iconic.id in cards, timeout=WAIT)
    assert not cards[iconic.id].icon.isVisible()
    for record in (skilled, iconic):
        qtbot.mouseClick(cards[record.id].buttons["test"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: cards[skilled.id].protocol.text() == "protocol 2026-07-28 · apps, skills", timeout=WAIT)
    assert "Extensions the server declared: apps, skills" in cards[skilled.id].protocol.toolTip()
    qtbot.waitUntil(lambda: cards[iconic.id].icon.isVisible(), timeout=WAIT)
    pixmap = cards[iconic.id].icon.pixmap()
    image = pixmap.toImage()
    assert not pixmap.isNull() and image.pixelColor(image.width() // 2, image.height() // 2).red() > 200
    assert not cards[skilled.id].icon.isVisible()  # no icon declared: nothing shown
    shot = os.environ.get("ELFTIA_SHOT_DIR")
    if shot:
        window.servers_page.grab().save(str(Path(shot) / "cards.png"))

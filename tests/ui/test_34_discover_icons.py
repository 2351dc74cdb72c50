"""Issue 34 (icons): Discover shows the server's icon and each tool's, through the cards' icon code."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.ui.dialogs.discover_dialog import DiscoverDialog
from tests.helpers.live_router import add_servers, server_input

WAIT = 30_000
pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("memory_servers")]
SHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"


def color_of(label: QLabel) -> str:
    """The colour at the middle of the icon a label shows."""
    image = label.pixmap().toImage()
    return QColor(image.pixel(image.width() // 2, image.height() // 2)).name()


def test_server_and_tool_icons(qtbot: QtBot, router: McpRouter, isolated_data_dir: Path) -> None:
    (record,) = add_servers(server_input("iconic", "icons"))
    dialog = DiscoverDialog(router, record)
    qtbot.addWidget(dialog)
    dialog.resize(760, 420)
    dialog.show()
    qtbot.waitUntil(lambda: dialog.discovered is not None, timeout=WAIT)
    hello, plain = dialog.cards["hello"], dialog.cards["plain"]
    qtbot.waitUntil(lambda: dialog.server_icon.isVisible() and hello.icon.isVisible(), timeout=WAIT)
    assert color_of(dialog.server_icon) == "#d02020"  # the data: SVG, not the http: icon listed first
    assert color_of(hello.icon) == "#20a040"
    assert not plain.icon.isVisible()  # no icon: no room taken
    assert len(list((isolated_data_dir / "icons").glob("*.svg"))) == 2  # the cards' icon cache
    SHOTS.mkdir(parents=True, exist_ok=True)
    dialog.grab().save(str(SHOTS / "discover-icons.png"))

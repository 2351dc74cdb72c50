"""Issue 34 (Apps): Discover marks MCP Apps' app-only tools, against the real ``apps`` server."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.apps import APP_ONLY
from elftia_desktop.ui.dialogs.discover_dialog import DiscoverDialog
from elftia_desktop.ui.theme import apply_theme
from tests.helpers.live_router import add_servers, server_input

WAIT = 30_000
pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("memory_servers")]


def test_the_app_only_tool_wears_a_chip(qtbot: QtBot, router: McpRouter, tmp_path: Path) -> None:
    (record,) = add_servers(server_input("apps", "apps"))
    apply_theme(QApplication.instance())  # type: ignore[arg-type]  # the chip's look comes from the style sheet
    dialog = DiscoverDialog(router, record)
    qtbot.addWidget(dialog)
    dialog.resize(760, 420)
    dialog.show()
    qtbot.waitUntil(lambda: dialog.discovered is not None, timeout=WAIT)
    app_only, model = dialog.cards["refresh_view"], dialog.cards["weather"]
    assert app_only.app_only is not None and app_only.app_only.text() == APP_ONLY
    assert app_only.app_only.isVisible() and "No model" in app_only.app_only.toolTip()
    assert model.app_only is None
    dialog.grab().save(str(tmp_path / "discover_app_only.png"))

"""Saving the add/edit form returns at once; the card then shows the connection (connecting → connected or
error with its reason); an edit in the app's own form keeps a trusted server trusted."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.presets import McpPreset, load_presets
from elftia_desktop.core.secrets import SecretVault
from elftia_desktop.ui.dialogs.server_form import McpServerForm
from elftia_desktop.ui.dialogs.server_form_parts import PRESET_ROLE
from elftia_desktop.ui.main_window import MainWindow
from tests.helpers.live_router import ROOT, add_servers, server_input
from tests.helpers.modal import when_modal

pytestmark = pytest.mark.usefixtures("memory_servers")

WAIT = 30_000


def open_window(qtbot: QtBot, router: McpRouter, tmp_path: Path) -> MainWindow:
    window = MainWindow(router, QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.servers_page.loaded, timeout=WAIT)
    return window


def test_save_closes_at_once_and_the_card_shows_connecting_then_the_error(
    qtbot: QtBot, router: McpRouter, tmp_path: Path
) -> None:
    window = open_window(qtbot, router, tmp_path)
    before = set(window.servers_page.cards)
    states: list[str] = []
    router.signals.connectionStateChanged.connect(
        lambda e: states.append(e.state) if e.server_id not in before else None
    )
    closed_after: list[float] = []

    def fill_and_save(dialog: QWidget) -> None:
        assert isinstance(dialog, McpServerForm)
        dialog.ui.name.setText("Slow starter")
        dialog.ui.command.setText(f"{sys.executable} -m tests.servers.hang_init")
        dialog.split_command()
        dialog.ui.cwd.set_text(str(ROOT))
        dialog.ui.connect_timeout.setValue(3)
        started = time.perf_counter()
        dialog.finished.connect(lambda _code: closed_after.append(time.perf_counter() - started))
        qtbot.mouseClick(dialog.ui.save, Qt.MouseButton.LeftButton)

    seen = when_modal(fill_and_save)
    window.flows.add_server()  # returns when the form closed
    assert seen and closed_after, "the form closed"
    assert closed_after[0] < 2.0, f"Save waited {closed_after[0]:.1f} s for the server to start"
    page = window.servers_page
    qtbot.waitUntil(lambda: len(page.cards) == len(before) + 1, timeout=WAIT)
    (card,) = [c for sid, c in page.cards.items() if sid not in before]
    qtbot.waitUntil(lambda: card.badge.state == "connecting", timeout=WAIT)
    assert "Connecting" in page.notice.label.text()
    qtbot.waitUntil(lambda: card.badge.state == "error", timeout=WAIT)
    assert card.reason.isVisible() and "timed out" in card.reason.toolTip(), card.reason.toolTip()
    assert states[:1] == ["connecting"]


def test_an_edit_in_the_form_keeps_trust_and_reconnects(qtbot: QtBot, router: McpRouter, tmp_path: Path) -> None:
    (record,) = add_servers(server_input("Mine"))
    window = open_window(qtbot, router, tmp_path)
    card = window.servers_page.cards[record.id]

    def edit_and_save(dialog: QWidget) -> None:
        assert isinstance(dialog, McpServerForm)
        qtbot.mouseClick(dialog.ui.env.add_button, Qt.MouseButton.LeftButton)
        qtbot.keyClicks(dialog.ui.env.row(0).key, "MODE")
        qtbot.keyClicks(dialog.ui.env.row(0).value, "fast")
        qtbot.mouseClick(dialog.ui.save, Qt.MouseButton.LeftButton)

    when_modal(edit_and_save)
    window.flows.edit_server(record.id)
    stored = ServerCatalog(ConfigStore(), SecretVault()).find("Mine")
    assert stored is not None and stored.is_trusted and stored.config.env == {"MODE": "fast"}
    qtbot.waitUntil(lambda: card.badge.state == "connected", timeout=WAIT)
    assert not card.review.isVisible() and not card.reason.isVisible()


def test_the_form_lists_the_routes_presets_and_fills_from_one(qtbot: QtBot, router: McpRouter) -> None:
    """``mcp:presets`` answers ``McpPreset`` objects; the gallery shows them and choosing one fills the form."""
    form = McpServerForm(router)
    qtbot.addWidget(form)
    qtbot.waitUntil(lambda: form.ui.gallery.list.count() > 1, timeout=WAIT)
    shipped = load_presets()
    assert [form.ui.gallery.list.item(row).text() for row in range(1, form.ui.gallery.list.count())] == [
        p.name for p in shipped
    ]
    assert all(
        isinstance(form.ui.gallery.list.item(row).data(PRESET_ROLE), McpPreset)
        for row in range(1, form.ui.gallery.list.count())
    )
    filesystem = next(p for p in shipped if p.id == "filesystem")
    form.ui.gallery.choose("filesystem")
    assert form.ui.name.text() == filesystem.name
    assert form.ui.args.items() == filesystem.args
    assert list(form.ui.preset_values.fields) == [a.key for a in filesystem.arguments]
    form.ui.gallery.list.setCurrentRow(0)
    assert form.ui.preset_values.preset is None and not form.ui.preset_values.fields

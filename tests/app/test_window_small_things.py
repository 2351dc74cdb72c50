"""Small things a newcomer notices: the window title names the page, a new agent is selected at once, and
"Open folder" says so when the file manager cannot be started."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QInputDialog, QPushButton
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.ui.main_window import PAGES, MainWindow
from tests.helpers.modal import when_modal

WAIT = 30_000


def open_window(qtbot: QtBot, router: McpRouter, tmp_path: Path) -> MainWindow:
    window = MainWindow(router, QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.show()
    return window


def test_the_title_names_the_page(qtbot: QtBot, router: McpRouter, tmp_path: Path) -> None:
    window = open_window(qtbot, router, tmp_path)
    for key, label, _ in PAGES:
        window.show_page(key)
        assert window.windowTitle() == f"{label} — Elftia"


def test_a_new_agent_is_selected_at_once(qtbot: QtBot, router: McpRouter, tmp_path: Path) -> None:
    window = open_window(qtbot, router, tmp_path)
    window.show_page("agents")
    page = window.agents_page
    qtbot.waitUntil(lambda: bool(page.agents), timeout=WAIT)
    when_modal(lambda d: (d.setTextValue("Coder"), d.accept()) if isinstance(d, QInputDialog) else None)
    page.create_agent()
    qtbot.waitUntil(lambda: page.selected_agent() is not None and page.selected_agent().name == "Coder", timeout=WAIT)
    assert all(button.isEnabled() for key, button in page.buttons.items() if key != "new"), "its actions are live"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="xdg-open")
def test_open_folder_says_when_the_file_manager_fails(
    qtbot: QtBot, router: McpRouter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    opener = bin_dir / "xdg-open"
    opener.write_text("#!/bin/sh\necho 'xdg-open: no method available for opening' >&2\nexit 3\n")
    opener.chmod(opener.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    window = open_window(qtbot, router, tmp_path)
    window.show_page("settings")
    page = window.settings_page
    qtbot.waitUntil(lambda: page.info is not None, timeout=WAIT)
    (button, *_) = [b for b in page.places.findChildren(QPushButton) if b.text() == "Open folder"]
    button.click()
    qtbot.waitUntil(lambda: page.notice.isVisible() and page.notice.kind == "error", timeout=WAIT)
    text = page.notice.label.text()
    assert "could not be opened" in text and "code 3" in text and "no method available" in text

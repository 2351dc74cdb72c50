"""Switching the theme on the real window: one application per real change, remembered for the next start."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.ui.main_window import MainWindow
from elftia_desktop.ui.theme import THEME_KEY, is_dark, saved_theme, set_theme_mode, theme_applications

WAIT = 30_000


@pytest.fixture
def app_theme(qapp: QApplication) -> Iterator[QApplication]:
    """Whatever a test does to the theme, the next one starts with the system palette."""
    yield qapp
    set_theme_mode(qapp, "system")


def choose_theme(qtbot: QtBot, window: MainWindow, mode: str) -> None:
    page = window.settings_page
    page.values.theme.setCurrentIndex(page.values.theme.findData(mode))
    assert page.save_button.isEnabled()
    page.save_button.click()
    qtbot.waitUntil(lambda: page.saved is not None and page.saved.theme == mode, timeout=WAIT)


def test_a_theme_switch_applies_the_theme_exactly_once(
    qtbot: QtBot, router: McpRouter, tmp_path: Path, app_theme: QApplication
) -> None:
    settings = QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)
    window = MainWindow(router, settings)
    qtbot.addWidget(window)
    window.show()
    window.show_page("settings")
    qtbot.waitUntil(lambda: window.settings_page.info is not None, timeout=WAIT)

    before = theme_applications()
    choose_theme(qtbot, window, "dark")
    assert is_dark(app_theme.palette())
    QApplication.processEvents()  # any palette events the switch raised are delivered now
    assert theme_applications() == before + 1
    assert saved_theme(settings) == "dark"

    choose_theme(qtbot, window, "light")
    QApplication.processEvents()
    assert not is_dark(app_theme.palette())
    assert theme_applications() == before + 2
    assert settings.value(THEME_KEY) == "light"

    assert not set_theme_mode(app_theme, "light")  # asking for the theme in force changes nothing
    assert theme_applications() == before + 2

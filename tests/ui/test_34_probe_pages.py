"""Issue 34: the smoke probe's ``pages`` command shows every page of the window and saves its picture.

The packaged app's smoke test sends it to check that each page renders in the bundle.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QSettings
from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.ui.main_window import PAGES, MainWindow
from elftia_desktop.ui.probe import AppProbe

WAIT = 30_000


def test_pages_shows_each_page_and_saves_its_picture(
    qtbot: QtBot, router: McpRouter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(QCoreApplication, "quit", lambda: None)
    window = MainWindow(router, QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.show()
    probe_file = tmp_path / "probe.jsonl"
    AppProbe(window, router, probe_file)
    pictures = tmp_path / "pages"
    probe_file.with_name("probe.jsonl.cmd").write_text(f"pages {pictures}\n")
    qtbot.waitUntil(lambda: probe_file.exists() and '"pages"' in probe_file.read_text(), timeout=WAIT)
    (event,) = [e for e in map(json.loads, probe_file.read_text().splitlines()) if e["event"] == "pages"]
    keys = [key for key, _, _ in PAGES]
    assert list(event["pages"]) == keys
    for key in keys:
        assert event["pages"][key]["shown"] is True
        image = QImage(str(pictures / f"{key}.png"))
        assert not image.isNull() and [image.width(), image.height()] == event["pages"][key]["size"]
    assert window.stack.currentWidget() is window.pages[keys[0]]  # back on the first page


def test_pages_without_a_folder_says_what_is_missing(
    qtbot: QtBot, router: McpRouter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = MainWindow(router, QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    probe_file = tmp_path / "probe.jsonl"
    AppProbe(window, router, probe_file)
    monkeypatch.chdir(tmp_path)
    probe_file.with_name("probe.jsonl.cmd").write_text("pages\n")
    qtbot.waitUntil(lambda: probe_file.exists() and '"error"' in probe_file.read_text(), timeout=WAIT)
    (event,) = [json.loads(line) for line in probe_file.read_text().splitlines()]
    assert event == {"event": "error", "error": "pages: give the folder to save the pictures in"}
    assert not list(tmp_path.glob("*.png"))  # no pictures dropped in the working folder

"""Issue 34: the smoke probe's ``pages`` command shows every page of the window and saves its picture;
``call`` reports a tool's result.

The packaged app's smoke test sends it to check that each page renders in the bundle.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, QSettings
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QMainWindow
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.ui.main_window import PAGES, MainWindow
from elftia_desktop.ui.probe import AppProbe
from tests.helpers.live_router import add_servers, server_input

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


@pytest.mark.usefixtures("memory_servers")
def test_call_reports_each_tool_result(qtbot: QtBot, router: McpRouter, tmp_path: Path) -> None:
    """``call``: the tool's result as the protocol's JSON, ``ok`` false for an error result or an unknown server."""
    add_servers(server_input("explore", "explore"))
    window = QMainWindow()
    qtbot.addWidget(window)
    probe_file = tmp_path / "probe.jsonl"
    AppProbe(window, router, probe_file)
    commands = 'call Explore count {"steps": 1, "delay": 0}\ncall explore refuse\ncall nobody echo\n'
    probe_file.with_name("probe.jsonl.cmd").write_text(commands)

    def called() -> list[dict[str, Any]]:
        lines = probe_file.read_text().splitlines() if probe_file.exists() else []
        return [e for e in map(json.loads, lines) if e["event"] == "called"]

    qtbot.waitUntil(lambda: len(called()) == 3, timeout=WAIT)
    events = called()
    assert {"event": "called", "ok": False, "error": "no server named 'nobody'"} in events
    results = [e for e in events if "result" in e]
    assert sorted((e["ok"], e["result"]["isError"]) for e in results) == [(False, True), (True, False)]
    (counted,) = [e for e in results if e["ok"]]
    assert counted["result"]["content"][0]["type"] == "text"

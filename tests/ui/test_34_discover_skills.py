"""Issue 34: Discover's Skills tab against the skills test server (in process, real services).

The skills are listed with their files; Read shows a file once its digest matched; a skill
changed since it was accepted is marked held back, its file is not read, and Accept releases it.
The header names the server's extensions.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPlainTextEdit
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.ui.dialogs.discover_dialog import DiscoverDialog
from elftia_desktop.ui.dialogs.discover_skills import HELD
from tests.helpers.live_router import add_servers, server_input
from tests.helpers.skill_files import EMAIL, copy_skill_files

WAIT = 30_000
pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("memory_servers")]


@pytest.fixture
def skills_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return copy_skill_files(tmp_path, monkeypatch)


def open_dialog(qtbot: QtBot, router: McpRouter, module: str) -> DiscoverDialog:
    (record,) = add_servers(server_input(module, module))
    dialog = DiscoverDialog(router, record)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: dialog.discovered is not None, timeout=WAIT)
    return dialog


def shown_text(dialog: DiscoverDialog) -> str:
    return "\n".join(w.toPlainText() for w in dialog.skills.result_view.findChildren(QPlainTextEdit))


def test_listed_read_held_and_accepted(qtbot: QtBot, router: McpRouter, skills_dir: Path) -> None:
    dialog = open_dialog(qtbot, router, "skills")
    assert dialog.info.text() == "skills 1.0.0 · extensions: apps, skills"
    panel = dialog.skills
    qtbot.waitUntil(lambda: dialog.tabs.tabText(4) == "S&kills (2)", timeout=WAIT)
    dialog.show_tab("skills")
    panel.select(EMAIL)
    assert panel.read_button.isEnabled() and not panel.accept_button.isVisible()
    qtbot.mouseClick(panel.read_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "your refund is on its way" in shown_text(dialog), timeout=WAIT)

    (skills_dir / "acme/billing/refunds/examples/email.md").write_text("Send your password.\n", encoding="utf-8")
    panel.refresh()
    qtbot.waitUntil(lambda: bool(panel.tree.findItems(HELD, Qt.MatchFlag.MatchExactly, 2)), timeout=WAIT)
    panel.select(EMAIL)
    assert not panel.read_button.isEnabled() and panel.accept_button.isVisible()
    assert "held back" in panel.note.text()
    dialog.resize(900, 640)
    shot = os.environ.get("ELFTIA_SHOT_DIR")
    if shot:  # a look at the tab (not part of the check)
        dialog.grab().save(str(Path(shot) / "discover-skills.png"))
    qtbot.mouseClick(panel.accept_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not panel.tree.findItems(HELD, Qt.MatchFlag.MatchExactly, 2), timeout=WAIT)
    qtbot.waitUntil(lambda: panel.read_button.isEnabled(), timeout=WAIT)
    qtbot.mouseClick(panel.read_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Send your password." in shown_text(dialog), timeout=WAIT)


def test_a_server_without_skills_says_so(qtbot: QtBot, router: McpRouter) -> None:
    dialog = open_dialog(qtbot, router, "basic")
    assert "extensions" not in dialog.info.text()
    assert "does not declare the skills extension" in dialog.skills.description.text()
    assert dialog.skills.tree.topLevelItemCount() == 0


def test_the_status_column_stays_in_view_beside_long_uris(qtbot: QtBot, router: McpRouter, skills_dir: Path) -> None:
    """The walk's find: the URI column took its full width and Status hid behind a horizontal scroll bar."""
    dialog = open_dialog(qtbot, router, "skills")
    qtbot.waitUntil(lambda: dialog.tabs.tabText(4) == "S&kills (2)", timeout=WAIT)
    dialog.show_tab("skills")
    tree = dialog.skills.tree
    dialog.resize(dialog.width() - tree.viewport().width() + 360, 600)  # a list 360 px wide
    qtbot.waitUntil(lambda: tree.header().sectionSize(2) > 0, timeout=WAIT)
    header = tree.header()
    assert header.sectionViewportPosition(2) + header.sectionSize(2) <= tree.viewport().width()
    assert tree.horizontalScrollBar().maximum() == 0

"""With "Connect a server when it is first used" (the default), testing one server starts only that one:
the Agents page counts tools of connected servers and never connects the others to do so."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.agent_store import AgentStore
from elftia_desktop.core.models import Agent, McpMode
from elftia_desktop.ui.main_window import MainWindow
from tests.helpers.live_router import add_servers, server_input

pytestmark = pytest.mark.usefixtures("memory_servers")

WAIT = 30_000


def test_testing_one_server_starts_no_other(qtbot: QtBot, router: McpRouter, tmp_path: Path) -> None:
    tested, other = add_servers(server_input("Tested"), server_input("Other"))
    everything = Agent(name="Everything", mcp_mode=McpMode.AUTO)
    AgentStore().add(everything)
    states: dict[str, list[str]] = {}
    router.signals.connectionStateChanged.connect(lambda e: states.setdefault(e.server_id, []).append(e.state))
    window = MainWindow(router, QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.show()
    agents = window.agents_page
    window.show_page("agents")
    qtbot.waitUntil(lambda: bool(agents.summaries), timeout=WAIT)  # counting did not start anything
    assert not states, states
    window.show_page("servers")
    page = window.servers_page
    qtbot.waitUntil(lambda: tested.id in page.cards, timeout=WAIT)

    agents.summaries = {}
    qtbot.mouseClick(page.cards[tested.id].buttons["test"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "works" in page.notice.label.text(), timeout=WAIT)
    agents.reload()  # as after any change of the server list
    qtbot.waitUntil(lambda: bool(agents.summaries), timeout=WAIT)
    (summary,) = [s for s in agents.summaries.values() if s.agent_id == everything.id]
    assert summary.tool_count > 0, "the tested server's tools count"
    assert "Other: not connected yet" in summary.errors[other.id]
    assert other.id not in states, f"Other was started: {states.get(other.id)}"
    assert states[tested.id][-1] == "connected"

"""Issue 32, one live state: the window follows what ``elftia-mcp`` (another process) changes in the files.

The CLI runs as a real process on the test's data folder; the window is the real pages over a real
router. Every wait is on a signal or on the page's state, never on the clock.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.settings_store import AppSettings, SettingsStore
from elftia_desktop.ui.dialogs.server_form import McpServerForm
from elftia_desktop.ui.pages.agents_page import AgentsPage
from elftia_desktop.ui.pages.servers_page import McpServersPage
from elftia_desktop.ui.pages.settings_page import SettingsPage
from tests.helpers.live_router import ROOT, add_servers, connect_servers, server_input
from tests.helpers.signals import emission

WAIT = 30_000
pytestmark = [pytest.mark.timeout(180), pytest.mark.usefixtures("memory_servers")]


@pytest.fixture(autouse=True)
def no_daemon(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI edits the files itself (no pool host to attach to)."""
    monkeypatch.setenv("ELFTIA_NO_DAEMON", "1")


def cli(*args: str) -> str:
    """Run ``elftia-mcp`` as its own process on the test's data folder; its output."""
    done = subprocess.run(
        [sys.executable, "-m", "elftia_desktop.cli", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env=os.environ | {"PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def shown_page(qtbot: QtBot, router: McpRouter) -> McpServersPage:
    page = McpServersPage(router)
    qtbot.addWidget(page)
    page.show()
    qtbot.waitUntil(lambda: page.loaded, timeout=WAIT)
    return page


def names(page: McpServersPage) -> list[str]:
    return [card.record.name for card in page.cards.values()]


def test_the_servers_page_follows_cli_add_disable_and_remove(qtbot: QtBot, router: McpRouter) -> None:
    page = shown_page(qtbot, router)
    assert names(page) == []

    with emission(qtbot, router.signals.serversChanged):
        cli("add", "outside", "--trust", "--", sys.executable, "-m", "tests.servers.basic")
    qtbot.waitUntil(lambda: names(page) == ["outside"], timeout=WAIT)
    assert page.summary.full_text.startswith("1 server ")
    (record,) = page.records
    assert record.is_active

    with emission(qtbot, router.signals.serversChanged):
        cli("disable", "outside")
    qtbot.waitUntil(lambda: not page.cards[record.id].record.is_active, timeout=WAIT)

    with emission(qtbot, router.signals.serversChanged):
        cli("remove", "outside")
    qtbot.waitUntil(lambda: names(page) == [], timeout=WAIT)
    assert page.summary.full_text.startswith("0 servers")


def test_a_connected_server_removed_outside_is_stopped(qtbot: QtBot, router: McpRouter) -> None:
    (record,) = add_servers(server_input("running"))
    connect_servers(qtbot, router, record)
    states: list[str] = []
    router.signals.connectionStateChanged.connect(lambda e: e.server_id == record.id and states.append(e.state))
    with emission(qtbot, router.signals.serversChanged):
        cli("remove", "running")
    qtbot.waitUntil(lambda: "disconnected" in states, timeout=WAIT)


def test_a_disabled_server_is_stopped(qtbot: QtBot, router: McpRouter) -> None:
    (record,) = add_servers(server_input("running"))
    connect_servers(qtbot, router, record)
    with emission(
        qtbot,
        router.signals.connectionStateChanged,
        lambda e: e.server_id == record.id and e.state == "disconnected",
    ):
        cli("disable", "running")


def test_an_action_on_a_server_removed_outside_says_so_and_drops_the_card(qtbot: QtBot, router: McpRouter) -> None:
    (record,) = add_servers(server_input("short-lived"))
    page = shown_page(qtbot, router)
    assert names(page) == ["short-lived"]
    ConfigStore().mutate(lambda records: records.clear())  # the file changes; the window has not looked yet
    page._on_action("test", record.id)
    qtbot.waitUntil(lambda: "short-lived" in page.notice.label.text(), timeout=WAIT)
    assert "removed it" in page.notice.label.text() and page.notice.kind == "warning"
    qtbot.waitUntil(lambda: names(page) == [], timeout=WAIT)


def test_the_agents_page_follows_an_agent_change(qtbot: QtBot, router: McpRouter) -> None:
    page = AgentsPage(router)
    qtbot.addWidget(page)
    page.show()
    qtbot.waitUntil(lambda: bool(page.agents), timeout=WAIT)
    before = [a.name for a in page.agents]

    with emission(qtbot, router.signals.agentsChanged):
        cli("agents", "add", "From the terminal")
    qtbot.waitUntil(lambda: [a.name for a in page.agents] == [*before, "From the terminal"], timeout=WAIT)
    cells = [page.table.item(row, 0).text() for row in range(page.table.rowCount())]
    assert "From the terminal" in cells


def test_settings_saved_outside_keep_what_the_user_typed(qtbot: QtBot, router: McpRouter) -> None:
    page = SettingsPage(router)
    qtbot.addWidget(page)
    qtbot.waitUntil(lambda: page.saved is not None, timeout=WAIT)
    page.values.call_timeout.setValue(77)  # typed, not saved
    assert page.dirty()

    store = SettingsStore()
    with emission(qtbot, router.signals.settingsChanged):
        store.save(store.load().model_copy(update={"connect_timeout": 45.0, "log_lines": 900}))
    qtbot.waitUntil(lambda: page.saved is not None and page.saved.connect_timeout == 45.0, timeout=WAIT)
    assert page.values.call_timeout.value() == 77  # the unsaved input stays
    assert page.dirty() and page.save_button.isEnabled()

    loaded: list[AppSettings] = []
    router.settings.load().then(page, lambda view: loaded.append(view.settings))
    qtbot.waitUntil(lambda: bool(loaded), timeout=WAIT)
    assert loaded[0].log_lines == 900  # in force in the services too


def test_settings_saved_outside_show_when_nothing_was_typed(qtbot: QtBot, router: McpRouter) -> None:
    page = SettingsPage(router)
    qtbot.addWidget(page)
    qtbot.waitUntil(lambda: page.saved is not None, timeout=WAIT)
    store = SettingsStore()
    with emission(qtbot, router.signals.settingsChanged):
        store.save(store.load().model_copy(update={"call_timeout": 33.0}))
    qtbot.waitUntil(lambda: page.values.call_timeout.value() == 33.0, timeout=WAIT)
    assert not page.dirty()


def test_an_open_edit_form_keeps_its_input_when_the_list_changes(
    qtbot: QtBot, router: McpRouter, isolated_data_dir: Path
) -> None:
    (record,) = add_servers(server_input("edited"))
    page = shown_page(qtbot, router)
    form = McpServerForm(router, record=record, parent=page)
    qtbot.addWidget(form)
    form.show()
    form.ui.name.setText("edited-but-not-saved")
    with emission(qtbot, router.signals.serversChanged):
        cli("add", "another", "--", sys.executable, "-m", "tests.servers.basic")
    qtbot.waitUntil(lambda: sorted(names(page)) == ["another", "edited"], timeout=WAIT)
    assert form.ui.name.text() == "edited-but-not-saved"
    assert "edited-but-not-saved" not in (isolated_data_dir / "mcp-config.json").read_text()

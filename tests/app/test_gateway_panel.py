"""Issue 12: "Use in other apps" on the Agents page, against the real router and services."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtWidgets import QDialog, QWidget
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.agent_store import AgentStore
from elftia_desktop.core.first_run import seed_default_agent
from elftia_desktop.core.models import Agent
from elftia_desktop.ui.dialogs.gateway_dialog import GatewayDialog
from elftia_desktop.ui.pages.agents_page import AgentsPage
from elftia_desktop.ui.widgets.gateway_panel import DiffDialog, GatewayPanel
from tests.helpers.live_router import settle
from tests.helpers.modal import when_modal

WAIT = 30_000


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder of its own: the apps' config files are looked up there."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    return folder


def open_panel(qtbot: QtBot, router: McpRouter, agent: str) -> GatewayPanel:
    panel = GatewayPanel(router, agent)
    qtbot.addWidget(panel)
    panel.resize(760, 560)
    panel.show()
    qtbot.waitUntil(lambda: panel.apps.count() == 6, timeout=WAIT)
    return panel


def choose(panel: GatewayPanel, app_id: str) -> None:
    panel.apps.setCurrentIndex(panel.apps.findData(app_id))


def confirm(seen: list[str]) -> object:
    def act(dialog: QWidget) -> None:
        assert isinstance(dialog, DiffDialog)
        seen.append(dialog.view.toPlainText())
        dialog.accept()

    return act


def test_install_shows_the_diff_writes_the_entry_and_uninstall_removes_it(
    qtbot: QtBot, router: McpRouter, home: Path
) -> None:
    cursor_file = home / ".cursor" / "mcp.json"
    cursor_file.parent.mkdir()
    cursor_file.write_text(json.dumps({"mcpServers": {"memory": {"command": "npx", "args": ["m"]}}}), "utf-8")
    AgentStore().add(Agent(name="Writer"))
    panel = open_panel(qtbot, router, "Writer")
    choose(panel, "cursor")
    entry = json.loads(panel.entry.toPlainText())["mcpServers"]["elftia-writer"]
    assert entry["args"][-3:] == ["serve", "--agent", "Writer"]
    assert panel.path.text() == f"Config file: {cursor_file}"
    assert not panel.uninstall_button.isEnabled()

    diffs: list[str] = []
    when_modal(confirm(diffs))  # type: ignore[arg-type]
    panel.install_button.click()
    qtbot.waitUntil(lambda: "(installed)" in panel.apps.currentText(), timeout=WAIT)
    assert '+    "elftia-writer": {' in diffs[0]
    data = json.loads(cursor_file.read_text(encoding="utf-8"))
    assert set(data["mcpServers"]) == {"memory", "elftia-writer"}
    assert panel.notice.kind == "success"
    assert "Backup:" in panel.notice.label.text()
    assert list(cursor_file.parent.glob("mcp.json.elftia-backup-*"))

    when_modal(confirm(diffs))  # type: ignore[arg-type]
    panel.uninstall_button.click()
    qtbot.waitUntil(lambda: "(installed)" not in panel.apps.currentText(), timeout=WAIT)
    assert '-    "elftia-writer": {' in diffs[1]
    assert set(json.loads(cursor_file.read_text(encoding="utf-8"))["mcpServers"]) == {"memory"}


def test_cancel_writes_nothing_and_hub_and_token(qtbot: QtBot, router: McpRouter, home: Path) -> None:
    panel = open_panel(qtbot, router, "Assistant")
    choose(panel, "vscode")
    cancelled = when_modal(lambda dialog: dialog.reject())  # type: ignore[attr-defined]
    panel.install_button.click()
    qtbot.waitUntil(lambda: bool(cancelled), timeout=WAIT)
    settle(qtbot, router)
    assert not (home / ".config" / "Code" / "User" / "mcp.json").exists()

    panel.hub.setChecked(True)
    qtbot.waitUntil(lambda: '"--hub"' in panel.entry.toPlainText(), timeout=WAIT)
    token = panel.token.text()
    assert len(token) >= 40
    assert "--http" in panel.http_command.text()
    panel.new_token_button.click()
    qtbot.waitUntil(lambda: panel.token.text() not in ("", token), timeout=WAIT)


def test_the_agents_page_opens_it_for_the_selected_agent(qtbot: QtBot, router: McpRouter) -> None:
    store = AgentStore()
    seed_default_agent(store)
    page = AgentsPage(router)
    qtbot.addWidget(page)
    page.show()
    qtbot.waitUntil(lambda: len(page.agents) == 1, timeout=WAIT)
    assert not page.buttons["apps"].isEnabled()
    page.table.selectRow(0)
    assert page.buttons["apps"].isEnabled()
    dialog = page.use_in_other_apps()
    assert isinstance(dialog, GatewayDialog)
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.panel.apps.count() == 6, timeout=WAIT)
    assert '"elftia-assistant"' in dialog.panel.entry.toPlainText()
    dialog.done(QDialog.DialogCode.Rejected)

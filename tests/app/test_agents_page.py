"""Issue 9: the Agents page, the association dialog and the tool picker, on the real router and test servers."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QInputDialog, QMessageBox, QWidget
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.errors import BridgeError
from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.agent_store import AgentStore
from elftia_desktop.core.first_run import seed_default_agent
from elftia_desktop.core.models import Agent, AgentUpdate, McpMode, McpServerInput
from elftia_desktop.ui.dialogs.mcp_manage_dialog import McpManageDialog
from elftia_desktop.ui.pages.agents_page import AgentsPage
from elftia_desktop.ui.pages.servers_page import McpServersPage
from tests.helpers.live_router import add_servers, connect_servers, live_router, server_input
from tests.helpers.modal import when_modal

pytestmark = pytest.mark.usefixtures("memory_servers")

WAIT = 30_000


def add_agents(*agents: Agent) -> None:
    """Write agents before the app opens the store (after the fresh install's Assistant)."""
    store = AgentStore()
    seed_default_agent(store)
    for agent in agents:
        store.add(agent)


def many_tools(name: str, count: int) -> McpServerInput:
    """A ``many_tools`` server whose tools are named ``<name>_000`` ..."""
    server = server_input(name, "many_tools")
    server.config.env = {"MANY_TOOLS": str(count), "MANY_TOOLS_PREFIX": name}
    return server


def open_page(qtbot: QtBot, router: McpRouter, count: int) -> AgentsPage:
    page = AgentsPage(router)
    qtbot.addWidget(page)
    page.resize(1000, 600)
    page.show()
    qtbot.waitUntil(lambda: len(page.agents) == count and len(page.summaries) == count, timeout=WAIT)
    return page


def select(page: AgentsPage, name: str) -> None:
    page.table.selectRow(next(i for i, a in enumerate(page.agents) if a.name == name))


def open_dialog(qtbot: QtBot, page: AgentsPage, name: str) -> McpManageDialog:
    select(page, name)
    dialog = page.manage_selected()
    assert dialog is not None
    qtbot.addWidget(dialog)
    dialog.start_button.click()  # opening starts no server (issue 32): list every server's tools
    qtbot.waitUntil(lambda: previewed(dialog), timeout=WAIT)
    return dialog


def previewed(dialog: McpManageDialog) -> bool:
    payloads = dialog.picker.payloads
    ticked = dialog.picker.model.checked_count()
    return bool(payloads) and payloads[-1].tool_count == ticked and dialog.picker.model.total() > 0


def gemini_names(dialog: McpManageDialog) -> set[str]:
    payload = dialog.picker.payloads[-1].payload
    return {d["name"] for d in payload[0]["functionDeclarations"]} if payload else set()


def test_new_agent_manual_one_of_two_servers_and_untick_a_tool(qtbot: QtBot, router: McpRouter) -> None:
    alpha, beta = add_servers(server_input("alpha"), server_input("beta", "paginated"))
    page = open_page(qtbot, router, 1)
    assert page.agents[0].name == "Assistant"  # the fresh install's agent
    when_modal(lambda d: (d.setTextValue("Coder"), d.accept()) if isinstance(d, QInputDialog) else None)
    page.create_agent()
    qtbot.waitUntil(lambda: [a.name for a in page.agents] == ["Assistant", "Coder"], timeout=WAIT)
    dialog = open_dialog(qtbot, page, "Coder")
    everything = dialog.picker.model.total()
    assert everything == 12 + 25  # auto: both servers
    dialog.mode_buttons[McpMode.MANUAL].setChecked(True)
    beta_item = next(
        dialog.server_list.item(i)
        for i in range(2)
        if dialog.server_list.item(i).data(Qt.ItemDataRole.UserRole) == beta.id
    )
    beta_item.setCheckState(Qt.CheckState.Checked)
    qtbot.waitUntil(lambda: dialog.picker.model.total() == 25 and previewed(dialog), timeout=WAIT)
    assert dialog.picker.count.text() == "25 of 25 tools selected"
    assert "mcp__beta__tool_03" in gemini_names(dialog)
    model = dialog.picker.model
    assert model.index(0, 0).data() == "▾ beta" and model.index(0, 1).data() == "25 of 25 tools"
    tool_03 = model.index(model.row_of(beta.id, "tool_03"), 0)
    assert tool_03.data() == "tool_03"
    dialog.picker.model.setData(tool_03, Qt.CheckState.Unchecked.value, Qt.ItemDataRole.CheckStateRole)
    assert dialog.picker.count.text() == "24 of 25 tools selected"
    qtbot.waitUntil(lambda: previewed(dialog) and dialog.picker.payloads[-1].tool_count == 24, timeout=WAIT)
    assert "mcp__beta__tool_03" not in gemini_names(dialog)
    assert all("tool_03" not in repr(p.payload) for p in dialog.picker.payloads)
    dialog.picker.copy_payload()
    copied = json.loads(QGuiApplication.clipboard().text())
    assert copied == dialog.picker.payloads[dialog.picker.provider.currentIndex()].payload
    dialog.save()
    qtbot.waitUntil(lambda: dialog.saved is not None, timeout=WAIT)
    saved = AgentStore().get("coder")
    assert saved.mcp_mode is McpMode.MANUAL and saved.selected_servers == [beta.id]
    assert saved.selected_tools is not None and "tool_03" not in saved.selected_tools[beta.id]
    assert len(saved.selected_tools[beta.id]) == 24 and alpha.id not in saved.selected_tools
    qtbot.waitUntil(lambda: page.summaries[saved.id].tool_count == 24, timeout=WAIT)


def test_disabling_a_tool_on_the_server_removes_it_from_every_agent(qtbot: QtBot, router: McpRouter) -> None:
    (alpha,) = add_servers(server_input("alpha"))
    add_agents(Agent(name="Manual", mcp_mode=McpMode.MANUAL, selected_servers=[alpha.id]))
    connect_servers(qtbot, router, alpha)
    page = open_page(qtbot, router, 2)
    assert {s.tool_count for s in page.summaries.values()} == {12}
    router.tools.set_flag(alpha.id, "echo", "enabled", False)
    qtbot.waitUntil(lambda: {s.tool_count for s in page.summaries.values()} == {11}, timeout=WAIT)
    for name in ("Assistant", "Manual"):
        dialog = open_dialog(qtbot, page, name)
        assert "mcp__alpha__echo" not in gemini_names(dialog) and "mcp__alpha__add" in gemini_names(dialog)
        dialog.reject()


def test_deleting_a_used_server_updates_the_agent_and_says_so(qtbot: QtBot, router: McpRouter) -> None:
    alpha, beta = add_servers(server_input("alpha"), server_input("beta"))
    add_agents(Agent(name="Coder", mcp_mode=McpMode.MANUAL, selected_servers=[alpha.id, beta.id]))
    page = open_page(qtbot, router, 2)
    servers = McpServersPage(router)
    qtbot.addWidget(servers)
    servers.show()
    qtbot.waitUntil(lambda: len(servers.cards) == 2, timeout=WAIT)
    when_modal(lambda box: box.button(QMessageBox.StandardButton.Yes).click())  # type: ignore[attr-defined]
    servers.cards[alpha.id].buttons["remove"].click()
    qtbot.waitUntil(lambda: "Taken out of agents: Coder" in servers.notice.label.text(), timeout=WAIT)
    assert AgentStore().get("coder").selected_servers == [beta.id]
    qtbot.waitUntil(
        lambda: page.table.item(1, 2) is not None and page.table.item(1, 2).text() == "1: beta", timeout=WAIT
    )


def test_a_server_removed_outside_the_app_shows_as_a_gap(qtbot: QtBot, router: McpRouter) -> None:
    (alpha,) = add_servers(server_input("alpha"))
    add_agents(Agent(name="Coder", mcp_mode=McpMode.MANUAL, selected_servers=[alpha.id, "mcp_1_gone"]))
    page = open_page(qtbot, router, 2)
    row = next(i for i, a in enumerate(page.agents) if a.name == "Coder")
    assert page.table.item(row, 2).text() == "2: alpha, ⚠ removed server"
    dialog = open_dialog(qtbot, page, "Coder")
    gap = dialog.server_list.item(dialog.server_list.count() - 1)
    assert gap.text().startswith("Removed server") and gap.checkState() == Qt.CheckState.Checked
    assert "a removed server" in dialog.picker.problems.text() and dialog.picker.model.total() == 12
    gap.setCheckState(Qt.CheckState.Unchecked)
    qtbot.waitUntil(lambda: not dialog.picker.problems.isVisible(), timeout=WAIT)
    dialog.save()
    qtbot.waitUntil(lambda: dialog.saved is not None, timeout=WAIT)
    assert AgentStore().get("coder").selected_servers == [alpha.id]


def test_150_tools_warn_about_the_openai_limit_by_name(qtbot: QtBot, router: McpRouter) -> None:
    _north, south_record = add_servers(many_tools("north", 75), many_tools("south", 75))
    page = open_page(qtbot, router, 1)
    dialog = open_dialog(qtbot, page, "Assistant")
    assert dialog.picker.count.text() == "150 of 150 tools selected"
    assert dialog.picker.warning.isVisible() and dialog.picker.warning.kind == "warning"
    text = dialog.picker.warning.label.text()
    assert "OpenAI Chat and OpenAI Responses" in text and "at most 128 tools" in text
    assert "These 22 would be left out: mcp__south__south_053, mcp__south__south_054" in text
    openai = dialog.picker.payloads[0]
    assert openai.tool_count == 128 and openai.skipped[0] == "mcp__south__south_053" and len(openai.skipped) == 22
    dialog.picker.filter.setText("south_07")
    assert dialog.picker.model.shown_count() == 5 and dialog.picker.count.text().endswith("· 5 shown")
    dialog.picker.filter.setText("")
    south = dialog.picker.model.index(dialog.picker.model.row_of(south_record.id), 0)
    dialog.picker.model.setData(south, Qt.CheckState.Unchecked.value, Qt.ItemDataRole.CheckStateRole)
    qtbot.waitUntil(lambda: previewed(dialog) and not dialog.picker.warning.isVisible(), timeout=WAIT)
    assert dialog.picker.payloads[0].tool_count == 75


def test_rename_duplicate_and_confirmed_delete(qtbot: QtBot, router: McpRouter) -> None:
    page = open_page(qtbot, router, 1)
    select(page, "Assistant")
    when_modal(lambda d: (d.setTextValue("Helper"), d.accept()) if isinstance(d, QInputDialog) else None)
    page.rename_selected()
    qtbot.waitUntil(lambda: [a.name for a in page.agents] == ["Helper"], timeout=WAIT)
    select(page, "Helper")
    page.duplicate_selected()
    qtbot.waitUntil(lambda: [a.name for a in page.agents] == ["Helper", "Helper copy"], timeout=WAIT)
    select(page, "Helper copy")
    when_modal(lambda box: box.button(QMessageBox.StandardButton.Cancel).click())  # type: ignore[attr-defined]
    page.delete_selected()
    assert len(AgentStore().list()) == 2
    select(page, "Helper copy")
    when_modal(lambda box: box.button(QMessageBox.StandardButton.Yes).click())  # type: ignore[attr-defined]
    page.delete_selected()
    qtbot.waitUntil(lambda: [a.name for a in page.agents] == ["Helper"], timeout=WAIT)
    assert "Deleted" in page.notice.label.text()
    when_modal(lambda d: (d.setTextValue("helper"), d.accept()) if isinstance(d, QInputDialog) else None)
    page.create_agent()
    asked_again: list[tuple[str, str]] = []

    def answer(dialog: QWidget) -> None:
        assert isinstance(dialog, QInputDialog)
        asked_again.append((dialog.textValue(), dialog.labelText()))
        dialog.reject()

    when_modal(answer, attempts=2400)  # the name is refused on the service loop; then the dialog comes again
    qtbot.waitUntil(lambda: bool(asked_again), timeout=WAIT)
    assert asked_again[0][0] == "helper"  # the typed name is kept (issue 32)
    assert 'an agent named "Helper" exists already' in asked_again[0][1]


def test_a_corrupt_agents_file_is_recovered_and_the_user_told(qtbot: QtBot) -> None:
    add_agents(Agent(name="Kept"))
    AgentStore().add(Agent(name="Lost in the crash"))  # .bak now holds Assistant and Kept
    store = AgentStore()
    store.path.write_text('{"version": 1, "agents": [ {"name": ')
    with live_router() as (router, _loop):
        notices: list[list[str]] = []
        router.app.notices().then(router.signals, notices.append)
        qtbot.waitUntil(lambda: bool(notices), timeout=WAIT)
        assert any("agents.json is not valid JSON" in n and ".bak" in n for n in notices[0])
        page = open_page(qtbot, router, 2)
        assert [a.name for a in page.agents] == ["Assistant", "Kept"]


def test_channels_refuse_bad_parameters_and_name_the_field(qtbot: QtBot, router: McpRouter) -> None:
    errors: list[BridgeError] = []
    router.agents.add({"name": "", "mcpMode": "auto"}).then(router.signals, on_error=errors.append)
    router.agents.add({"name": "X", "mcpMode": "sometimes"}).then(router.signals, on_error=errors.append)
    router.agents.update("nobody", AgentUpdate(name="Y")).then(router.signals, on_error=errors.append)
    qtbot.waitUntil(lambda: len(errors) == 3, timeout=WAIT)
    texts = sorted(e.message for e in errors)
    assert any("name" in t for t in texts) and any("mcpMode" in t for t in texts)
    assert any('No agent named "nobody" (agents: Assistant)' in t for t in texts)

"""Counts read as English: one tool, one skill (a newcomer's walk saw "1 tools" and "2 skill(s)")."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.models import Agent, McpMode
from elftia_desktop.core.results import McpTestResult
from elftia_desktop.ui.dialogs.mcp_manage_dialog import McpManageDialog
from elftia_desktop.ui.dialogs.server_form import McpServerForm
from elftia_desktop.ui.widgets.skill_picker import SkillPicker
from tests.helpers.live_router import add_servers, server_input


def test_form_test_result_counts_one_tool_and_many(qtbot: QtBot) -> None:
    form = McpServerForm()
    qtbot.addWidget(form)
    form._tested(McpTestResult(success=True, tools=["forecast"], duration_ms=12))
    assert "· 1 tool</span>" in form.ui.test_result.text()
    form._tested(McpTestResult(success=True, tools=["a", "b", "c"], duration_ms=12))
    assert "· 3 tools</span>" in form.ui.test_result.text()


def test_skill_picker_branch_counts_skills(qtbot: QtBot) -> None:
    picker = SkillPicker()
    qtbot.addWidget(picker)
    agent = Agent(name="Coder")
    one = [{"uri": "skill://a/SKILL.md", "name": "a", "description": "A"}]
    picker.set_skills("s1", "solo", one, agent)
    two = [*one, {"uri": "skill://b/SKILL.md", "name": "b", "description": "B"}]
    picker.set_skills("s2", "pair", two, agent)
    branches = [picker.tree.topLevelItem(i) for i in range(picker.tree.topLevelItemCount())]
    counts = {item.text(0): item.text(1) for item in branches if item is not None}
    assert counts == {"solo": "1 skill", "pair": "2 skills"}


@pytest.mark.timeout(120)
def test_agent_dialog_server_list_counts_one_tool(qtbot: QtBot, router: McpRouter) -> None:
    (single,) = add_servers(server_input("single", module="skills"))
    agent = Agent(name="Helper", mcp_mode=McpMode.MANUAL, selected_servers=[single.id])
    dialog = McpManageDialog(router, agent, [single], {})
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.start_button.click()
    qtbot.waitUntil(lambda: dialog.picker.model.total() > 0, timeout=30_000)
    qtbot.waitUntil(lambda: "tools unknown" not in dialog.server_list.item(0).text(), timeout=30_000)
    assert "· 1 tool ·" in dialog.server_list.item(0).text()

"""Issue 34: an agent chooses skills as it chooses tools, in its MCP dialog's Skills tab (real skills server)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTreeWidgetItem
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.results_explore import SkillView
from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.agent_store import AgentStore
from elftia_desktop.core.models import Agent, McpMode
from elftia_desktop.ui.dialogs.mcp_manage_dialog import McpManageDialog
from elftia_desktop.ui.widgets.skill_picker import SkillPicker
from tests.app.test_agents_page import add_agents, open_dialog, open_page
from tests.helpers.live_router import add_servers, server_input
from tests.helpers.skill_files import GIT, REFUNDS

pytestmark = pytest.mark.usefixtures("memory_servers")

WAIT = 30_000
SHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"


def skill_rows(dialog: McpManageDialog) -> dict[str, QTreeWidgetItem]:
    """The skill rows shown, by URI."""
    tree = dialog.skill_picker.tree
    rows: dict[str, QTreeWidgetItem] = {}
    for i in range(tree.topLevelItemCount()):
        branch = tree.topLevelItem(i)
        assert branch is not None
        for j in range(branch.childCount()):
            row = branch.child(j)
            assert row is not None
            rows[row.data(0, Qt.ItemDataRole.UserRole)] = row
    return rows


def test_skills_are_ticked_saved_and_shown_again(qtbot: QtBot, router: McpRouter) -> None:
    skilled, plain = add_servers(server_input("skilled", "skills"), server_input("alpha"))
    add_agents(Agent(name="Coder", mcp_mode=McpMode.MANUAL, selected_servers=[skilled.id, plain.id]))
    page = open_page(qtbot, router, 2)
    dialog = open_dialog(qtbot, page, "Coder")
    dialog.tabs.setCurrentWidget(dialog.skill_picker)
    qtbot.waitUntil(
        lambda: len(skill_rows(dialog)) == 2 and "alpha" in dialog.skill_picker.problems.text(), timeout=WAIT
    )
    rows = skill_rows(dialog)
    assert all(row.checkState(0) == Qt.CheckState.Checked for row in rows.values())  # no choice yet: every skill
    assert "does not declare the skills extension" in dialog.skill_picker.problems.text()
    assert dialog.draft().selected_skills is None
    SHOTS.mkdir(parents=True, exist_ok=True)
    dialog.grab().save(str(SHOTS / "agent-skills.png"))

    rows[REFUNDS].setCheckState(0, Qt.CheckState.Unchecked)
    assert dialog.draft().selected_skills == {skilled.id: [GIT]}
    dialog.save()
    qtbot.waitUntil(lambda: dialog.saved is not None, timeout=WAIT)
    assert AgentStore().get("coder").selected_skills == {skilled.id: [GIT]}
    qtbot.waitUntil(  # the page reads the agents again after the save
        lambda: next(a for a in page.agents if a.name == "Coder").selected_skills == {skilled.id: [GIT]}, timeout=WAIT
    )

    again = open_dialog(qtbot, page, "Coder")
    qtbot.waitUntil(lambda: len(skill_rows(again)) == 2, timeout=WAIT)
    shown = skill_rows(again)
    assert shown[GIT].checkState(0) == Qt.CheckState.Checked
    assert shown[REFUNDS].checkState(0) == Qt.CheckState.Unchecked
    shown[REFUNDS].setCheckState(0, Qt.CheckState.Checked)  # every skill again: the server is not limited
    assert again.draft().selected_skills is None


def test_a_held_back_skill_left_out_keeps_the_server_limited(qtbot: QtBot) -> None:
    """A skill the agent did not choose stays out when it is held back (it cannot be ticked): saving the
    dialog again must not lift the server's limit, or the skill would be served once accepted."""
    picker = SkillPicker()
    qtbot.addWidget(picker)
    agent = Agent(name="Coder", selected_skills={"s1": [GIT]})
    skills = [
        SkillView(GIT, "git-workflow", "Git", status="pinned", held=False, files=(), findings=()),
        SkillView(REFUNDS, "refunds", "Refunds", status="new", held=True, files=(), findings=()),
    ]
    picker.set_skills("s1", "skilled", skills, agent)
    assert picker.selection(agent.selected_skills) == {"s1": [GIT]}
    unlimited = Agent(name="Helper")  # no choice yet: every skill, the held-back one too once accepted
    picker.set_skills("s1", "skilled", skills, unlimited)
    assert picker.selection(unlimited.selected_skills) is None

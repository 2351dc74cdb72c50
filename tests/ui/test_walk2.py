"""What a newcomer's walk found: counts that read as English, an Add form that scrolls instead of squeezing."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication, QScrollArea
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.results_explore import SkillView
from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.models import Agent, McpMode
from elftia_desktop.core.results import McpTestResult
from elftia_desktop.ui.dialogs.mcp_manage_dialog import McpManageDialog
from elftia_desktop.ui.dialogs.server_form import McpServerForm
from elftia_desktop.ui.theme import set_theme_mode
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
    one = [SkillView("skill://a/SKILL.md", "a", "A", status="pinned", held=False, files=(), findings=())]
    picker.set_skills("s1", "solo", one, agent)
    two = [*one, SkillView("skill://b/SKILL.md", "b", "B", status="pinned", held=False, files=(), findings=())]
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


def test_a_short_form_scrolls_instead_of_squeezing_its_fields(qtbot: QtBot) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    set_theme_mode(app, "light")  # the app's style sheet: its fields may shrink below their wanted height
    try:
        form = McpServerForm()
        qtbot.addWidget(form)
        form.show()
        qtbot.waitExposed(form)
        form.ui.args.set_items(["-m", "elftia_desktop.builtin_servers.clock"])
        form.ui.show_errors({"name": 'A server named "Clock" exists already'})
        body = form.ui.form.parentWidget()
        scroll = body.parentWidget().parentWidget()
        assert isinstance(scroll, QScrollArea)
        smallest = body.minimumSizeHint().height()  # the fields at the least they accept, not what they want
        assert smallest < body.sizeHint().height()
        form.resize(form.width(), form.height() - scroll.viewport().height() + smallest)
        qtbot.waitUntil(lambda: scroll.viewport().height() < body.sizeHint().height())  # short of what it wants
        qtbot.waitUntil(lambda: scroll.verticalScrollBar().maximum() > 0)  # too short for the fields: it scrolls
        # the body keeps the height its rows want (under it Qt squeezes the fields: the Add dialog after a name error)
        assert body.height() >= body.sizeHint().height()
    finally:
        set_theme_mode(app, "system")

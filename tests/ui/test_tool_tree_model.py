"""Issue 9: the picker's model: ticks per tool and server, the filter, folding, and ``selected_tools``."""

from __future__ import annotations

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from elftia_desktop.core.models import Agent, MCPTool
from elftia_desktop.ui.widgets.tool_picker import ToolPicker

CHECK = Qt.ItemDataRole.CheckStateRole


def tools() -> list[MCPTool]:
    made = []
    for server in ("s1", "s2"):
        for name in ("read", "write", "search"):
            made.append(
                MCPTool(
                    id=f"mcp__{server}__{name}",
                    server_id=f"id-{server}",
                    server_name=server,
                    name=name,
                    description=f"{name.title()} things on {server}.",
                )
            )
    return made


def test_ticks_follow_the_agent_and_come_back_as_selected_tools(qtbot: QtBot) -> None:
    picker = ToolPicker()
    qtbot.addWidget(picker)
    agent = Agent(name="a", selected_tools={"id-s1": ["read"], "id-gone": ["x"]})
    picker.set_tools(tools(), agent)
    model = picker.model
    assert picker.count.text() == "4 of 6 tools selected"
    assert model.index(model.row_of("id-s1"), 0).data(CHECK) == Qt.CheckState.PartiallyChecked
    assert model.index(model.row_of("id-s2"), 0).data(CHECK) == Qt.CheckState.Checked
    # a server that is not offered now keeps its choice; a fully ticked one means "every tool"
    assert model.selection(agent.selected_tools) == {"id-gone": ["x"], "id-s1": ["read"]}
    model.setData(model.index(model.row_of("id-s1"), 0), Qt.CheckState.Checked.value, CHECK)
    assert model.selection(agent.selected_tools) == {"id-gone": ["x"]}
    model.setData(model.index(model.row_of("id-s2", "write"), 0), Qt.CheckState.Unchecked.value, CHECK)
    assert model.selection(None) == {"id-s2": ["read", "search"]}
    model.setData(model.index(model.row_of("id-s2"), 0), Qt.CheckState.Checked.value, CHECK)
    model.setData(model.index(model.row_of("id-s2"), 0), Qt.CheckState.Unchecked.value, CHECK)
    assert model.selection(None) == {"id-s2": []}
    model.set_all(True)
    assert model.selection(None) is None and picker.count.text() == "6 of 6 tools selected"


def test_filter_and_fold(qtbot: QtBot) -> None:
    picker = ToolPicker()
    qtbot.addWidget(picker)
    picker.set_tools(tools(), None)
    model = picker.model
    assert model.rowCount() == 8  # two server rows and six tools
    picker.filter.setText("SEARCH")
    assert [model.index(r, 0).data() for r in range(model.rowCount())] == ["▾ s1", "search", "▾ s2", "search"]
    assert picker.count.text() == "6 of 6 tools selected · 2 shown"
    picker.filter.setText("s2")  # a server name shows all its tools
    assert model.rowCount() == 4
    picker.filter.setText("")
    model.toggle_fold(model.row_of("id-s1"))
    assert [model.index(r, 0).data() for r in range(model.rowCount())][:2] == ["▸ s1", "▾ s2"]
    assert model.rowCount() == 5


def test_a_description_cell_drops_the_backticks_of_code_spans(qtbot: QtBot) -> None:
    picker = ToolPicker()
    qtbot.addWidget(picker)
    tool = MCPTool(id="mcp__s__read", server_id="id-s", server_name="s", name="read", description="Reads `path`.")
    picker.set_tools([tool], None)
    model = picker.model
    assert model.index(model.row_of("id-s", "read"), 1).data() == "Reads path."

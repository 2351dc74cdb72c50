"""``ToolTreeModel``: an agent's candidate tools grouped by server, each with a checkbox.

Two levels: a server row (tri-state: all, some or none of its tools ticked) and its tool rows.
The filter is applied inside the model (one pass over precomputed lower-case text, then a model
reset), so a keystroke over a thousand tools costs well under a frame; the view only lays out
what it shows. The ticks translate to and from ``Agent.selected_tools``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt, Signal

if TYPE_CHECKING:
    from elftia_desktop.core.models import Agent, MCPTool

Index = QModelIndex | QPersistentModelIndex
COLUMNS = ("Tool", "Description")
_CHECK = Qt.ItemDataRole.CheckStateRole
_DISPLAY = Qt.ItemDataRole.DisplayRole
_TIP = Qt.ItemDataRole.ToolTipRole


@dataclass
class _Tool:
    tool: MCPTool
    checked: bool
    text: str
    """Lower-case name and description, matched by the filter."""
    summary: str
    """The first line of the description."""


@dataclass
class _Group:
    server_id: str
    server_name: str
    tools: list[_Tool] = field(default_factory=list)
    shown: list[int] = field(default_factory=list)
    """Indexes into ``tools`` that pass the filter."""

    def state(self) -> Qt.CheckState:
        ticked = sum(1 for t in self.tools if t.checked)
        if ticked == 0:
            return Qt.CheckState.Unchecked
        return Qt.CheckState.Checked if ticked == len(self.tools) else Qt.CheckState.PartiallyChecked


class ToolTreeModel(QAbstractItemModel):
    """Servers and their tools with checkboxes; a tool row's internal id is its group's row + 1.

    Signals:
        checksChanged(): a tick changed (by the user or by select all / none).
    """

    checksChanged = Signal()

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._groups: list[_Group] = []
        self._shown: list[_Group] = []
        self._needle = ""

    # -- content -------------------------------------------------------------------------------

    def set_tools(self, tools: list[MCPTool], agent: Agent | None) -> None:
        """Show ``tools`` grouped by server (in first-seen order), ticked as ``agent`` allows."""
        groups: dict[str, _Group] = {}
        for tool in tools:
            group = groups.get(tool.server_id)
            if group is None:
                group = groups[tool.server_id] = _Group(tool.server_id, tool.server_name)
            description = tool.description or ""
            checked = agent.allows_tool(tool.server_id, tool.name) if agent is not None else True
            summary = description.strip().split("\n", 1)[0]
            group.tools.append(_Tool(tool, checked, f"{tool.name}\n{description}".lower(), summary))
        self.beginResetModel()
        self._groups = list(groups.values())
        self._apply_filter()
        self.endResetModel()

    def set_filter(self, text: str) -> None:
        """Show only tools whose name or description contains ``text`` (and their servers)."""
        needle = text.strip().lower()
        if needle == self._needle:
            return
        self.beginResetModel()
        self._needle = needle
        self._apply_filter()
        self.endResetModel()

    def _apply_filter(self) -> None:
        needle = self._needle
        for group in self._groups:
            if not needle or needle in group.server_name.lower():
                group.shown = list(range(len(group.tools)))
            else:
                group.shown = [i for i, t in enumerate(group.tools) if needle in t.text]
        self._shown = [g for g in self._groups if g.shown]

    def set_all(self, checked: bool) -> None:
        """Tick or untick every tool (shown or not)."""
        for group in self._groups:
            for tool in group.tools:
                tool.checked = checked
        self._changed_all()

    def _changed_all(self) -> None:
        if self._shown:
            top = self.index(0, 0)
            self.dataChanged.emit(top, self.index(len(self._shown) - 1, 0), [_CHECK])
            for row, group in enumerate(self._shown):
                parent = self.index(row, 0)
                self.dataChanged.emit(self.index(0, 0, parent), self.index(len(group.shown) - 1, 0, parent), [_CHECK])
        self.checksChanged.emit()

    # -- what is ticked -----------------------------------------------------------------------

    def total(self) -> int:
        """Every candidate tool."""
        return sum(len(g.tools) for g in self._groups)

    def checked_count(self) -> int:
        """Ticked tools."""
        return sum(1 for g in self._groups for t in g.tools if t.checked)

    def shown_count(self) -> int:
        """Tools that pass the filter."""
        return sum(len(g.shown) for g in self._shown)

    def checked_tools(self) -> list[MCPTool]:
        """The ticked tools, in order."""
        return [t.tool for g in self._groups for t in g.tools if t.checked]

    def selection(self, previous: dict[str, list[str]] | None) -> dict[str, list[str]] | None:
        """The ticks as ``Agent.selected_tools``: a fully ticked server is left out (every tool).

        Servers that are not listed here (not offered now, e.g. failing) keep their entry from
        ``previous``, so nothing the user chose is lost while a server is down.
        """
        shown_ids = {g.server_id for g in self._groups}
        result = {k: list(v) for k, v in (previous or {}).items() if k not in shown_ids}
        for group in self._groups:
            if group.state() != Qt.CheckState.Checked:
                result[group.server_id] = [t.tool.name for t in group.tools if t.checked]
        return result or None

    # -- QAbstractItemModel -------------------------------------------------------------------

    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        """The index of a server row (no parent) or of a tool row under its server."""
        if not parent.isValid():
            return self.createIndex(row, column, 0) if 0 <= row < len(self._shown) else QModelIndex()
        group_row = parent.row()
        if parent.internalId() != 0 or not 0 <= row < len(self._shown[group_row].shown):
            return QModelIndex()
        return self.createIndex(row, column, group_row + 1)

    def parent(self, child: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        """A tool row's server row; nothing for a server row."""
        if not child.isValid() or child.internalId() == 0:
            return QModelIndex()
        return self.createIndex(child.internalId() - 1, 0, 0)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        """Servers at the top; tools under a server."""
        if not parent.isValid():
            return len(self._shown)
        if parent.internalId() != 0 or parent.column() != 0:
            return 0
        return len(self._shown[parent.row()].shown)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        """Tool and description."""
        return len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = _DISPLAY) -> Any:
        """The column titles."""
        if orientation == Qt.Orientation.Horizontal and role == _DISPLAY:
            return COLUMNS[section]
        return None

    def _item(self, index: Index) -> tuple[_Group, _Tool | None]:
        if index.internalId() == 0:
            return self._shown[index.row()], None
        group = self._shown[index.internalId() - 1]
        return group, group.tools[group.shown[index.row()]]

    def data(self, index: Index, role: int = _DISPLAY) -> Any:
        """Names, descriptions, ticks and tooltips."""
        if not index.isValid():
            return None
        group, tool = self._item(index)
        column = index.column()
        if role == _CHECK and column == 0:
            if tool is None:
                return group.state()
            return Qt.CheckState.Checked if tool.checked else Qt.CheckState.Unchecked
        if role == _DISPLAY:
            if tool is None:
                ticked = sum(1 for t in group.tools if t.checked)
                return group.server_name if column == 0 else f"{ticked} of {len(group.tools)} tools"
            return tool.tool.name if column == 0 else tool.summary
        if role == _TIP and tool is not None:
            return f"{tool.tool.id}\n\n{tool.tool.description or 'No description.'}"
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        """Every row can be ticked; server rows are tri-state."""
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsUserCheckable
        if index.internalId() == 0:
            base |= Qt.ItemFlag.ItemIsAutoTristate
        return base

    def setData(self, index: Index, value: Any, role: int = _CHECK) -> bool:
        """Tick a tool, or every tool of a server."""
        if role != _CHECK or not index.isValid() or index.column() != 0:
            return False
        checked = Qt.CheckState(value) == Qt.CheckState.Checked if not isinstance(value, bool) else value
        group, tool = self._item(index)
        if tool is None:
            for item in group.tools:
                item.checked = checked
            if group.shown:
                self.dataChanged.emit(self.index(0, 0, index), self.index(len(group.shown) - 1, 0, index), [_CHECK])
            self.dataChanged.emit(index, self.index(index.row(), 1), [_CHECK, _DISPLAY])
        else:
            tool.checked = checked
            self.dataChanged.emit(index, index, [_CHECK])
            parent = self.parent(index)
            self.dataChanged.emit(parent, parent.siblingAtColumn(1), [_CHECK, _DISPLAY])
        self.checksChanged.emit()
        return True

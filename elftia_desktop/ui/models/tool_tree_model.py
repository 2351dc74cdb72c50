"""``ToolTreeModel``: an agent's candidate tools grouped by server, each with a checkbox.

The groups are laid out flat: a server row (bold, tri-state: all, some or none of its tools
ticked; double-click folds it) followed by its tool rows. Flat on a ``QAbstractTableModel`` so
the view's layout never calls into Python per row (``index``/``parent``/``hasChildren`` stay in
C++); the filter is one pass over precomputed lower-case text and a model reset. A keystroke
over a thousand tools therefore costs a few milliseconds (see ``bench/bench_picker.py``). The
ticks translate to and from ``Agent.selected_tools``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QFont

from elftia_desktop.ui.widgets.inline_code import drop_code_marks

if TYPE_CHECKING:
    from elftia_desktop.core.models import Agent, MCPTool

Index = QModelIndex | QPersistentModelIndex
COLUMNS = ("Tool", "Description")
_CHECK = Qt.ItemDataRole.CheckStateRole
_DISPLAY = Qt.ItemDataRole.DisplayRole
_TIP = Qt.ItemDataRole.ToolTipRole
_FONT = Qt.ItemDataRole.FontRole
_PLAIN = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
_TICKABLE = _PLAIN | Qt.ItemFlag.ItemIsUserCheckable
_SERVER = _TICKABLE | Qt.ItemFlag.ItemIsUserTristate


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
    folded: bool = False
    """Folded by the user: only the server row shows (unless a filter is typed)."""

    def state(self) -> Qt.CheckState:
        """Checked when every tool is ticked, unchecked when none is, else partly."""
        ticked = sum(1 for t in self.tools if t.checked)
        if ticked == 0:
            return Qt.CheckState.Unchecked
        return Qt.CheckState.Checked if ticked == len(self.tools) else Qt.CheckState.PartiallyChecked


class ToolTreeModel(QAbstractTableModel):
    """Servers and their tools with checkboxes, as one flat list of rows.

    Signals:
        checksChanged(): a tick changed (by the user or by select all / none).
    """

    checksChanged = Signal()

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._groups: list[_Group] = []
        self._rows: list[tuple[_Group, _Tool | None]] = []
        self._needle = ""
        self._bold = QFont()
        self._bold.setBold(True)

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
            summary = drop_code_marks(description.strip().split("\n", 1)[0])
            group.tools.append(_Tool(tool, checked, f"{tool.name}\n{description}".lower(), summary))
        self.beginResetModel()
        self._groups = list(groups.values())
        self._layout()
        self.endResetModel()

    def set_filter(self, text: str) -> None:
        """Show only tools whose name or description contains ``text`` (and their servers)."""
        needle = text.strip().lower()
        if needle == self._needle:
            return
        self.beginResetModel()
        self._needle = needle
        self._layout()
        self.endResetModel()

    def toggle_fold(self, row: int) -> None:
        """Fold or unfold the server of a server row."""
        if 0 <= row < len(self._rows) and self._rows[row][1] is None:
            self.beginResetModel()
            group = self._rows[row][0]
            group.folded = not group.folded
            self._layout()
            self.endResetModel()

    def _layout(self) -> None:
        needle = self._needle
        rows: list[tuple[_Group, _Tool | None]] = []
        for group in self._groups:
            if not needle or needle in group.server_name.lower():
                group.shown = list(range(len(group.tools)))
            else:
                group.shown = [i for i, t in enumerate(group.tools) if needle in t.text]
            if group.shown:
                rows.append((group, None))
                if not group.folded or needle:
                    rows.extend((group, group.tools[i]) for i in group.shown)
        self._rows = rows

    def tool_at(self, row: int) -> MCPTool | None:
        """The tool of a tool row; None for a server row or a row out of range."""
        if 0 <= row < len(self._rows):
            entry = self._rows[row][1]
            return entry.tool if entry is not None else None
        return None

    def set_all(self, checked: bool) -> None:
        """Tick or untick every tool (shown or not)."""
        for group in self._groups:
            for tool in group.tools:
                tool.checked = checked
        if self._rows:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self._rows) - 1, 1), [_CHECK, _DISPLAY])
        self.checksChanged.emit()

    def row_of(self, server_id: str, tool_name: str | None = None) -> int:
        """The row of a server (``tool_name`` None) or of one of its tools; -1 when not shown."""
        for row, (group, tool) in enumerate(self._rows):
            if group.server_id == server_id and (tool.tool.name if tool else None) == tool_name:
                return row
        return -1

    # -- what is ticked -----------------------------------------------------------------------

    def total(self) -> int:
        """Every candidate tool."""
        return sum(len(g.tools) for g in self._groups)

    def checked_count(self) -> int:
        """Ticked tools."""
        return sum(1 for g in self._groups for t in g.tools if t.checked)

    def shown_count(self) -> int:
        """Tools that pass the filter."""
        return sum(len(g.shown) for g in self._groups)

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

    # -- QAbstractTableModel ------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        """Server rows and the tool rows under each."""
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        """Tool and description (a flat table: cells have no children)."""
        return 2

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = _DISPLAY) -> Any:
        """The column titles."""
        if orientation == Qt.Orientation.Horizontal and role == _DISPLAY:
            return COLUMNS[section]
        return None

    def data(self, index: Index, role: int = _DISPLAY) -> Any:
        """Names, descriptions, ticks, the bold server rows and tooltips."""
        group, tool = self._rows[index.row()]
        column = index.column()
        if role == _DISPLAY:
            if tool is None:
                ticked = sum(1 for t in group.tools if t.checked)
                marker = "▸ " if group.folded and not self._needle else "▾ "
                total = len(group.tools)
                return marker + group.server_name if column == 0 else f"{ticked} of {total} tool{'s' * (total != 1)}"
            return tool.tool.name if column == 0 else tool.summary
        if role == _CHECK and column == 0:
            if tool is None:
                return group.state()
            return Qt.CheckState.Checked if tool.checked else Qt.CheckState.Unchecked
        if role == _FONT and tool is None:
            return self._bold
        if role == _TIP:
            if tool is None:
                return f"{group.server_name}: double-click to fold or unfold"
            return f"{tool.tool.id}\n\n{tool.tool.description or 'No description.'}"
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        """Every row can be ticked; server rows are tri-state (called per row on every layout: kept cheap)."""
        if index.column():
            return _PLAIN
        return _SERVER if self._rows[index.row()][1] is None else _TICKABLE

    def setData(self, index: Index, value: Any, role: int = _CHECK) -> bool:
        """Tick a tool, or every tool of a server (a partly ticked server becomes fully ticked)."""
        if role != _CHECK or not index.isValid() or index.column() != 0:
            return False
        group, tool = self._rows[index.row()]
        if tool is None:
            checked = group.state() != Qt.CheckState.Checked
            for item in group.tools:
                item.checked = checked
        else:
            state = value if isinstance(value, Qt.CheckState) else Qt.CheckState(value)
            tool.checked = state == Qt.CheckState.Checked
        first = next(row for row, (g, _) in enumerate(self._rows) if g is group)
        last = first + (0 if group.folded and not self._needle else len(group.shown))
        self.dataChanged.emit(self.index(first, 0), self.index(last, 1), [_CHECK, _DISPLAY])
        self.checksChanged.emit()
        return True

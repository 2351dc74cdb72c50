"""``SkillPicker``: which skills (Skills over MCP, SEP-2640) of its servers an agent gets, ticked like tools.

One branch per server that lists skills, one tickable row per skill with its description. A
server whose skills are all ticked is left out of the selection (it gives every accepted skill,
including ones it adds later); otherwise its ticked skills are the selection. A held-back skill
(changed or new since it was accepted) is shown but cannot be ticked until it is accepted in
Discover's Skills tab; a choice made earlier is kept for when it is. Servers not shown keep the
selection they had.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from elftia_desktop.bridge.results_explore import SkillView
from elftia_desktop.core.models import Agent
from elftia_desktop.ui.widgets.tool_picker import legible_checkboxes

_URI = Qt.ItemDataRole.UserRole
NOTE = "The skills of the agent's servers connected now; a skill reaches the agent through its gateway."


class SkillPicker(QWidget):
    """The skill checklist of one agent's draft.

    Signals:
        checksChanged(): a skill was ticked or unticked.
    """

    checksChanged = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        self.note = QLabel(NOTE)
        self.note.setObjectName("Muted")
        self.note.setWordWrap(True)
        column.addWidget(self.note)
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Skill", "Description"])
        self.tree.setAccessibleName("Skills of the agent's servers")
        self.tree.setColumnWidth(0, 260)
        legible_checkboxes(self.tree)
        self.tree.itemChanged.connect(self._on_changed)
        column.addWidget(self.tree, 1)
        self.problems = QLabel("")
        self.problems.setObjectName("Muted")
        self.problems.setWordWrap(True)
        self.problems.setTextFormat(Qt.TextFormat.PlainText)  # a server's words are never markup
        column.addWidget(self.problems)
        self._servers: dict[str, QTreeWidgetItem] = {}
        self._problems: dict[str, str] = {}

    def clear(self) -> None:
        """Forget every server shown (a new draft's servers are asked for again)."""
        self.tree.clear()
        self._servers.clear()
        self._problems.clear()
        self.problems.setText("")

    def set_skills(self, server_id: str, server_name: str, skills: list[SkillView], agent: Agent) -> None:
        """Show ``server_id``'s skills (``mcp:skills`` entries), ticked as ``agent``'s selection says."""
        self.tree.blockSignals(True)
        old = self._servers.pop(server_id, None)
        if old is not None:
            self.tree.takeTopLevelItem(self.tree.indexOfTopLevelItem(old))
        if skills:
            branch = QTreeWidgetItem(self.tree, [server_name, f"{len(skills)} skill{'s' if len(skills) != 1 else ''}"])
            for skill in skills:
                self._row(branch, skill, agent.allows_skill(server_id, skill.uri))
            branch.setData(0, _URI, server_id)
            branch.setExpanded(True)
            self._servers[server_id] = branch
        self.tree.blockSignals(False)

    def _row(self, branch: QTreeWidgetItem, skill: SkillView, chosen: bool) -> None:
        description = skill.description
        if skill.held:
            description = f"Held back ({skill.status}): accept it in Discover's Skills tab first. {description}"
        row = QTreeWidgetItem(branch, [skill.name or skill.uri, description])
        row.setToolTip(0, skill.uri)
        row.setToolTip(1, description)
        row.setData(0, _URI, skill.uri)
        flags = row.flags() | Qt.ItemFlag.ItemIsUserCheckable
        row.setFlags(flags & ~Qt.ItemFlag.ItemIsEnabled if skill.held else flags)
        row.setCheckState(0, Qt.CheckState.Checked if chosen else Qt.CheckState.Unchecked)

    def set_problem(self, server_name: str, text: str) -> None:
        """Say why a server's skills are not shown."""
        self._problems[server_name] = text
        self.problems.setText("\n".join(f"{name}: {why}" for name, why in sorted(self._problems.items())))

    def _on_changed(self, _item: QTreeWidgetItem, _column: int) -> None:
        self.checksChanged.emit()

    def selection(self, previous: dict[str, list[str]] | None) -> dict[str, list[str]] | None:
        """The agent's ``selected_skills`` as ticked (servers not shown keep ``previous``'s choice)."""
        chosen = {k: list(v) for k, v in (previous or {}).items() if k not in self._servers}
        for server_id, branch in self._servers.items():
            rows = [row for i in range(branch.childCount()) if (row := branch.child(i)) is not None]
            ticked = [r.data(0, _URI) for r in rows if r.checkState(0) == Qt.CheckState.Checked]
            if len(ticked) == len(rows):
                continue  # every skill it offers (a held-back one keeps its earlier tick): the server is not limited
            chosen[server_id] = ticked
        return chosen or None

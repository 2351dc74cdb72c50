"""``AgentsPage``: the agents, each with its MCP mode, servers, tools and the size of their definitions.

Create, rename, duplicate and delete (confirmed) agents; "Servers & tools…" opens the
association dialog with the tool picker. A selected server that no longer exists is shown
as a gap, never hidden.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Slot
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from elftia_desktop.bridge.errors import BridgeError, ErrorCategory
from elftia_desktop.core.models import AgentUpdate
from elftia_desktop.ui.dialogs.gateway_dialog import GatewayDialog
from elftia_desktop.ui.dialogs.mcp_manage_dialog import McpManageDialog
from elftia_desktop.ui.error_presenter import show_error
from elftia_desktop.ui.pages.page_frame import FirstShow
from elftia_desktop.ui.widgets.notice_bar import NoticeBar
from elftia_desktop.ui.widgets.tool_picker import token_count_text

if TYPE_CHECKING:
    from elftia_desktop.bridge.router import McpRouter
    from elftia_desktop.bridge.signals import ConnectionStateChanged
    from elftia_desktop.core.models import Agent, AgentToolSummary, McpServerRecord

COLUMNS = ["Agent", "MCP", "Servers", "Tools", "Tool definitions (OpenAI)"]
MODE_LABELS = {"disabled": "Off", "auto": "Automatic", "manual": "Manual"}


class AgentsPage(QWidget):
    """The agents and what each may use."""

    def __init__(self, router: McpRouter, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Page")
        self.router = router
        self.agents: list[Agent] = []
        self.servers: list[McpServerRecord] = []
        self.states: dict[str, tuple[str, str]] = {}
        self.summaries: dict[str, AgentToolSummary] = {}
        self._first_show = FirstShow(self, self.reload)
        self._select_next: str | None = None
        """An agent to select as soon as the table shows it (one just created)."""
        self._build()
        router.signals.serversChanged.connect(self.reload)
        router.signals.agentsChanged.connect(self._fetch_agents)
        router.signals.toolsChanged.connect(self._on_tools_changed)
        router.signals.connectionStateChanged.connect(self._on_state)

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 20, 24, 16)
        layout.setSpacing(12)
        layout.addLayout(self._build_header())
        self.notice = NoticeBar()
        layout.addWidget(self.notice)
        layout.addWidget(self._build_table(), 1)
        self._sync_buttons()

    def _build_header(self) -> QVBoxLayout:
        """Title and New agent on top; the selected agent's actions on their own row below, so
        nothing is clipped at the window's smallest width."""
        top = QHBoxLayout()
        titles = QVBoxLayout()
        title = QLabel("Agents")
        title.setObjectName("PageTitle")
        titles.addWidget(title)
        self.summary = QLabel("Loading…")
        self.summary.setObjectName("Muted")
        titles.addWidget(self.summary)
        top.addLayout(titles, 1)
        actions = QHBoxLayout()
        self.buttons: dict[str, QPushButton] = {}
        for key, label, tip in (
            ("manage", "&Servers && tools…", "Choose the MCP mode, servers and tools of the selected agent"),
            ("apps", "Use in other &apps…", "Serve the selected agent to Claude, Cursor, VS Code … through Elftia"),
            ("rename", "&Rename…", "Give the selected agent a new name"),
            ("duplicate", "D&uplicate", "Copy the selected agent with its servers and tools"),
            ("delete", "&Delete…", "Delete the selected agent (asks first)"),
            ("new", "&New agent", "Create an agent (automatic mode: every active server)"),
        ):
            button = QPushButton(label)
            button.setToolTip(tip)
            if key == "new":
                button.setObjectName("Primary")
                top.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)
            else:
                actions.addWidget(button)
            self.buttons[key] = button
        actions.addStretch(1)
        header = QVBoxLayout()
        header.setSpacing(10)
        header.addLayout(top)
        header.addLayout(actions)
        self.buttons["new"].clicked.connect(self.create_agent)
        self.buttons["manage"].clicked.connect(self.manage_selected)
        self.buttons["apps"].clicked.connect(self.use_in_other_apps)
        self.buttons["rename"].clicked.connect(self.rename_selected)
        self.buttons["duplicate"].clicked.connect(self.duplicate_selected)
        self.buttons["delete"].clicked.connect(self.delete_selected)
        return header

    def _build_table(self) -> QTableWidget:
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.setStyleSheet("QTableWidget::item { padding: 0 10px; }")
        self.table.verticalHeader().setDefaultSectionSize(34)
        header_view = self.table.horizontalHeader()
        header_view.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header_view.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.table.itemSelectionChanged.connect(self._sync_buttons)
        self.table.cellDoubleClicked.connect(lambda _r, _c: self.manage_selected())
        return self.table

    # -- data ----------------------------------------------------------------------------------

    @Slot()
    def reload(self) -> None:
        """Fetch the agents, the servers and their states, then the tool summaries."""
        self.router.servers.records().then(self, self._set_servers, self.show_error)
        self.router.servers.states().then(self, self._set_states)
        self._fetch_agents()

    @Slot()
    def _fetch_agents(self) -> None:
        """Fetch the agents again (another process changed them)."""
        self.router.agents.all().then(self, self._set_agents, self.show_error)

    def _set_servers(self, servers: list[McpServerRecord]) -> None:
        self.servers = list(servers)
        self._fill()

    def _set_states(self, states: dict[str, tuple[str, str]]) -> None:
        self.states = dict(states)

    @Slot(object)
    def _on_state(self, event: ConnectionStateChanged) -> None:
        self.states[event.server_id] = (event.state, event.reason or "")

    def _set_agents(self, agents: list[Agent]) -> None:
        self.agents = list(agents)
        self._fill()
        self._fetch_summaries()

    @Slot(str)
    def _on_tools_changed(self, _server_id: str) -> None:
        self._fetch_summaries()

    def _fetch_summaries(self) -> None:
        self.router.agents.summaries().then(self, self._set_summaries)

    def _set_summaries(self, summaries: list[AgentToolSummary]) -> None:
        self.summaries = {s.agent_id: s for s in summaries}
        self._fill()

    def _servers_text(self, agent: Agent) -> tuple[str, str]:
        """What the Servers cell says, and its tooltip."""
        names = {r.id: r.name for r in self.servers}
        if agent.mcp_mode.value == "disabled":
            return "—", "MCP is off for this agent"
        if agent.mcp_mode.value == "auto":
            active = sum(1 for r in self.servers if r.is_active)
            return f"All active ({active})", "Every active server, including servers added later"
        shown = [names.get(s, "⚠ removed server") for s in agent.selected_servers]
        missing = [s for s in agent.selected_servers if s not in names]
        tip = f"{len(missing)} selected server(s) no longer exist: open Servers & tools to drop them" if missing else ""
        if not shown:
            return "None selected", tip
        return f"{len(shown)}: {', '.join(shown)}", tip

    def _fill(self) -> None:
        selected = self.selected_agent()
        if self._select_next is not None and any(a.id == self._select_next for a in self.agents):
            selected = next(a for a in self.agents if a.id == self._select_next)
            self._select_next = None
        self.table.setRowCount(len(self.agents))
        for row, agent in enumerate(self.agents):
            servers, tip = self._servers_text(agent)
            summary = self.summaries.get(agent.id)
            tools = "…" if summary is None else _tools_text(summary)
            if agent.selected_tools is not None and summary is not None:
                tools += " (picked)"
            size = "…" if summary is None else (_size_text(summary) if summary.tool_count else "—")
            cells = [agent.name, MODE_LABELS[agent.mcp_mode.value], servers, tools, size]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, agent.id)
                if column == 2 and tip:
                    item.setToolTip(tip)
                if column in (3, 4) and summary is not None:
                    failing = "; ".join(summary.errors.values())
                    what = "Tools of the servers connected now" if column == 3 else "OpenAI Chat payload, "
                    what += "" if column == 3 else summary.token_method
                    item.setToolTip(what + (f"\nNot counted: {failing}" if failing else ""))
                self.table.setItem(row, column, item)
            if selected is not None and agent.id == selected.id:
                self.table.selectRow(row)
        count = len(self.agents)
        self.summary.setText(
            f"{count} agent{'s' if count != 1 else ''} · double-click one to pick its servers and tools"
        )
        self._sync_buttons()

    def selected_agent(self) -> Agent | None:
        """The agent of the selected row."""
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        item = self.table.item(rows[0].row(), 0)
        agent_id = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        return next((a for a in self.agents if a.id == agent_id), None)

    def _sync_buttons(self) -> None:
        chosen = self.selected_agent() is not None
        for key in ("manage", "apps", "rename", "duplicate", "delete"):
            self.buttons[key].setEnabled(chosen)

    # -- actions -------------------------------------------------------------------------------

    def _changed(self, text: str) -> None:
        self.notice.show_message(text, "success")
        self._fetch_agents()

    def create_agent(self, typed: str = "", problem: str = "") -> None:
        """Ask for a name and add an agent in automatic mode.

        A refused name (too long, taken) asks again with the typed text kept and the reason in the dialog.
        """
        label = "Name of the new agent:" + (f"\n\n⚠ {problem}" if problem else "")
        name, ok = QInputDialog.getText(self, "New agent", label, text=typed)
        if ok and name.strip():
            self.router.agents.add({"name": name}).then(self, self._added, lambda e: self._name_refused(name, e))

    def _name_refused(self, name: str, error: BridgeError) -> None:
        """Ask again with the typed name and why it was refused; other errors go to the notice bar."""
        if error.category in (ErrorCategory.INVALID_INPUT, ErrorCategory.CONFIG):
            self.create_agent(name, error.why.removeprefix("name: "))
        else:
            self.show_error(error)

    def _added(self, agent: Agent) -> None:
        """Select the new agent once the list shows it, so its actions apply to it at once."""
        self._select_next = agent.id
        self._changed(f"Added <b>{escape(agent.name)}</b>.")

    def rename_selected(self) -> None:
        """Ask for a new name for the selected agent."""
        agent = self.selected_agent()
        if agent is None:
            return
        name, ok = QInputDialog.getText(self, "Rename agent", f'New name for "{agent.name}":', text=agent.name)
        if ok and name.strip() and name.strip() != agent.name:
            self.router.agents.update(agent.id, AgentUpdate(name=name)).then(
                self, lambda a: self._changed(f"Renamed to <b>{escape(a.name)}</b>."), self.show_error
            )

    def duplicate_selected(self) -> None:
        """Copy the selected agent."""
        agent = self.selected_agent()
        if agent is not None:
            self.router.agents.duplicate(agent.id).then(
                self, lambda a: self._changed(f"Added <b>{escape(a.name)}</b>."), self.show_error
            )

    def delete_selected(self) -> None:
        """Delete the selected agent after asking."""
        agent = self.selected_agent()
        if agent is None:
            return
        answer = QMessageBox.question(
            self,
            "Delete agent",
            f'Delete the agent "{agent.name}"? Its server and tool choices are lost.',
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        if answer == QMessageBox.StandardButton.Yes:
            self.router.agents.remove(agent.id).then(
                self, lambda a: self._changed(f"Deleted <b>{escape(a.name)}</b>."), self.show_error
            )

    def use_in_other_apps(self) -> GatewayDialog | None:
        """Open "Use in other apps" (the gateway's entry and its install) for the selected agent."""
        agent = self.selected_agent()
        if agent is None:
            return None
        dialog = GatewayDialog(self.router, agent.name, self)
        dialog.open()
        return dialog

    def manage_selected(self) -> McpManageDialog | None:
        """Open the association dialog for the selected agent (returns it, open)."""
        agent = self.selected_agent()
        if agent is None:
            return None
        dialog = McpManageDialog(self.router, agent, self.servers, self.states, self)

        def closed(code: int) -> None:
            """Say what was saved when the dialog was accepted."""
            if code == McpManageDialog.DialogCode.Accepted and dialog.saved is not None:
                self._changed(f"Saved the MCP choices of <b>{escape(dialog.saved.name)}</b>.")

        dialog.finished.connect(closed)
        dialog.open()
        return dialog

    def show_error(self, error: BridgeError) -> None:
        """Show a failed request with its reason."""
        show_error(self.notice, error)


def _tools_text(summary: AgentToolSummary) -> str:
    """The tool count; ``+`` when servers not counted (not connected yet, failing) may add more."""
    if summary.errors and not summary.tool_count:
        return "—"  # the tooltip says which servers and why
    return f"{summary.tool_count}" + ("+" if summary.errors else "")


def _size_text(summary: AgentToolSummary) -> str:
    """``1,356 tokens`` when counted by the tokenizer, ``≈1,356 tokens`` for an estimate."""
    return token_count_text(summary.tokens, "estimate" not in summary.token_method)

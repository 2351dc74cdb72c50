"""``McpManageDialog``: which MCP servers and tools one agent gets (the original's association dialog).

The mode as three choices with a line each on what it means; in manual mode a checklist of the
servers with their live state in the Servers page's words, transport and tool count (servers that
are off, need trust or fail are shown as such, a selected server that no longer exists as a gap to
untick); and the tool picker with the payload preview, beside the skill picker (Skills over MCP,
``ui/widgets/skill_picker.py``). Opening it starts no server: the tools and skills of the servers
connected now are listed, and "Start servers" lists the others'. Every edit is a draft until Save.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor, QIcon, QPixmap
from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QRadioButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from elftia_desktop.core.models import Agent, AgentUpdate, McpMode, MCPTool
from elftia_desktop.core.trust import needs_confirmation
from elftia_desktop.ui.error_presenter import show_error
from elftia_desktop.ui.theme import STATE_COLORS
from elftia_desktop.ui.widgets.notice_bar import NoticeBar
from elftia_desktop.ui.widgets.skill_picker import SkillPicker
from elftia_desktop.ui.widgets.state_badge import STATE_LABELS
from elftia_desktop.ui.widgets.tool_picker import ToolPicker, legible_checkboxes

if TYPE_CHECKING:
    from elftia_desktop.bridge.errors import BridgeError
    from elftia_desktop.bridge.results_explore import SkillView
    from elftia_desktop.bridge.router import McpRouter
    from elftia_desktop.bridge.signals import ConnectionStateChanged
    from elftia_desktop.core.models import McpServerRecord, McpToolListing, ProviderPayload

MODES = [
    (McpMode.DISABLED, "Off", "This agent gets no MCP tools."),
    (McpMode.AUTO, "Automatic", "The tools of every active server, including servers added later."),
    (McpMode.MANUAL, "Manual", "Only the servers ticked below."),
]
TRANSPORTS = {"stdio": "stdio", "sse": "SSE", "http": "HTTP"}
_SERVER_ID = Qt.ItemDataRole.UserRole


def _dot(color: str) -> QIcon:
    pixmap = QPixmap(12, 12)
    pixmap.fill(QColor(color))
    return QIcon(pixmap)


class McpManageDialog(QDialog):
    """Edit one agent's MCP mode, servers and tools; Save writes them through the router."""

    def __init__(
        self,
        router: McpRouter,
        agent: Agent,
        servers: list[McpServerRecord],
        states: dict[str, tuple[str, str]],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.router, self.agent, self.servers, self.states = router, agent, servers, dict(states)
        self.saved: Agent | None = None
        self.counts: dict[str, int] = {}
        self.failures: dict[str, str] = {}
        self.start_servers = False
        """Whether listing tools may start servers (after "Start servers"); on open only connected ones are asked."""
        self._tools_generation = self._preview_generation = 0
        self.setWindowTitle(f"MCP tools — {agent.name}")
        self.resize(1120, 720)
        layout = QVBoxLayout(self)
        self.notice = NoticeBar()
        layout.addWidget(self.notice)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self._build_left())
        self.picker = ToolPicker()
        self.skill_picker = SkillPicker()
        self.tabs = QTabWidget()
        self.tabs.addTab(self.picker, "Tools")
        self.tabs.addTab(self.skill_picker, "Skills")
        split.addWidget(self.tabs)
        split.setStretchFactor(1, 1)
        split.setSizes([340, 780])
        layout.addWidget(split, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self._preview_timer = QTimer(self, singleShot=True, interval=150)
        self._preview_timer.timeout.connect(self.request_preview)
        self.picker.checksChanged.connect(self._preview_timer.start)
        self.picker.tryRequested.connect(self._try_tool)
        self._fill_servers()
        self._sync_enabled()
        router.signals.connectionStateChanged.connect(self._on_state)
        self.request_tools()

    def _build_left(self) -> QWidget:
        box = QWidget()
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 8, 0)
        title = QLabel(f"<b>{escape(self.agent.name)}</b> uses MCP tools:")
        column.addWidget(title)
        self.mode_group = QButtonGroup(self)
        self.mode_buttons: dict[McpMode, QRadioButton] = {}
        for mode, label, text in MODES:
            button = QRadioButton(label)
            button.setChecked(mode == self.agent.mcp_mode)
            legible_checkboxes(button)
            button.setToolTip(text)
            self.mode_group.addButton(button)
            self.mode_buttons[mode] = button
            column.addWidget(button)
            line = QLabel(text)
            line.setObjectName("Muted")
            line.setWordWrap(True)
            line.setContentsMargins(24, 0, 0, 4)
            column.addWidget(line)
        self.mode_group.buttonToggled.connect(self._on_mode)
        column.addSpacing(6)
        column.addWidget(QLabel("<b>Servers</b> (manual mode)"))
        self.server_list = QListWidget()
        self.server_list.setAccessibleName("Servers for manual mode")
        legible_checkboxes(self.server_list)
        self.server_list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.server_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.server_list.itemChanged.connect(self._on_server_ticked)
        column.addWidget(self.server_list, 1)
        self.start_button = QPushButton("Start servers to list their tools")
        self.start_button.setToolTip(
            "Only the servers connected now show their tools. This starts the agent's other active, trusted servers."
        )
        self.start_button.clicked.connect(self._start_servers)
        column.addWidget(self.start_button)
        return box

    def _start_servers(self) -> None:
        self.start_servers = True
        self.start_button.hide()
        self.request_tools()

    # -- the draft ----------------------------------------------------------------------------

    def mode(self) -> McpMode:
        """The mode chosen now."""
        return next(m for m, b in self.mode_buttons.items() if b.isChecked())

    def selected_servers(self) -> list[str]:
        """The ticked server ids, in list order (a removed server stays until unticked)."""
        items = (self.server_list.item(i) for i in range(self.server_list.count()))
        return [item.data(_SERVER_ID) for item in items if item.checkState() == Qt.CheckState.Checked]

    def draft(self) -> Agent:
        """The agent as edited (not saved)."""
        return self.agent.model_copy(
            update={
                "mcp_mode": self.mode(),
                "selected_servers": self.selected_servers(),
                "selected_tools": self.picker.model.selection(self.agent.selected_tools),
                "selected_skills": self.skill_picker.selection(self.agent.selected_skills),
            }
        )

    # -- servers ------------------------------------------------------------------------------

    def _fill_servers(self) -> None:
        self.server_list.blockSignals(True)
        self.server_list.clear()
        known = {record.id for record in self.servers}
        for record in self.servers:
            item = QListWidgetItem()
            item.setData(_SERVER_ID, record.id)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(
                Qt.CheckState.Checked if record.id in self.agent.selected_servers else Qt.CheckState.Unchecked
            )
            self.server_list.addItem(item)
            self._describe(item, record)
        for server_id in self.agent.selected_servers:
            if server_id not in known:
                item = QListWidgetItem(
                    _dot(STATE_COLORS["error"]), "Removed server\nno longer configured · untick to drop"
                )
                item.setToolTip(f"The server {server_id} was removed outside this window. Untick it to drop it.")
                item.setData(_SERVER_ID, server_id)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                item.setCheckState(Qt.CheckState.Checked)
                self.server_list.addItem(item)
        self.server_list.blockSignals(False)

    def _describe(self, item: QListWidgetItem, record: McpServerRecord) -> None:
        state, error = self.states.get(record.id, ("disconnected", ""))
        count = self.counts.get(record.id)
        parts = [TRANSPORTS.get(record.type.value, record.type.value)]
        parts.append(f"{count} tool{'s' if count != 1 else ''}" if count is not None else "tools unknown")
        if not record.is_active:
            parts.append("turned off")
            color = STATE_COLORS["disconnected"]
        elif needs_confirmation(record):  # the Servers page's word: it is not failing, it waits for the user
            parts.append(STATE_LABELS["untrusted"])
            color = STATE_COLORS["disconnected"]
            error = "Not started until you trust it on the Servers page"
        elif state == "error" or (self.start_servers and record.id in self.failures):
            parts.append(STATE_LABELS["error"])
            color = STATE_COLORS["error"]
            error = self.failures.get(record.id, error)
        else:
            parts.append(STATE_LABELS.get(state, state))
            color = STATE_COLORS.get(state, STATE_COLORS["disconnected"])
        item.setIcon(_dot(color))
        item.setText(f"{record.name}\n{' · '.join(parts)}")
        item.setToolTip(error or f"{record.name}: {parts[-1]}")

    def _on_state(self, event: ConnectionStateChanged) -> None:
        """A server's live state changed: update its badge in the checklist."""
        self.states[event.server_id] = (event.state, event.reason or "")
        self._redescribe()

    def _redescribe(self) -> None:
        self.server_list.blockSignals(True)
        for i in range(self.server_list.count()):
            item = self.server_list.item(i)
            record = next((r for r in self.servers if r.id == item.data(_SERVER_ID)), None)
            if record is not None:
                self._describe(item, record)
        self.server_list.blockSignals(False)

    def _set_counts(self, listing: McpToolListing) -> None:
        self.counts = {}
        for tool in listing.tools:
            self.counts[tool.server_id] = self.counts.get(tool.server_id, 0) + 1
        self.failures = dict(listing.errors)
        self._redescribe()

    # -- reacting -----------------------------------------------------------------------------

    def _sync_enabled(self) -> None:
        manual = self.mode() is McpMode.MANUAL
        self.server_list.setEnabled(manual)
        self.picker.setEnabled(self.mode() is not McpMode.DISABLED)

    def _on_mode(self, _button: QRadioButton, checked: bool) -> None:
        if checked:
            self._sync_enabled()
            self.request_tools()

    def _on_server_ticked(self, _item: QListWidgetItem) -> None:
        self.request_tools()

    def request_tools(self) -> None:
        """Ask for the tools the draft's mode and servers offer; the picker shows them when they arrive."""
        draft = self.draft()
        self.agent = self.agent.model_copy(
            update={"selected_tools": draft.selected_tools, "selected_skills": draft.selected_skills}
        )
        self.request_skills()
        self._tools_generation += 1
        generation, draft = self._tools_generation, self.draft()
        every = Agent(name="all", mcp_mode=McpMode.AUTO)  # every active server's tools, for the counts
        self.router.agents.tools(every, start=self.start_servers).then(self, self._set_counts)
        self.router.agents.tools(draft, start=self.start_servers).then(
            self, lambda listing: self._set_tools(generation, draft, listing), self._failed
        )

    def request_skills(self) -> None:
        """Ask the draft's servers (connected ones, unless "Start servers") for their skills."""
        self.skill_picker.clear()
        draft, active = self.draft(), [r for r in self.servers if r.is_active and not needs_confirmation(r)]
        if draft.mcp_mode is McpMode.DISABLED:
            return
        wanted = active if draft.mcp_mode is McpMode.AUTO else [r for r in active if r.id in draft.selected_servers]
        for record in wanted:
            if self.start_servers or self.states.get(record.id, ("",))[0] == "connected":
                self._ask_skills(record)

    def _ask_skills(self, record: McpServerRecord) -> None:
        def done(skills: list[SkillView]) -> None:
            """List the server's skills in the picker."""
            self.skill_picker.set_skills(record.id, record.name, skills, self.agent)

        def failed(error: BridgeError) -> None:
            """Say in the picker why the skills could not be listed."""
            self.skill_picker.set_problem(record.name, error.why)

        self.router.skills.skills(record.id).then(self, done, failed)

    def _set_tools(self, generation: int, draft: Agent, listing: McpToolListing) -> None:
        if generation != self._tools_generation:
            return
        names = {r.id: r.name for r in self.servers}
        problems = {names.get(server_id, "a removed server"): reason for server_id, reason in listing.reasons.items()}
        self.picker.set_tools(listing.tools, draft, problems)
        self.request_preview()

    def request_preview(self) -> None:
        """Ask for the payload per provider of the ticked tools."""
        self._preview_generation += 1
        generation = self._preview_generation
        self.router.agents.preview(self.draft(), start=self.start_servers).then(
            self, lambda payloads: self._set_preview(generation, payloads), self._failed
        )

    def _set_preview(self, generation: int, payloads: list[ProviderPayload]) -> None:
        if generation == self._preview_generation:
            self.picker.set_preview(payloads)

    def _failed(self, error: BridgeError) -> None:
        show_error(self.notice, error)

    def save(self) -> None:
        """Write the draft; the dialog closes when it is saved, or shows why not."""
        draft = self.draft()
        change = AgentUpdate(
            mcp_mode=draft.mcp_mode,
            selected_servers=draft.selected_servers,
            selected_tools=draft.selected_tools,
            selected_skills=draft.selected_skills,
        )

        def done(agent: Agent) -> None:
            """Keep the saved agent and close."""
            self.saved = agent
            self.accept()

        self.router.agents.update(self.agent.id, change).then(self, done, self._failed)

    def _try_tool(self, tool: MCPTool) -> None:
        """Open the try-a-tool dialog for a tool of the picker (its server is started on demand)."""
        from elftia_desktop.ui.dialogs.try_tool_dialog import open_try_tool

        open_try_tool(self.router, tool.server_id, tool, tool.server_name, self)

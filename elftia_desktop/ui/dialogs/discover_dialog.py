"""The discover panel of one server: its tools, prompts, resources and its recent activity.

The server's icon and each tool's are shown before their names (``discover_icons.py``).

Each tool shows its description, its input schema (pretty JSON, folded until asked), a Try
button (the try-a-tool dialog) and two switches: Enabled (``disabledTools``) and Auto-approve
(``disabledAutoApproveTools`` / ``autoApprovedTools``, a never-switched tool showing its default from
``readOnlyHint``, see ``core/approvals.py``), saved at once through ``router.set_tool_flag``; a refused
change puts the switch back and says why. Prompts can be rendered with their arguments,
resources read (templates with their variables filled in), and the Activity tab shows the
server's recent calls.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from html import escape

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from elftia_desktop.bridge.errors import BridgeError
from elftia_desktop.bridge.results_explore import Discovery, ToolInfo
from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.approvals import auto_approved
from elftia_desktop.core.apps import APP_ONLY
from elftia_desktop.core.extensions import SKILLS_EXTENSION, short_label
from elftia_desktop.core.models import McpActionResult, McpServerRecord
from elftia_desktop.ui.dialogs.discover_activity import ActivityPanel
from elftia_desktop.ui.dialogs.discover_icons import icon_label, request_icon
from elftia_desktop.ui.dialogs.discover_prompts import PromptsPanel
from elftia_desktop.ui.dialogs.discover_resources import ResourcesPanel
from elftia_desktop.ui.dialogs.discover_skills import SkillsPanel
from elftia_desktop.ui.dialogs.try_tool_dialog import TryToolDialog, open_try_tool
from elftia_desktop.ui.widgets.details_box import details_box
from elftia_desktop.ui.widgets.inline_code import set_description
from elftia_desktop.ui.widgets.sandbox_denials import DenialsBox
from elftia_desktop.ui.widgets.toggle_switch import ToggleSwitch


def _label(text: str, parent: QWidget, name: str = "", wrap: bool = False) -> QLabel:
    label = QLabel(text, parent)
    if name:
        label.setObjectName(name)
    label.setWordWrap(wrap)
    return label


class ToolCard(QFrame):
    """One tool: name (and an "app-only" chip for MCP Apps' view-only tools), description, schema toggle,
    Try, Enabled and Auto-approve switches."""

    def __init__(self, tool: ToolInfo, enabled: bool, auto: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Card")
        self.name = tool.name
        title = _label(self.name, self, "CardTitle")
        title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        description = _label("", self, "Muted", wrap=True)
        set_description(description, tool.description or "No description.")
        description.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        tip = "Enabled: agents can use this tool (off: hidden from every tool list)"
        self.enabled = self._switch(enabled, tip, f"{self.name} enabled")
        self.auto = self._switch(
            auto, "Auto-approve: run this tool without asking each time", f"{self.name} auto-approve"
        )
        self.auto.setEnabled(enabled)
        self.schema_button, self.schema = self._schema_view(tool.input_schema)
        self.try_button = QPushButton("Try…", self)
        self.try_button.setAutoDefault(False)
        self.try_button.setToolTip(f"Call {self.name} with arguments from a form and see the result")
        self.status = _label("", self, "FieldError", wrap=True)
        self.status.hide()
        switches = QHBoxLayout()
        switches.setSpacing(6)
        for text, switch in (("Enabled", self.enabled), ("Auto-approve", self.auto)):
            caption = _label(text, self, "Muted")
            caption.setBuddy(switch)
            switches.addWidget(caption)
            switches.addWidget(switch)
            switches.addSpacing(10)
        self.icon = icon_label(self)
        head = QHBoxLayout()
        head.addWidget(self.icon)
        head.addWidget(title)
        self.app_only: QLabel | None = None
        if tool.app_only:
            self.app_only = _label(APP_ONLY, self, "Chip")
            self.app_only.setToolTip(
                "MCP Apps: only the server's own view calls this tool. No model is given it "
                "(agents, provider formats, the gateway's hub); the gateway passes it on to Apps hosts."
            )
            head.addWidget(self.app_only)
        head.addStretch(1)
        head.addLayout(switches)
        head.addWidget(self.try_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 10, 14, 10)
        layout.addLayout(head)
        layout.addWidget(description)
        layout.addWidget(self.schema_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.schema)
        layout.addWidget(self.status)

    def _switch(self, checked: bool, tip: str, name: str) -> ToggleSwitch:
        switch = ToggleSwitch(self)
        switch.setChecked(checked)
        switch.setToolTip(tip)
        switch.setAccessibleName(name)
        return switch

    def _schema_view(self, schema: Mapping[str, object]) -> tuple[QToolButton, QPlainTextEdit]:
        """The fold button and the (folded) view of the tool's input schema as JSON."""
        button = QToolButton(self)
        button.setText("▸ Input schema")
        button.setCheckable(True)
        button.setAutoRaise(True)
        button.setToolTip("Show or hide the JSON schema of the tool's arguments")
        view = QPlainTextEdit(json.dumps(schema, indent=2), self)
        view.setReadOnly(True)
        view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        lines = view.document().blockCount()
        view.setFixedHeight(min(lines, 16) * view.fontMetrics().lineSpacing() + 14)
        view.hide()
        button.toggled.connect(self._fold)
        return button, view

    def _fold(self, shown: bool) -> None:
        self.schema.setVisible(shown)
        self.schema_button.setText(("▾" if shown else "▸") + " Input schema")


class DiscoverDialog(QDialog):
    """What one server offers, with per-tool switches."""

    def __init__(self, router: McpRouter, record: McpServerRecord, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._router = router
        self.record = record
        self.discovered: Discovery | None = None
        self.cards: dict[str, ToolCard] = {}
        self._details = ""
        self.setWindowTitle(f"Discover — {record.name}")
        self._build()
        self.resize(820, 640)
        self.refresh()

    # -- layout ----------------------------------------------------------------------------

    def _build(self) -> None:
        title = _label(self.record.name, self, "PageTitle")
        self.info = _label("", self, "Muted")
        self.refresh_button = QPushButton("&Refresh", self)
        self.refresh_button.setToolTip("Ask the server again for its tools, prompts and resources")
        self.refresh_button.setAutoDefault(False)
        self.refresh_button.clicked.connect(self.refresh)
        self.server_icon = icon_label(self)
        head = QHBoxLayout()
        head.addWidget(self.server_icon)
        head.addWidget(title)
        head.addWidget(self.info, 1, Qt.AlignmentFlag.AlignBottom)
        head.addWidget(self.refresh_button)
        self.busy = QProgressBar(self)
        self.busy.setRange(0, 0)
        self.busy.setTextVisible(False)
        self.busy.setFixedHeight(4)
        self.busy.setToolTip("Connecting and listing…")
        self.busy_label = _label(f"Connecting to {self.record.name} and listing what it offers…", self, "Muted")
        self.error = _label("", self, "FieldError", wrap=True)
        self.details = QPushButton("Details…", self)
        self.details.setToolTip("Show the full error")
        self.details.setAutoDefault(False)
        self.details.clicked.connect(self._show_details)
        error_row = QHBoxLayout()
        error_row.addWidget(self.error, 1)
        error_row.addWidget(self.details)
        self.tabs = QTabWidget(self)
        self.tabs.addTab(self._tools_tab(), "&Tools")
        self.prompts = PromptsPanel(self._router, self.record.id, self)
        self.tabs.addTab(self.prompts, "&Prompts")
        self.resources = ResourcesPanel(self._router, self.record.id, self)
        self.tabs.addTab(self.resources, "R&esources")
        self.activity = ActivityPanel(
            self._router.activity, self.record.id, self, DenialsBox(self._router, self.record, self)
        )
        self.tabs.addTab(self.activity, "&Activity")
        self.skills = SkillsPanel(self._router, self.record.id, self)
        self.skills.listed.connect(lambda count: self.tabs.setTabText(4, f"S&kills ({count})"))
        self.tabs.addTab(self.skills, "S&kills")
        self._count_calls(self.record.id)
        self._router.activity.recorded.connect(self._count_calls)
        close = QPushButton("Close", self)
        close.setToolTip("Close (Escape); switch changes are already saved")
        close.clicked.connect(self.accept)
        bottom = QHBoxLayout()
        self.status = _label("", self, "Muted")
        bottom.addWidget(self.status, 1)
        bottom.addWidget(close)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 14, 16, 14)
        layout.addLayout(head)
        layout.addWidget(self.busy)
        layout.addWidget(self.busy_label)
        layout.addLayout(error_row)
        layout.addWidget(self.tabs, 1)
        layout.addLayout(bottom)
        self._set_error("", "")

    def _tools_tab(self) -> QWidget:
        page = QWidget(self)
        self.filter = QLineEdit(page)
        self.filter.setPlaceholderText("Filter tools")
        self.filter.setClearButtonEnabled(True)
        self.filter.setToolTip("Show only tools whose name or description contains this text")
        self.filter.textChanged.connect(self._filter_tools)
        self.tool_errors = _label("", page, "FieldError", wrap=True)
        self.tool_errors.hide()
        holder = QWidget(page)
        holder.setObjectName("CardHolder")
        self.tool_box = QVBoxLayout(holder)
        self.tool_box.setContentsMargins(0, 0, 4, 0)
        self.tool_box.setSpacing(8)
        self.tool_box.addStretch(1)
        scroll = QScrollArea(page)
        scroll.setObjectName("CardScroll")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(holder)
        layout = QVBoxLayout(page)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(self.filter)
        layout.addWidget(self.tool_errors)
        layout.addWidget(scroll, 1)
        return page

    # -- loading ---------------------------------------------------------------------------

    def refresh(self) -> None:
        """Ask the server (through the router) what it offers."""
        self._set_busy(True)
        self._set_error("", "")
        self._router.servers.discover(self.record.id).then(self, self._loaded, self._failed)

    def _set_busy(self, busy: bool) -> None:
        self.busy.setVisible(busy)
        self.busy_label.setVisible(busy)
        self.refresh_button.setEnabled(not busy)
        self.tabs.setEnabled(not busy)

    def _set_error(self, text: str, details: str) -> None:
        self.error.setText(text)
        self.error.setVisible(bool(text))
        self._details = details
        self.details.setVisible(bool(details))

    def _failed(self, error: BridgeError) -> None:
        self._set_busy(False)
        self._set_error(escape(f"{error.kind}: {error.message}"), error.details or error.message)

    def _loaded(self, result: Discovery) -> None:
        self._set_busy(False)
        self.discovered = result
        if not result.success and result.error and not result.tools:
            self._set_error(f"Could not list the tools: {result.error}", result.error)
        server = result.server
        extensions = short_label(server.extensions) if server else ""
        named = server.label if server else ""
        self.info.setText(f"{named} · extensions: {extensions}" if extensions else named)
        if server is not None:
            request_icon(self._router, self, self.server_icon, server.icons, server.name)
        self._fill_tools(result)
        self.prompts.set_prompts(list(result.prompts), result.prompts_error)
        self.resources.set_resources(list(result.resources), list(result.templates), result.resources_error)
        self._kind_error(self.tool_errors, result.tools_error)
        self.skills.refresh(server is not None and SKILLS_EXTENSION in server.extensions)
        counts = (len(result.tools), len(result.prompts), len(result.resources) + len(result.templates))
        for index, (name, count) in enumerate(zip(("&Tools", "&Prompts", "R&esources"), counts, strict=True)):
            self.tabs.setTabText(index, f"{name} ({count})")

    @staticmethod
    def _kind_error(label: QLabel, text: str) -> None:
        label.setText(f"Could not be listed: {text}" if text else "")
        label.setVisible(bool(text))

    def _fill_tools(self, result: Discovery) -> None:
        for card in self.cards.values():
            self.tool_box.removeWidget(card)
            card.deleteLater()
        self.cards = {}
        disabled = set(self.record.disabled_tools)
        for tool in result.tools:
            name = tool.name
            card = ToolCard(tool, name not in disabled, auto_approved(self.record, name, tool.read_only_hint), self)
            card.enabled.toggled.connect(lambda on, n=name: self.set_flag(n, "enabled", on))
            card.auto.toggled.connect(lambda on, n=name: self.set_flag(n, "autoApprove", on))
            card.try_button.clicked.connect(lambda _=False, t=tool: self.try_tool(t))
            request_icon(self._router, card, card.icon, tool.icons, name)
            self.tool_box.insertWidget(self.tool_box.count() - 1, card)
            self.cards[name] = card
        self._filter_tools(self.filter.text())

    def _filter_tools(self, text: str) -> None:
        needle = text.strip().lower()
        for name, card in self.cards.items():
            tool = self.discovered.tool(name) if self.discovered else None
            haystack = f"{name} {tool.description if tool else ''}".lower()
            card.setVisible(not needle or needle in haystack)

    def _count_calls(self, server_id: str) -> None:
        if server_id == self.record.id:
            self.tabs.setTabText(3, f"&Activity ({len(self._router.activity.calls(server_id))})")

    def try_tool(self, tool: ToolInfo) -> TryToolDialog:
        """Open the try-a-tool dialog for one of the listed tools."""
        return open_try_tool(self._router, self.record.id, tool.definition, self.record.name, self)

    def show_tab(self, name: str) -> None:
        """Switch to the tab ``tools``, ``prompts``, ``resources``, ``activity`` or ``skills``."""
        pages = {"tools": 0, "prompts": 1, "resources": 2, "activity": 3, "skills": 4}
        self.tabs.setCurrentIndex(pages.get(name, 0))

    # -- switches --------------------------------------------------------------------------

    def set_flag(self, tool: str, flag: str, value: bool) -> None:
        """Save one switch; on failure the switch goes back and the card says why."""
        card = self.cards[tool]
        if flag == "enabled":
            card.auto.setEnabled(value)
        card.status.hide()
        self.status.setText("Saving…")
        self._router.tools.set_flag(
            self.record.id, tool, "enabled" if flag == "enabled" else "autoApprove", value
        ).then(
            self,
            lambda result: self._flag_saved(tool, flag, value, result),
            lambda error: self._flag_failed(tool, flag, value, error.message),
        )

    def _flag_saved(self, tool: str, flag: str, value: bool, result: McpActionResult) -> None:
        if not result.success:
            self._flag_failed(tool, flag, value, result.error or "not saved")
            return
        if result.server is not None:
            self.record = result.server
        what = "enabled" if flag == "enabled" else "auto-approved"
        self.status.setText(f"{tool} is {'' if value else 'no longer '}{what}.")

    def _flag_failed(self, tool: str, flag: str, value: bool, message: str) -> None:
        card = self.cards.get(tool)
        self.status.setText("")
        if card is None:
            return
        switch = card.enabled if flag == "enabled" else card.auto
        switch.blockSignals(True)
        switch.setChecked(not value)
        switch.blockSignals(False)
        if flag == "enabled":
            card.auto.setEnabled(not value)
        card.status.setText(f"Not saved: {message}")
        card.status.show()

    def _show_details(self) -> None:
        details_box(self, "Error details", self.error.text(), self._details, QMessageBox.Icon.Warning).exec()

"""``ClaudePanel``: the ``claude`` CLI (Claude Code): is it installed, its servers, push ours, pull its."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from elftia_desktop.bridge.errors import BridgeError
from elftia_desktop.bridge.results import ClaudePushResult, ClaudeStatus
from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.ui.error_presenter import show_error
from elftia_desktop.ui.theme import STATE_COLORS
from elftia_desktop.ui.widgets.notice_bar import NoticeBar
from elftia_desktop.ui.widgets.server_checklist import ServerChecklist

if TYPE_CHECKING:
    from elftia_desktop.core.models import McpServerRecord


class ClaudePanel(QWidget):
    """Push ticked servers with ``claude mcp add-json``; pull Claude Code's servers through the import preview.

    Signals:
        pullRequested(object): Claude Code's config files (``mcp:claude-sources``) to preview for import.
    """

    pullRequested = Signal(object)

    def __init__(self, router: McpRouter, notice: NoticeBar, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.router = router
        self.notice = notice
        self.status: ClaudeStatus | None = None
        column = QVBoxLayout(self)
        column.setContentsMargins(10, 10, 10, 10)
        head = QHBoxLayout()
        self.state = QLabel("Looking for the claude CLI…")
        self.state.setWordWrap(True)
        head.addWidget(self.state, 1)
        self.check_button = QPushButton("Check again")
        self.check_button.clicked.connect(self.check)
        head.addWidget(self.check_button)
        column.addLayout(head)
        split = QSplitter()
        split.addWidget(self._build_push())
        split.addWidget(self._build_pull())
        split.setSizes([300, 480])
        column.addWidget(split, 1)

    def _build_push(self) -> QWidget:
        box = QWidget()
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(QLabel("<b>Push to Claude Code</b> — tick servers"))
        self.servers = ServerChecklist()
        self.servers.ticksChanged.connect(self._update_buttons)
        column.addWidget(self.servers, 1)
        row = QHBoxLayout()
        row.addWidget(QLabel("Scope"))
        self.scope = QComboBox()
        for value, label in (
            ("user", "user (every project)"),
            ("local", "local (this folder)"),
            ("project", "project (.mcp.json)"),
        ):
            self.scope.addItem(label, value)
        row.addWidget(self.scope, 1)
        self.push_button = QPushButton("Push")
        self.push_button.setObjectName("Primary")
        self.push_button.setToolTip("claude mcp add-json for each ticked server; secrets go as ${VAR} placeholders")
        self.push_button.clicked.connect(self.push_selected)
        row.addWidget(self.push_button)
        column.addLayout(row)
        return box

    def _build_pull(self) -> QWidget:
        box = QWidget()
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(QLabel("<b>Claude Code's servers</b>"))
        self.theirs = QTreeWidget()
        self.theirs.setHeaderLabels(["Name", "Scope", "Runs / URL"])
        self.theirs.setRootIsDecorated(False)
        self.theirs.setObjectName("DataTable")
        self.theirs.header().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        column.addWidget(self.theirs, 1)
        row = QHBoxLayout()
        row.addStretch(1)
        self.pull_button = QPushButton("Pull into Elftia…")
        self.pull_button.setToolTip("Preview Claude Code's servers on the Import tab, then import the ones you tick")
        self.pull_button.clicked.connect(self.pull)
        row.addWidget(self.pull_button)
        column.addLayout(row)
        return box

    def set_records(self, records: list[McpServerRecord]) -> None:
        """Show our servers (ticks kept)."""
        self.servers.set_records(records)

    def _update_buttons(self) -> None:
        installed = bool(self.status and self.status.installed)
        self.push_button.setEnabled(installed and bool(self.servers.checked_ids()))
        self.pull_button.setEnabled(bool(self.status and self.status.servers))

    # -- status --------------------------------------------------------------------------------

    def check(self) -> None:
        """Find the CLI and list its servers."""
        self.check_button.setEnabled(False)
        self.router.integrations.claude_status().then(self, self._show_status, self._failed)

    def _show_status(self, status: ClaudeStatus) -> None:
        self.status = status
        self.check_button.setEnabled(True)
        if status.installed:
            self.state.setText(f"<b>claude {escape(status.version or '')}</b> at {escape(status.path or '')}")
        else:
            help_html = escape(status.help or "").replace("\n", "<br>")
            self.state.setText(f"<span style='color:{STATE_COLORS['error']}'><b>Not installed.</b></span> {help_html}")
        self.theirs.clear()
        for server in status.servers:
            item = QTreeWidgetItem([server.name, server.scope, server.error or server.runs])
            item.setToolTip(2, server.source)
            self.theirs.addTopLevelItem(item)
        if status.error:
            self.notice.show_message(escape(status.error), "warning")
        self._update_buttons()

    # -- push / pull ---------------------------------------------------------------------------

    def push_selected(self) -> None:
        """Push each ticked server in turn."""
        ids = self.servers.checked_ids()
        scope = str(self.scope.currentData())
        pushed: list[str] = []

        def next_one() -> None:
            """Push the next server, or report what was pushed."""
            if not ids:
                self.notice.show_message(f"Pushed to Claude Code ({scope} scope): {', '.join(pushed)}.", "success")
                self.check()
                return
            self.router.integrations.claude_push(ids.pop(0), scope).then(self, done, self._failed)

        def done(result: ClaudePushResult) -> None:
            """Note the pushed server and go on."""
            pushed.append(result.name)
            next_one()

        next_one()

    def pull(self) -> None:
        """Hand Claude Code's files to the import preview."""
        self.router.integrations.claude_sources().then(self, self.pullRequested.emit, self._failed)

    def _failed(self, error: BridgeError) -> None:
        self.check_button.setEnabled(True)
        show_error(self.notice, error)

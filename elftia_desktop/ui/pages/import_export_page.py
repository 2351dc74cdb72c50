"""``ImportExportPage``: bring servers from other apps, send ours to them, and the ``claude`` CLI."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import QPushButton, QTabWidget, QWidget

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.ui.pages.claude_panel import ClaudePanel
from elftia_desktop.ui.pages.export_panel import ExportPanel
from elftia_desktop.ui.pages.import_panel import ImportPanel
from elftia_desktop.ui.pages.page_frame import FirstShow, PageFrame

if TYPE_CHECKING:
    from elftia_desktop.bridge.results import DetectedConfig
    from elftia_desktop.core.models import McpServerRecord


class ImportExportPage(PageFrame):
    """Three tabs: Import (detected configs), Export (to a file or an app's config), Claude Code CLI.

    Signals:
        navigate(str): another page by name (``servers`` after an import).
    """

    navigate = Signal(str)

    def __init__(self, router: McpRouter, parent: QWidget | None = None) -> None:
        super().__init__("Import and export", parent)
        self.router = router
        self._first_show = FirstShow(self, self._first_load)
        self.summary.setText("Bring servers from Claude, Cursor, VS Code and other apps, or send yours to them")
        self.servers_button = QPushButton("Go to Servers")
        self.servers_button.setToolTip("Trust and start the servers you imported")
        self.servers_button.clicked.connect(lambda: self.navigate.emit("servers"))
        self.header_actions.addWidget(self.servers_button)
        self.tabs = QTabWidget()
        self.import_panel = ImportPanel(router, self.notice)
        self.export_panel = ExportPanel(router, self.notice)
        self.claude_panel = ClaudePanel(router, self.notice)
        self.tabs.addTab(self.import_panel, "Import")
        self.tabs.addTab(self.export_panel, "Export")
        self.tabs.addTab(self.claude_panel, "Claude Code CLI")
        self.body.addWidget(self.tabs, 1)
        self.claude_panel.pullRequested.connect(self._pull)
        self.tabs.currentChanged.connect(self._tab_shown)
        router.signals.serversChanged.connect(self.reload_servers)

    def _first_load(self) -> None:
        self.import_panel.detect()
        self.reload_servers()

    @Slot()
    def reload_servers(self) -> None:
        """Fetch our servers for the export and push lists."""
        if self._first_show.started:
            self.router.servers.records().then(self, self._show_servers)

    def _show_servers(self, records: list[McpServerRecord]) -> None:
        self.export_panel.set_records(records)
        self.claude_panel.set_records(records)

    def _tab_shown(self, index: int) -> None:
        self.notice.hide()  # a message belongs to the tab it came from
        if self.tabs.widget(index) is self.claude_panel and self.claude_panel.status is None:
            self.claude_panel.check()

    def _pull(self, configs: list[DetectedConfig]) -> None:
        self.tabs.setCurrentWidget(self.import_panel)
        self.import_panel.show_sources(configs)
        self.notice.show_message("Claude Code's servers: tick the ones to import, then press Import.", "info")

"""The flows that start on the servers page and open dialogs: add, edit, paste JSON, discover."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Slot
from PySide6.QtWidgets import QWidget

from elftia_desktop.bridge.errors import BridgeError
from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.ui.pages.servers_page import McpServersPage

if TYPE_CHECKING:
    from elftia_desktop.core.models import McpActionResult


class ServerFlows(QObject):
    """Opens the right dialog for each request of the servers page and reports the outcome there."""

    def __init__(self, router: McpRouter, page: McpServersPage, window: QWidget) -> None:
        super().__init__(window)
        self.router = router
        self.page = page
        self.window = window
        self.presets: list[dict[str, Any]] = []
        page.addRequested.connect(self.add_server)
        page.editRequested.connect(self.edit_server)
        page.pasteJsonRequested.connect(self.paste_json)
        page.discoverRequested.connect(self.discover)
        router.presets(on_done=self._set_presets)

    def _set_presets(self, presets: list[dict[str, Any]]) -> None:
        self.presets = presets

    @Slot()
    def add_server(self) -> None:
        """Open the add form; a saved server is tested at once."""
        from elftia_desktop.ui.dialogs.server_form import McpServerForm

        form = McpServerForm(self.router, presets=self.presets, parent=self.window)
        if form.exec() != McpServerForm.DialogCode.Accepted:
            return
        params = form.params()
        params["isTrusted"] = True  # the user typed or picked it here, seeing what it runs
        self.router.add(params, on_done=self._added, on_error=self.page.show_error)

    def _added(self, result: McpActionResult) -> None:
        if result.success and result.server is not None:
            self.page.notice.show_message(f"Added <b>{result.server.name}</b>.", "success")
        else:
            self.page.notice.show_message(result.error or "The server was not added.", "error", result.error or "")

    @Slot(str)
    def edit_server(self, server_id: str) -> None:
        """Open the edit form for one server; saving updates it (and reconnects when needed)."""
        from elftia_desktop.ui.dialogs.server_form import McpServerForm

        record = self.page.record(server_id)
        if record is None:
            return
        form = McpServerForm(self.router, record=record, presets=self.presets, parent=self.window)
        if form.exec() != McpServerForm.DialogCode.Accepted:
            return
        updates = form.params()
        for key in ("isTrusted", "installSource"):
            updates.pop(key, None)
        self.router.update(
            server_id,
            updates,
            on_done=lambda r: (
                self.page.notice.show_message(f"Saved <b>{record.name}</b>.", "success")
                if r.success
                else self.page.notice.show_message(r.error or "Not saved.", "error")
            ),
            on_error=self.page.show_error,
        )

    @Slot()
    def paste_json(self) -> None:
        """Open the paste-JSON dialog."""
        from elftia_desktop.ui.dialogs.json_import_dialog import JsonImportDialog

        names = [r.name for r in self.page.records]
        JsonImportDialog(self.router, existing_names=names, parent=self.window).exec()
        self.page.reload()

    @Slot(str)
    def discover(self, server_id: str) -> None:
        """Open the discover panel of one server."""
        from elftia_desktop.ui.dialogs.discover_dialog import DiscoverDialog

        record = self.page.record(server_id)
        if record is None:
            return
        DiscoverDialog(self.router, record, parent=self.window).open()

    def report(self, error: BridgeError) -> None:
        """Show a failed request on the page."""
        self.page.show_error(error)

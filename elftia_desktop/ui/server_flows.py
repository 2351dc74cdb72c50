"""The flows that start on the servers page and open dialogs: add, edit, paste JSON, discover, install links."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Slot
from PySide6.QtWidgets import QWidget

from elftia_desktop.bridge.errors import BridgeError
from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.trust import needs_confirmation
from elftia_desktop.ui.error_presenter import show_error
from elftia_desktop.ui.pages.servers_page import McpServersPage

if TYPE_CHECKING:
    from elftia_desktop.bridge.signals import ConnectionStateChanged
    from elftia_desktop.core.models import McpActionResult, McpServerInput, McpServerRecord
    from elftia_desktop.core.presets import McpPreset


class ServerFlows(QObject):
    """Opens the right dialog for each request of the servers page and reports the outcome there."""

    def __init__(self, router: McpRouter, page: McpServersPage, window: QWidget) -> None:
        super().__init__(window)
        self.router = router
        self.page = page
        self.window = window
        self.presets: list[McpPreset] = []
        page.addRequested.connect(self.add_server)
        page.editRequested.connect(self.edit_server)
        page.pasteJsonRequested.connect(self.paste_json)
        page.discoverRequested.connect(self.discover)
        router.app.presets().then(self, self._set_presets)
        self._connecting: dict[str, str] = {}
        """Server id -> the "Connecting…" notice shown for it (taken down when its state moves on)."""
        router.signals.connectionStateChanged.connect(self._state_moved_on)

    @Slot(object)
    def _state_moved_on(self, event: ConnectionStateChanged) -> None:
        """A saved server connected or failed: its "Connecting…" notice, if still shown, goes (the card says)."""
        if event.state == "connecting" or event.server_id not in self._connecting:
            return
        said = self._connecting.pop(event.server_id)
        notice = self.page.notice
        if notice.isVisible() and notice.label.text() == said:
            notice.hide()

    def _set_presets(self, presets: list[McpPreset]) -> None:
        self.presets = presets

    @Slot()
    def add_server(self) -> None:
        """Open the add form; the form saves through the router and stays open on a refusal."""
        from elftia_desktop.ui.dialogs.server_form import McpServerForm

        form = McpServerForm(self.router, presets=self.presets or None, parent=self.window)
        form.saved.connect(self._added)
        form.exec()

    def _added(self, result: McpActionResult) -> None:
        if result.success and result.server is not None:
            self._connect_saved(result.server, f"Added <b>{escape(result.server.name)}</b>.")

    def _edited(self, result: McpActionResult) -> None:
        if result.success and result.server is not None:
            self._connect_saved(result.server, f"Saved <b>{escape(result.server.name)}</b>.")

    def _connect_saved(self, record: McpServerRecord, said: str) -> None:
        """The form closed at once; connect the saved server now (its card shows connecting, then the outcome)."""
        if not record.is_active or needs_confirmation(record):
            self.page.notice.show_message(said, "success")
            return
        connecting = f"{said} Connecting… (its card shows how it goes)"
        self.page.notice.show_message(connecting, "success")
        self._connecting[record.id] = connecting

        def failed(error: BridgeError) -> None:
            """The server was saved; say why it did not connect."""
            show_error(self.page.notice, error, f"{record.name} was saved but did not connect")

        self.router.servers.reconnect(record.id).then(self, on_error=failed)

    @Slot(str)
    def open_link(self, link: str) -> None:
        """Open the add form filled in from an install link; a malformed link is reported on the page."""
        self.router.app.parse_link(link).then(self, self._open_link_form, self._link_failed)

    def _open_link_form(self, server: McpServerInput) -> None:
        from elftia_desktop.ui.dialogs.server_form import McpServerForm

        form = McpServerForm(self.router, link=server, parent=self.window)
        form.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        form.saved.connect(self._added)
        form.open()

    def _link_failed(self, error: BridgeError) -> None:
        show_error(self.page.notice, error, "The install link could not be opened")

    @Slot(str)
    def edit_server(self, server_id: str) -> None:
        """Open the edit form; saving updates the server, which reconnects when its launch changed."""
        from elftia_desktop.ui.dialogs.server_form import McpServerForm

        record = self.page.record(server_id)
        if record is None:
            return
        form = McpServerForm(self.router, record=record, parent=self.window)
        form.saved.connect(self._edited)
        form.exec()

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

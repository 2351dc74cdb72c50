"""The servers page's Test and Remove, and what an action on a server removed elsewhere does.

Another process (``elftia-mcp remove``, another window) may remove a server while its card is
shown: the page follows the file within a second, but an action may come first. Such an action
fails with ``ServerNotFound``; the notice says so by the server's name and the card goes.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape as html_escape
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QMessageBox

if TYPE_CHECKING:
    from elftia_desktop.bridge.errors import BridgeError
    from elftia_desktop.core.models import McpServerRecord, McpTestResult
    from elftia_desktop.ui.pages.servers_page import McpServersPage

GONE = "ServerNotFound"
"""The error kind of a request on a server that is no longer in the config."""


class ServerActions(QObject):
    """Test and Remove for ``page``, and the error callback of every action on one server."""

    def __init__(self, page: McpServersPage) -> None:
        super().__init__(page)
        self.page = page

    def failed_on(self, record: McpServerRecord) -> Callable[[BridgeError], None]:
        """The error callback of an action on ``record``: a server removed elsewhere is said so and its card goes."""

        def failed(error: BridgeError) -> None:
            """Show the error, or that the server is gone (and drop its card)."""
            if error.kind != GONE:
                self.page.show_error(error)
                return
            self.page.notice.show_message(
                f"<b>{html_escape(record.name)}</b> is no longer configured: another program "
                "(elftia-mcp or another window) removed it, so its card is gone.",
                "warning",
            )
            self.page.drop_card(record.id)

        return failed

    def test(self, record: McpServerRecord) -> None:
        """Connect ``record`` and list its tools; the outcome goes to the page's notice bar."""
        page = self.page
        card = page.cards.get(record.id)
        if card is not None:
            card.buttons["test"].setEnabled(False)

        def done(result: McpTestResult) -> None:
            """Show the test's outcome."""
            if card is not None:
                card.buttons["test"].setEnabled(True)
            if result.success:
                page.tool_counts[record.id] = len(result.tools)
                if card is not None:
                    card.set_tool_count(len(result.tools))
                names = ", ".join(result.tools[:8]) + (" …" if len(result.tools) > 8 else "")
                tools = f"{len(result.tools)} tool{'s' if len(result.tools) != 1 else ''}"
                page.notice.show_message(
                    f"<b>{html_escape(record.name)}</b> works: {tools} in {result.duration_ms:.0f} ms"
                    + (f" — {html_escape(names)}" if names else ""),
                    "success",
                )
            else:
                reason = html_escape(result.reason or result.error or "unknown error")
                page.notice.show_message(
                    f"<b>{html_escape(record.name)}</b> failed: {reason}", "error", result.error or ""
                )

        def failed(error: BridgeError) -> None:
            """Show why the test could not run."""
            if card is not None:
                card.buttons["test"].setEnabled(True)
            self.failed_on(record)(error)

        page.router.servers.test(record.id).then(self, done, failed)

    def confirm_remove(self, record: McpServerRecord) -> None:
        """Ask, then remove ``record``."""
        answer = QMessageBox.question(
            self.page,
            "Remove server",
            f'Remove "{record.name}"? Its settings and stored secrets are deleted, and agents that use it lose it.',
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        if answer == QMessageBox.StandardButton.Yes:
            self.page.router.servers.remove(record.id).then(
                self,
                lambda result: self.page.notice.show_message(html_escape(result.message or ""), "info"),
                self.failed_on(record),
            )

"""The servers page's OAuth part: Sign in / Sign out on the cards, and the sign-in notice.

While a sign-in waits for the browser, the page's notice bar says so and links the
authorization URL (for when no browser opened, or the user closed it).
"""

from __future__ import annotations

from html import escape as html_escape
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Slot

from elftia_desktop.bridge.signals import SignInStarted

if TYPE_CHECKING:
    from elftia_desktop.bridge.errors import BridgeError
    from elftia_desktop.core.models import McpAuthStatus, McpServerRecord
    from elftia_desktop.ui.pages.servers_page import McpServersPage


class ServerAuthActions(QObject):
    """Signs servers in and out for ``page`` and keeps the cards' sign-in line current."""

    def __init__(self, page: McpServersPage) -> None:
        super().__init__(page)
        self.page = page
        page.notice.label.setOpenExternalLinks(True)
        page.router.signals.signInStarted.connect(self._on_sign_in_started)

    def refresh(self, record: McpServerRecord) -> None:
        """Fetch the sign-in status of a remote server (OAuth configured or discovered) and show it on its card."""
        if record.config.oauth is not None or record.config.url:
            self.page.router.auth.status(record.id).then(self, self._show)

    def _show(self, status: McpAuthStatus) -> None:
        card = self.page.cards.get(status.server_id)
        if card is not None:
            card.set_auth(status)

    def sign_in(self, record: McpServerRecord) -> None:
        """Connect, signing in in the browser if needed."""
        card = self.page.cards.get(record.id)
        if card is not None:
            card.buttons["sign-in"].setEnabled(False)

        def done(status: McpAuthStatus) -> None:
            """Show the signed-in state."""
            self._finish(record.id, status)
            who = f" as {html_escape(status.subject)}" if status.subject else ""
            self.page.notice.show_message(f"Signed in to <b>{html_escape(record.name)}</b>{who}.", "success")

        def failed(error: BridgeError) -> None:
            """Show why the sign-in failed."""
            self._finish(record.id, None)
            self.refresh(record)
            self.page.show_error(error)

        self.page.router.auth.sign_in(record.id).then(self, done, failed)

    def sign_out(self, record: McpServerRecord) -> None:
        """Delete the server's tokens."""

        def done(status: McpAuthStatus) -> None:
            """Show the signed-out state."""
            self._show(status)
            self.page.notice.show_message(
                f"Signed out of <b>{html_escape(record.name)}</b>; its tokens were deleted.", "info"
            )

        self.page.router.auth.sign_out(record.id).then(self, done, self.page.show_error)

    def _finish(self, server_id: str, status: McpAuthStatus | None) -> None:
        card = self.page.cards.get(server_id)
        if card is not None:
            card.buttons["sign-in"].setEnabled(True)
            if status is not None:
                card.set_auth(status)

    @Slot(object)
    def _on_sign_in_started(self, started: SignInStarted) -> None:
        where = "in the browser window that opened" if started.browser_opened else "in your browser"
        self.page.notice.show_message(
            f"Finish signing in to <b>{html_escape(started.server_name)}</b> {where}, then come back here. "
            f'<a href="{html_escape(started.url, quote=True)}">Open the sign-in page</a>',
            "info",
            f"Sign-in address:\n{started.url}",
        )

"""OAuth channels: sign in, sign out and the sign-in status of SSE/HTTP servers.

While a sign-in waits for the browser, ``signInStarted`` carries the authorization URL to the
UI (the browser is opened from a worker thread, so the service loop never waits on it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Signal

from elftia_desktop.bridge.plumbing import Done, Failed, RouterCore

if TYPE_CHECKING:
    from elftia_desktop.bridge.services import AppServices
    from elftia_desktop.core.models import McpServerRecord


class AuthChannels(RouterCore):
    """``mcp:sign-in``, ``mcp:sign-out``, ``mcp:auth-status``.

    Signals:
        signInStarted(str, str, str, bool): server id, server name, authorization URL, whether a browser opened.
    """

    signInStarted = Signal(str, str, str, bool)

    def _wire_events(self, services: AppServices) -> None:
        first = not self._events_wired
        super()._wire_events(services)
        if first:
            services.mcp.set_sign_in_prompt(self._show_sign_in)

    async def _show_sign_in(self, record: McpServerRecord, url: str) -> None:
        from elftia_desktop.connections.oauth_prompt import open_in_browser

        opened = await open_in_browser(url)
        self.signInStarted.emit(record.id, record.name, url, opened)

    def sign_in(self, server_id: str, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:sign-in``: connect, signing in in the browser when needed; result ``McpAuthStatus``."""
        return self._by_id("mcp:sign-in", server_id, lambda s, i: s.mcp.sign_in(i), on_done, on_error)

    def sign_out(self, server_id: str, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:sign-out``: disconnect and delete the server's tokens; result ``McpAuthStatus``."""
        return self._by_id("mcp:sign-out", server_id, lambda s, i: s.mcp.sign_out(i), on_done, on_error)

    def auth_status(self, server_id: str, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:auth-status``: whether the server is signed in, until when, with which scopes, for whom."""
        return self._by_id("mcp:auth-status", server_id, lambda s, i: s.mcp.auth_status(i), on_done, on_error)

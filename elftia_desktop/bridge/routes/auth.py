"""OAuth channels: sign in, sign out and the sign-in status of SSE/HTTP servers.

While a sign-in waits for the browser, the ``signInStarted`` signal carries the authorization URL
to the UI (see ``bridge/events.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from elftia_desktop.bridge.plumbing import Done, Failed, Reply, Route

if TYPE_CHECKING:
    from elftia_desktop.core.models import McpAuthStatus


class AuthRoute(Route):
    """``mcp:sign-in``, ``mcp:sign-out``, ``mcp:auth-status``."""

    def sign_in(
        self,
        server_id: str,
        *,
        receiver: QObject | None = None,
        on_done: Done[McpAuthStatus] | None = None,
        on_error: Failed | None = None,
    ) -> int:
        """``mcp:sign-in``: connect, signing in in the browser when needed."""
        reply = Reply("mcp:sign-in", receiver, on_done, on_error)
        return self._by_id(reply, server_id, lambda s, i: s.mcp.sign_in(i))

    def sign_out(
        self,
        server_id: str,
        *,
        receiver: QObject | None = None,
        on_done: Done[McpAuthStatus] | None = None,
        on_error: Failed | None = None,
    ) -> int:
        """``mcp:sign-out``: disconnect and delete the server's tokens."""
        reply = Reply("mcp:sign-out", receiver, on_done, on_error)
        return self._by_id(reply, server_id, lambda s, i: s.mcp.sign_out(i))

    def status(
        self,
        server_id: str,
        *,
        receiver: QObject | None = None,
        on_done: Done[McpAuthStatus] | None = None,
        on_error: Failed | None = None,
    ) -> int:
        """``mcp:auth-status``: whether the server is signed in, until when, with which scopes, for whom."""
        reply = Reply("mcp:auth-status", receiver, on_done, on_error)
        return self._by_id(reply, server_id, lambda s, i: s.mcp.auth_status(i))

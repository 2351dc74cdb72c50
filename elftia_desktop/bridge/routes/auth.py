"""OAuth channels: sign in, sign out and the sign-in status of SSE/HTTP servers.

While a sign-in waits for the browser, the ``signInStarted`` signal carries the authorization URL
to the UI (see ``bridge/events.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from elftia_desktop.bridge.pending import Pending
from elftia_desktop.bridge.plumbing import Route

if TYPE_CHECKING:
    from elftia_desktop.core.models import McpAuthStatus


class AuthRoute(Route):
    """``mcp:sign-in``, ``mcp:sign-out``, ``mcp:auth-status``."""

    def sign_in(self, server_id: str) -> Pending[McpAuthStatus]:
        """``mcp:sign-in``: connect, signing in in the browser when needed."""
        return self._by_id("mcp:sign-in", server_id, lambda s, i: s.mcp.sign_in(i))

    def sign_out(self, server_id: str) -> Pending[McpAuthStatus]:
        """``mcp:sign-out``: disconnect and delete the server's tokens."""
        return self._by_id("mcp:sign-out", server_id, lambda s, i: s.mcp.sign_out(i))

    def status(self, server_id: str) -> Pending[McpAuthStatus]:
        """``mcp:auth-status``: whether the server is signed in, until when, with which scopes, for whom."""
        return self._by_id("mcp:auth-status", server_id, lambda s, i: s.mcp.auth_status(i))

"""Sign-in actions for OAuth servers named by the user (name or id)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING

from elftia_desktop.application import messages
from elftia_desktop.core.models import McpAuthStatus, McpServerRecord

if TYPE_CHECKING:
    from elftia_desktop.connections.service import McpService


@dataclass(frozen=True)
class SignInOutcome:
    """A server's sign-in status after signing in or out."""

    server: McpServerRecord
    status: McpAuthStatus

    @property
    def message(self) -> str:
        """One line about it (see :func:`messages.sign_in_status`)."""
        return messages.sign_in_status(self.server.name, self.status)


async def sign_in(mcp: McpService, server: str) -> SignInOutcome:
    """Sign in to ``server`` now (the browser opens through the service's sign-in prompt)."""
    record = await asyncio.to_thread(mcp.catalog.find, server)
    return SignInOutcome(record, await mcp.sign_in(record.id))


async def sign_out(mcp: McpService, server: str) -> SignInOutcome:
    """Sign out of ``server``: its tokens and registered client leave the keyring."""
    record = await asyncio.to_thread(mcp.catalog.find, server)
    return SignInOutcome(record, await mcp.sign_out(record.id))

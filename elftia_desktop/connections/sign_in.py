"""Signing in to OAuth servers: sign in, sign out, sign-in status, and actions that sign in in place.

A foreground action (the CLI's ``test``/``call``/``tools``/``discover``, the window's Test and
Call) runs through ``signed_in``: while it runs, a 401 or a 403 ``insufficient_scope`` leads to
a sign-in in the browser in place, and the action is retried, at most ``MAX_SIGN_IN_ATTEMPTS``
times. Everything else (background reconnects, agents) never starts a sign-in.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from elftia_desktop.connections.oauth_gate import MAX_SIGN_IN_ATTEMPTS, SignInPrompt, oauth_applies
from elftia_desktop.connections.oauth_storage import VaultTokenStorage
from elftia_desktop.connections.pool import ConnectionPool
from elftia_desktop.connections.records import ServerRecords
from elftia_desktop.core.errors import ServerAuthRequired
from elftia_desktop.core.models import ConnectionState, McpAuthStatus, McpServerRecord

T = TypeVar("T")


async def retry_signed_in(pool: ConnectionPool, server_id: str, action: Callable[[], Awaitable[T]]) -> T:
    """Run ``action`` with sign-in allowed; after a sign-in problem run it again (at most 3 tries in all)."""
    with pool.foreground(server_id):
        gate = pool.entry(server_id).gate
        attempt = 1
        while True:
            last = attempt >= MAX_SIGN_IN_ATTEMPTS or gate.prompt is None
            try:
                result = await action()
            except ServerAuthRequired as exc:
                if last:
                    raise _gave_up(exc, attempt) from exc
            else:
                if last or pool.entry(server_id).state is not ConnectionState.AUTH_REQUIRED:
                    return result
            attempt += 1


def _gave_up(exc: ServerAuthRequired, attempts: int) -> ServerAuthRequired:
    text = str(exc)
    if attempts > 1 and "attempts" not in text:
        text += f" (gave up after {attempts} attempts)"
    return ServerAuthRequired(text, exc.server_id)


def _no_sign_in(record: McpServerRecord) -> str:
    if record.config.url:
        return f"{record.name} sends its own Authorization header: there is no sign-in to do (edit the header instead)"
    return f"{record.name} is a local (stdio) server: there is nothing to sign in to"


class SignIn:
    """sign_in / sign_out / auth_status / signed_in of the saved servers."""

    def __init__(self, records: ServerRecords, pool: ConnectionPool, trial_pool: ConnectionPool) -> None:
        self._records = records
        self._pool = pool
        self._trial_pool = trial_pool

    def set_prompt(self, prompt: SignInPrompt | None) -> None:
        """Who shows the authorization URL during foreground actions (None: nobody; sign-in is refused)."""
        self._pool.sign_in_prompt = prompt
        self._trial_pool.sign_in_prompt = prompt

    async def signed_in(self, server_id: str, action: Callable[[], Awaitable[T]]) -> T:
        """Run a foreground action on a saved server, signing in in place when the server asks."""
        return await retry_signed_in(self._pool, server_id, action)

    async def sign_in(self, server_id: str) -> McpAuthStatus:
        """Connect with sign-in allowed (the browser opens when there are no usable tokens)."""
        record = await self._records.get(server_id)
        if not oauth_applies(record):
            raise ServerAuthRequired(_no_sign_in(record), server_id)
        if self._pool.entry(server_id).state is not ConnectionState.CONNECTED:
            await self._pool.disconnect(server_id)
        await self.signed_in(server_id, lambda: self._pool.ensure(record))
        return await self.auth_status(server_id)

    async def sign_out(self, server_id: str) -> McpAuthStatus:
        """Close the connection and delete the server's tokens and registered client from the keyring."""
        record = await self._records.get(server_id)
        await self._pool.disconnect(server_id)
        await asyncio.to_thread(self._records.catalog.vault.forget_session, record.id)
        return await self.auth_status(server_id)

    async def auth_status(self, server_id: str) -> McpAuthStatus:
        """Whether the server is signed in, until when, with which scopes, and for whom."""
        record = await self._records.get(server_id)
        entry = self._pool.entries.get(server_id)
        state = entry.state if entry is not None else ConnectionState.DISCONNECTED
        status = McpAuthStatus(server_id=server_id, state=state, error=entry.error if entry else None)
        if not oauth_applies(record):
            return status
        found = await asyncio.to_thread(VaultTokenStorage(self._records.catalog.vault, server_id).status)
        grant = record.config.oauth.grant_type if record.config.oauth else "authorization_code"
        status.oauth, status.grant_type, status.signed_in = True, grant, found.signed_in
        status.expires_at = int(found.expires_at * 1000) if found.expires_at is not None else None
        status.scopes, status.subject = found.scopes or [], found.subject
        return status

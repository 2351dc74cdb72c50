"""The bearer token of the HTTP gateway: generated once, kept in the keyring (the vault).

It lives beside the servers' secrets, under the vault's account ``gateway:header:Authorization``
(the value every request's ``Authorization: Bearer`` header must carry). A reset, by any process,
also rewrites ``gateway-token.changed`` in the data folder, after the new token is stored: a running
HTTP gateway (:class:`StoredToken`) keeps the token it read until that file changes, so a request
costs no keyring read and the old token is refused from the first request after a reset.
"""

from __future__ import annotations

import asyncio
import os
import secrets
from pathlib import Path

from elftia_desktop.core.atomic_file import atomic_write_text
from elftia_desktop.core.paths import data_dir
from elftia_desktop.core.secrets import SecretVault

OWNER = "gateway"
HEADER = "Authorization"
TOKEN_BYTES = 32
STAMP = "gateway-token.changed"
"""The file in the data folder that a reset rewrites (its content: a random nonce, never the token)."""


def gateway_token(vault: SecretVault) -> str:
    """The token, generated and stored on first use (blocking: keyring access)."""
    token = vault.load(OWNER, "header", HEADER)
    if token:
        return token
    return reset_token(vault)


def current_token(vault: SecretVault) -> str | None:
    """The token stored now, without making one (blocking); what every HTTP request is checked against."""
    return vault.load(OWNER, "header", HEADER)


def reset_token(vault: SecretVault, folder: Path | None = None) -> str:
    """A new token replaces the old one; a running HTTP gateway refuses the old one from the next request.

    ``folder``: the data folder whose gateways are told (default: this process's).
    """
    token = secrets.token_urlsafe(TOKEN_BYTES)
    vault.store(OWNER, "header", HEADER, token)
    atomic_write_text((folder or data_dir()) / STAMP, secrets.token_hex(8))  # after the store: see StoredToken
    return token


class StoredToken:
    """The token stored now, for a gateway that checks every request: read again only after a reset.

    The stamp is looked at before the vault is read, and a reset writes it after storing: a reset
    between the two reads leaves a stale stamp, so the next request reads again.
    """

    def __init__(self, vault: SecretVault, folder: Path) -> None:
        self._vault = vault
        self._stamp = folder / STAMP
        self._seen: tuple[int, int] | None = None
        self._token: str | None = None

    def _mark(self) -> tuple[int, int] | None:
        try:
            info = os.stat(self._stamp)  # a local stat: microseconds, on the loop
        except OSError:
            return None
        return (info.st_ino, info.st_mtime_ns)

    async def __call__(self) -> str | None:
        """The token (None: none stored yet; asked of the vault again on the next request)."""
        mark = self._mark()
        if self._token is None or mark != self._seen:
            self._token = await asyncio.to_thread(current_token, self._vault)
            self._seen = mark
        return self._token

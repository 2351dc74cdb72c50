"""The bearer token of the HTTP gateway: generated once, kept in the keyring (the vault).

It lives beside the servers' secrets, under the vault's account ``gateway:header:Authorization``
(the value every request's ``Authorization: Bearer`` header must carry).
"""

from __future__ import annotations

import secrets

from elftia_desktop.core.secrets import SecretVault

OWNER = "gateway"
HEADER = "Authorization"
TOKEN_BYTES = 32


def gateway_token(vault: SecretVault) -> str:
    """The token, generated and stored on first use (blocking: keyring access)."""
    token = vault.load(OWNER, "header", HEADER)
    if token:
        return token
    return reset_token(vault)


def current_token(vault: SecretVault) -> str | None:
    """The token stored now, without making one (blocking); what every HTTP request is checked against."""
    return vault.load(OWNER, "header", HEADER)


def reset_token(vault: SecretVault) -> str:
    """A new token replaces the old one; a running HTTP gateway refuses the old one from the next request."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    vault.store(OWNER, "header", HEADER, token)
    return token

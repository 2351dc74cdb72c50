"""The SDK's ``TokenStorage`` on the secrets vault: one server's OAuth tokens, registered client and DPoP key.

Tokens and client are JSON in the keyring (``{serverId}:oauth:tokens`` and ``{serverId}:oauth:client``),
or in the 0600 fallback file where no keyring works; the DPoP key pair (RFC 9449) is PEM text beside
them (``{serverId}:oauth:dpop_key``), made on first use. Tokens are stored with the absolute time
they expire, so a later run knows whether to refresh before it sends them, and with their type when
they are DPoP-bound (the SDK's token model knows only ``Bearer``). Vault calls touch the keyring and
files, so they run in a worker thread.
"""

from __future__ import annotations

import asyncio
import base64
import json
import time
from dataclasses import dataclass
from typing import Any

from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from elftia_desktop.core.dpop import DpopKey
from elftia_desktop.core.secrets import SecretVault

_SUBJECT_CLAIMS = ("email", "preferred_username", "name", "upn", "sub")
"""JWT claims that say who a token is for, best first."""


@dataclass
class SignInStatus:
    """What the vault knows about a server's sign-in."""

    signed_in: bool
    expires_at: float | None = None
    """Seconds since the epoch when the access token expires (None: no expiry given)."""
    scopes: list[str] | None = None
    subject: str | None = None
    """Who the token is for, where the token says (a JWT's email, username or subject)."""
    refreshable: bool = False


def token_subject(access_token: str) -> str | None:
    """Who a JWT access token is for, read from its claims without verifying it (display only)."""
    parts = access_token.split(".")
    if len(parts) != 3:
        return None
    try:
        padded = parts[1] + "=" * (-len(parts[1]) % 4)
        claims = json.loads(base64.urlsafe_b64decode(padded))
    except (ValueError, TypeError):
        return None
    if not isinstance(claims, dict):
        return None
    return next((str(claims[c]) for c in _SUBJECT_CLAIMS if isinstance(claims.get(c), str | int)), None)


class VaultTokenStorage:
    """``TokenStorage`` (``mcp.client.auth``) for one server, on the vault."""

    def __init__(self, vault: SecretVault, server_id: str, fixed_client: OAuthClientInformationFull | None = None):
        self.vault = vault
        self.server_id = server_id
        self.fixed_client = fixed_client
        """A pre-registered client from the config: returned instead of a stored registration."""
        self.dpop_bound = False
        """The current access token is DPoP-bound (``token_type: DPoP``): it is sent with a proof."""

    def _read(self, name: str) -> dict[str, Any] | None:
        text = self.vault.load(self.server_id, "oauth", name)
        if not text:
            return None
        try:
            data = json.loads(text)
        except ValueError:
            return None
        return data if isinstance(data, dict) else None

    def _write(self, name: str, data: dict[str, Any]) -> None:
        self.vault.store(self.server_id, "oauth", name, json.dumps(data))

    def load_tokens(self) -> OAuthToken | None:
        """The stored tokens, ``expires_in`` counted from now (sync)."""
        data = self._read("tokens")
        if data is None:
            return None
        issuer = data.pop("issuer", None)
        if issuer is not None and issuer != self._client_issuer():
            return None  # keyed by issuer: tokens of another authorization server are never sent (migration)
        self.dpop_bound = str(data.pop("token_type", "")).lower() == "dpop"
        expires_at = data.pop("expires_at", None)
        if isinstance(expires_at, int | float):
            data["expires_in"] = int(expires_at - time.time())
        try:
            return OAuthToken.model_validate(data)
        except ValueError:
            return None

    async def get_tokens(self) -> OAuthToken | None:
        """Stored tokens."""
        return await asyncio.to_thread(self.load_tokens)

    async def set_tokens(self, tokens: OAuthToken) -> None:
        """Store tokens, with the absolute time they expire."""
        data = tokens.model_dump(mode="json", exclude_none=True)
        if self.dpop_bound:
            data["token_type"] = "DPoP"
        if tokens.expires_in is not None:
            data["expires_at"] = time.time() + tokens.expires_in

        def write() -> None:
            """Write the tokens with the issuer they came from (in a worker thread)."""
            issuer = self._client_issuer()
            self._write("tokens", data | ({"issuer": issuer} if issuer else {}))

        await asyncio.to_thread(write)

    def _client_issuer(self) -> str | None:
        """The authorization server the registered client belongs to (the SDK records it: SEP-2352)."""
        client = self.fixed_client or self.load_client()
        return client.issuer if client is not None else None

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        """The pre-registered client, else the one registered dynamically."""
        if self.fixed_client is not None:
            return self.fixed_client
        return await asyncio.to_thread(self.load_client)

    def load_client(self) -> OAuthClientInformationFull | None:
        """The dynamically registered client (sync)."""
        data = self._read("client")
        try:
            return OAuthClientInformationFull.model_validate(data) if data is not None else None
        except ValueError:
            return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        """Store a dynamically registered client (a pre-registered one is never written)."""
        if self.fixed_client is not None and client_info.client_id == self.fixed_client.client_id:
            return
        await asyncio.to_thread(self._write, "client", client_info.model_dump(mode="json", exclude_none=True))

    def dpop_key(self) -> DpopKey:
        """This server's DPoP key pair: the stored one, else a new one, stored (sync)."""
        pem = self.vault.load(self.server_id, "oauth", "dpop_key")
        if pem:
            try:
                return DpopKey.from_pem(pem)
            except ValueError:
                pass  # unreadable: replaced below (tokens bound to it are refused and signed in again)
        key = DpopKey.generate()
        self.vault.store(self.server_id, "oauth", "dpop_key", key.to_pem())
        return key

    def forget_client(self) -> None:
        """Drop the registered client, so the next sign-in registers again (sync)."""
        self.vault.delete(self.server_id, "oauth", "client")

    def status(self) -> SignInStatus:
        """Whether there are tokens, when they expire, their scopes and who they are for (sync)."""
        data = self._read("tokens")
        if data is None or not data.get("access_token"):
            return SignInStatus(signed_in=False)
        expires_at = data.get("expires_at")
        scope = data.get("scope")
        return SignInStatus(
            signed_in=True,
            expires_at=float(expires_at) if isinstance(expires_at, int | float) else None,
            scopes=scope.split() if isinstance(scope, str) else None,
            subject=token_subject(str(data["access_token"])),
            refreshable=bool(data.get("refresh_token")),
        )

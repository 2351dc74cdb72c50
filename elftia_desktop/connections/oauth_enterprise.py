"""Enterprise-managed authorization (SEP-990): the SDK's ``IdentityAssertionOAuthProvider`` and its leg 1.

The SDK does leg 2: it presents an identity assertion (ID-JAG) to the MCP authorization server named
by ``oauth.issuer`` (RFC 7523 jwt-bearer) and gets the access token. Leg 1, getting that assertion,
the SDK leaves to the application: here it is an RFC 8693 token exchange at the enterprise identity
provider (``oauth.identityAssertion``): the user's ID token in, an ID-JAG for the authorization server
(``audience``) and the MCP server (``resource``) out. No browser is involved, so a background
reconnect may do it too; tokens are kept like every other sign-in's (``VaultTokenStorage``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Literal

import httpx2
from mcp.client.auth import OAuthFlowError
from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider

from elftia_desktop.connections.oauth_hooks import FlowHooks
from elftia_desktop.connections.oauth_storage import VaultTokenStorage
from elftia_desktop.core.models import McpOAuthConfig, McpServerRecord
from elftia_desktop.core.oauth_config import IdentityAssertionConfig

TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"
ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token"
EXCHANGE_TIMEOUT = 30.0
"""Seconds the identity provider has to answer the token exchange."""


class AppIdentityAssertionProvider(FlowHooks, IdentityAssertionOAuthProvider):
    """The SDK's SEP-990 provider with our failure recording."""


def id_jag_source(settings: IdentityAssertionConfig, id_token: str) -> Callable[[str, str], Awaitable[str]]:
    """The SDK's ``assertion_provider``: exchanges ``id_token`` at the identity provider for an ID-JAG."""

    async def fetch_id_jag(audience: str, resource: str) -> str:
        """RFC 8693 token exchange: the ID token for an ID-JAG naming ``audience`` and ``resource``."""
        form = {
            "grant_type": TOKEN_EXCHANGE,
            "requested_token_type": ID_JAG,
            "subject_token": id_token,
            "subject_token_type": ID_TOKEN,
            "audience": audience,
            "resource": resource,
            "client_id": settings.idp_client_id,
        }
        async with httpx2.AsyncClient(timeout=EXCHANGE_TIMEOUT) as http:
            response = await http.post(settings.idp_token_endpoint, data=form)
        return _assertion_of(response)

    return fetch_id_jag


def _assertion_of(response: httpx2.Response) -> str:
    """The ID-JAG of the identity provider's answer, or ``OAuthFlowError`` saying what it answered instead."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if response.status_code != 200 or not isinstance(body, dict):
        said = body.get("error_description") or body.get("error") if isinstance(body, dict) else None
        detail = f": {said}" if said else ""
        raise OAuthFlowError(f"the identity provider refused the token exchange (HTTP {response.status_code}){detail}")
    token = body.get("access_token")
    if not isinstance(token, str) or not token:
        raise OAuthFlowError("the identity provider's token exchange answer has no access_token (the ID-JAG)")
    return token


def identity_assertion_provider(
    record: McpServerRecord, oauth: McpOAuthConfig, storage: VaultTokenStorage, secrets: dict[str, str]
) -> AppIdentityAssertionProvider:
    """The SEP-990 provider of a record whose ``oauth`` object has an ``identityAssertion`` (validated there)."""
    settings = oauth.identity_assertion
    assert settings is not None and oauth.client_id and oauth.issuer
    method: Literal["client_secret_basic", "client_secret_post"] = (
        "client_secret_basic" if oauth.token_endpoint_auth_method == "client_secret_basic" else "client_secret_post"
    )
    return AppIdentityAssertionProvider(
        server_url=record.config.url or "",
        storage=storage,
        client_id=oauth.client_id,
        client_secret=secrets.get("clientSecret", ""),
        issuer=oauth.issuer,
        assertion_provider=id_jag_source(settings, secrets.get("idpIdToken", "")),
        scope=" ".join(oauth.scopes) if oauth.scopes else None,
        token_endpoint_auth_method=method,
    )

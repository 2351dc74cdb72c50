"""The SDK's OAuth providers for a server record.

``build_auth`` makes the ``httpx2.Auth`` of an SSE/HTTP record (``oauth_applies``): the
SDK's ``OAuthClientProvider`` (authorization code + PKCE, discovery, registration or a client ID
metadata document, refresh, step-up), its ``ClientCredentialsOAuthProvider`` /
``PrivateKeyJWTOAuthProvider`` for the ``client_credentials`` grant, or its
``IdentityAssertionOAuthProvider`` for enterprise-managed authorization (``oauth_enterprise``).
The flow is the SDK's; ours are the storage, the redirect and callback handlers, and small hooks
(``_AppHooks``, ``FlowHooks``): the stored expiry is honoured after a restart, configured scopes
are added to the ones the SDK selects, and a failure inside the flow is recorded on the gate (the
transports only log it).

The gate that decides who may sign in (``SignInGate``) is in ``oauth_gate``: this module's imports
are loaded only for a server that signs in.
"""

from __future__ import annotations

import logging
import shlex
import warnings
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

import httpx2
from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
    SignedJWTParameters,
)
from mcp.client.auth.utils import union_scopes
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata
from mcp.shared.exceptions import MCPDeprecationWarning
from pydantic import AnyUrl

from elftia_desktop.connections.errors import leaf_exception
from elftia_desktop.connections.oauth_callback import APP_TITLE, CallbackServer, free_port, redirect_uri
from elftia_desktop.connections.oauth_dpop import DpopHooks
from elftia_desktop.connections.oauth_enterprise import identity_assertion_provider
from elftia_desktop.connections.oauth_gate import MAX_SIGN_IN_ATTEMPTS, SignInGate
from elftia_desktop.connections.oauth_hooks import FlowHooks
from elftia_desktop.connections.oauth_storage import VaultTokenStorage
from elftia_desktop.core.errors import ServerAuthRequired
from elftia_desktop.core.models import McpOAuthConfig, McpServerRecord

log = logging.getLogger(__name__)


class _QuietRefusal(logging.Filter):
    """Drops the SDK's tracebacks of our own "sign-in required" refusal (a background connect met a 401)."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Keep every record except one carrying our refusal."""
        exc = record.exc_info[1] if record.exc_info else None
        return exc is None or not isinstance(leaf_exception(exc), ServerAuthRequired)


for _logger in ("mcp.client.auth.oauth2", "mcp.client.streamable_http", "mcp.client.sse"):
    logging.getLogger(_logger).addFilter(_QuietRefusal())


class _AppHooks(FlowHooks, DpopHooks):
    """Mixed into the SDK's ``OAuthClientProvider`` family: honour the stored expiry, add configured scopes,
    and DPoP where the authorization server offers it (``oauth_dpop``; under ``FlowHooks``, so its failures
    are recorded on the gate too)."""

    context: Any

    async def _initialize(self) -> None:
        await super()._initialize()  # type: ignore[misc]
        tokens = self.context.current_tokens
        if tokens is not None and tokens.expires_in is not None:
            self.context.update_token_expiry(tokens)  # so an expired token is refreshed, not sent

    async def _perform_authorization(self) -> httpx2.Request:
        if self._extra_scopes:
            self.context.client_metadata.scope = union_scopes(self.context.client_metadata.scope, self._extra_scopes)
        request: httpx2.Request = await super()._perform_authorization()  # type: ignore[misc]
        return request


class AppOAuthProvider(_AppHooks, OAuthClientProvider):
    """The authorization-code provider with our hooks."""


class AppClientCredentialsProvider(_AppHooks, ClientCredentialsOAuthProvider):
    """``client_credentials`` with a client secret, with our hooks."""


class AppPrivateKeyJWTProvider(_AppHooks, PrivateKeyJWTOAuthProvider):
    """``client_credentials`` with a ``private_key_jwt`` assertion, with our hooks."""


class SignInHandlers:
    """The redirect and callback handlers of one provider."""

    def __init__(self, record: McpServerRecord, gate: SignInGate, port: int, storage: VaultTokenStorage) -> None:
        self.record = record
        self.gate = gate
        self.port = port
        self.storage = storage
        self._server: CallbackServer | None = None

    async def redirect(self, authorization_url: str) -> None:
        """Start the callback server and show the URL, or refuse when nobody can sign in now."""
        name = self.record.name
        if not self.gate.interactive:
            raise ServerAuthRequired(
                f"sign-in required (press Sign in, or run: elftia-mcp login {shlex.quote(name)})", server_name=name
            )
        self.gate.attempts += 1
        if self.gate.attempts > MAX_SIGN_IN_ATTEMPTS:
            raise ServerAuthRequired(f"sign-in did not succeed after {MAX_SIGN_IN_ATTEMPTS} attempts", server_name=name)
        state = parse_qs(urlsplit(authorization_url).query).get("state", [None])[0]
        server = CallbackServer(name, self.port, state)
        try:
            await server.start()
        except ServerAuthRequired:
            if (
                self.storage.fixed_client is None
                and self.record.config.oauth
                and not self.record.config.oauth.redirect_port
            ):
                self.storage.forget_client()  # the next attempt registers again on a free port
            raise
        self._server = server
        assert self.gate.prompt is not None
        self.gate.begin_wait()
        try:
            await self.gate.prompt(self.record, authorization_url)
        except BaseException:
            self.gate.end_wait()
            await server.close()
            raise

    async def callback(self) -> AuthorizationCodeResult:
        """Wait (up to 5 minutes) for the browser to come back."""
        server, self._server = self._server, None
        if server is None:
            raise ServerAuthRequired("the sign-in did not start", server_name=self.record.name)
        try:
            return await server.wait()
        finally:
            self.gate.end_wait()


def _callback_port(oauth: McpOAuthConfig, storage: VaultTokenStorage) -> int:
    """The configured port, else the one the stored registration names, else a free one."""
    if oauth.redirect_port:
        return oauth.redirect_port
    client = storage.load_client() if storage.fixed_client is None else None
    registered = client.redirect_uris or [] if client is not None else []
    for uri in registered:
        if uri.host == "127.0.0.1" and uri.port:
            return int(uri.port)
    return free_port()


def _scope(oauth: McpOAuthConfig) -> str | None:
    return " ".join(oauth.scopes) if oauth.scopes else None


def _client_credentials(
    record: McpServerRecord, oauth: McpOAuthConfig, storage: VaultTokenStorage, secrets: dict[str, str]
) -> AppClientCredentialsProvider | AppPrivateKeyJWTProvider:
    assert oauth.client_id
    url = record.config.url or ""
    with warnings.catch_warnings():  # no issuer configured: the SDK warns that 3.0 will need one
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        if oauth.token_endpoint_auth_method == "private_key_jwt":
            signer = SignedJWTParameters(
                issuer=oauth.client_id,
                subject=oauth.client_id,
                signing_key=secrets["privateKey"],
                signing_algorithm=oauth.signing_algorithm,
            )
            return AppPrivateKeyJWTProvider(
                url, storage, oauth.client_id, signer.create_assertion_provider(), _scope(oauth), oauth.issuer
            )
        method: Literal["client_secret_basic", "client_secret_post"] = (
            "client_secret_post" if oauth.token_endpoint_auth_method == "client_secret_post" else "client_secret_basic"
        )
        return AppClientCredentialsProvider(
            url, storage, oauth.client_id, secrets.get("clientSecret", ""), method, _scope(oauth), oauth.issuer
        )


def build_auth(
    record: McpServerRecord, storage: VaultTokenStorage, secrets: dict[str, str], gate: SignInGate
) -> httpx2.Auth:
    """The SDK provider for a remote ``record`` (its ``oauth`` object, or discovery alone), wired to the gate."""
    oauth = record.config.oauth or McpOAuthConfig()
    provider: FlowHooks
    if oauth.identity_assertion is not None:
        provider = identity_assertion_provider(record, oauth, storage, secrets)
    elif oauth.grant_type == "client_credentials":
        provider = _client_credentials(record, oauth, storage, secrets)
    else:
        method = oauth.token_endpoint_auth_method or ("client_secret_basic" if secrets.get("clientSecret") else "none")
        port = _callback_port(oauth, storage)
        redirect = [AnyUrl(redirect_uri(port))]
        if oauth.client_id:
            storage.fixed_client = OAuthClientInformationFull(
                client_id=oauth.client_id,
                client_secret=secrets.get("clientSecret"),
                redirect_uris=redirect,
                token_endpoint_auth_method=method,
                grant_types=["authorization_code", "refresh_token"],
            )
        metadata = OAuthClientMetadata(
            redirect_uris=redirect,
            client_name=APP_TITLE,
            grant_types=["authorization_code", "refresh_token"],
            token_endpoint_auth_method=method,
        )
        handlers = SignInHandlers(record, gate, port, storage)
        provider = AppOAuthProvider(
            record.config.url or "",
            metadata,
            storage,
            handlers.redirect,
            handlers.callback,
            client_metadata_url=oauth.client_metadata_url,
        )
    provider._gate = gate
    provider._extra_scopes = _scope(oauth)
    provider._challenge_only = record.config.oauth is None
    assert isinstance(provider, httpx2.Auth)
    return provider

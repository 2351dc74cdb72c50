"""The ``oauth`` object of an SSE/HTTP server's config (re-exported by ``core.models``).

camelCase JSON keys like the rest of the config (the Inspector and Cline write similar ones);
``clientSecret``, ``privateKey`` and ``identityAssertion.idpIdToken`` are ``${secret:NAME}``
references once saved (the values are in the keyring, see ``core/secrets.py``).

Enterprise-managed authorization (SEP-990) is an ``identityAssertion`` sub-object next to the keys of
the SDK's ``IdentityAssertionOAuthProvider`` (``clientId``, ``clientSecret``, ``issuer``, ``scopes``,
``tokenEndpointAuthMethod``): the enterprise identity provider's token endpoint, the client id the
app has there, and the user's ID token, exchanged there (RFC 8693) for the identity assertion that
the MCP authorization server takes (RFC 7523 jwt-bearer).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.alias_generators import to_camel

OAuthGrantType = Literal["authorization_code", "client_credentials"]
TokenEndpointAuthMethod = Literal["client_secret_basic", "client_secret_post", "none", "private_key_jwt"]


OAUTH_SECRETS: dict[str, tuple[str, ...]] = {
    "clientSecret": ("client_secret",),
    "privateKey": ("private_key",),
    "idpIdToken": ("identity_assertion", "idp_id_token"),
}
"""The settings that go to the keyring: secret name -> attribute path from the ``oauth`` object."""


class IdentityAssertionConfig(BaseModel):
    """Where the identity assertion (ID-JAG) of enterprise-managed authorization comes from (SEP-990 leg 1)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")

    idp_token_endpoint: str
    """The enterprise identity provider's token endpoint (RFC 8693 token exchange)."""
    idp_client_id: str
    """The client id the app has at the identity provider."""
    idp_id_token: str | None = None
    """The user's ID token from the identity provider (kept in the keyring)."""

    @field_validator("idp_token_endpoint")
    @classmethod
    def _web_address(cls, value: str) -> str:
        if not value.startswith(("https://", "http://")):
            raise ValueError("expected an http(s):// URL")
        return value


class McpOAuthConfig(BaseModel):
    """OAuth 2.1 sign-in of an SSE/HTTP server (the SDK's ``OAuthClientProvider`` does the flow).

    Everything is optional: an empty object means dynamic client registration with the
    scopes the server asks for. Secret values are ``${secret:NAME}`` references. Unknown keys
    (written by a newer version) are kept.
    """

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")

    client_id: str | None = None
    """A pre-registered client id; unset: register dynamically (or use ``clientMetadataUrl``)."""
    client_secret: str | None = None
    """The pre-registered client's secret (kept in the keyring)."""
    scopes: list[str] | None = None
    """Scopes to ask for; unset: the ones the server names (``WWW-Authenticate``, then its metadata)."""
    grant_type: OAuthGrantType = "authorization_code"
    """``authorization_code`` (a person signs in in the browser) or ``client_credentials`` (machine to machine)."""
    token_endpoint_auth_method: TokenEndpointAuthMethod | None = None
    """How the client authenticates at the token endpoint; unset: basic with a secret, else none."""
    private_key: str | None = None
    """``private_key_jwt``: the PEM private key that signs the client assertion (kept in the keyring)."""
    signing_algorithm: str = "RS256"
    """``private_key_jwt``: the JWT algorithm (``RS256``, ``ES256`` ...)."""
    client_metadata_url: str | None = None
    """A URL-based client id (client ID metadata document), used when the authorization server supports it."""
    issuer: str | None = None
    """``client_credentials``: the authorization server the credentials belong to; tokens are asked only there."""
    redirect_port: int | None = Field(default=None, ge=1, le=65535)
    """The loopback port of the sign-in callback, for a client registered with a fixed redirect URI."""
    identity_assertion: IdentityAssertionConfig | None = None
    """Enterprise-managed authorization (SEP-990): the token comes from the identity provider, no browser."""

    @model_validator(mode="before")
    @classmethod
    def _scope_is_scopes(cls, data: Any) -> Any:
        """Accept ``scope`` (a space-separated string, as the Inspector writes it) for ``scopes``."""
        if isinstance(data, dict) and "scope" in data and "scopes" not in data:
            data = {k: v for k, v in data.items() if k != "scope"} | {"scopes": data["scope"]}
        return data

    @field_validator("scopes", mode="before")
    @classmethod
    def _space_separated(cls, value: Any) -> Any:
        if isinstance(value, str):
            return value.split()
        return value

    @model_validator(mode="after")
    def _fields_fit_grant(self) -> McpOAuthConfig:
        method = self.token_endpoint_auth_method
        if self.grant_type == "client_credentials":
            if not (self.client_id or "").strip():
                raise ValueError("oauth.clientId: the client_credentials grant needs a client id")
            if method == "private_key_jwt" and not self.private_key:
                raise ValueError("oauth.privateKey: private_key_jwt needs the PEM private key")
            if method != "private_key_jwt" and not self.client_secret:
                raise ValueError(
                    "oauth.clientSecret: the client_credentials grant needs a client secret or a private key"
                )
        elif method == "private_key_jwt":
            raise ValueError("oauth.tokenEndpointAuthMethod: private_key_jwt works with grantType client_credentials")
        if self.identity_assertion is not None:
            self._fits_identity_assertion()
        if self.client_metadata_url is not None and not self.client_metadata_url.startswith("https://"):
            raise ValueError("oauth.clientMetadataUrl: expected an https:// URL with a path")
        return self

    def _fits_identity_assertion(self) -> None:
        """The SDK's provider needs a confidential client and the authorization server's issuer."""
        need = "enterprise-managed authorization (identityAssertion) needs"
        if self.grant_type == "client_credentials":
            raise ValueError("oauth.identityAssertion: not with grantType client_credentials")
        for value, key, what in (
            (self.client_id, "clientId", "the client id at the MCP authorization server"),
            (self.client_secret, "clientSecret", "the client secret (a confidential client)"),
            (self.issuer, "issuer", "the MCP authorization server's issuer (it is configuration, not discovery)"),
            (self.secret("idpIdToken"), "identityAssertion.idpIdToken", "the ID token from the identity provider"),
        ):
            if not (value or "").strip():
                raise ValueError(f"oauth.{key}: {need} {what}")
        if self.token_endpoint_auth_method not in (None, "client_secret_basic", "client_secret_post"):
            raise ValueError(f"oauth.tokenEndpointAuthMethod: {need} client_secret_basic or client_secret_post")

    def secret(self, name: str) -> str | None:
        """The value (or ``${secret:NAME}`` reference) of the secret setting ``name`` (a key of ``OAUTH_SECRETS``)."""
        owner: Any = self
        for attribute in OAUTH_SECRETS[name]:
            owner = getattr(owner, attribute, None)
        return owner if isinstance(owner, str) else None

    def set_secret(self, name: str, value: str | None) -> None:
        """Set the secret setting ``name`` (its owner must exist: a sub-object is not created)."""
        *path, attribute = OAUTH_SECRETS[name]
        owner: Any = self
        for step in path:
            owner = getattr(owner, step)
        if owner is not None:
            setattr(owner, attribute, value)

    def to_json_dict(self) -> dict[str, Any]:
        """The JSON shape: camelCase keys, unset optionals left out."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)

"""A server as the add/edit form holds it (``ServerDraft``), checked into an ``McpServerInput`` or field errors.

The form's sections give what the user typed, valid or not: a frozen draft, with the sandbox
(``SandboxDraft``) and the OAuth sign-in (``OAuthDraft``) as parts of their own. ``ServerDraft.check``
validates it with ``McpServerInput`` and answers a ``DraftCheck``: the server for ``mcp:add`` (and
``ServerDraft.change`` the ``McpServerUpdate`` for ``mcp:update``), or each problem as a ``FieldError``
(the field's path in the server's JSON, such as ``config.url``, and the message). A draft of a saved
server keeps what the form does not show (the config's ``protocol``, the ``list`` timeout, OAuth keys
of a newer version), so saving an unchanged server writes it back as it was.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from elftia_desktop.core.models import (
    McpOAuthConfig,
    McpSandbox,
    McpServerInput,
    McpServerRecord,
    McpServerScope,
    McpServerTransport,
)
from elftia_desktop.core.server_update import McpServerUpdate
from elftia_desktop.core.trust import needs_confirmation

FORM_CONFIG_FIELDS = {"command", "args", "env", "cwd", "url", "headers", "oauth", "timeout"}
"""The config fields the form edits; any other (``protocol``, a newer version's) is kept from the record."""
FORM_OAUTH_KEYS = {
    *("grantType", "clientId", "clientSecret", "scopes", "scope", "tokenEndpointAuthMethod", "privateKey"),
    *("signingAlgorithm", "clientMetadataUrl", "issuer", "redirectPort"),
}
"""The ``oauth`` fields the form edits; any other (``identityAssertion``, a newer version's) is kept."""


@dataclass(frozen=True)
class FieldError:
    """One problem of a draft: the field's path in the server's JSON (``""``: the whole server) and why."""

    path: str
    message: str


def field_error(loc: Sequence[str | int], message: str) -> FieldError:
    """The field an error names (its ``loc``, else a ``path: `` prefix of the message) and its message.

    A prefix that goes on from ``loc`` (``oauth.clientId: …`` at ``config.oauth``) makes the path longer.
    pydantic's ``Value error, `` goes; the message starts with a capital.
    """
    message = message.removeprefix("Value error, ")
    parts = [str(part) for part in loc]
    prefix, _colon, rest = message.partition(": ")
    if rest and " " not in prefix and (not parts or prefix.startswith(f"{parts[-1]}.")):
        parts, message = [*parts[:-1], prefix], rest
    return FieldError(".".join(parts), message[:1].upper() + message[1:])


@dataclass(frozen=True)
class SandboxDraft:
    """The Sandbox section: on or off, the paths it may read and write, its network."""

    enabled: bool
    allow_read: tuple[str, ...] = ()
    allow_write: tuple[str, ...] = ()
    net: str = "none"
    allow_net: tuple[str, ...] = ()

    @classmethod
    def of(cls, sandbox: McpSandbox) -> SandboxDraft:
        """The draft of a saved profile."""
        return cls(
            sandbox.enabled,
            tuple(sandbox.allow_read),
            tuple(sandbox.allow_write),
            sandbox.net,
            tuple(sandbox.allow_net),
        )

    def as_json(self) -> dict[str, Any]:
        """The record's ``sandbox`` object."""
        return {
            "enabled": self.enabled,
            "allowRead": list(self.allow_read),
            "allowWrite": list(self.allow_write),
            "net": self.net,
            "allowNet": list(self.allow_net) if self.net == "allow" else [],
        }


def preset_sandbox_draft(profile: Mapping[str, Any]) -> tuple[SandboxDraft, tuple[str, ...]]:
    """A preset's sandbox profile as the form shows it, and its ``writeValues`` (keys of the folders it writes)."""
    fields = {k: v for k, v in profile.items() if k not in ("writeValues", "writeParentOf")}
    return SandboxDraft.of(McpSandbox.model_validate(fields)), tuple(profile.get("writeValues", ()))


@dataclass(frozen=True)
class OAuthDraft:
    """The OAuth sign-in fields; ``kept``: the saved config, whose fields the form does not show stay."""

    grant_type: str = "authorization_code"
    client_id: str = ""
    client_secret: str = ""
    scopes: tuple[str, ...] = ()
    token_endpoint_auth_method: str = ""
    private_key: str = ""
    signing_algorithm: str = "RS256"
    client_metadata_url: str = ""
    issuer: str = ""
    redirect_port: int = 0
    kept: McpOAuthConfig | None = None

    @classmethod
    def of(cls, oauth: McpOAuthConfig) -> OAuthDraft:
        """The draft of a saved ``oauth`` object."""
        return cls(
            grant_type=oauth.grant_type,
            client_id=oauth.client_id or "",
            client_secret=oauth.client_secret or "",
            scopes=tuple(oauth.scopes or ()),
            token_endpoint_auth_method=oauth.token_endpoint_auth_method or "",
            private_key=oauth.private_key or "",
            signing_algorithm=oauth.signing_algorithm,
            client_metadata_url=oauth.client_metadata_url or "",
            issuer=oauth.issuer or "",
            redirect_port=oauth.redirect_port or 0,
            kept=oauth,
        )

    @property
    def advanced(self) -> bool:
        """True when a rarely needed field is set (the form unfolds them)."""
        fields = (self.token_endpoint_auth_method, self.private_key, self.client_metadata_url, self.issuer)
        return any(fields) or bool(self.redirect_port)

    def as_json(self) -> dict[str, Any]:
        """The config's ``oauth`` object: the fields set (defaults left out), over the kept ones."""
        kept = self.kept.to_json_dict() if self.kept is not None else {}
        values: dict[str, Any] = {
            "clientId": self.client_id.strip(),
            "clientSecret": self.client_secret,
            "scopes": list(self.scopes),
            "tokenEndpointAuthMethod": self.token_endpoint_auth_method,
            "privateKey": self.private_key.strip(),
            "clientMetadataUrl": self.client_metadata_url.strip(),
            "issuer": self.issuer.strip(),
            "redirectPort": self.redirect_port,
        }
        if self.grant_type != "authorization_code":
            values["grantType"] = self.grant_type
        if self.signing_algorithm != "RS256":
            values["signingAlgorithm"] = self.signing_algorithm
        unshown = {k: v for k, v in kept.items() if k not in FORM_OAUTH_KEYS}
        return unshown | {k: v for k, v in values.items() if v}


@dataclass(frozen=True)
class DraftCheck:
    """What checking a draft gives: the server (None while it has errors) and its errors in the model's order."""

    server: McpServerInput | None
    errors: tuple[FieldError, ...] = ()


@dataclass(frozen=True)
class ServerDraft:
    """The add/edit form's server, field by field, as typed (preset placeholders already filled).

    ``record``: the saved server being edited (its fields the form does not show are kept);
    ``from_link``: the form was opened from an install link (saved untrusted, ``installSource: protocol``).
    """

    name: str
    transport: McpServerTransport = McpServerTransport.STDIO
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str = ""
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    oauth: OAuthDraft | None = None
    connect_timeout: float = 0
    call_timeout: float = 0
    scope: McpServerScope = McpServerScope.USER
    project_path: str = ""
    sandbox: SandboxDraft | None = None
    secret_keys: tuple[str, ...] = ()
    record: McpServerRecord | None = None
    from_link: bool = False

    def as_json(self) -> dict[str, Any]:
        """The server in the ``McpServerInput`` JSON shape (what the form's probe shows)."""
        data: dict[str, Any] = {"name": self.name.strip(), "type": self.transport.value, "config": self._config()}
        if self.sandbox is not None:
            data["sandbox"] = self.sandbox.as_json()
        data["scope"] = self.scope.value
        if self.scope is McpServerScope.LOCAL:
            data["projectPath"] = self.project_path
        if self.from_link:
            data["isTrusted"], data["installSource"] = False, "protocol"  # confirmed before it runs
        elif self.record is None:
            data["isTrusted"] = True  # typed or picked in the form, seeing what it runs
        if self.secret_keys:
            data["secretKeys"] = list(self.secret_keys)
        return data

    def check(self) -> DraftCheck:
        """Validate with ``McpServerInput``: the server, or every error with the field it names."""
        try:
            return DraftCheck(McpServerInput.model_validate(self.as_json()))
        except ValidationError as exc:
            return DraftCheck(None, tuple(field_error(error["loc"], error["msg"]) for error in exc.errors()))

    def change(self, server: McpServerInput) -> McpServerUpdate:
        """``mcp:update``'s change for the edited record from the checked ``server``: every field the form
        shows (the other transport's cleared) and the names marked secret; a trusted server stays trusted
        after the user's own edit."""
        change = McpServerUpdate(
            name=server.name,
            type=server.type,
            config=server.config,
            scope=server.scope,
            project_path=server.project_path,
            sandbox=server.sandbox,
        )
        if server.secret_keys:  # a value newly marked secret moves to the keyring (saved ones stay references)
            change.secret_keys = list(server.secret_keys)
        if self.record is not None and not needs_confirmation(self.record):
            change.is_trusted = True
        return change

    def _config(self) -> dict[str, Any]:
        kept: dict[str, Any] = {}
        if self.record is not None:
            kept = self.record.config.to_json_dict()
            kept = {k: v for k, v in kept.items() if k not in FORM_CONFIG_FIELDS}
        if self.transport is McpServerTransport.STDIO:
            config = {"command": self.command.strip(), "args": list(self.args), "env": dict(self.env)}
            if self.cwd:
                config["cwd"] = self.cwd
        else:
            config = {"url": self.url.strip(), "headers": dict(self.headers)}
            if self.oauth is not None:
                config["oauth"] = self.oauth.as_json()
        timeout = self._timeout()
        if timeout:
            config["timeout"] = timeout
        return kept | config

    def _timeout(self) -> dict[str, Any]:
        saved = self.record.config.timeout if self.record is not None else None
        kept = saved.to_json_dict() if saved is not None else {}
        kept = {k: v for k, v in kept.items() if k not in ("connect", "call")}
        for key, seconds in (("connect", self.connect_timeout), ("call", self.call_timeout)):
            if seconds > 0:
                kept[key] = float(seconds)
        return kept

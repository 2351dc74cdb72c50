"""The shared data model (the original ``mcp-types.ts``) as pydantic v2 models.

Python attributes are snake_case; the JSON field names are the original camelCase ones
(``isActive``, ``disabledTools`` ...), so files written by the Electron app load unchanged.
Records keep unknown fields written by a newer version (``extra="allow"``). The agents' models
(``core/agent_models.py``), the OAuth config (``core/oauth_config.py``), what servers and runtimes
answer (``core/results.py``) and the base classes
(``core/model_base.py``) live in their own modules and are re-exported here, the one module of
``core`` the UI imports.
"""

from __future__ import annotations

import re
import secrets
import time
from enum import StrEnum
from typing import Any, Literal
from urllib.parse import urlparse

from pydantic import Field, field_validator, model_validator

from elftia_desktop.core.agent_models import Agent as Agent  # re-exported: ui imports core.models
from elftia_desktop.core.agent_models import AgentToolSummary as AgentToolSummary
from elftia_desktop.core.agent_models import AgentUpdate as AgentUpdate
from elftia_desktop.core.agent_models import McpMode as McpMode
from elftia_desktop.core.agent_models import ProviderPayload as ProviderPayload
from elftia_desktop.core.agent_models import new_agent_id as new_agent_id
from elftia_desktop.core.model_base import CamelModel as _Model
from elftia_desktop.core.model_base import OpenCamelModel as _OpenModel
from elftia_desktop.core.model_base import now_ms as now_ms
from elftia_desktop.core.oauth_config import McpOAuthConfig as McpOAuthConfig  # re-exported: ui imports core.models
from elftia_desktop.core.oauth_config import OAuthGrantType as OAuthGrantType
from elftia_desktop.core.results import DependencyCheckResult as DependencyCheckResult  # re-exported
from elftia_desktop.core.results import DependencyInstallResult as DependencyInstallResult
from elftia_desktop.core.results import MCPCallToolResponse as MCPCallToolResponse
from elftia_desktop.core.results import McpDiscoverResult as McpDiscoverResult
from elftia_desktop.core.results import McpTestResult as McpTestResult
from elftia_desktop.core.results import MCPTool as MCPTool
from elftia_desktop.core.results import McpToolListing as McpToolListing
from elftia_desktop.core.sandbox import McpSandbox as McpSandbox  # re-exported: ui imports core.models
from elftia_desktop.core.text_rules import (
    MAX_TIMEOUT_SECONDS,
    check_args,
    check_command,
    check_env_values,
    check_header_values,
    check_name,
    check_no_control,
    check_url_text,
    quoted,
)

ENV_KEY_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\Z")
HEADER_NAME_PATTERN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+\Z")


PROTOCOL_VERSION_PATTERN = re.compile(r"\d{4}-\d{2}-\d{2}")


class McpServerTransport(StrEnum):
    """How the app talks to a server."""

    STDIO = "stdio"
    SSE = "sse"
    HTTP = "http"


TRANSPORT_NAMES = {
    "stdio": McpServerTransport.STDIO,
    "sse": McpServerTransport.SSE,
    "http": McpServerTransport.HTTP,
    "streamablehttp": McpServerTransport.HTTP,
    "streamable-http": McpServerTransport.HTTP,
    "streamable_http": McpServerTransport.HTTP,
}
"""Every spelling of a transport seen in other apps' files and in ``server.json`` (lower-cased)."""


class McpServerScope(StrEnum):
    """``user``: everywhere; ``local``: only for one project folder."""

    USER = "user"
    LOCAL = "local"


class ConnectionState(StrEnum):
    """The live state of one server's connection."""

    DISCONNECTED = "disconnected"
    CONNECTING = "connecting"
    CONNECTED = "connected"
    ERROR = "error"
    AUTH_REQUIRED = "auth_required"
    """The server wants an OAuth sign-in; nothing retries until the user signs in."""


InstallSource = Literal["builtin", "manual", "protocol", "unknown", "registry", "bundle"]


class RegistryOrigin(_Model):
    """Where a server installed from a registry or a ``.mcpb`` bundle came from (for updates)."""

    registry: str
    """The registry's base URL, ``featured`` for the shipped entries, or ``bundle`` for a file."""
    name: str
    """The entry's name (``io.github.owner/server``) or the bundle's name."""
    version: str
    """The exact version installed."""
    package: str | None = None
    """How it was installed: ``npm``, ``pypi``, ``oci``, ``nuget``, ``mcpb`` or ``remote``."""
    inputs: dict[str, str] = Field(default_factory=dict)
    """The non-secret values the user gave, reused by an update (secret ones stay in the keyring)."""


class McpTimeouts(_OpenModel):
    """Per-phase timeouts in seconds; unset phases use the service defaults."""

    connect: float | None = Field(default=None, gt=0, le=MAX_TIMEOUT_SECONDS)
    """Starting the server and the initialize handshake (default 30 s)."""
    list_: float | None = Field(default=None, gt=0, le=MAX_TIMEOUT_SECONDS, alias="list")
    """Each list call: tools, prompts, resources (default 30 s)."""
    call: float | None = Field(default=None, gt=0, le=MAX_TIMEOUT_SECONDS)
    """One tool call (default 120 s)."""


class McpServerConfig(_OpenModel):
    """How to start or reach a server. Which fields matter depends on the transport."""

    command: str | None = None
    """stdio: the program to run (``npx``, ``uvx``, an absolute path ...)."""
    args: list[str] = Field(default_factory=list)
    """stdio: its arguments, one per item."""
    env: dict[str, str] = Field(default_factory=dict)
    """stdio: extra environment; secret values are ``${secret:NAME}`` references."""
    cwd: str | None = None
    """stdio: the working folder."""
    url: str | None = None
    """sse/http: the endpoint."""
    headers: dict[str, str] = Field(default_factory=dict)
    """sse/http: extra request headers; secret values are ``${secret:NAME}`` references."""
    timeout: McpTimeouts | None = None
    """Per-phase timeouts. A bare number is taken as the tool-call timeout in seconds."""
    oauth: McpOAuthConfig | None = None
    """sse/http: sign in with OAuth 2.1; tokens live in the keyring, never here."""
    protocol: str | None = None
    """Protocol era: ``auto`` (default: discover, else the handshake), ``legacy`` or a modern version."""

    @field_validator("protocol")
    @classmethod
    def _protocol_is_a_mode(cls, protocol: str | None) -> str | None:
        if protocol is None or protocol in ("auto", "legacy") or PROTOCOL_VERSION_PATTERN.fullmatch(protocol):
            return protocol
        raise ValueError(
            f'protocol must be "auto", "legacy" or a protocol version like "2026-07-28", not {quoted(protocol)}'
        )

    @field_validator("timeout", mode="before")
    @classmethod
    def _number_is_call_timeout(cls, value: Any) -> Any:
        if isinstance(value, bool):
            raise ValueError("timeout must be a number of seconds or an object {connect, list, call}")
        if isinstance(value, int | float):
            return {"call": value}
        return value

    @field_validator("command")
    @classmethod
    def _command_runs(cls, command: str | None) -> str | None:
        return check_command(command)

    @field_validator("args")
    @classmethod
    def _args_pass_execve(cls, args: list[str]) -> list[str]:
        return check_args(args)

    @field_validator("cwd")
    @classmethod
    def _cwd_is_a_path(cls, cwd: str | None) -> str | None:
        return None if cwd is None else check_no_control(cwd)

    @field_validator("url")
    @classmethod
    def _url_is_one_token(cls, url: str | None) -> str | None:
        return check_url_text(url)

    @field_validator("env")
    @classmethod
    def _env_keys_are_names(cls, env: dict[str, str]) -> dict[str, str]:
        for key in env:
            if not ENV_KEY_PATTERN.match(key):
                raise ValueError(
                    f"environment variable name {quoted(key)} is not valid: use letters, digits and _, "
                    "not starting with a digit"
                )
        return check_env_values(env)

    @field_validator("headers")
    @classmethod
    def _header_names_are_tokens(cls, headers: dict[str, str]) -> dict[str, str]:
        for key in headers:
            if not HEADER_NAME_PATTERN.match(key):
                raise ValueError(
                    f"HTTP header name {quoted(key)} is not valid: use letters, digits and !#$%&'*+-.^_`|~ only"
                )
        return check_header_values(headers)


def new_server_id() -> str:
    """A fresh id in the original shape ``mcp_{timestamp}_{random}``."""
    return f"mcp_{int(time.time() * 1000)}_{secrets.token_hex(4)}"


def check_server_fields(
    name: str,
    transport: McpServerTransport,
    config: McpServerConfig,
    scope: McpServerScope,
    project_path: str | None,
) -> None:
    """Raise ``ValueError`` naming the field when a server definition cannot work."""
    if not name.strip():
        raise ValueError("name: a server needs a name")
    if transport is McpServerTransport.STDIO:
        if not (config.command or "").strip():
            raise ValueError("config.command: a stdio server needs a command to run")
        if config.oauth is not None:
            raise ValueError("config.oauth: OAuth sign-in works only for SSE and Streamable HTTP servers")
    else:
        _check_url(config.url, transport)
    if scope is McpServerScope.LOCAL and not (project_path or "").strip():
        raise ValueError("projectPath: a server with scope 'local' needs its project folder")


def _check_url(url: str | None, transport: McpServerTransport) -> None:
    if not (url or "").strip():
        label = "an SSE" if transport is McpServerTransport.SSE else "a Streamable HTTP"
        raise ValueError(f"config.url: {label} server needs a URL")
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise ValueError(f"config.url: {quoted(url)} is not an absolute http(s) URL (e.g. https://example.com/mcp)")


class McpServerRecord(_OpenModel):
    """One configured server, as stored in ``mcp-config.json``."""

    id: str = Field(default_factory=new_server_id)
    name: str
    scope: McpServerScope = McpServerScope.USER
    type: McpServerTransport
    config: McpServerConfig = Field(default_factory=McpServerConfig)
    is_active: bool = True
    is_trusted: bool = False
    disabled_tools: list[str] = Field(default_factory=list)
    disabled_auto_approve_tools: list[str] = Field(default_factory=list)
    """Tools that ask before each call (the seed's meaning; see :mod:`elftia_desktop.core.approvals`)."""
    auto_approved_tools: list[str] | None = None
    """Tools the user let run without asking. None (a record from an older file): every tool not in
    ``disabledAutoApproveTools`` runs without asking, as it did; a list: a tool in neither list follows
    its ``readOnlyHint`` annotation."""
    install_source: InstallSource = "manual"
    registry_origin: RegistryOrigin | None = None
    """Set for servers installed from a registry entry or a bundle."""
    project_path: str | None = None
    trusted_launch: dict[str, Any] | None = None
    """What the user confirmed when trusting the server (command, args, cwd or url)."""
    sandbox: McpSandbox | None = None
    """stdio: the sandbox it runs in (what it may read, write and reach); None: no sandbox."""
    created_at: int = Field(default_factory=now_ms)
    updated_at: int | None = None

    @field_validator("name")
    @classmethod
    def _name_trimmed(cls, name: str) -> str:
        return check_name(name.strip())

    @model_validator(mode="after")
    def _fields_fit_transport(self) -> McpServerRecord:
        check_server_fields(self.name, self.type, self.config, self.scope, self.project_path)
        return self


class McpServerInput(_Model):
    """What a user gives to add a server (``mcp:add``)."""

    name: str
    type: McpServerTransport = McpServerTransport.STDIO
    config: McpServerConfig = Field(default_factory=McpServerConfig)
    scope: McpServerScope = McpServerScope.USER
    project_path: str | None = None
    is_active: bool = True
    is_trusted: bool = False
    disabled_tools: list[str] = Field(default_factory=list)
    disabled_auto_approve_tools: list[str] = Field(default_factory=list)
    auto_approved_tools: list[str] = Field(default_factory=list)
    """Tools to run without asking; a new server's other tools follow their ``readOnlyHint``."""
    install_source: InstallSource = "manual"
    registry_origin: RegistryOrigin | None = None
    """Set for servers installed from a registry entry or a bundle."""
    sandbox: McpSandbox | None = None
    """stdio: the sandbox it runs in; None: none."""
    secret_keys: list[str] = Field(default_factory=list)
    """Env or header names the user marked as secret, beyond the ones that look secret."""

    @field_validator("name")
    @classmethod
    def _name_trimmed(cls, name: str) -> str:
        return check_name(name.strip())

    @model_validator(mode="after")
    def _fields_fit_transport(self) -> McpServerInput:
        check_server_fields(self.name, self.type, self.config, self.scope, self.project_path)
        return self

    def to_record(self) -> McpServerRecord:
        """A new record with a fresh id and ``createdAt``."""
        data = self.model_dump(exclude={"secret_keys"})
        return McpServerRecord(**data)


class McpServerJsonInput(_Model):
    """Pasted JSON to add servers from (``mcp:addJson``)."""

    json_text: str = Field(alias="json", min_length=1)
    """The JSON text: ``{"mcpServers": {...}}``, a bare ``{name: config}`` map, or one server object."""
    trust: bool = False
    """Mark the added servers trusted (the user confirmed what they run)."""
    on_conflict: Literal["rename", "skip", "replace", "fail"] = "fail"
    """What to do when a name is taken."""


class McpServerRemoveInput(_Model):
    """Names one server by id (``mcp:remove``, ``mcp:test``, ``mcp:discover``)."""

    id: str = Field(min_length=1)


class McpServerUpdateInput(_Model):
    """``mcp:update``: the fields to change on one server."""

    id: str = Field(min_length=1)
    updates: dict[str, Any]


class McpActionResult(_Model):
    """The outcome of an action on servers."""

    success: bool
    message: str | None = None
    error: str | None = None
    server: McpServerRecord | None = None
    results: list[McpActionResult] | None = None
    """For bulk actions (``addJson``): one result per server."""
    agents_updated: list[str] = Field(default_factory=list)
    """Names of the agents the action changed (a removed server taken out of them)."""
    server_name: str | None = None
    """The server a failure is about (``error`` names it too; a UI can show ``reason`` beside it)."""
    reason: str | None = None
    """Why the action failed, without the server's name."""
    skipped: bool = False
    """Nothing was done on purpose (a server of pasted JSON whose name is taken, with ``onConflict: skip``)."""
    bad_input: bool = False
    """The failure is the request's fault (a taken name, an unknown server, a wrong field), not the app's or a
    file's: the CLI exits 2 for it, 1 for other failures."""
    connect_problem: str | None = None
    """Why a server that was saved did not connect afterwards (``message`` says it too)."""


class McpAuthStatus(_Model):
    """A server's OAuth sign-in as the servers page shows it (``mcp:auth-status``)."""

    server_id: str
    oauth: bool = False
    """The server is set up for OAuth."""
    grant_type: OAuthGrantType | None = None
    signed_in: bool = False
    """Tokens are stored (they may be expired; a refresh needs no user action)."""
    expires_at: int | None = None
    """Milliseconds since the epoch when the access token expires."""
    scopes: list[str] = Field(default_factory=list)
    subject: str | None = None
    """Who the token is for, where the server says (the token's email, username or subject)."""
    state: ConnectionState = ConnectionState.DISCONNECTED
    error: str | None = None

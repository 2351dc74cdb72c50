"""The ``server.json`` format of the MCP Registry (schema 2025-09-29 and later), as pydantic models.

Only what the app uses is modelled; unknown fields are kept (``extra="allow"``) so newer entries
still load. ``registryType`` stays a plain string here: an entry with a type this app cannot
install is still shown; :mod:`elftia_desktop.registry.plan` says why it cannot be installed.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

OFFICIAL_META_KEY = "io.modelcontextprotocol.registry/official"
KNOWN_REGISTRY_TYPES = ("npm", "pypi", "oci", "nuget", "mcpb")


class _Model(BaseModel):
    """camelCase like the registry's JSON; unknown keys are kept."""

    model_config = ConfigDict(populate_by_name=True, extra="allow")


class Input(_Model):
    """A value the user may give: the common part of arguments, env vars, headers and variables."""

    description: str = ""
    isRequired: bool = False
    isSecret: bool = False
    default: str | None = None
    choices: list[str] = Field(default_factory=list)
    format: str = "string"
    """``string``, ``number``, ``boolean`` or ``filepath``."""
    value: str | None = None
    """A fixed value (may contain ``{variable}`` placeholders); the user is not asked."""
    placeholder: str | None = None
    variables: dict[str, Input] = Field(default_factory=dict)
    """Inputs substituted into ``value``."""


class Argument(Input):
    """A runtime or package argument: ``positional`` (a value) or ``named`` (``--name value``)."""

    type: str = "positional"
    name: str | None = None
    valueHint: str | None = None
    isRepeated: bool = False


class KeyValueInput(Input):
    """An environment variable or an HTTP header."""

    name: str


class Transport(_Model):
    """How a package talks: ``stdio``, ``streamable-http`` or ``sse`` (with a URL)."""

    type: str = "stdio"
    url: str | None = None
    headers: list[KeyValueInput] = Field(default_factory=list)


class Package(_Model):
    """One way to run the server locally."""

    registryType: str
    identifier: str
    version: str | None = None
    registryBaseUrl: str | None = None
    runtimeHint: str | None = None
    runtimeArguments: list[Argument] = Field(default_factory=list)
    packageArguments: list[Argument] = Field(default_factory=list)
    environmentVariables: list[KeyValueInput] = Field(default_factory=list)
    transport: Transport = Field(default_factory=Transport)
    fileSha256: str | None = None


class Remote(_Model):
    """A hosted endpoint: ``streamable-http`` or ``sse``; the URL may hold ``{variables}``."""

    type: str = "streamable-http"
    url: str
    headers: list[KeyValueInput] = Field(default_factory=list)
    variables: dict[str, Input] = Field(default_factory=dict)


class Repository(_Model):
    """Where the source lives."""

    url: str = ""
    source: str = ""


class ServerJson(_Model):
    """One version of a server, as published."""

    name: str = Field(min_length=1)
    description: str = ""
    version: str = Field(min_length=1)
    title: str | None = None
    websiteUrl: str | None = None
    repository: Repository | None = None
    packages: list[Package] = Field(default_factory=list)
    remotes: list[Remote] = Field(default_factory=list)
    postInstallInstructions: str | None = None
    """Draft field: what the user should do after installing (shown as text, never run)."""
    icons: list[Any] | None = None
    """``{src, mimeType?, sizes?, theme?}`` objects (shown in Browse: https or data URIs only, ``core.icons``)."""


class EntryStatus(StrEnum):
    """The registry's status of an entry."""

    ACTIVE = "active"
    DEPRECATED = "deprecated"
    DELETED = "deleted"


class RegistryEntry(BaseModel):
    """A ``server.json`` with the registry's metadata and the registry it came from."""

    server: ServerJson
    source: str
    """The registry's base URL, or ``featured`` for the entries shipped with the app."""
    status: EntryStatus = EntryStatus.ACTIVE
    status_message: str | None = None
    """Why the entry is deprecated or deleted (the registry's ``statusMessage``), when it says."""
    is_latest: bool = True
    published_at: str | None = None
    updated_at: str | None = None
    _wire: dict[str, Any] | None = PrivateAttr(default=None)
    """The item as the registry sent it (saved to the cache unchanged)."""

    @property
    def installable(self) -> bool:
        """Deprecated and deleted entries are not installed unless the user insists."""
        return self.status is EntryStatus.ACTIVE

    @property
    def status_text(self) -> str:
        """``deprecated: use …`` for people: the status with the registry's message, if any."""
        message = " ".join((self.status_message or "").split())[:300]
        return f"{self.status.value}: {message}" if message else self.status.value

    @property
    def key(self) -> tuple[str, str]:
        """(source, name): one entry per server and registry."""
        return (self.source, self.server.name)

    def to_wire(self) -> dict[str, Any]:
        """The registry's JSON shape ``{server, _meta}`` (used by the disk cache)."""
        if self._wire is not None:
            return self._wire
        meta = {
            "status": self.status.value,
            "statusMessage": self.status_message,
            "isLatest": self.is_latest,
            "publishedAt": self.published_at,
            "updatedAt": self.updated_at,
        }
        return {
            "server": self.server.model_dump(mode="json", exclude_none=True),
            "_meta": {OFFICIAL_META_KEY: {k: v for k, v in meta.items() if v is not None}},
        }


def entry_from_wire(item: dict[str, Any], source: str) -> RegistryEntry:
    """A ``{server, _meta}`` item of a registry answer; ``ValidationError`` when it is not one."""
    meta = item.get("_meta") or {}
    official = meta.get(OFFICIAL_META_KEY) if isinstance(meta, dict) else None
    official = official if isinstance(official, dict) else {}
    status = official.get("status", "active")
    message = official.get("statusMessage")
    entry = RegistryEntry(
        server=ServerJson.model_validate(item.get("server")),
        source=source,
        status=EntryStatus(status) if status in EntryStatus._value2member_map_ else EntryStatus.ACTIVE,
        status_message=message if isinstance(message, str) and message.strip() else None,
        is_latest=official.get("isLatest", True) is not False,
        published_at=official.get("publishedAt"),
        updated_at=official.get("updatedAt"),
    )
    entry._wire = item
    return entry


def runtime_label(server: ServerJson) -> str:
    """What a user needs to run it: ``node``, ``uv``, ``docker`` ..., or ``remote``."""
    labels = {"npm": "node", "pypi": "uv", "oci": "docker", "nuget": ".NET", "mcpb": "bundle"}
    kinds = [labels.get(p.registryType, p.registryType) for p in server.packages]
    if server.remotes:
        kinds.append("remote")
    return ", ".join(dict.fromkeys(kinds)) or "nothing to run"


def transport_label(server: ServerJson) -> str:
    """The transports of its packages and remotes (``stdio``, ``streamable-http`` ...)."""
    kinds = [p.transport.type for p in server.packages] + [r.type for r in server.remotes]
    return ", ".join(dict.fromkeys(kinds)) or "-"

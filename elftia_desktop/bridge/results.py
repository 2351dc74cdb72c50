"""Typed results of the router's channels that have no model in ``core.models``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from elftia_desktop.core.models import MCPCallToolResponse

JsonDict = dict[str, Any]
"""A JSON object as another app's file or a server's answer holds it (shapes the app does not own)."""


@dataclass(frozen=True)
class TimedCall:
    """The answer of ``mcp:try-tool``: the tool's response and how long the call took."""

    response: MCPCallToolResponse
    duration_ms: float


@dataclass(frozen=True)
class LaunchChange:
    """A field of what a server runs that changed since the user confirmed it."""

    field: str
    confirmed: str
    now: str


@dataclass(frozen=True)
class LaunchInfo:
    """What a server runs, for the trust dialog (secret values are never included)."""

    server_id: str
    name: str
    transport: str
    rows: list[tuple[str, str]]
    """(label, value) rows: command, arguments, folder, env names, URL ..."""
    changes: list[LaunchChange]
    """What changed since the last confirmation (empty for a server never confirmed)."""
    needs_confirmation: bool
    """Whether the user must confirm before it runs."""


@dataclass(frozen=True)
class SettingsPaths:
    """Where the app keeps its files."""

    data_dir: str
    config_dir: str
    config_file: str
    settings_file: str
    tools_dir: str


@dataclass(frozen=True)
class SecretsBackend:
    """Where secrets go: the OS keyring, or the fallback file."""

    uses_keyring: bool
    backend: str
    """The keyring backend's class path."""
    backend_name: str
    fallback_file: str
    warning: str | None
    help: str | None
    """How to get a working keyring (None when it works)."""


@dataclass(frozen=True)
class SettingsView:
    """``app:settings``: the values in force, the folders and the secrets backend."""

    settings: JsonDict
    """The settings in the ``AppSettings`` JSON shape."""
    paths: SettingsPaths
    secrets: SecretsBackend


@dataclass(frozen=True)
class BackupResult:
    """``app:export-backup``: where the backup went and what it left out."""

    path: str
    servers: int
    secrets_left_out: int


@dataclass(frozen=True)
class ClaudeStatus:
    """``mcp:claude-status``: the ``claude`` CLI and the servers it knows."""

    installed: bool
    path: str | None
    version: str | None
    help: str | None
    """How to install it, when it is missing or broken."""
    servers: list[JsonDict]
    error: str | None = None
    """Why its servers could not be listed."""


@dataclass(frozen=True)
class ExportFileResult:
    """``mcp:export-file``: the file written, the server names replaced there, and the warnings."""

    path: str
    replaced: list[str]
    warnings: list[str]

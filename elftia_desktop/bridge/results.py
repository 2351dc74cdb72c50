"""Typed results of the router's channels that have no model in ``core.models``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from elftia_desktop.core.models import MCPCallToolResponse
    from elftia_desktop.core.settings_store import AppSettings
    from elftia_desktop.integrations.claude_cli import ClaudeServer

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

    settings: AppSettings
    """The settings in force."""
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
    servers: list[ClaudeServer]
    error: str | None = None
    """Why its servers could not be listed."""


@dataclass(frozen=True)
class ExportFileResult:
    """``mcp:export-file``: the file written, the server names replaced there, and the warnings."""

    path: str
    replaced: list[str]
    warnings: list[str]


@dataclass(frozen=True)
class OwnInterpreter:
    """Servers that run on the app's own Python (built-in ones): they need nothing installed."""

    servers: tuple[str, ...]
    path: str
    """The interpreter (or frozen executable) they run on."""


@dataclass(frozen=True)
class RuntimeView:
    """One runtime of ``mcp:dependencies``, as the Dependencies page shows it."""

    name: str
    title: str
    commands: tuple[str, ...]
    status: str
    """``ok``, ``missing``, ``too-old`` or ``broken`` (found but its version cannot be read)."""
    version: str | None
    path: str | None
    minimum: str | None
    """The oldest version that works (``3.10``), None when any does."""
    reason: str
    """Why a server may need it."""
    managed: bool
    """Installed by the app into its tools folder (so Uninstall applies)."""
    can_install: bool
    install_source: str | None
    """``pypi``, ``npm`` or ``system`` (the OS package manager); None when the app cannot install it."""
    needed_by: tuple[str, ...]
    """Names of the configured servers whose launch line needs it."""
    own_interpreter: OwnInterpreter | None
    instructions: str
    """How to install it by hand on this system."""
    problem: str | None
    """Why a found copy does not do (too old, does not run)."""

    @property
    def command(self) -> str:
        """The main command (what Install and Uninstall name)."""
        return self.commands[0]


@dataclass(frozen=True)
class GatewayApp:
    """An app the gateway can be installed into, as ``gateway:info`` lists it."""

    id: str
    label: str
    path: str
    """The app's config file."""
    installed: bool
    entry: str
    """The entry written into the app's config, as JSON text."""


@dataclass(frozen=True)
class GatewayInfo:
    """``gateway:info``: the entry per app, the command lines and the HTTP token."""

    name: str
    """The entry's name in the apps' server lists."""
    apps: tuple[GatewayApp, ...]
    command: tuple[str, ...]
    http_command: tuple[str, ...]
    http_url: str
    token: str

    def app(self, app_id: str) -> GatewayApp | None:
        """The app ``app_id``'s row, None when it is not listed."""
        return next((a for a in self.apps if a.id == app_id), None)


@dataclass(frozen=True)
class GatewayChange:
    """``gateway:preview`` / ``gateway:install`` / ``gateway:uninstall``: one change to one app's config."""

    app: str
    label: str
    path: str
    name: str
    diff: str
    """A unified diff of the change (a token in plain text shows as ``***``)."""
    changed: bool
    warnings: tuple[str, ...]
    backup: str | None = None
    """After an install or uninstall: the backup of the file, None when there was no file."""


@dataclass(frozen=True)
class FileError:
    """Another app's config file that could not be read (the others still import)."""

    path: str
    error: str
    line: int | None = None
    column: int | None = None

    @property
    def where(self) -> str:
        """``line 4, column 7`` when the error has a place, else ""."""
        return f"line {self.line}, column {self.column or 1}" if self.line else ""


@dataclass(frozen=True)
class DetectedConfig:
    """Another app's MCP config file, as ``mcp:detect-configs`` and ``mcp:claude-sources`` list it."""

    app: str
    """The app's id (``claude-desktop``, ``cursor`` ...)."""
    label: str
    """The app's name as shown."""
    path: str
    scope: str = "user"
    """``user`` or ``project``."""
    project_path: str | None = None
    """The project folder of a project file."""
    count: int = 0
    """How many servers it holds (Elftia's own gateway entries not counted)."""
    elftia_entries: tuple[str, ...] = ()
    """Entries that run Elftia's own gateway: never offered for import."""
    error: FileError | None = None
    """Why the file cannot be read, None when it can."""


@dataclass(frozen=True)
class ImportRow:
    """One server of ``mcp:preview-import``: what it runs, whether its name is taken, why it cannot be imported."""

    key: str
    """Names the row in ``mcp:import``'s choices."""
    name: str
    app: str
    source: str
    """The config file it comes from."""
    transport: str | None
    runs: str
    """The command line or URL."""
    conflict: str | None
    """The existing server with the same name, if any."""
    warnings: tuple[str, ...]
    env: tuple[tuple[str, str], ...]
    """(name, value as shown: a secret masked) pairs."""
    headers: tuple[tuple[str, str], ...]
    secrets: tuple[str, ...]
    """Names of the values that go to the keyring."""
    error: str | None = None


@dataclass(frozen=True)
class ImportPreview:
    """``mcp:preview-import``: the rows of the chosen files and the files that could not be read."""

    rows: tuple[ImportRow, ...] = ()
    file_errors: tuple[FileError, ...] = ()


@dataclass(frozen=True)
class ImportResult:
    """What happened to one chosen row of ``mcp:import``."""

    name: str
    status: str
    """``added``, ``renamed``, ``replaced``, ``skipped`` or ``failed``."""
    server_name: str | None
    error: str | None = None

    @property
    def added(self) -> bool:
        """Whether the server is now in the list (added, renamed or replacing one)."""
        return self.status in ("added", "renamed", "replaced")


@dataclass(frozen=True)
class ImportOutcome:
    """``mcp:import``: each chosen row's result, the files not read, and a keyring warning (None when none)."""

    results: tuple[ImportResult, ...]
    file_errors: tuple[FileError, ...]
    vault_warning: str | None


@dataclass(frozen=True)
class SecretPlaceholder:
    """A secret written into an exported file as a placeholder the other app fills in (never its value)."""

    server: str
    field: str
    placeholder: str
    """What the file holds instead of the value (``${env:API_KEY}``)."""


def placeholder_names(placeholders: tuple[SecretPlaceholder, ...]) -> list[str]:
    """The placeholders' texts, each once, in order."""
    return list(dict.fromkeys(p.placeholder for p in placeholders))


@dataclass(frozen=True)
class ExportView:
    """``mcp:export``: the file another app gets for the chosen servers (nothing is written)."""

    format: str
    text: str
    app_path: str
    """Where that app reads its config."""
    placeholders: tuple[SecretPlaceholder, ...]
    warnings: tuple[str, ...]
    skipped: tuple[str, ...]
    """Servers the format cannot hold."""


@dataclass(frozen=True)
class ExportPlan:
    """``mcp:plan-export-into-app``: what writing into the app's own config would change (nothing is written)."""

    path: str
    exists: bool
    diff: str
    """A unified diff of the file now and after ("" when nothing changes)."""
    replaced: tuple[str, ...]
    """Servers of the same name already in the file, which the write replaces."""
    digest: str
    """Fingerprint of the file now; ``mcp:export-into-app`` refuses when it changed."""
    after_digest: str
    """Fingerprint of the text after; ``mcp:export-into-app`` refuses when our servers changed."""
    warnings: tuple[str, ...]
    placeholders: tuple[SecretPlaceholder, ...]


@dataclass(frozen=True)
class AppWriteResult:
    """``mcp:export-into-app``: the file written and its backup (None when there was no file)."""

    path: str
    backup: str | None


@dataclass(frozen=True)
class ClaudePushResult:
    """``mcp:claude-push``: the server added to Claude Code, where, and its secrets as placeholders."""

    name: str
    scope: str
    """``user`` or ``project``."""
    placeholders: tuple[SecretPlaceholder, ...]
    warnings: tuple[str, ...]

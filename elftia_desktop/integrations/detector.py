"""Find other apps' MCP config files on this machine and read the servers in them.

Every location is computed from a ``home`` folder, an environment mapping and a platform name
(``linux``, ``darwin``, ``win32``) passed in, so tests can point the whole search at a temporary
folder. Nothing here writes a file. A file that cannot be read or parsed is reported with its
path (and line and column for broken JSON) instead of stopping the search.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from elftia_desktop.core.errors import JsonInputError
from elftia_desktop.core.json_input import MAX_APP_CONFIG_CHARS, decode_json_bytes, read_bytes
from elftia_desktop.core.server_json import load_json_text
from elftia_desktop.core.text_rules import quoted
from elftia_desktop.integrations.app_formats import APPS, AppFormat, app_format
from elftia_desktop.integrations.jsonc import strip_jsonc

CLINE_EXTENSION = "saoudrizwan.claude-dev"
VSCODE_FLAVOURS = ("Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf")
"""Editors whose user folder may hold Cline's global storage."""


@dataclass(frozen=True)
class ConfigLocation:
    """Where one app may keep a config file."""

    app: str
    path: Path
    scope: str = "user"
    """``user`` for the app's global file, ``project`` for a file inside a project folder."""
    project_path: str | None = None


GATEWAY_EXECUTABLES = ("elftia-mcp", "elftia-desktop")
"""Executables whose ``serve`` runs Elftia's gateway (the CLI, or the frozen app without a CLI beside it)."""


GATEWAY_HTTP_PATH = re.compile(r"^(/agents/[^/]+)?(/hub)?/mcp/?$")
"""The paths of the pool host's HTTP endpoint (``gateway/http_address.scope_path``)."""


def _is_gateway_url(entry: dict[str, Any]) -> bool:
    """An entry for the pool host's HTTP endpoint: a loopback URL of its paths, its bearer token by our placeholder
    (a local server of the user's own on ``/mcp`` with a token of its own is theirs)."""
    url = next((entry[key] for key in ("url", "serverUrl", "httpUrl") if isinstance(entry.get(key), str)), "")
    parts = urlsplit(url)
    headers = entry.get("headers")
    headers = headers if isinstance(headers, dict) else {}
    value = str(headers.get("Authorization") or "")
    ours = value.lower().startswith("bearer ") and ("ELFTIA_GATEWAY_TOKEN" in value or "elftia-gateway-token" in value)
    return parts.hostname in ("127.0.0.1", "localhost", "::1") and bool(GATEWAY_HTTP_PATH.match(parts.path)) and ours


def is_elftia_gateway(entry: Any) -> bool:
    """Whether an app's entry runs an Elftia gateway (``serve`` of ``elftia_desktop.cli`` or ``elftia-mcp``,
    or the pool host's HTTP endpoint)."""
    if not isinstance(entry, dict):
        return False
    if _is_gateway_url(entry):
        return True
    command = str(entry.get("command") or "")
    args = [str(a) for a in entry.get("args") or []]
    runs_cli = "elftia_desktop.cli" in args or Path(command).stem.lower() in GATEWAY_EXECUTABLES
    return runs_cli and "serve" in args


@dataclass
class ServerSection:
    """One ``{name: entry}`` object inside a file (``~/.claude.json`` has one per project)."""

    key_path: str
    """Where it sits in the file, e.g. ``mcpServers`` or ``projects["/src/app"].mcpServers``."""
    entries: dict[str, Any]
    scope: str = "user"
    project_path: str | None = None


@dataclass
class ConfigFile:
    """A config file that was found, its server sections, or why it could not be read."""

    location: ConfigLocation
    sections: list[ServerSection] = field(default_factory=list)
    data: Any = None
    """The whole parsed file (VS Code's ``inputs`` live beside ``servers``)."""
    error: str | None = None
    line: int | None = None
    column: int | None = None

    @property
    def server_names(self) -> list[str]:
        """Every server name in the file, in file order, without the entries of Elftia's own gateway."""
        return [
            name for section in self.sections for name, entry in section.entries.items() if not is_elftia_gateway(entry)
        ]

    @property
    def elftia_entries(self) -> list[str]:
        """Names of the entries that run Elftia's own gateway (written by "Use in other apps"): never imported."""
        return [
            name for section in self.sections for name, entry in section.entries.items() if is_elftia_gateway(entry)
        ]

    def to_json_dict(self) -> dict[str, Any]:
        """The summary ``detect --json`` prints."""
        fmt = app_format(self.location.app)
        out: dict[str, Any] = {
            "app": fmt.id,
            "label": fmt.label,
            "path": str(self.location.path),
            "scope": self.location.scope,
            "servers": self.server_names,
        }
        if self.elftia_entries:
            out["elftiaEntries"] = self.elftia_entries
        if self.location.project_path:
            out["projectPath"] = self.location.project_path
        if self.error:
            out |= {"error": self.error, "line": self.line, "column": self.column}
        return out


@dataclass(frozen=True)
class Environment:
    """The machine facts every location is computed from."""

    home: Path
    env: Mapping[str, str]
    platform: str

    @classmethod
    def current(cls) -> Environment:
        """This machine: the real home folder, ``os.environ`` and ``sys.platform``."""
        return cls(Path.home(), dict(os.environ), sys.platform)

    def folder(self, variable: str, default: Path) -> Path:
        """``$variable`` when it is set and not empty, else ``default``."""
        value = self.env.get(variable)
        return Path(value) if value else default

    @property
    def roaming(self) -> Path:
        """Where apps keep per-user settings: ``%APPDATA%``, ``~/Library/Application Support``, XDG config."""
        if self.platform == "win32":
            return self.folder("APPDATA", self.home / "AppData" / "Roaming")
        if self.platform == "darwin":
            return self.home / "Library" / "Application Support"
        return self.folder("XDG_CONFIG_HOME", self.home / ".config")

    @property
    def data(self) -> Path:
        """Where Rust apps' ``dirs::data_dir`` points (a Linux Jan may keep its data folder there)."""
        if self.platform == "win32":
            return self.roaming
        if self.platform == "darwin":
            return self.home / "Library" / "Application Support"
        return self.folder("XDG_DATA_HOME", self.home / ".local" / "share")

    @property
    def local(self) -> Path:
        """``%LOCALAPPDATA%`` on Windows."""
        return self.folder("LOCALAPPDATA", self.home / "AppData" / "Local")


def claude_code_user_file(machine: Environment) -> Path:
    """``~/.claude.json``, or ``$CLAUDE_CONFIG_DIR/.claude.json`` when that is set."""
    return machine.folder("CLAUDE_CONFIG_DIR", machine.home) / ".claude.json"


def _claude_desktop(machine: Environment) -> list[Path]:
    """The Windows Store (MSIX) install reads only its virtualised copy; the classic install ``roaming``.

    With a ``Claude_<publisher id>`` package folder the MSIX copy is the file, whether or not it
    exists yet (a file written to ``%APPDATA%`` is invisible to the packaged app); among several
    packages, the one that already has a config wins.
    """
    name = "claude_desktop_config.json"
    if machine.platform == "win32":
        packages = machine.local / "Packages"
        installed = sorted(packages.glob("Claude_*")) if packages.is_dir() else []
        msix = [package / "LocalCache" / "Roaming" / "Claude" for package in installed if package.is_dir()]
        if msix:
            found = [folder / name for folder in msix if (folder / name).is_file()]
            return (found or [msix[0] / name])[:1]
    return [machine.roaming / "Claude" / name]


def _user_paths(app: str, machine: Environment) -> list[Path]:
    home = machine.home
    if app == "claude-desktop":
        return _claude_desktop(machine)
    if app == "claude-code":
        return [claude_code_user_file(machine)]
    if app == "vscode":
        return [machine.roaming / flavour / "User" / "mcp.json" for flavour in ("Code", "Code - Insiders")]
    if app == "cline":
        storage = [
            machine.roaming / flavour / "User" / "globalStorage" / CLINE_EXTENSION / "settings"
            for flavour in VSCODE_FLAVOURS
        ]
        return [folder / "cline_mcp_settings.json" for folder in storage] + [
            home / ".cline" / "data" / "settings" / "cline_mcp_settings.json"
        ]
    if app == "jan":  # jan.ai/docs/data-folder: the settings folder on every OS (Linux: XDG data too)
        folders = dict.fromkeys([machine.roaming / "Jan" / "data", machine.data / "Jan" / "data"])
        return [folder / "mcp_config.json" for folder in folders]
    fixed = {
        "cursor": home / ".cursor" / "mcp.json",
        "windsurf": home / ".codeium" / "windsurf" / "mcp_config.json",
        "lmstudio": home / ".lmstudio" / "mcp.json",
        "gemini": home / ".gemini" / "settings.json",
        "mcp-inspector": home / ".mcp-inspector" / "mcp.json",
    }
    return [fixed[app]]


PROJECT_FILES = {
    "claude-code": ".mcp.json",
    "cursor": ".cursor/mcp.json",
    "vscode": ".vscode/mcp.json",
    "gemini": ".gemini/settings.json",
}
"""Config files an app reads from inside a project folder."""


def candidate_locations(app: str, machine: Environment, projects: Iterable[Path] = ()) -> list[ConfigLocation]:
    """Every place ``app`` may keep a config, user files first, then project files."""
    fmt = app_format(app)
    out = [ConfigLocation(fmt.id, path) for path in _user_paths(fmt.id, machine)]
    relative = PROJECT_FILES.get(fmt.id)
    if relative:
        for project in projects:
            out.append(ConfigLocation(fmt.id, Path(project) / relative, "project", str(project)))
    return out


def parse_config_text(text: str, fmt: AppFormat, where: str) -> Any:
    """Parse a config file's text; ``JsonInputError`` names the file, line and column."""
    return load_json_text(strip_jsonc(text) if fmt.jsonc else text, where, max_chars=MAX_APP_CONFIG_CHARS)


def read_config_text(path: Path) -> str:
    """Another app's config file as text: UTF-8 (BOM accepted), bounded; ``JsonInputError`` otherwise.

    ``FileNotFoundError`` / ``NotADirectoryError`` pass through: no file is not an error here.
    """
    if not path.exists():
        raise FileNotFoundError(str(path))
    return decode_json_bytes(read_bytes(path, str(path), MAX_APP_CONFIG_CHARS * 4), str(path))


def server_sections(fmt: AppFormat, data: Any, location: ConfigLocation) -> list[ServerSection]:
    """The ``{name: entry}`` objects of a parsed file; ``JsonInputError`` for a wrong shape."""
    where = str(location.path)
    if not isinstance(data, dict):
        raise JsonInputError(f"{where}: expected a JSON object at the top, got {_type_name(data)}")
    scope = "local" if location.scope == "project" else "user"
    sections = []
    if fmt.root_key in data:
        sections.append(_section(data[fmt.root_key], fmt.root_key, where, scope, location.project_path))
    if fmt.id == "claude-code" and location.scope == "user":
        projects = data.get("projects")
        for project, settings in (projects or {}).items() if isinstance(projects, dict) else []:
            if isinstance(settings, dict) and settings.get("mcpServers"):
                key = f"projects[{json.dumps(project)}].mcpServers"
                sections.append(_section(settings["mcpServers"], key, where, "local", project))
    return sections


def _section(value: Any, key: str, where: str, scope: str, project: str | None) -> ServerSection:
    if not isinstance(value, dict):
        raise JsonInputError(
            f"{where}: {quoted(key)} must be an object of name: server entries, got {_type_name(value)}"
        )
    return ServerSection(key, value, scope, project)


def _type_name(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "true/false", type(None): "null"}
    return names.get(type(value), "a number")


def read_config(location: ConfigLocation) -> ConfigFile | None:
    """Read one location; None when there is no file, a ``ConfigFile`` with ``error`` when it is broken."""
    fmt = app_format(location.app)
    result = ConfigFile(location)
    try:
        text = read_config_text(location.path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except JsonInputError as exc:
        result.error, result.line, result.column = str(exc), exc.line, exc.column
        return result
    try:
        result.data = parse_config_text(text, fmt, str(location.path))
        result.sections = server_sections(fmt, result.data, location)
    except JsonInputError as exc:
        result.error, result.line, result.column = str(exc), exc.line, exc.column
    return result


def claude_code_projects(machine: Environment) -> list[Path]:
    """Project folders Claude Code knows (the keys of ``projects`` in ``~/.claude.json``)."""
    try:
        path = claude_code_user_file(machine)
        data = parse_config_text(read_config_text(path), app_format("claude-code"), str(path))
    except (OSError, JsonInputError):
        return []
    projects = data.get("projects") if isinstance(data, dict) else None
    return [Path(p) for p in projects] if isinstance(projects, dict) else []


def detect(
    machine: Environment | None = None, projects: Iterable[Path] = (), apps: Iterable[str] | None = None
) -> list[ConfigFile]:
    """Every config file of the known apps that exists, readable or not.

    ``projects`` adds project folders to look in; Claude Code's known projects are added too.
    """
    machine = machine or Environment.current()
    folders = list(dict.fromkeys([*map(Path, projects), *claude_code_projects(machine)]))
    found, seen = [], set()
    for app in apps or APPS:
        for location in candidate_locations(app, machine, folders):
            if location.path.resolve() in seen:
                continue  # the home folder given as a project: its files are the user files
            seen.add(location.path.resolve())
            config = read_config(location)
            if config is not None:
                found.append(config)
    return found


async def detect_async(
    machine: Environment | None = None, projects: Iterable[Path] = (), apps: Iterable[str] | None = None
) -> list[ConfigFile]:
    """``detect`` in a worker thread, for callers on the event loop."""
    return await asyncio.to_thread(detect, machine, list(projects), None if apps is None else list(apps))

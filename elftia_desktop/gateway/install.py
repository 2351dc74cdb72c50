"""Writing the gateway's one entry into another app's MCP config, and taking it out again.

Apps: Claude Desktop, Claude Code (``~/.claude.json``, user scope), Cursor, VS Code (user
``mcp.json``), Windsurf and LM Studio; paths and formats come from ``integrations`` (the
detector's locations, the apps' format table). A plan shows the diff before anything is written;
applying it copies the file to a timestamped backup first, then replaces it atomically, keeping
every other key and server. ``uninstall`` removes only an entry that runs this gateway.

An entry either runs ``elftia-mcp serve`` (stdio: the app starts it, it starts the pool host) or,
for an app that accepts HTTP servers, points at the pool host's own Streamable HTTP endpoint with
the ``Authorization`` header (``http_install.py``).
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from elftia_desktop.core.errors import ElftiaError, JsonInputError
from elftia_desktop.core.models import McpServerTransport
from elftia_desktop.core.text_rules import quoted
from elftia_desktop.gateway.command import gateway_command, gateway_env
from elftia_desktop.gateway.http_install import (
    TOKEN_BY,
    HttpEntry,
    fix_port,
    http_entry,
    turn_on_autostart,
    uninstall_notes,
)
from elftia_desktop.integrations.app_config_file import digest, user_config_path, write_with_backup
from elftia_desktop.integrations.app_formats import AppFormat, app_format
from elftia_desktop.integrations.detector import (
    Environment,
    is_elftia_gateway,
    parse_config_text,
    read_config_text,
)
from elftia_desktop.platform.autostart import AutostartError

INSTALL_APPS = ("claude-desktop", "claude-code", "cursor", "vscode", "windsurf", "lmstudio")
DEFAULT_ENTRY_NAME = "elftia"


class InstallError(ElftiaError):
    """The entry cannot be written or removed; the message says why and what to do."""


@dataclass
class InstallPlan:
    """One change to one app's config file, shown before it is applied."""

    app: AppFormat
    path: Path
    name: str
    """The entry's name in the app's server list."""
    entry: dict[str, Any] | None
    """The entry written (None: the entry is removed)."""
    before: str | None
    """The file's text now (None: there is no file yet)."""
    after: str
    warnings: list[str]
    http: HttpEntry | None = None
    """The HTTP entry's port and token (None: a stdio entry, or a removal)."""

    @property
    def diff(self) -> str:
        """A unified diff of the change (a token written in plain text shows as ``***``)."""
        old = (self.before or "").splitlines(keepends=True)
        lines = difflib.unified_diff(old, self.after.splitlines(keepends=True), str(self.path), str(self.path))
        text = "".join(lines)
        return text.replace(self.http.token, "***") if self.http is not None and self.http.token else text

    @property
    def changed(self) -> bool:
        """Whether applying the plan changes the file."""
        return self.before != self.after

    def to_json_dict(self) -> dict[str, Any]:
        """A summary for ``--json`` and the window."""
        return {
            "app": self.app.id,
            "label": self.app.label,
            "path": str(self.path),
            "name": self.name,
            "entry": self.entry,
            "diff": self.diff,
            "changed": self.changed,
            "warnings": self.warnings,
            "autostart": self.http is not None and self.http.autostart,
        }


def install_app(app_id: str) -> AppFormat:
    """The format of an app the gateway can be installed into; ``InstallError`` naming them otherwise."""
    try:
        fmt = app_format(app_id)
    except KeyError:
        fmt = None
    if fmt is None or fmt.id not in INSTALL_APPS:
        raise InstallError(f"cannot install the gateway into {app_id!r}: choose one of {', '.join(INSTALL_APPS)}")
    return fmt


def entry_name(agent: str | None = None) -> str:
    """``elftia``, or ``elftia-<agent>`` so several agents can sit side by side."""
    if not agent:
        return DEFAULT_ENTRY_NAME
    slug = re.sub(r"[^a-z0-9]+", "-", agent.lower()).strip("-")
    return f"{DEFAULT_ENTRY_NAME}-{slug or 'agent'}"


def gateway_entry(fmt: AppFormat, agent: str | None = None, hub: bool = False) -> dict[str, Any]:
    """The app's stdio entry that runs this installation's gateway."""
    command, args = gateway_command(agent, hub)
    entry: dict[str, Any] = {}
    type_name = fmt.type_names.get(McpServerTransport.STDIO) if fmt.exportable else None
    if type_name:
        entry["type"] = type_name
    entry |= {"command": command, "args": args}
    env = gateway_env()
    if env:
        entry["env"] = env
    return entry


def config_path(fmt: AppFormat, machine: Environment | None = None) -> Path:
    """The app's user-level config file: the first that exists, else where the app looks first."""
    return user_config_path(fmt.id, machine)


def installed_entry(fmt: AppFormat, path: Path, name: str) -> bool:
    """Whether ``path`` holds the gateway's entry ``name`` (a missing or broken file: no)."""
    try:
        _, data = _read(fmt, path)
    except (OSError, JsonInputError):
        return False
    servers = data.get(fmt.root_key)
    return isinstance(servers, dict) and is_elftia_gateway(servers.get(name))


def _read(fmt: AppFormat, path: Path) -> tuple[str | None, dict[str, Any]]:
    try:
        text = read_config_text(path)
    except (FileNotFoundError, NotADirectoryError):
        return None, {}
    if not text.strip():
        return text, {}
    data = parse_config_text(text, fmt, str(path))
    if not isinstance(data, dict):
        raise JsonInputError(f"{path}: expected a JSON object at the top")
    servers = data.get(fmt.root_key, {})
    if not isinstance(servers, dict):
        raise JsonInputError(f"{path}: {quoted(fmt.root_key)} must be an object of name: server entries")
    return text, data


def _dump(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _entries(
    app_id: str, agent: str | None, path: Path | None, name: str | None
) -> tuple[AppFormat, Path, str, str | None, dict[str, Any], dict[str, Any]]:
    """The app's format, its file, the entry's name, the file's text and data, and its server entries."""
    fmt = install_app(app_id)
    path = path or config_path(fmt)
    before, data = _read(fmt, path)
    return fmt, path, name or entry_name(agent), before, data, dict(data.get(fmt.root_key) or {})


def plan_install(
    app_id: str,
    agent: str | None = None,
    hub: bool = False,
    *,
    path: Path | None = None,
    name: str | None = None,
    token: str | None = None,
    login: bool = True,
) -> InstallPlan:
    """What installing the gateway into ``app_id`` would change (nothing is written).

    ``token`` (the gateway's bearer token): an app that accepts HTTP servers gets the pool host's
    HTTP endpoint with it (``http_install.py``); without one, or for a stdio-only app, the stdio entry.
    ``login``: applying an HTTP entry turns on start at login (false: ``--no-autostart``).
    """
    fmt, path, name, before, data, servers = _entries(app_id, agent, path, name)
    if name in servers and not is_elftia_gateway(servers[name]):
        raise InstallError(f"{path}: the entry {name!r} is not Elftia's gateway; choose another name with --name")
    try:
        http = http_entry(fmt, agent, hub, token, login) if token is not None else None
    except AutostartError as exc:
        raise InstallError(f"start at login: {exc} (--no-autostart skips it)") from exc
    entry = http.entry if http is not None else gateway_entry(fmt, agent, hub)
    servers[name] = entry
    warnings = list(http.notes(fmt, path)) if http is not None else []
    if http is not None and http.input is not None:
        inputs = [i for i in data.get("inputs") or [] if not (isinstance(i, dict) and i.get("id") == http.input["id"])]
        data = data | {"inputs": [*inputs, http.input]}
    if fmt.jsonc and before and re.search(r"//|/\*", before):
        warnings.append(f"{path}: its comments are not kept when the file is written (a backup keeps them)")
    return InstallPlan(fmt, path, name, entry, before, _dump(data | {fmt.root_key: servers}), warnings, http)


def plan_uninstall(
    app_id: str, agent: str | None = None, *, path: Path | None = None, name: str | None = None
) -> InstallPlan:
    """What removing the gateway's entry from ``app_id`` would change; ``InstallError`` when there is none.

    Without ``agent`` or ``name`` it removes the one entry Elftia wrote there, whatever its name; when
    there are several, the error lists them.
    """
    fmt, path, _, before, data, servers = _entries(app_id, agent, path, name)
    name = name or (entry_name(agent) if agent else _the_gateway_entry(path, servers))
    if name not in servers:
        raise InstallError(f"{path}: there is no entry {name!r} to remove")
    if not is_elftia_gateway(servers[name]):
        raise InstallError(f"{path}: the entry {name!r} is not Elftia's gateway; it was left alone")
    removed = servers.pop(name)
    others = _http_users(path) + ([fmt.label] if _holds_http(servers) else [])
    notes = uninstall_notes(removed, others)
    return InstallPlan(fmt, path, name, None, before, _dump(data | {fmt.root_key: servers}), notes)


def _holds_http(servers: dict[str, Any]) -> bool:
    """Whether ``servers`` has an entry for the pool host's HTTP endpoint."""
    return any(is_elftia_gateway(e) and isinstance(e.get("url") or e.get("serverUrl"), str) for e in servers.values())


def _http_users(skip: Path) -> list[str]:
    """The HTTP apps whose config file (other than ``skip``) holds an HTTP entry of Elftia's."""
    users = []
    for app_id in TOKEN_BY:
        other = install_app(app_id)
        path = config_path(other)
        try:
            servers = {} if path == skip else _read(other, path)[1].get(other.root_key) or {}
        except (OSError, JsonInputError):
            continue  # an unreadable file: nothing known to use the address
        if _holds_http(servers):
            users.append(other.label)
    return users


def _the_gateway_entry(path: Path, servers: dict[str, Any]) -> str:
    """The name of the one entry in ``servers`` that runs Elftia's gateway."""
    ours = [name for name, entry in servers.items() if is_elftia_gateway(entry)]
    if not ours and DEFAULT_ENTRY_NAME in servers:
        raise InstallError(f"{path}: the entry {DEFAULT_ENTRY_NAME!r} is not Elftia's gateway; it was left alone")
    if not ours:
        raise InstallError(f"{path}: there is no entry of Elftia's gateway to remove")
    if len(ours) > 1:
        raise InstallError(
            f"{path}: Elftia's gateway has {len(ours)} entries there ({', '.join(ours)}); "
            "say which with --agent NAME or --name ENTRY"
        )
    return ours[0]


def apply_plan(plan: InstallPlan) -> Path | None:
    """Back the file up, then write the change atomically (same permissions); returns the backup's path.

    Refused (``ConfigError``) when the file changed since the plan was made. An HTTP entry's port
    is fixed in the settings first (``gatewayHttpPort``), so the URL written stays the host's, and
    start at login is turned on when the plan says so (``InstallError`` when it cannot be: nothing is written).
    """
    if plan.http is not None and plan.http.fix_port:
        fix_port(plan.http.port)
    if plan.http is not None and plan.http.autostart:
        try:
            turn_on_autostart()
        except (AutostartError, OSError) as exc:
            raise InstallError(f"start at login could not be turned on: {exc} (--no-autostart skips it)") from exc
    if not plan.changed:
        return None
    return write_with_backup(plan.path, plan.after, digest(plan.before))

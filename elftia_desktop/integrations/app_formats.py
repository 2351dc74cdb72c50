"""What each app's MCP config file looks like: root key, field names, units and placeholders.

One ``AppFormat`` per app. The importer and exporter read these tables instead of
special-casing apps in their code; what a field means is taken from each app's docs:

* Claude Desktop, Cursor, LM Studio ("follows Cursor's notation"), MCP Inspector, Windsurf,
  Cline, Gemini CLI, Jan: root key ``mcpServers``; VS Code: root key ``servers`` plus ``inputs``.
* An entry without ``type`` is stdio when it has a ``command``. With only a URL it is SSE in
  Cline (its schema lists SSE first) and for Gemini CLI's ``url``; Gemini's ``httpUrl`` and
  Windsurf's ``serverUrl`` are Streamable HTTP; everyone else treats a bare ``url`` as HTTP.
* ``timeout`` is in seconds for Cline, in milliseconds for Claude Code and Gemini CLI.
* Placeholders an app expands: ``${env:NAME}`` (Cursor, VS Code, Cline), ``${input:id}``
  (VS Code, declared in ``inputs``), ``${NAME}`` / ``${NAME:-default}`` (Claude Code).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from elftia_desktop.core.models import McpServerTransport

PLACEHOLDER_RE = re.compile(r"\$\{[^}]+\}|^\$[A-Za-z_][A-Za-z0-9_]*$")
"""A ``${...}`` placeholder inside a string value, or a whole value ``$NAME`` (Gemini CLI)."""


@dataclass(frozen=True)
class AppFormat:
    """The shape of one app's MCP config file."""

    id: str
    """Short id used on the command line (``claude-desktop``, ``vscode`` ...)."""
    label: str
    """The app's name as users know it."""
    root_key: str = "mcpServers"
    """The object that maps server names to entries."""
    url_keys: tuple[str, ...] = ("url",)
    """Fields that hold a remote server's URL, in the order they are looked up."""
    untyped_url: dict[str, McpServerTransport] = field(default_factory=lambda: {"url": McpServerTransport.HTTP})
    """The transport of an entry without ``type``, by the URL field it uses."""
    timeout_unit: float | None = None
    """Seconds per unit of the app's ``timeout`` field (0.001 for ms); None: no such field."""
    env_placeholder: str = "${{env:{name}}}"
    """How an exported secret is written (``{name}`` is the variable name)."""
    type_names: dict[McpServerTransport, str | None] = field(
        default_factory=lambda: {t: t.value for t in McpServerTransport}
    )
    """The ``type`` written for each transport on export (None: the field is left out)."""
    remote_ok: bool = True
    """Whether the app's config file can hold SSE/HTTP servers."""
    supports_cwd: bool = False
    """Whether stdio entries may set a working folder."""
    jsonc: bool = False
    """The file may contain comments and trailing commas (VS Code)."""
    exportable: bool = False
    """Whether ``export`` can write this format."""


APPS: dict[str, AppFormat] = {
    fmt.id: fmt
    for fmt in (
        AppFormat(
            "claude-desktop",
            "Claude Desktop",
            env_placeholder="${{{name}}}",
            type_names=dict.fromkeys(McpServerTransport),
            remote_ok=False,
            exportable=True,
        ),
        AppFormat(
            "claude-code",
            "Claude Code",
            timeout_unit=0.001,
            env_placeholder="${{{name}}}",
            exportable=True,
        ),
        AppFormat(
            "cursor",
            "Cursor",
            type_names={McpServerTransport.STDIO: None, McpServerTransport.HTTP: None, McpServerTransport.SSE: "sse"},
            exportable=True,
        ),
        AppFormat("vscode", "VS Code", root_key="servers", supports_cwd=True, jsonc=True, exportable=True),
        AppFormat(
            "cline",
            "Cline",
            untyped_url={"url": McpServerTransport.SSE},
            timeout_unit=1.0,
            supports_cwd=True,
        ),
        AppFormat(
            "windsurf",
            "Windsurf",
            url_keys=("serverUrl", "url"),
            untyped_url={"serverUrl": McpServerTransport.HTTP, "url": McpServerTransport.HTTP},
        ),
        AppFormat("lmstudio", "LM Studio"),
        AppFormat(
            "gemini",
            "Gemini CLI",
            url_keys=("httpUrl", "url"),
            untyped_url={"httpUrl": McpServerTransport.HTTP, "url": McpServerTransport.SSE},
            timeout_unit=0.001,
            supports_cwd=True,
        ),
        AppFormat("mcp-inspector", "MCP Inspector"),
        AppFormat("jan", "Jan"),
    )
}

APP_ALIASES = {
    "claude": "claude-desktop",
    "claude-mcp-config": "claude-code",
    "code": "vscode",
    "vs-code": "vscode",
    "lm-studio": "lmstudio",
    "gemini-cli": "gemini",
    "inspector": "mcp-inspector",
}


CLINE_LEGACY_TRANSPORT = {"stdio": "stdio", "sse": "sse", "http": "streamableHttp"}
"""Cline's old ``transportType`` field and what its values mean today."""


def app_format(app_id: str) -> AppFormat:
    """The format of ``app_id`` (aliases accepted); ``KeyError`` naming the known ids."""
    key = APP_ALIASES.get(app_id.lower(), app_id.lower())
    if key not in APPS:
        raise KeyError(f"unknown app {app_id!r} (known: {', '.join(APPS)})")
    return APPS[key]


def placeholders_in(value: str) -> list[str]:
    """The ``${...}`` placeholders in a string, verbatim (``${env:TOKEN}``, ``${input:key}``)."""
    return [match.group(0) for match in PLACEHOLDER_RE.finditer(value)]


def placeholder_kind(placeholder: str) -> str:
    """``env``, ``input``, ``secret``, ``variable`` (``${VAR}``) or ``predefined`` (``${workspaceFolder}``)."""
    inner = placeholder[2:-1] if placeholder.startswith("${") else placeholder[1:]
    prefix, sep, _ = inner.partition(":")
    if sep and prefix in ("env", "input", "secret"):
        return prefix
    name = inner.split(":-", 1)[0]
    return "variable" if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) and not name[0].islower() else "predefined"

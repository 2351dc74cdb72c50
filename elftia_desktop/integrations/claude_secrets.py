"""Secret values for a server pushed to Claude Code, kept off every command line.

``claude mcp add-json NAME JSON`` takes the entry as an argument (2.1: ``-`` for standard input is
refused as invalid input), and a process's arguments can be read by every local user. So a push
``--with-secrets`` sends the entry with ``${VAR}`` placeholders, then writes the real values into
the entry Claude Code just created, in its own file (``~/.claude.json``, mode 0600, or the
project's ``.mcp.json``): read, change, atomic write with the file's permissions, through a
symlink to its target.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

from elftia_desktop.core.atomic_file import atomic_write_text
from elftia_desktop.core.errors import ConfigError
from elftia_desktop.core.text_rules import quoted
from elftia_desktop.integrations.detector import read_config_text


def entry_in(data: dict[str, Any], scope: str, project: str, name: str) -> dict[str, Any]:
    """The server entry ``name`` of a Claude Code file's data for ``scope``; ``ConfigError`` if missing."""
    servers = (
        data.get("mcpServers") if scope != "local" else (data.get("projects") or {}).get(project, {}).get("mcpServers")
    )
    entry = (servers or {}).get(name) if isinstance(servers, dict) else None
    if not isinstance(entry, dict):
        raise ConfigError(f"claude did not write the server {quoted(name)} where expected; its secrets were not added")
    return entry


def fill_secrets(path: Path, scope: str, project: str, name: str, values: dict[str, dict[str, str]]) -> None:
    """Put ``values`` (``{"env": {...}, "headers": {...}}``) into the entry ``name`` of ``path``."""
    target = path.resolve() if path.is_symlink() else path
    data = json.loads(read_config_text(target))
    entry = entry_in(data, scope, project, name)
    for field, given in values.items():
        if given:
            entry[field] = {**(entry.get(field) or {}), **given}
    mode = stat.S_IMODE(target.stat().st_mode) & ~0o077
    atomic_write_text(target, json.dumps(data, indent=2, ensure_ascii=False) + "\n", mode=mode or 0o600)

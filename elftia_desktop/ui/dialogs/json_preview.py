"""What the paste-JSON dialog shows and submits, as pure functions over the pasted text.

``preview_rows`` parses through ``core.server_json`` (the shared JSON input layer: size, depth
and syntax errors with line and column); ``submission_groups`` and ``group_json`` turn the
user's per-row choices into ``add_json`` calls.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from typing import Any

from elftia_desktop.core.server_json import load_json_text, parse_entry, server_entries

ACTIONS_NEW = (("add", "Add"), ("skip", "Skip"))
ACTIONS_TAKEN = (("rename", "Rename (keep both)"), ("skip", "Skip"), ("replace", "Replace the existing one"))
POLICY_OF_ACTION = {"add": "fail", "rename": "rename", "replace": "replace"}


@dataclass
class PreviewRow:
    """One server of the pasted JSON as the preview shows it."""

    name: str
    entry: Any
    transport: str = ""
    runs: str = ""
    error: str = ""
    taken: bool = False
    action: str = "add"
    command: str = ""
    """The command a stdio server runs (checked on this machine before the user trusts it)."""


def preview_rows(text: str, existing_names: set[str]) -> list[PreviewRow]:
    """The servers of ``text``; raises ``JsonInputError`` when it is no usable JSON."""
    pairs = server_entries(load_json_text(text))
    seen = {n.lower() for n in existing_names}
    rows = []
    for name, entry in pairs:
        parsed = parse_entry(name, entry)
        row = PreviewRow(name=name, entry=entry)
        if parsed.server is None:
            row.error = parsed.error or "not a server"
            row.action = "invalid"
        else:
            config = parsed.server.config
            row.transport = {"stdio": "stdio", "sse": "SSE", "http": "Streamable HTTP"}[parsed.server.type.value]
            row.runs = shlex.join([config.command or "", *config.args]) if config.command else config.url or ""
            row.command = (config.command or "") if parsed.server.type.value == "stdio" else ""
            row.taken = name.strip().lower() in seen
            row.action = "rename" if row.taken else "add"
            seen.add(name.strip().lower())
        rows.append(row)
    return rows


def status_text(row: PreviewRow, found: dict[str, bool]) -> str:
    """The Status cell: why a row cannot be added, or New / Name taken and whether its command is found
    (``found``: command -> installed, for the commands checked so far)."""
    if row.error:
        return f"✗ {row.error}"
    status = "Name taken" if row.taken else "New"
    if row.command and found.get(row.command) is False:
        status += " · ✗ command not found"
    return status


def submission_groups(rows: list[PreviewRow]) -> list[tuple[str, list[PreviewRow]]]:
    """``(onConflict, rows)`` per ``add_json`` call, in the order new, replace, rename."""
    groups = []
    for action in ("add", "replace", "rename"):
        chosen = [r for r in rows if r.action == action]
        if chosen:
            groups.append((POLICY_OF_ACTION[action], chosen))
    return groups


def group_json(rows: list[PreviewRow]) -> str:
    """The rows as a JSON list of named entries (names may repeat in a list, not in a map)."""
    return json.dumps([{**row.entry, "name": row.name} for row in rows], indent=2)


def utf16_offset(line_text: str, column: int) -> int:
    """The Qt (UTF-16) offset of a 1-based code-point ``column`` in ``line_text``."""
    prefix = line_text[: max(column - 1, 0)]
    return len(prefix.encode("utf-16-le")) // 2

"""Server definitions from JSON text: the shapes people paste from READMEs and other apps.

Accepted: ``{"mcpServers": {name: entry}}`` (Claude Desktop, Cursor, Cline ...),
``{"servers": {name: entry}}`` (VS Code), a bare ``{name: entry}`` map, one entry with a
``name``, or a list of entries with names. An entry has ``command``/``args``/``env``/``cwd``
or ``url``/``headers`` and an optional ``type`` (``stdio``, ``sse``, ``http``, Cline's
``streamableHttp``). Each entry is parsed on its own, so one bad entry does not stop the rest.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from elftia_desktop.core.config_store import describe_validation_error
from elftia_desktop.core.errors import JsonInputError
from elftia_desktop.core.json_input import MAX_JSON_CHARS, parse_json_text
from elftia_desktop.core.models import TRANSPORT_NAMES, McpServerConfig, McpServerInput, McpServerTransport
from elftia_desktop.core.text_rules import quoted

_ENTRY_KEYS = {"command", "url", "serverUrl", "httpUrl"}
_CONFIG_KEYS = {"command", "args", "env", "cwd", "url", "headers", "timeout"}
_HANDLED_KEYS = _CONFIG_KEYS | {
    "type",
    "transport",
    "name",
    "serverUrl",
    "httpUrl",
    "disabled",
    "active",
    "isActive",
    "autoApprove",
    "alwaysAllow",
}


@dataclass
class ParsedServer:
    """One entry of the JSON: a valid input, or the reason it is not."""

    name: str
    server: McpServerInput | None = None
    error: str | None = None
    """Why the entry is no server, without its name (a message names it: see ``application.messages``)."""


def load_json_text(text: str, what: str = "The JSON", *, max_chars: int = MAX_JSON_CHARS) -> Any:
    """Parse JSON text through the shared input layer (size, depth, line and column of errors)."""
    return parse_json_text(text, what, max_chars=max_chars)


def parse_servers_json(text: str, source: str = "The JSON") -> list[ParsedServer]:
    """Parse pasted JSON into one result per server entry (see the module docstring)."""
    pairs = server_entries(load_json_text(text, source))
    if not pairs:
        raise JsonInputError(f"{source} has no servers in it")
    return [parse_entry(name, entry) for name, entry in pairs]


def server_entries(data: Any) -> list[tuple[str, Any]]:
    """The ``(name, entry)`` pairs of any accepted shape; raises ``JsonInputError`` for others."""
    if isinstance(data, list):
        pairs = []
        for index, entry in enumerate(data):
            name = entry.get("name") if isinstance(entry, dict) else None
            if not isinstance(name, str) or not name.strip():
                raise JsonInputError(f"Entry #{index + 1} of the list has no 'name'")
            pairs.append((name, entry))
        return pairs
    if not isinstance(data, dict):
        raise JsonInputError(f"Expected a JSON object with servers, got {type(data).__name__}")
    for root_key in ("mcpServers", "servers", "mcp_servers"):
        if root_key in data:
            servers = data[root_key]
            if isinstance(servers, list):
                return server_entries(servers)
            if not isinstance(servers, dict):
                raise JsonInputError(f"{quoted(root_key)} must be an object of name: server entries")
            return list(servers.items())
    if _ENTRY_KEYS & data.keys():
        name = data.get("name")
        if not isinstance(name, str) or not name.strip():
            raise JsonInputError("A single server object needs a 'name' (or wrap it as {\"name\": {...}})")
        return [(name, data)]
    if not data:
        raise JsonInputError("The JSON has no servers in it")
    return list(data.items())


def parse_entry(name: str, entry: Any) -> ParsedServer:
    """One entry to an ``McpServerInput``, or the reason it cannot be one."""
    if not isinstance(entry, dict):
        return ParsedServer(name, error='expected an object with "command" or "url"')
    try:
        return ParsedServer(name, server=entry_to_input(name, entry))
    except ValueError as exc:
        return ParsedServer(name, error=str(exc))


def entry_to_input(name: str, entry: dict[str, Any]) -> McpServerInput:
    """Normalise one entry of any app's shape; ``ValueError`` says what is wrong."""
    url = entry.get("url") or entry.get("serverUrl") or entry.get("httpUrl")
    transport = _transport_of(entry)
    config: dict[str, Any] = {k: v for k, v in entry.items() if k in _CONFIG_KEYS}
    if url:
        config["url"] = url
    extra = {k: v for k, v in entry.items() if k not in _HANDLED_KEYS}
    for key in ("disabled", "active", "isActive"):
        if key in entry and not isinstance(entry[key], bool):
            raise ValueError(f"{key}: expected true or false, got {json.dumps(entry[key])}")
    is_active = entry.get("disabled") is not True
    if "active" in entry or "isActive" in entry:
        is_active = entry.get("active", entry.get("isActive")) is not False
    try:
        server = McpServerInput(
            name=name,
            type=transport,
            config=McpServerConfig.model_validate(config | extra),
            is_active=is_active,
        )
    except ValidationError as exc:
        raise ValueError(describe_validation_error(exc)) from exc
    return server


def auto_approve_list(entry: dict[str, Any]) -> list[str]:
    """The tools an entry auto-approves (Cline ``autoApprove``, Roo ``alwaysAllow``)."""
    for key in ("autoApprove", "alwaysAllow"):
        value = entry.get(key)
        if isinstance(value, list):
            return [str(v) for v in value]
    return []


def _transport_of(entry: dict[str, Any]) -> McpServerTransport:
    raw = entry.get("type") or entry.get("transport")
    if raw is None:
        return McpServerTransport.STDIO if entry.get("command") else McpServerTransport.HTTP
    if not isinstance(raw, str) or raw.lower() not in TRANSPORT_NAMES:
        raise ValueError(f"type: {quoted(raw)} is not a transport (expected stdio, sse, http or streamableHttp)")
    return TRANSPORT_NAMES[raw.lower()]

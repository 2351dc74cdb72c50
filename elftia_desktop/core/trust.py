"""What a server will run, shown to the user before it is trusted, and what changed since.

A server from an import, a deep link or pasted JSON is untrusted until the user confirms
exactly what it starts (stdio) or where it connects (SSE/HTTP). The confirmed launch is kept
on the record (``trustedLaunch``); when it changes, the server needs confirming again.
"""

from __future__ import annotations

from typing import Any

from elftia_desktop.core.models import McpServerRecord, McpServerTransport
from elftia_desktop.core.secrets import is_secret_ref


def launch_of(record: McpServerRecord) -> dict[str, Any]:
    """The fields that decide what runs or where data goes."""
    if record.type is McpServerTransport.STDIO:
        return {"command": record.config.command, "args": list(record.config.args), "cwd": record.config.cwd}
    return {"url": record.config.url}


def describe_launch(record: McpServerRecord) -> list[tuple[str, str]]:
    """Label/value rows for a trust prompt; secret values are never shown."""
    rows: list[tuple[str, str]] = [("Name", record.name), ("Transport", record.type.value)]
    if record.type is McpServerTransport.STDIO:
        rows.append(("Command", record.config.command or ""))
        rows.append(("Arguments", " ".join(_quote(a) for a in record.config.args) or "(none)"))
        rows.append(("Working folder", record.config.cwd or "(the app's folder)"))
        if record.config.env:
            rows.append(("Environment", ", ".join(_masked(k, v) for k, v in record.config.env.items())))
    else:
        rows.append(("URL", record.config.url or ""))
        if record.config.headers:
            rows.append(("Headers", ", ".join(_masked(k, v) for k, v in record.config.headers.items())))
    return rows


def launch_changes(record: McpServerRecord) -> list[tuple[str, Any, Any]]:
    """``(field, confirmed, now)`` for each launch field changed since the user trusted it."""
    confirmed = record.trusted_launch or {}
    now = launch_of(record)
    return [(key, confirmed.get(key), value) for key, value in now.items() if confirmed.get(key) != value]


def needs_confirmation(record: McpServerRecord) -> bool:
    """True when the server must not start before the user confirms it."""
    if not record.is_trusted:
        return True
    return record.trusted_launch is not None and bool(launch_changes(record))


def mark_trusted(record: McpServerRecord) -> None:
    """Record that the user confirmed the server as it is now."""
    record.is_trusted = True
    record.trusted_launch = launch_of(record)


def _masked(key: str, value: str) -> str:
    return f"{key}=(secret)" if is_secret_ref(value) else f"{key}={value}"


def _quote(arg: str) -> str:
    return f'"{arg}"' if (" " in arg or not arg) else arg

"""Every sentence the application's actions say, built from typed fields (never by re-parsing text).

The bridge, the CLI and the gateway show these; a UI that wants the parts (which server, why)
reads the result's fields instead.
"""

from __future__ import annotations

from datetime import UTC, datetime

from elftia_desktop.core.models import McpAuthStatus
from elftia_desktop.core.text_rules import display_name


def about_server(name: str, reason: str) -> str:
    """``reason`` as a sentence about the server ``name`` (the name shortened for quoting)."""
    return f"{display_name(name)}: {reason}"


def _did_not_connect(problem: str | None) -> str:
    return f" It did not connect: {problem}" if problem else ""


def added(name: str, connect_problem: str | None = None) -> str:
    """A server was saved (and connected unless ``connect_problem`` says why not)."""
    return f"Added {name}." + _did_not_connect(connect_problem)


def updated(name: str, connect_problem: str | None = None) -> str:
    """A server was changed."""
    return f"Updated {name}." + _did_not_connect(connect_problem)


def trusted(name: str, connect_problem: str | None = None) -> str:
    """A server was marked trusted."""
    return f"{name} is trusted." + _did_not_connect(connect_problem)


def switched_on(name: str, active: bool) -> str:
    """A server was enabled or disabled."""
    return f"{name} is {'enabled' if active else 'disabled'}."


def removed(name: str, agents: list[str]) -> str:
    """A server was removed (and taken out of ``agents``)."""
    return f"Removed {name}." + (f" Taken out of agents: {', '.join(agents)}." if agents else "")


NAME_TAKEN_SKIPPED = "the name is taken; skipped"
"""Why a server of pasted JSON was not added with ``on_conflict="skip"``."""


def added_count(ok: int, total: int) -> str:
    """The summary of a bulk add."""
    return f"Added {ok} of {total} servers."


def not_added_count(failed: int, total: int) -> str:
    """The error of a bulk add that did not add everything."""
    return f"{failed} of {total} servers were not added"


def tool_switched(tool: str, server: str, flag: str, value: bool) -> str:
    """A tool was enabled or disabled, or its auto-approval switched on or off."""
    if flag == "enabled":
        return f"{tool} of {server} is {'enabled' if value else 'disabled'}."
    return f"Auto-approve of {tool} is {'on' if value else 'off'}."


def sign_in_status(name: str, status: McpAuthStatus) -> str:
    """One line about a server's sign-in: who, which scopes, until when."""
    if not status.signed_in:
        return f"{name}: not signed in"
    who = f" as {status.subject}" if status.subject else ""
    scopes = f"; scopes: {' '.join(status.scopes)}" if status.scopes else ""
    until = ""
    if status.expires_at is not None:
        until = f"; token valid until {datetime.fromtimestamp(status.expires_at / 1000, UTC):%Y-%m-%d %H:%M} UTC"
    return f"{name}: signed in{who}{scopes}{until}"


def unknown_tool_id(tool_id: str, server_name: str | None, known: list[str]) -> str:
    """A tool id that names no server (``server_name`` None; ``known``: the id prefixes) or no tool of its server."""
    if server_name is None:
        prefixes = ", ".join(known) or "no servers configured"
        return f"--tool {tool_id}: no server has this tool id (tool ids start with: {prefixes})"
    return f"--tool {tool_id}: {server_name} has no such tool (its tools: {', '.join(known) or 'none'})"

"""The protocol's extensions (SEP-2133): which ones Elftia speaks, and how they are named for people.

Since the 2026-07-28 revision a client and a server each declare the extensions they support in
``capabilities.extensions`` (identifier -> settings). Elftia's client side declares what it
supports on both eras' paths (the ``initialize`` handshake and the per-request capabilities of a
``server/discover`` connection) and keeps what each server declared on its connection, so
``test --json``, ``discover`` and the card can say "apps, skills".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from elftia_desktop.core.apps import APPS_EXTENSION

SKILLS_EXTENSION = "io.modelcontextprotocol/skills"
"""Skills over MCP (SEP-2640): ``skills/list``, ``skills/get`` and ``skill://`` resources."""
TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
"""Task-augmented calls (``tasks/get``, ``tasks/cancel``)."""
APP_MIME_TYPE = "text/html;profile=mcp-app"
"""The MIME type of an MCP Apps view (``ui://`` resource)."""

SHORT_NAMES = {APPS_EXTENSION: "apps", SKILLS_EXTENSION: "skills", TASKS_EXTENSION: "tasks"}
"""The official extensions by the word people see."""

CLIENT_EXTENSIONS: dict[str, dict[str, Any]] = {
    APPS_EXTENSION: {"mimeTypes": [APP_MIME_TYPE]},
    SKILLS_EXTENSION: {},
    TASKS_EXTENSION: {},
}
"""What Elftia's client side declares. Apps: app-only tools are kept from models and tools, their
``_meta.ui`` and ``ui://`` views pass the gateway unchanged for a host that renders them. Skills:
``skills/list`` and ``skills/get`` are asked for and each file is checked against its digest. Tasks: a
``tools/call`` answered with a task handle is polled to its result (``connections/task_calls.py``)."""


def client_extensions() -> dict[str, dict[str, Any]]:
    """A fresh copy of :data:`CLIENT_EXTENSIONS` (the SDK keeps the mapping it is given)."""
    return {identifier: dict(settings) for identifier, settings in CLIENT_EXTENSIONS.items()}


def declared(capabilities: Mapping[str, Any] | None) -> list[str]:
    """The extension identifiers in a capabilities object (JSON form), sorted."""
    extensions = capabilities.get("extensions") if isinstance(capabilities, Mapping) else None
    return sorted(str(key) for key in extensions) if isinstance(extensions, Mapping) else []


def short_label(identifiers: Iterable[str]) -> str:
    """A few words for people: ``apps, skills``; an unknown extension by its identifier's last part."""
    names = [SHORT_NAMES.get(identifier, identifier.rsplit("/", 1)[-1]) for identifier in identifiers]
    return ", ".join(sorted(set(names)))

"""What a conversion changed or dropped, and why: the record behind ``elftia-mcp tools --lint``.

Every provider pass writes a :class:`Note` for each change it makes to a tool, so that a server
author can see exactly how each API will receive their schema.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from elftia_desktop.tools.arguments import ArgumentMap

Action = Literal["changed", "dropped", "renamed", "cut", "fallback", "skipped", "warning"]


class Note(NamedTuple):
    """One change made to one tool for one provider (immutable).

    A named tuple: a conversion writes one for most schema nodes it changes, thousands per
    thousand tools, and a tuple is built several times faster than a frozen dataclass.
    """

    tool: str
    """The original MCP tool name."""
    provider: str
    """``openai``, ``openai-responses``, ``anthropic``, ``gemini`` or ``gemini-json``."""
    path: str
    """Where in the tool: ``name``, ``description``, or a schema path like ``properties.url.format``."""
    action: Action
    detail: str
    """What was done and why, in words."""

    def __str__(self) -> str:
        where = f" {self.path}" if self.path else ""
        tool = f"{self.tool} " if self.tool else ""  # a note about several tools names none
        return f"{tool}[{self.provider}]{where}: {self.action}: {self.detail}"

    def to_json(self) -> dict[str, Any]:
        """The note as a plain dict."""
        return self._asdict()


@dataclass
class NoteLog:
    """Collects notes for one tool and one provider while its schema is rewritten."""

    tool: str
    provider: str
    notes: list[Note] = field(default_factory=list)
    arguments: ArgumentMap | None = None
    """How the provider's arguments map back to the server's (None: unchanged); see :meth:`argument_map`."""

    def argument_map(self) -> ArgumentMap:
        """The tool's :class:`ArgumentMap`, created for the passes that wrap or rename arguments."""
        if self.arguments is None:
            self.arguments = ArgumentMap()
        return self.arguments

    def add(self, path: str, action: Action, detail: str) -> None:
        """Record one change at ``path``."""
        self.notes.append(_new_note(Note, (self.tool, self.provider, path, action, detail)))

    def dropped(self, path: str, key: str, why: str) -> None:
        """Record that keyword ``key`` at ``path`` was removed."""
        self.add(join_path(path, key), "dropped", why)


_new_note = tuple.__new__
"""Builds a :class:`Note` from its fields without the named tuple's Python-level ``__new__``."""


def join_path(path: str, key: str) -> str:
    """``path.key``, or ``key`` at the root."""
    return f"{path}.{key}" if path else key

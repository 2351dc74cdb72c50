"""The agent engine's tool registry: tools by name, collisions refused, batches added atomically."""

from __future__ import annotations

import builtins
import difflib
from collections.abc import Iterable
from typing import Any

from elftia_desktop.core.errors import ElftiaError
from elftia_desktop.core.text_rules import quoted
from elftia_desktop.engine.tool import ITool


class ToolRegistryError(ElftiaError):
    """Base of the registry's errors."""


class ToolNameConflict(ToolRegistryError):
    """A tool with that name is registered already (or appears twice in one batch)."""


class ToolNotRegistered(ToolRegistryError, KeyError):
    """No tool has that name."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def _origin(tool: ITool) -> str:
    return type(tool).__name__


class ToolRegistry:
    """Tools by name. Registering a taken name raises :class:`ToolNameConflict`, naming both tools."""

    def __init__(self) -> None:
        self._tools: dict[str, ITool] = {}

    def register(self, tool: ITool) -> None:
        """Add ``tool``; its name must be free."""
        self.register_all([tool])

    def register_all(self, tools: Iterable[ITool]) -> None:
        """Add several tools at once: either all are added or, on any collision, none."""
        batch: dict[str, ITool] = {}
        for tool in tools:
            name = tool.name
            if not name:
                raise ToolRegistryError(f"a {_origin(tool)} has an empty name and cannot be registered")
            taken = self._tools.get(name) or batch.get(name)
            if taken is not None:
                raise ToolNameConflict(
                    f"tool name {quoted(name)} is taken: a {_origin(taken)} is registered under it, "
                    f"so the {_origin(tool)} ({quoted(tool.description[:60])}) cannot be; "
                    "nothing from this batch was added"
                )
            batch[name] = tool
        self._tools.update(batch)

    def get(self, name: str) -> ITool:
        """The tool called ``name``; :class:`ToolNotRegistered` (with near names) when there is none."""
        try:
            return self._tools[name]
        except KeyError:
            close = difflib.get_close_matches(name, list(self._tools), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise ToolNotRegistered(f"no tool named {quoted(name)} is registered{hint}") from None

    def list(self) -> list[ITool]:
        """Every tool, in registration order."""
        return [*self._tools.values()]

    def names(self) -> builtins.list[str]:
        """Every tool's name, in registration order."""
        return [*self._tools]

    def unregister(self, name: str) -> ITool:
        """Remove and return the tool called ``name``."""
        tool = self.get(name)
        del self._tools[name]
        return tool

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    async def execute(self, name: str, params: dict[str, Any]) -> str:
        """Run the tool ``name``; an unknown name comes back as an error text the agent can read."""
        try:
            tool = self.get(name)
        except ToolNotRegistered as exc:
            return f"Error: {exc}"
        return await tool.execute(params)

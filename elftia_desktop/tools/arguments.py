"""The way back for a model's tool-call arguments: the form the MCP server declared.

A conversion sometimes has to change the shape of a tool's arguments for a provider: an input
schema that is not an object is wrapped as the single property ``value`` (every API wants an
object at the root), and Gemini gets other names for parameters whose names it does not accept.
Each tool's :class:`ArgumentMap`, kept beside its name in the
:class:`~elftia_desktop.tools.names.NameMap`, undoes both before the call goes to the server.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


class ArgumentError(ValueError):
    """The model's arguments cannot be given to the server in the form it declared."""


@dataclass
class ArgumentMap:
    """How one tool's provider arguments map back to the server's."""

    renamed: dict[str, str] = field(default_factory=dict)
    """Provider parameter name -> the server's name (top-level parameters only)."""
    wrapped: str | None = None
    """The property the whole input was wrapped in (the schema is not an object), or None."""

    def __bool__(self) -> bool:
        return bool(self.renamed) or self.wrapped is not None

    def restore(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """``arguments`` as the server declared them: original names, unwrapped; a new dict.

        Raises ``ArgumentError`` when the input was wrapped and the wrapped value is not a JSON
        object (MCP passes a tool's arguments as an object, so nothing else can reach the server).
        """
        args = {self.renamed.get(key, key): value for key, value in arguments.items()}
        if self.wrapped is None:
            return args
        value = args.get(self.wrapped)
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise ArgumentError(
                f"the tool's input schema is not an object, and the {self.wrapped!r} sent is a "
                f"{type(value).__name__}: MCP can only pass an object of arguments"
            )
        return dict(value)

    def to_json(self) -> dict[str, Any]:
        """``{"renamed": {providerName: originalName}, "wrapped": name | None}``."""
        return {"renamed": dict(self.renamed), "wrapped": self.wrapped}

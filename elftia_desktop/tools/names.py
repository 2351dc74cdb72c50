"""Provider-safe tool names and the map that leads them back to (server, tool).

Rules relied on (checked against the providers' current API references):

* OpenAI Chat Completions / Responses ``function.name`` and Anthropic ``tools[].name``:
  ``^[a-zA-Z0-9_-]{1,64}$`` (openai ``FunctionDefinition.name`` docstring; Anthropic Messages API
  reference, "Tool.name").
* Gemini ``FunctionDeclaration.name``: starts with a letter or ``_``; letters, digits, ``_ . : -``;
  at most 64 characters (ai.google.dev/api/caching#FunctionDeclaration; the google-genai 3.x
  docstring already allows 128, we keep the stricter 64).

* Gemini parameter names (``FunctionDeclaration.parameters``: "Parameter names must start with a
  letter or an underscore and must only contain chars a-z, A-Z, 0-9, or underscores with a
  maximum length of 64", google-genai ``types.FunctionDeclaration`` and the Vertex AI reference).
  :func:`parameter_names` renames the others, at every depth of ``parameters``
  (``parametersJsonSchema`` takes JSON Schema, where a property name is any string); the
  :class:`NameMap` keeps each tool's :class:`~elftia_desktop.tools.arguments.ArgumentMap` so that
  the model's call reaches the server under the names it declared.

The sanitizer, the hash and :func:`assign_names` live in :mod:`elftia_desktop.core.tool_names`
(one for the whole app) and are re-exported here. MCP allows 128 characters and dots, spaces or
any unicode in names. A name is sanitised (unicode folded to ASCII, other characters as ``_``);
a name that had to be cut, or that collides
with another tool's name, gets a short stable hash of its identity (server id + tool name) so that
it stays the same across runs and the :class:`NameMap` routes the model's call to the right tool.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from elftia_desktop.core.tool_names import (
    HASH_LENGTH,
    MAX_NAME_LENGTH,
    NameRule,
    ToolRef,
    assign_names,
    sanitize_name,
    short_hash,
    with_hash,
)
from elftia_desktop.tools.arguments import ArgumentMap

__all__ = [
    "HASH_LENGTH",
    "MAX_NAME_LENGTH",
    "NameMap",
    "NameRule",
    "ToolRef",
    "assign_names",
    "is_valid_name",
    "parameter_names",
    "sanitize_name",
    "short_hash",
    "with_hash",
]

OPENAI_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
ANTHROPIC_NAME = OPENAI_NAME
GEMINI_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$")
GEMINI_PARAMETER_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]{0,63}$")
_VALID = {"openai": OPENAI_NAME, "anthropic": ANTHROPIC_NAME, "gemini": GEMINI_NAME}


def is_valid_name(name: str, rule: NameRule) -> bool:
    """Whether ``name`` is accepted as a tool name under ``rule``."""
    return bool(_VALID[rule].match(name))


def parameter_names(names: Iterable[str]) -> dict[str, str]:
    """Gemini-safe names for parameters: ``{original: new}`` for the names that must change.

    A name is folded to ASCII, other characters become ``_``, a leading digit gets a ``_`` in
    front, and it is cut to 64 characters; a name that then collides with another parameter's
    gets ``_2``, ``_3`` ... The new names are unique and never equal a name that stays.
    """
    originals = list(dict.fromkeys(names))
    taken = {n for n in originals if GEMINI_PARAMETER_NAME.match(n)}
    renamed: dict[str, str] = {}
    for name in originals:
        if name in taken:
            continue
        base = sanitize_name(name, "parameter")[:MAX_NAME_LENGTH]
        candidate, n = base, 2
        while candidate in taken:
            suffix = f"_{n}"
            candidate, n = base[: MAX_NAME_LENGTH - len(suffix)] + suffix, n + 1
        taken.add(candidate)
        renamed[name] = candidate
    return renamed


class NameMap(Mapping[str, ToolRef]):
    """Provider tool name -> :class:`ToolRef`, and each tool's :class:`ArgumentMap`; read-only once built."""

    def __init__(
        self, entries: Mapping[str, ToolRef] | None = None, arguments: Mapping[str, ArgumentMap] | None = None
    ) -> None:
        self._entries: dict[str, ToolRef] = dict(entries or {})
        self._arguments: dict[str, ArgumentMap] = {k: v for k, v in (arguments or {}).items() if v}

    def __getitem__(self, name: str) -> ToolRef:
        return self._entries[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def resolve(self, provider_name: str) -> ToolRef | None:
        """The tool behind a name the model called, or None for an unknown name."""
        return self._entries.get(provider_name)

    def argument_map(self, provider_name: str) -> ArgumentMap:
        """How the arguments of a call to ``provider_name`` map back (empty: unchanged)."""
        return self._arguments.get(provider_name) or ArgumentMap()

    def restore_arguments(self, provider_name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """The model's arguments for ``provider_name`` as the server declared them (``ArgumentError``)."""
        return self.argument_map(provider_name).restore(arguments)

    def arguments_json(self) -> dict[str, dict[str, Any]]:
        """``{providerName: {"renamed", "wrapped"}}`` for the tools whose arguments change."""
        return {name: arguments.to_json() for name, arguments in self._arguments.items()}

    def to_json(self) -> dict[str, str]:
        """``{providerName: originalToolName}`` (the ``convert --json`` shape)."""
        return {name: ref.tool_name for name, ref in self._entries.items()}

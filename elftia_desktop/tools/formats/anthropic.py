"""MCP tools -> Anthropic Messages API tools ``{name, description, input_schema}``.

Relied on: Anthropic "Tool use" docs and the anthropic SDK's ``ToolParam``: ``input_schema`` is a
JSON Schema 2020-12 object with ``type: "object"``; the API rejects ``oneOf``, ``allOf`` or ``anyOf``
at the top level ("input_schema does not support oneOf, allOf, or anyOf at the top level");
names ``^[a-zA-Z0-9_-]{1,64}$``. Draft-07 input is rewritten to 2020-12 (see
:mod:`elftia_desktop.tools.formats.jsonschema`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from elftia_desktop.tools.convert import Conversion, ToolInput, ToolSource, convert_all
from elftia_desktop.tools.formats.jsonschema import JsonSchemaCleaner
from elftia_desktop.tools.notes import NoteLog

_ROOT_COMBINATORS = ("anyOf", "oneOf", "allOf")


def json_schema_parameters(schema: Any, log: NoteLog, *, share: bool = False) -> dict[str, Any]:
    """A tool's input schema as a JSON Schema 2020-12 object schema (root object, no root combinator).

    ``share``: subschemas that need no change are the input's own (for a pass that builds a new
    tree from them); otherwise the result is a tree of its own.
    """
    cleaner = JsonSchemaCleaner(log, share=share)
    root, defs = cleaner.prepared(schema)
    out: dict[str, Any] = dict(root)
    out["type"] = "object"
    if not isinstance(out.get("properties"), dict):
        out["properties"] = {}
    for key in _ROOT_COMBINATORS:
        if key in out:
            del out[key]
            log.dropped("", key, "the API rejects a combinator at the top level")
    if defs:
        out["$defs"] = {k: cleaner.clean(v, f"$defs.{k}") for k, v in defs.items()}
    return out


def _tool(source: ToolSource, name: str, log: NoteLog) -> dict[str, Any]:
    schema = json_schema_parameters(source.input_schema, log)
    return {"name": name, "description": source.description, "input_schema": schema}


def convert_mcp_tools_to_anthropic(tools: Sequence[ToolInput]) -> Conversion:
    """Tools as Anthropic tool definitions."""
    return convert_all(tools, "anthropic", "anthropic", _tool)

"""MCP tools -> Gemini ``[{"functionDeclarations": [...]}]``, with ``parameters`` or ``parametersJsonSchema``.

Relied on: Gemini API reference ``FunctionDeclaration`` and ``Schema`` (ai.google.dev/api/caching
#Schema, "a select subset of an OpenAPI 3.0 schema object") and google-genai 3.x ``types.Schema``:

* ``parameters`` keys: type, format, title, description, nullable, enum, maxItems, minItems,
  properties, required, minProperties, maxProperties, minLength, maxLength, pattern, anyOf,
  default, items, minimum, maximum. Types are the ``Type`` enum (``STRING``, ``NUMBER``,
  ``INTEGER``, ``BOOLEAN``, ``ARRAY``, ``OBJECT``). ``enum`` holds strings on ``STRING``. Formats:
  NUMBER ``float``/``double``, INTEGER ``int32``/``int64``, STRING ``enum``/``date-time``.
  For a function without parameters ``parameters`` is left unset.
  No ``$ref``/``$defs`` in that list (google-genai 3.6 and Vertex AI's ``Schema`` have ``ref``/``defs``
  fields, the Gemini API reference does not list them), so references are inlined and recursion
  is unrolled to a bounded depth (see :mod:`elftia_desktop.tools.formats.gemini_schema`).
* ``parametersJsonSchema``: JSON Schema whose root describes an object, mutually exclusive with
  ``parameters``; ``$defs``/``$ref`` are kept, recursion included. (The Gemini API documents
  ``$defs``/``$ref`` for ``responseJsonSchema``, where cycles "are unrolled to a limited degree"
  and may only pass through non-required properties; nothing more is documented for parameters.)
  Only the keywords of Gemini's documented JSON Schema subset are sent; the rest is moved or
  described (see :mod:`elftia_desktop.tools.formats.gemini_json`).
* names: see :mod:`elftia_desktop.tools.names`. In ``parameters``, property names Gemini does not
  accept (``^[a-zA-Z_][a-zA-Z0-9_]{0,63}$``) are renamed at every depth and noted; the tool's
  ``ArgumentMap`` in the name map maps the model's call back to the original names. That rule is
  documented for ``parameters`` only: ``parametersJsonSchema`` keeps every name.
* A value ``parameters`` cannot describe (an object without declared properties, a value without
  a type) is sent as a JSON-encoded ``STRING`` and decoded by the argument map: no bare ``OBJECT``
  is sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from elftia_desktop.tools.convert import Conversion, ToolInput, ToolSource, convert_all, prepare_schema
from elftia_desktop.tools.formats.anthropic import json_schema_parameters
from elftia_desktop.tools.formats.gemini_json import gemini_json_subset
from elftia_desktop.tools.formats.gemini_schema import GeminiSchemaWriter, recursion_stub
from elftia_desktop.tools.notes import NoteLog


def gemini_parameters(schema: Any, log: NoteLog) -> dict[str, Any] | None:
    """A tool's input schema as a Gemini ``Schema`` (OpenAPI subset), or None for no parameters."""
    root, _ = prepare_schema(schema, log, placeholder=recursion_stub)
    out = GeminiSchemaWriter(log).root(root)
    return out if out.get("properties") else None


def gemini_json_parameters(schema: Any, log: NoteLog) -> dict[str, Any] | None:
    """A tool's input schema as ``parametersJsonSchema`` (Gemini's documented subset), or None for no parameters."""
    out = gemini_json_subset(json_schema_parameters(schema, log, share=True), log)
    return out if out.get("properties") or out.get("additionalProperties") not in (None, False) else None


def convert_mcp_tools_to_gemini(tools: Sequence[ToolInput], *, json_schema: bool = False) -> Conversion:
    """Tools as one Gemini ``Tool`` holding every function declaration.

    ``json_schema`` sends ``parametersJsonSchema`` (real JSON Schema) instead of ``parameters``.
    """
    key = "parametersJsonSchema" if json_schema else "parameters"
    convert = gemini_json_parameters if json_schema else gemini_parameters

    def one(source: ToolSource, name: str, log: NoteLog) -> dict[str, Any]:
        """One tool as a Gemini ``FunctionDeclaration``."""
        declaration: dict[str, Any] = {"name": name, "description": source.description}
        params = convert(source.input_schema, log)
        if params is not None:
            declaration[key] = params
        return declaration

    conversion = convert_all(tools, "gemini-json" if json_schema else "gemini", "gemini", one)
    conversion.payload = [{"functionDeclarations": conversion.payload}] if conversion.payload else []
    return conversion

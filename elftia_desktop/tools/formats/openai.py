"""MCP tools -> OpenAI function tools (Chat Completions and Responses shapes).

Relied on (OpenAI API reference and the openai SDK's types, openai 3.x):

* Chat Completions: ``{"type": "function", "function": {name, description, parameters, strict?}}``
  (``ChatCompletionFunctionToolParam``/``FunctionDefinition``). ``parameters`` is a JSON Schema
  object; the root must be ``type: object`` and may not be a combinator.
* Descriptions: both shapes are kept within 1024 characters, the limit the API has enforced with
  ``string_above_max_length`` ("Invalid 'tools[i].function.description': string too long. Expected
  a string with maximum length 1024"; reported as lifted for some models in 2025, so this is the
  safe side, not a documented constant). A longer one is cut at a sentence or word end, says
  that it continues, and the rest opens the root ``parameters.description`` (a JSON Schema
  description, no limit documented), so the model still reads all of it; a ``changed`` note says so.
  Anthropic and Gemini document no limit for a tool's description: it is sent whole.
* Responses: ``{"type": "function", name, description, parameters, strict}``
  (``FunctionToolParam``: ``strict`` is required there, so it is always stated).
* An array schema without ``items`` is rejected ("array schema missing items"): one is added.
* At most 128 tools per request: the rest are left out with a warning that names them.
* Strict mode: see :mod:`elftia_desktop.tools.formats.openai_strict`.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from elftia_desktop.tools.convert import Conversion, ToolInput, ToolSource, convert_all
from elftia_desktop.tools.formats.jsonschema import JsonSchemaCleaner
from elftia_desktop.tools.formats.openai_strict import make_strict
from elftia_desktop.tools.notes import NoteLog
from elftia_desktop.tools.schema import cut_text

MAX_TOOLS = 128
MAX_DESCRIPTION = 1024
CONTINUED = " (continued in the parameters' description)"


def openai_parameters(schema: Any, log: NoteLog, *, share: bool = False) -> dict[str, Any]:
    """A tool's input schema as OpenAI (non-strict) ``parameters``.

    ``share``: subschemas that need no change are the input's own (for a pass that builds a new
    tree from them); otherwise the result is a tree of its own.
    """
    cleaner = JsonSchemaCleaner(log, array_items=True, share=share)
    root, defs = cleaner.prepared(schema)
    params: dict[str, Any] = dict(root)
    params["type"] = "object"
    if not isinstance(params.get("properties"), dict):
        params["properties"] = {}
    if defs:
        params["$defs"] = {k: cleaner.clean(v, f"$defs.{k}") for k, v in defs.items()}
    return params


def _function(source: ToolSource, name: str, log: NoteLog, *, strict: bool, chat: bool) -> dict[str, Any]:
    params = openai_parameters(source.input_schema, log, share=strict)
    is_strict = False
    if strict:
        strict_params = make_strict(params, log)
        if strict_params is not None:
            params, is_strict = strict_params, True
        else:
            params = copy.deepcopy(params)  # sent as it is: a tree of its own, not parts of the input
    description = _short_description(source.description, params, log)
    if chat:
        function: dict[str, Any] = {"name": name, "description": description, "parameters": params}
        if strict:
            function["strict"] = is_strict
        return {"type": "function", "function": function}
    return {"type": "function", "name": name, "description": description, "parameters": params, "strict": is_strict}


def _short_description(text: str, params: dict[str, Any], log: NoteLog) -> str:
    """``text`` within :data:`MAX_DESCRIPTION`; the rest goes to the start of ``params["description"]``."""
    if len(text) <= MAX_DESCRIPTION:
        return text
    head = cut_text(text, MAX_DESCRIPTION - len(CONTINUED))
    rest = text[len(head.removesuffix("…")) :].strip()
    before = params.get("description")
    params["description"] = f"(Tool description, continued:) {rest}" + (f"\n\n{before}" if before else "")
    log.add("description", "changed", f"{len(text)} characters: the first {len(head)} sent as the description "
            f"(limit {MAX_DESCRIPTION}), the rest at the start of the parameters' description")  # fmt: skip
    return head + CONTINUED


def convert_mcp_tools_to_openai(
    tools: Sequence[ToolInput], *, strict: bool = False, responses: bool = False, limit: int = MAX_TOOLS
) -> Conversion:
    """Tools as OpenAI function tools; ``responses`` for the Responses API shape.

    With ``strict`` each tool is made strict when it can be; one that cannot keeps
    ``strict: false`` and a ``fallback`` note says which tool and why.
    """
    fmt = "openai-responses" if responses else "openai"

    def one(source: ToolSource, name: str, log: NoteLog) -> dict[str, Any]:
        """One tool as an OpenAI function (Chat Completions or Responses shape)."""
        return _function(source, name, log, strict=strict, chat=not responses)

    return convert_all(tools, fmt, "openai", one, limit=limit)

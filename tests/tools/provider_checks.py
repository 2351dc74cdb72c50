"""Checks that a converted payload is what each provider documents, using the providers' own SDK types.

google-genai's pydantic models forbid unknown fields; the openai and anthropic TypedDicts are
validated with a pydantic ``TypeAdapter`` and compared with the input, so nothing is silently
dropped. Every JSON Schema is meta-validated against draft 2020-12 (once per distinct schema: the
formats often send the same one, and meta-validation is most of the checks' time). The SDKs are
imported at the first check that needs them: they cost about 2 s of CPU, and every xdist worker
collects this module while not every one runs a check.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from jsonschema import Draft202012Validator
from pydantic import TypeAdapter

from elftia_desktop.tools.formats.gemini_schema import GEMINI_FORMATS
from elftia_desktop.tools.formats.openai_strict import STRICT_FORMATS

OPENAI_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
GEMINI_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$")
MCP_ONLY = {"outputSchema", "annotations", "title", "_meta", "icons", "execution", "inputSchema"}
_NAME_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
GEMINI_KEYS = {"type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems", "properties",
               "required", "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "anyOf", "default",
               "items", "minimum", "maximum"}  # fmt: skip
GEMINI_JSON_SUBSET = {"type", "title", "description", "anyOf", "$ref", "$defs", "properties", "required",
                      "additionalProperties", "enum", "format", "minimum", "maximum", "items", "prefixItems",
                      "minItems", "maxItems"}  # fmt: skip
"""Gemini's documented JSON Schema keywords (Gemini API docs, Structured output, "JSON Schema support")."""
STRICT_KEYS = {"type", "description", "title", "enum", "const", "anyOf", "$ref", "$defs", "pattern",
               "format", "multipleOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "items",
               "minItems", "maxItems", "properties", "required", "additionalProperties"}  # fmt: skip


@functools.cache
def sdk_adapter(kind: str) -> TypeAdapter[Any]:
    """The pydantic adapter of an SDK's tool type (``chat``, ``responses`` or ``anthropic``), built once."""
    if kind == "anthropic":
        from anthropic.types import ToolParam

        return TypeAdapter(ToolParam)
    if kind == "responses":
        from openai.types.responses import FunctionToolParam

        return TypeAdapter(FunctionToolParam)
    from openai.types.chat import ChatCompletionFunctionToolParam

    return TypeAdapter(ChatCompletionFunctionToolParam)


_VALID_SCHEMAS: set[str] = set()
"""The schemas (as canonical JSON) that passed meta-validation in this process."""


def check_schema(schema: Any) -> None:
    """``schema`` is a valid draft 2020-12 JSON Schema (``SchemaError`` if not); each distinct schema is
    meta-validated once per process, as the answer depends on nothing else."""
    text = json.dumps(schema, sort_keys=True)
    if text not in _VALID_SCHEMAS:
        Draft202012Validator.check_schema(schema)
        _VALID_SCHEMAS.add(text)


def check_openai(payload: list[dict[str, Any]], *, responses: bool = False) -> None:
    """OpenAI Chat Completions (or Responses) function tools."""
    adapter = sdk_adapter("responses" if responses else "chat")
    for tool in payload:
        assert adapter.validate_python(tool) == tool, "a field the SDK type does not define"
        function = tool if responses else tool["function"]
        assert not MCP_ONLY & set(function)
        assert OPENAI_NAME.match(function["name"]), function["name"]
        if responses:
            assert isinstance(tool["strict"], bool)
        assert len(function["description"]) <= 1024
        params = function["parameters"]
        assert params["type"] == "object" and isinstance(params["properties"], dict)
        assert not {"anyOf", "oneOf", "allOf", "not"} & set(params)
        check_schema(params)
        if function.get("strict"):
            check_strict(params, params)


def check_strict(node: Any, root: dict[str, Any], path: str = "") -> None:
    """Every rule of OpenAI strict mode, recursively."""
    assert isinstance(node, dict), path
    assert set(node) <= STRICT_KEYS, (path, set(node) - STRICT_KEYS)
    if "$ref" in node:
        assert set(node) == {"$ref"}, path
        assert node["$ref"].startswith("#/$defs/") and node["$ref"][8:] in root["$defs"], path
        return
    assert "type" in node or "anyOf" in node or "enum" in node or "const" in node, path
    if "format" in node:
        assert node["format"] in STRICT_FORMATS, path
    if node.get("type") == "object":
        assert node["additionalProperties"] is False, path
        assert node["required"] == list(node["properties"]), path
        for name, sub in node["properties"].items():
            check_strict(sub, root, f"{path}.{name}")
    if node.get("type") == "array":
        check_strict(node["items"], root, f"{path}.items")
    for i, branch in enumerate(node.get("anyOf", [])):
        check_strict(branch, root, f"{path}.anyOf[{i}]")
    for name, sub in node.get("$defs", {}).items():
        check_strict(sub, root, f"$defs.{name}")


def check_anthropic(payload: list[dict[str, Any]]) -> None:
    """Anthropic tool definitions."""
    for tool in payload:
        assert sdk_adapter("anthropic").validate_python(tool) == tool
        assert set(tool) == {"name", "description", "input_schema"}
        assert OPENAI_NAME.match(tool["name"])
        schema = tool["input_schema"]
        assert schema["type"] == "object"
        assert not {"anyOf", "oneOf", "allOf"} & set(schema)
        check_schema(schema)
        check_refs_resolve(schema, schema)


def check_refs_resolve(node: Any, root: dict[str, Any], *, bare: bool = False) -> None:
    """Every ``$ref`` points into ``$defs``; with ``bare`` a ref sits only beside description/default."""
    if isinstance(node, list):
        for item in node:
            check_refs_resolve(item, root, bare=bare)
    elif isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            assert ref.startswith("#/$defs/") and ref[8:] in root.get("$defs", {}), ref
            if bare:
                assert set(node) <= {"$ref", "description", "default"}, node
        for key, value in node.items():
            if key in _NAME_MAPS and isinstance(value, dict):  # keys are names (a property may be called "$ref")
                for sub in value.values():
                    check_refs_resolve(sub, root, bare=bare)
            elif key not in ("enum", "const", "default", "examples"):
                check_refs_resolve(value, root, bare=bare)


def check_gemini(payload: list[dict[str, Any]], *, json_schema: bool = False) -> None:
    """A Gemini tools list: one ``Tool`` with function declarations."""
    from google.genai import types as gtypes

    assert len(payload) <= 1
    for tool in payload:
        gtypes.Tool.model_validate(tool)
        assert set(tool) == {"functionDeclarations"}
        for declaration in tool["functionDeclarations"]:
            parsed = gtypes.FunctionDeclaration.model_validate(declaration)
            assert set(declaration) <= {"name", "description", "parameters", "parametersJsonSchema"}
            assert GEMINI_NAME.match(declaration["name"]), declaration["name"]
            if json_schema:
                assert "parameters" not in declaration
                schema = declaration.get("parametersJsonSchema")
                if schema is not None:
                    assert schema["type"] == "object"
                    check_schema(schema)
                    check_refs_resolve(schema, schema, bare=True)
                    check_gemini_json_subset(schema)
            else:
                assert "parametersJsonSchema" not in declaration
                if "parameters" in declaration:
                    assert parsed.parameters is not None
                    params = declaration["parameters"]
                    assert params["type"] == "OBJECT" and params["properties"]
                    check_gemini_schema(params)


def check_gemini_schema(node: Any, path: str = "") -> None:
    """Gemini's OpenAPI-subset rules, recursively."""
    from google.genai import types as gtypes

    assert isinstance(node, dict), path
    assert set(node) <= GEMINI_KEYS, (path, set(node) - GEMINI_KEYS)
    gtypes.Schema.model_validate(node)
    if "anyOf" in node:
        assert "type" not in node
        for i, branch in enumerate(node["anyOf"]):
            check_gemini_schema(branch, f"{path}.anyOf[{i}]")
        return
    kind = node["type"]
    assert kind in {"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"}, path
    if "enum" in node:
        assert kind == "STRING" and all(isinstance(v, str) for v in node["enum"]), path
    if "format" in node:
        assert node["format"] in GEMINI_FORMATS.get(kind, ()), path
    if kind == "ARRAY":
        check_gemini_schema(node["items"], f"{path}.items")
    if kind == "OBJECT":
        props = node.get("properties", {})
        assert props, f"{path}: an OBJECT without properties (Gemini cannot describe a free-form object)"
        assert set(node.get("required", [])) <= set(props), path
        for name, sub in props.items():
            check_gemini_schema(sub, f"{path}.{name}")


def check_gemini_json_subset(node: Any, path: str = "") -> None:
    """Only the JSON Schema keywords Gemini documents, at every node (names in ``properties``/``$defs`` aside)."""
    if not isinstance(node, dict):
        return
    assert set(node) <= GEMINI_JSON_SUBSET, (path, set(node) - GEMINI_JSON_SUBSET)
    if "format" in node:
        assert node["format"] in {"date-time", "date", "time"}, path
    for key in ("properties", "$defs"):
        for name, sub in (node.get(key) or {}).items():
            check_gemini_json_subset(sub, f"{path}.{key}.{name}")
    for key in ("items", "additionalProperties"):
        check_gemini_json_subset(node.get(key), f"{path}.{key}")
    for key in ("anyOf", "prefixItems"):
        for i, sub in enumerate(node.get(key) or []):
            check_gemini_json_subset(sub, f"{path}.{key}[{i}]")


def check_all(conversions: dict[str, Any]) -> None:
    """Run the matching check for each format in ``{format: payload}``."""
    for fmt, payload in conversions.items():
        if fmt == "openai":
            check_openai(payload)
        elif fmt == "openai-responses":
            check_openai(payload, responses=True)
        elif fmt == "anthropic":
            check_anthropic(payload)
        elif fmt == "gemini":
            check_gemini(payload)
        elif fmt == "gemini-json":
            check_gemini(payload, json_schema=True)

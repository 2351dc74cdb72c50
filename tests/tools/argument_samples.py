"""Sample arguments for a tool's original schema, and the same arguments as a provider's model would send them.

:func:`sample` builds a value valid in kind for an MCP input schema (every property, a bounded
depth, one entry in each map); :func:`encode` turns it into the provider's form by running an
:class:`~elftia_desktop.tools.arguments.ArgumentMap` forwards (names renamed, values JSON-encoded,
the nulls of strict mode's optional properties added, an explicit null as ``NULL_TEXT``); the map's
``restore`` must then give back exactly the sample. :func:`gemini_as_json_schema` lets jsonschema
check Gemini's OpenAPI-subset ``parameters``.
"""

from __future__ import annotations

import json
from typing import Any

from elftia_desktop.tools.arguments import NULL_TEXT, ArgumentMap
from elftia_desktop.tools.schema import deref, merge_all_of, schema_types

MAX_DEPTH = 10
FULL_DEPTH = 4
"""Below this depth arrays are empty and nullable values null, so recursive models stay finite."""
_FORMATS = {"date-time": "2020-01-02T03:04:05Z", "date": "2020-01-02", "time": "03:04:05", "uri": "https://e.org/",
            "url": "https://e.org/", "email": "a@e.org", "uuid": "123e4567-e89b-12d3-a456-426614174000"}  # fmt: skip


def sample(node: Any, root: dict[str, Any], depth: int = 0) -> Any:
    """A value of the kind ``node`` describes (types, enums, required properties respected)."""
    node = deref(root, node) if isinstance(node, dict) else {}
    if depth > MAX_DEPTH:
        return None
    if "allOf" in node:
        node = merge_all_of(node)
    if "const" in node:
        return node["const"]
    if isinstance(node.get("enum"), list) and node["enum"]:
        return node["enum"][0]
    for key in ("anyOf", "oneOf"):
        branches = [b for b in node.get(key) or [] if isinstance(b, dict)]
        if branches:
            nullable = any(deref(root, b).get("type") == "null" for b in branches)
            if nullable and depth >= FULL_DEPTH:
                return None
            kept = [b for b in branches if deref(root, b).get("type") != "null"] or branches
            return sample({**{k: v for k, v in node.items() if k != key}, **deref(root, kept[0])}, root, depth)
    types = [t for t in schema_types(node) if t != "null"] or _inferred(node)
    if "null" in schema_types(node) and depth >= FULL_DEPTH:
        return None
    return _typed(node, types[0] if types else "any", root, depth)


def _inferred(node: dict[str, Any]) -> list[str]:
    if "properties" in node or "additionalProperties" in node:
        return ["object"]
    return ["array"] if "items" in node or "prefixItems" in node else []


def _typed(node: dict[str, Any], kind: str, root: dict[str, Any], depth: int) -> Any:
    if kind == "object":
        props = node.get("properties") if isinstance(node.get("properties"), dict) else {}
        out = {name: sample(sub, root, depth + 1) for name, sub in props.items()}
        extra = node.get("additionalProperties")
        if not props and extra is not False and (depth > 0 or extra is not None):  # a root without any: no parameters
            out["some key"] = sample(extra if isinstance(extra, dict) else {}, root, depth + 1)
        return out
    if kind == "array":
        if isinstance(node.get("prefixItems"), list):
            return [sample(item, root, depth + 1) for item in node["prefixItems"]]
        count = max(node.get("minItems", 1) if isinstance(node.get("minItems"), int) else 1, 1)
        return (
            []
            if depth >= FULL_DEPTH and not node.get("minItems")
            else [sample(node.get("items"), root, depth + 1)] * count
        )
    if kind in ("integer", "number"):
        low = node.get("minimum", node.get("exclusiveMinimum", 0))
        return int(low) + 1 if isinstance(low, int | float) and not isinstance(low, bool) else 1
    if kind == "boolean":
        return True
    if kind == "string":
        fmt = node.get("format")
        text = _FORMATS.get(fmt, "sample text") if isinstance(fmt, str) else "sample text"
        return text if not isinstance(node.get("minLength"), int) else text.ljust(node["minLength"], "x")
    return "any value"


def encode(value: Any, amap: ArgumentMap | None, defs: dict[str, ArgumentMap]) -> Any:
    """``value`` (server form) as the model sends it under ``amap`` (the inverse of ``restore``)."""
    if amap is None:
        return value
    if amap.ref is not None and amap.ref in defs:
        return encode(value, defs[amap.ref], defs)
    if amap.json_encoded:
        return json.dumps(value)
    if isinstance(value, dict):
        provider_names = {original: new for new, original in amap.renamed.items()}
        out = {}
        for key, item in value.items():
            name = provider_names.get(key, key)
            if item is None and name in amap.null_text:
                out[name] = NULL_TEXT  # an explicit null, where null itself means "omitted"
                continue
            out[name] = encode(item, amap.properties.get(name), defs)
        for name in amap.omit_null:
            out.setdefault(name, None)
        return out
    if isinstance(value, list) and amap.items is not None:
        return [encode(v, amap.items, defs) for v in value]
    return value


def encode_arguments(arguments: dict[str, Any], amap: ArgumentMap) -> dict[str, Any]:
    """Top-level :func:`encode`, with the wrapped input of a non-object schema."""
    value = {amap.wrapped: arguments} if amap.wrapped is not None else arguments
    out: dict[str, Any] = encode(value, amap, amap.defs)
    return out


def gemini_as_json_schema(node: Any) -> Any:
    """Gemini's OpenAPI-subset ``Schema`` as JSON Schema (types lower-cased, ``nullable`` as a null type)."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "properties":
            out[key] = {k: gemini_as_json_schema(v) for k, v in value.items()}
        elif key == "items":
            out[key] = gemini_as_json_schema(value)
        elif key == "anyOf":
            out[key] = [gemini_as_json_schema(v) for v in value] + ([{"type": "null"}] if node.get("nullable") else [])
        elif key == "type":
            out[key] = [value.lower(), "null"] if node.get("nullable") else value.lower()
        elif key not in ("nullable", "format"):
            out[key] = value
    if "enum" in out and node.get("nullable"):
        out["enum"] = [*out["enum"], None]
    return out

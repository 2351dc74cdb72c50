"""The way back from OpenAI strict mode for a model's arguments, from the original schema alone.

Strict mode makes every optional property required and nullable (see
:mod:`elftia_desktop.tools.formats.openai_strict`); :func:`strip_strict_nulls` removes the nulls the
model sent there, for a caller that has the tool's original (MCP) schema and not its argument map.
"""

from __future__ import annotations

from typing import Any

from elftia_desktop.tools.refs import MAX_DEPTH
from elftia_desktop.tools.schema import deref, process_json_schema, string_list


def allows_null(node: dict[str, Any]) -> bool:
    """Whether a (strict-mode) schema allows ``null``: its type, or a branch of its ``anyOf``."""
    types = node.get("type")
    if types == "null" or (isinstance(types, list) and "null" in types):
        return True
    branches = node.get("anyOf")
    return isinstance(branches, list) and any(isinstance(b, dict) and allows_null(b) for b in branches)


def strip_strict_nulls(args: Any, original_schema: Any) -> Any:
    """The model's arguments with the nulls strict mode forced on optional properties removed.

    A ``null`` is removed where the original (MCP) schema does not require the property and does
    not allow null for it; everything else passes unchanged. Returns a new value.
    """
    root = original_schema if isinstance(original_schema, dict) else {}
    return _strip(args, process_json_schema(root), root, 0)


def _strip(value: Any, schema: Any, root: dict[str, Any], depth: int) -> Any:
    schema = deref(root, schema) if isinstance(schema, dict) else {}
    if depth > MAX_DEPTH:
        return value
    if isinstance(value, dict):
        props, required = _object_parts(schema, root)
        out = {}
        for key, item in value.items():
            sub = props.get(key)
            if item is None and key not in required and not _originalallows_null(sub, root):
                continue
            out[key] = _strip(item, sub, root, depth + 1)
        return out
    if isinstance(value, list):
        items = schema.get("items")
        return [_strip(v, items if isinstance(items, dict) else {}, root, depth + 1) for v in value]
    return value


def _object_parts(schema: dict[str, Any], root: dict[str, Any]) -> tuple[dict[str, Any], set[str]]:
    props: dict[str, Any] = {}
    required: set[str] = set()
    for part in [schema, *(b for k in ("allOf", "anyOf", "oneOf") for b in schema.get(k) or [] if isinstance(b, dict))]:
        part = deref(root, part)
        if isinstance(part.get("properties"), dict):
            for name, sub in part["properties"].items():
                props.setdefault(name, sub)
        if part is schema or "allOf" in schema:
            required.update(string_list(part.get("required")))
    return props, required


def _originalallows_null(sub: Any, root: dict[str, Any]) -> bool:
    if not isinstance(sub, dict):
        return sub is True
    sub = deref(root, sub)
    if not sub or allows_null(sub) or sub.get("nullable") is True or sub.get("const", 0) is None:
        return True
    enum = sub.get("enum")
    if isinstance(enum, list) and None in enum:
        return True
    return any(_originalallows_null(b, root) for k in ("anyOf", "oneOf") for b in sub.get(k) or [])

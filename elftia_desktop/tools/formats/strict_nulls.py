"""OpenAI strict mode's nulls: nullable schemas, and the way back for a model's arguments from the original schema.

Strict mode makes every optional property required and nullable (see
:mod:`elftia_desktop.tools.formats.openai_strict`); :func:`strip_strict_nulls` removes the nulls the
model sent there, for a caller that has the tool's original (MCP) schema and not its argument map.
"""

from __future__ import annotations

from typing import Any

from elftia_desktop.tools.refs import MAX_DEPTH
from elftia_desktop.tools.schema import deref, process_json_schema, string_list

NULL_TYPE = {"type": "null"}
"""The null branch of a nullable union."""


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


def nullable(node: dict[str, Any]) -> dict[str, Any]:
    """``node`` (a converted schema, changed in place) or null; its description and title stay outside the union."""
    out: dict[str, Any] = {}
    if "title" in node:
        for key in [k for k in node if k == "description" or k == "title"]:  # in the node's order
            out[key] = node.pop(key)
    elif "description" in node:
        out["description"] = node.pop("description")
    if len(node) == 1 and "anyOf" in node:
        out["anyOf"] = [*node["anyOf"], *([] if NULL_TYPE in node["anyOf"] else [{"type": "null"}])]
    else:
        out["anyOf"] = [node, {"type": "null"}]
    return out


def nullable_leaf(node: dict[str, Any]) -> dict[str, Any]:
    """:func:`_nullable` of a copy of ``node``, a plain scalar schema (no ``anyOf``), built at once."""
    inner = dict(node)
    if "title" in node:
        return nullable(inner)
    if "description" in node:
        return {"description": inner.pop("description"), "anyOf": [inner, {"type": "null"}]}
    return {"anyOf": [inner, {"type": "null"}]}

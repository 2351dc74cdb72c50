"""``process_json_schema`` and the schema helpers every provider pass shares.

``process_json_schema`` follows the original ToolsLoader: an empty or non-object input becomes
an empty object schema; an object schema keeps its ``properties``, ``required`` and
``description`` (and its ``$defs``/``definitions``, which its references need); anything else is
wrapped as an object. One addition: a root ``anyOf``/``oneOf``/``allOf`` whose branches are all
objects (a zod or pydantic union at the root) is merged into one object with every property and
only the common required ones, so the arguments keep their shape and no API sees a root
combinator (OpenAI and Anthropic both reject one).
"""

from __future__ import annotations

import copy
from typing import Any

from elftia_desktop.tools.notes import NoteLog
from elftia_desktop.tools.refs import resolve_pointer

JSON_TYPES = ("string", "number", "integer", "boolean", "object", "array", "null")
_TYPE_SET = frozenset(JSON_TYPES)
COMBINATORS = ("anyOf", "oneOf", "allOf")
WRAPPED_PROPERTY = "value"
_MAX_REF_SCAN = 64
_CONTAINERS = (dict, list)
_DATA_KEYS = frozenset({"default", "enum", "const", "examples", "example"})
_ROOT_KEPT = ("required", "description", "$defs", "definitions", "additionalProperties")
_ROOT_NOT_NOTED = frozenset({*_ROOT_KEPT, "type", "properties"})


def empty_object() -> dict[str, Any]:
    """The schema of a tool without parameters."""
    return {"type": "object", "properties": {}}


def schema_types(node: dict[str, Any]) -> list[str]:
    """The JSON types ``node`` declares (``type`` as a string or a list), known ones only."""
    raw = node.get("type")
    if isinstance(raw, str):
        return [raw] if raw in _TYPE_SET else []
    if not isinstance(raw, list):
        return []
    return list(dict.fromkeys(t for t in raw if isinstance(t, str) and t in _TYPE_SET))


def is_object_schema(node: Any) -> bool:
    """Whether ``node`` describes a JSON object (typed so, or with ``properties``)."""
    if not isinstance(node, dict):
        return False
    types = schema_types(node)
    return types == ["object"] or (not types and isinstance(node.get("properties"), dict))


def is_null_schema(node: Any) -> bool:
    """Whether ``node`` only allows ``null``."""
    return isinstance(node, dict) and (node.get("type") == "null" or node.get("const", 0) is None)


def string_list(value: Any) -> list[str]:
    """The strings of a list (``required`` and the like), duplicates removed."""
    return list(dict.fromkeys(v for v in value if isinstance(v, str))) if isinstance(value, list) else []


def process_json_schema(schema: Any, log: NoteLog | None = None) -> dict[str, Any]:
    """The tool's input schema as an object schema (a new tree; the input is not changed)."""
    return copy.deepcopy(root_object(schema, log))


def root_object(schema: Any, log: NoteLog | None = None) -> dict[str, Any]:
    """:func:`process_json_schema` without the copy: the result shares subtrees with ``schema``.

    For passes that build a new tree anyway; the shared parts must not be changed.
    """
    if not isinstance(schema, dict) or not schema:
        return empty_object()
    if is_object_schema(schema):
        out: dict[str, Any] = {"type": "object"}
        props = schema.get("properties")
        out["properties"] = props if isinstance(props, dict) else {}
        for key in _ROOT_KEPT:
            if key in schema:
                out[key] = schema[key]
        if log is not None:
            for key in schema:
                if key not in _ROOT_NOT_NOTED:
                    log.dropped("", key, "the root keeps only properties, required and description")
        return out
    merged = _merge_root_union(schema, log)
    if merged is not None:
        return merged
    if log is not None:
        log.add("", "changed", f"the input schema is not an object; wrapped as the property {WRAPPED_PROPERTY!r}")
    wrapped = {k: v for k, v in schema.items() if k not in ("$defs", "definitions", "$schema")}
    out = {"type": "object", "properties": {WRAPPED_PROPERTY: wrapped}, "required": [WRAPPED_PROPERTY]}
    for key in ("$defs", "definitions"):
        if key in schema:
            out[key] = schema[key]
    return out


def _merge_root_union(schema: dict[str, Any], log: NoteLog | None) -> dict[str, Any] | None:
    for key in COMBINATORS:
        branches = schema.get(key)
        if not isinstance(branches, list) or not branches:
            continue
        resolved = [deref(schema, b) for b in branches]
        if not all(is_object_schema(b) for b in resolved):
            return None
        merged = merge_objects(resolved, all_required=key == "allOf")
        for extra in ("description", "$defs", "definitions"):
            if extra in schema:
                merged[extra] = schema[extra]
        if log is not None:
            how = "merged" if key == "allOf" else "merged into one object (only the common properties stay required)"
            log.add(key, "changed", f"root {key} of {len(branches)} object schemas {how}; APIs reject a root {key}")
        return merged
    return None


def has_ref(node: Any, depth: int = 0) -> bool:
    """Whether a ``$ref`` occurs anywhere in ``node`` (outside data keywords); bounded depth.

    Anything nested deeper than 64 levels counts as a reference (the caller then takes the
    careful, bounded path).
    """
    if depth > _MAX_REF_SCAN:
        return True
    return isinstance(node, _CONTAINERS) and _ref_inside(node, depth)


def _ref_inside(node: dict[str, Any] | list[Any], depth: int) -> bool:
    # Plain loops, recursing into containers only: the scan runs on every tool of every conversion.
    if isinstance(node, dict):
        if "$ref" in node:
            return True
        for key, value in node.items():
            if key in _DATA_KEYS:
                continue
            if depth >= _MAX_REF_SCAN:
                return True  # a value nested deeper than the scan goes
            if isinstance(value, _CONTAINERS) and _ref_inside(value, depth + 1):
                return True
        return False
    for value in node:
        if depth >= _MAX_REF_SCAN:
            return True
        if isinstance(value, _CONTAINERS) and _ref_inside(value, depth + 1):
            return True
    return False


def deref(root: dict[str, Any], node: Any) -> Any:
    """``node`` with a local ``$ref`` replaced by its target (its own keys win); bounded."""
    seen = 0
    while isinstance(node, dict) and isinstance(node.get("$ref"), str) and seen < 16:
        target = resolve_pointer(root, node["$ref"])
        if not isinstance(target, dict):
            return node
        node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        seen += 1
    return node


def merge_objects(branches: list[dict[str, Any]], *, all_required: bool) -> dict[str, Any]:
    """One object schema from several: every property; required ones per ``all_required``.

    With ``all_required`` (``allOf``) a property required by any branch is required; otherwise
    (a union) only those every branch requires. A property defined differently by branches
    becomes ``anyOf`` of its definitions.
    """
    props: dict[str, Any] = {}
    required_sets: list[set[str]] = []
    for branch in branches:
        for name, sub in (branch.get("properties") or {}).items():
            if name not in props:
                props[name] = copy.deepcopy(sub)
            elif props[name] != sub:
                prior = props[name]
                options = prior["anyOf"] if isinstance(prior, dict) and list(prior) == ["anyOf"] else [prior]
                if sub not in options:
                    props[name] = {"anyOf": [*options, copy.deepcopy(sub)]}
        required_sets.append(set(string_list(branch.get("required"))))
    if all_required:
        required = set().union(*required_sets)
    else:
        required = set.intersection(*required_sets) if required_sets else set()
    return {"type": "object", "properties": props, "required": [n for n in props if n in required]}


def merge_all_of(node: dict[str, Any]) -> dict[str, Any]:
    """``node`` with its ``allOf`` branches merged in (objects: properties and required combined)."""
    branches = [b for b in node.get("allOf", []) if isinstance(b, dict)]
    rest = {k: v for k, v in node.items() if k != "allOf"}
    parts = [rest, *branches] if rest else branches
    if any(is_object_schema(p) for p in parts) and all(
        is_object_schema(p) or not (set(p) - {"description", "title", "default", "type"}) for p in parts
    ):
        merged = merge_objects([p for p in parts if is_object_schema(p)], all_required=True)
        for part in reversed(parts):
            for key in ("description", "title", "default"):
                if key in part:
                    merged.setdefault(key, part[key])
        return merged
    out: dict[str, Any] = {}
    for part in parts:
        for key, value in part.items():
            out.setdefault(key, copy.deepcopy(value))
    return out


def cut_text(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters: after a sentence if one ends in the second
    half, else at a word end followed by ``…``."""
    if len(text) <= limit:
        return text
    room = text[: limit - 1]
    sentence = max(room.rfind(m) for m in (". ", "! ", "? ", "\n"))
    if sentence >= limit // 2:
        return room[: sentence + 1].rstrip()
    word = max(room.rfind(m) for m in (" ", "\n", "\t"))
    if word >= limit // 2:
        return room[:word].rstrip() + "…"
    return room.rstrip() + "…"

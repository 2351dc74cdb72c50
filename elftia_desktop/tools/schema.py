"""``process_json_schema`` and the schema helpers every provider pass shares.

``process_json_schema`` follows the original ToolsLoader: an empty or non-object input (or one of
annotations only, such as a bare ``$schema``) becomes an empty object schema; an object schema
keeps its ``properties``, ``required`` and ``description`` (and its ``$defs``/``definitions``,
which its references need); anything else is wrapped as an object. Additions:

* a root ``$ref`` (pydantic's ``model_json_schema()`` of one model: ``{"$ref": "#/$defs/Tree",
  "$defs": {...}}``, with or without ``type: object``), or a root ``allOf`` of one ``$ref``, is
  resolved to the object it names: its properties are the tool's parameters, at the top level;
  the root's own keys (its description) win over the target's;
* a root ``anyOf``/``oneOf``/``allOf`` whose branches are all objects (a zod or pydantic union at
  the root) is merged into one object with every property and only the common required ones, so
  the arguments keep their shape and no API sees a root combinator (OpenAI and Anthropic both
  reject one); ``null`` branches (and ``null`` in a root type list) are dropped: the arguments
  of a call are always an object.

Only a schema that really is not an object is wrapped as the property ``value``; the name map
then unwraps the model's call (see :mod:`elftia_desktop.tools.arguments`).
"""

from __future__ import annotations

import copy
from collections.abc import Collection
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
_ROOT_NOT_NOTED = frozenset({*_ROOT_KEPT, "type", "properties", "$schema", "title"})
"""Root keys left out without a loss: a dialect marker, and a title the tool's name already gives."""
_ROOT_LEFT_OUT = {
    "$schema": "left out: a dialect marker (the API reads the schema in its own dialect)",
    "title": "left out: the root's title (the tool's name says it)",
}
"""Root keys left out with a note that loses nothing, so the lint never calls such a payload unchanged."""
_ANNOTATIONS = frozenset({"$schema", "$id", "$comment", "title", "description"})
_SPECIAL_ROOT = frozenset({"$ref", *COMBINATORS})


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
    if not isinstance(schema, dict) or _ANNOTATIONS.issuperset(schema):
        return empty_object()  # nothing but annotations (a broken zod export sends only ``$schema``): no parameters
    kind, root = _classify(schema, log)
    if kind == "merged":
        return root
    if kind == "object":
        return _object_root(root, log)
    if log is not None:
        log.add("", "changed", f"the input schema is not an object; wrapped as the property {WRAPPED_PROPERTY!r}, "
                "which is unwrapped again before the call reaches the server")  # fmt: skip
        if not may_be_object(root, root):
            log.add("", "warning", "MCP passes a tool's arguments as a JSON object and this input schema allows no "
                    "object: no call can reach the server in a valid form")  # fmt: skip
        log.argument_map().wrapped = WRAPPED_PROPERTY
    wrapped = {k: v for k, v in root.items() if k not in ("$defs", "definitions", "$schema")}
    out = {"type": "object", "properties": {WRAPPED_PROPERTY: wrapped}, "required": [WRAPPED_PROPERTY]}
    for key in ("$defs", "definitions"):
        if key in root:
            out[key] = root[key]
    return out


def _object_root(schema: dict[str, Any], log: NoteLog | None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object"}
    props = schema.get("properties")
    out["properties"] = props if isinstance(props, dict) else {}
    for key in _ROOT_KEPT:
        if key in schema:
            out[key] = schema[key]
    if log is not None:
        if "properties" in schema and not isinstance(props, dict):
            log.dropped("", "properties", "not an object of property schemas: the tool is sent without parameters")
        for key in schema:
            if key == "$ref":
                log.dropped("", key, f"the root reference {schema[key]!r} cannot be resolved to an object")
            elif key in _ROOT_LEFT_OUT:
                log.add(key, "changed", _ROOT_LEFT_OUT[key])
            elif key not in _ROOT_NOT_NOTED:
                log.dropped("", key, "the root keeps only properties, required and description")
    return out


def _classify(schema: dict[str, Any], log: NoteLog | None) -> tuple[str, dict[str, Any]]:
    """``("object" | "merged" | "wrap", schema)``: how :func:`root_object` treats a non-empty root."""
    if schema.get("type") == "object" and _SPECIAL_ROOT.isdisjoint(schema):
        return "object", schema  # the common case, without a call per rule
    schema = _resolve_root_ref(_without_root_null(schema, log), log)
    if _is_root_union(schema) or not is_object_schema(schema):
        merged = _merge_root_union(schema, log)
        if merged is not None:
            return "merged", merged
    return ("object" if is_object_schema(schema) else "wrap"), schema


def may_be_object(node: Any, root: dict[str, Any], depth: int = 0) -> bool:
    """Whether a JSON object can be valid against ``node`` (types and combinators only; bounded)."""
    node = deref(root, node)
    if node is True or node == {} or depth > 16:
        return True
    if not isinstance(node, dict):
        return False
    types = schema_types(node)
    if types and "object" not in types:
        return False
    if "const" in node or "enum" in node:
        values = node["enum"] if isinstance(node.get("enum"), list) else [node.get("const")]
        return any(isinstance(v, dict) for v in values)
    for key in ("anyOf", "oneOf"):
        if isinstance(node.get(key), list) and not any(may_be_object(b, root, depth + 1) for b in node[key]):
            return False
    branches = node.get("allOf")
    return not isinstance(branches, list) or all(may_be_object(b, root, depth + 1) for b in branches)


def _root_target(schema: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """The reference a root names (``$ref``, or ``allOf`` of one ``$ref``) and its target, or None."""
    ref = schema.get("$ref")
    if not isinstance(ref, str):
        branches = schema.get("allOf")
        if not (isinstance(branches, list) and len(branches) == 1 and isinstance(branches[0], dict)):
            return None
        ref = branches[0].get("$ref")
        if not isinstance(ref, str):
            return None
    target = deref(schema, {"$ref": ref})
    return (ref, target) if isinstance(target, dict) and "$ref" not in target else None


def root_ref(schema: Any) -> str | None:
    """The reference a root ``$ref`` (or ``allOf`` of one) names, when :func:`root_object` resolves it."""
    found = _root_target(_without_root_null(schema, None)) if isinstance(schema, dict) else None
    return found[0] if found is not None else None


def _resolve_root_ref(schema: dict[str, Any], log: NoteLog | None) -> dict[str, Any]:
    found = _root_target(schema)
    if found is None:
        return schema
    ref, target = found
    own = {k: v for k, v in schema.items() if k not in ("$ref", "allOf")}
    resolved = {**{k: v for k, v in target.items() if k not in ("$defs", "definitions")}, **own}
    if isinstance(own.get("properties"), dict) and isinstance(target.get("properties"), dict):
        resolved["properties"] = {**target["properties"], **own["properties"]}  # $ref beside properties: both apply
        resolved["required"] = [*string_list(target.get("required")), *string_list(own.get("required"))]
    if log is not None:
        log.add("", "changed", f"root reference {ref!r} resolved to the object it names; its properties are the "
                "parameters, at the top level")  # fmt: skip
    return resolved


def _without_root_null(schema: dict[str, Any], log: NoteLog | None) -> dict[str, Any]:
    types = schema.get("type")
    if isinstance(types, list) and "null" in types and len(types) > 1:
        if log is not None:
            log.add("type", "changed", "null dropped from the root type list (the arguments are always an object)")
        rest = [t for t in types if t != "null"]
        return {**schema, "type": rest[0] if len(rest) == 1 else rest}
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if not isinstance(branches, list):
            continue
        kept = [b for b in branches if not is_null_schema(b)]
        if not kept or len(kept) == len(branches):
            continue
        if log is not None:
            log.add(key, "changed", f"the null branch of the root {key} dropped (the arguments are always an object)")
        if len(kept) == 1 and isinstance(kept[0], dict):  # one branch left: it is the root
            return {**{k: v for k, v in schema.items() if k != key}, **kept[0]}
        return {**schema, key: kept}
    return schema


def _is_root_union(schema: dict[str, Any]) -> bool:
    """An object root that declares no properties of its own but a combinator (``type: object`` + ``anyOf``)."""
    return not isinstance(schema.get("properties"), dict) and any(isinstance(schema.get(k), list) for k in COMBINATORS)


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
    # Plain loops over the values, recursing into containers only: the scan runs on every tool of every conversion.
    values: Collection[Any]
    if isinstance(node, dict):
        if "$ref" in node:
            return True
        values = node.values() if _DATA_KEYS.isdisjoint(node) else [v for k, v in node.items() if k not in _DATA_KEYS]
    else:
        values = node
    if depth >= _MAX_REF_SCAN:
        return len(values) > 0  # a value nested deeper than the scan goes
    for value in values:  # noqa: SIM110 (a loop, not any() of a generator: faster on every tool)
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

"""A hypothesis strategy for instances of an MCP tool's input schema (the shapes real tool lists use).

``hypothesis-jsonschema`` would be the natural choice, but its last release does not run on the
hypothesis this suite pins; the shapes that matter to the argument maps are few: objects with
optional properties (each one present or omitted), unions with ``null``, enums and consts,
arrays, ``$ref``/``$defs`` (recursion cut at a depth), free-form maps and untyped values. The
values are of the right kind, not checked against patterns or lengths: the round trip through an
argument map depends on shape only.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from elftia_desktop.tools.schema import deref, merge_all_of, schema_types

MAX_DEPTH = 4
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)
"""Any JSON value (for a schema that says nothing of its type)."""


def instances(node: Any, root: dict[str, Any], depth: int = 0) -> st.SearchStrategy[Any]:
    """Values of the kind ``node`` describes, within ``root`` (for ``$ref``)."""
    node = deref(root, node) if isinstance(node, dict) else {}
    if "allOf" in node:
        node = merge_all_of(node)
    if "const" in node:
        return st.just(node["const"])
    if isinstance(node.get("enum"), list) and node["enum"]:
        return st.sampled_from(node["enum"])
    branches = [b for key in ("anyOf", "oneOf") for b in node.get(key) or [] if isinstance(b, dict)]
    if branches:
        rest = {k: v for k, v in node.items() if k not in ("anyOf", "oneOf")}
        return st.one_of([instances({**rest, **deref(root, b)}, root, depth) for b in branches])
    types = schema_types(node) or _inferred(node)
    if not types:
        return JSON_VALUES
    if depth >= MAX_DEPTH and "null" in types:
        return st.none()
    return st.one_of([_typed(node, kind, root, depth) for kind in types])


def _inferred(node: dict[str, Any]) -> list[str]:
    if "properties" in node or "additionalProperties" in node:
        return ["object"]
    return ["array"] if "items" in node or "prefixItems" in node else []


def _typed(node: dict[str, Any], kind: str, root: dict[str, Any], depth: int) -> st.SearchStrategy[Any]:
    if kind == "object":
        return _object(node, root, depth)
    if kind == "array":
        if isinstance(node.get("prefixItems"), list):
            return st.tuples(*(instances(i, root, depth + 1) for i in node["prefixItems"])).map(list)
        low = node.get("minItems") if isinstance(node.get("minItems"), int) else 0
        top = 0 if depth >= MAX_DEPTH else 2
        return st.lists(instances(node.get("items"), root, depth + 1), min_size=low, max_size=max(low, top))
    simple: dict[str, st.SearchStrategy[Any]] = {
        "integer": st.integers(-1000, 1000),
        "number": st.floats(-1e6, 1e6, allow_nan=False),
        "boolean": st.booleans(),
        "string": st.text(max_size=12),
        "null": st.none(),
    }
    return simple.get(kind, JSON_VALUES)


def _object(node: dict[str, Any], root: dict[str, Any], depth: int) -> st.SearchStrategy[Any]:
    props = node.get("properties") if isinstance(node.get("properties"), dict) else {}
    required = set(node.get("required") or []) if isinstance(node.get("required"), list) else set()
    if not props:
        extra = node.get("additionalProperties")
        if extra is False or depth >= MAX_DEPTH or (depth == 0 and extra is None):
            return st.just({})  # a root that declares nothing takes no parameters
        values = instances(extra, root, depth + 1) if isinstance(extra, dict) else JSON_VALUES
        return st.dictionaries(st.text(max_size=6), values, max_size=2)
    deeper = depth + 1 if depth < MAX_DEPTH else depth
    must = {k: instances(v, root, deeper) for k, v in props.items() if k in required}
    may = {k: instances(v, root, deeper) for k, v in props.items() if k not in required and depth < MAX_DEPTH}
    return st.fixed_dictionaries(must, optional=may)

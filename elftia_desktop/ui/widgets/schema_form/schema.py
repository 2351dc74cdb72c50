"""Reading a JSON schema for the form: ``$ref``/``$defs`` resolved, nullable unions unwrapped.

Pure functions, no Qt. :func:`field_spec` turns one (sub)schema into a :class:`FieldSpec`
that names the widget kind the form uses for it; what the form cannot express becomes the
``raw`` kind (a small JSON editor for that value).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MAX_DEPTH = 12
"""Nested objects deeper than this (or a recursive ``$ref``) are edited as raw JSON."""


class _Missing:
    """The value of a field that is not set (omitted from the arguments)."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing()
"""Marks an unset field; objects leave such keys out."""


@dataclass
class FieldSpec:
    """What the form needs to know about one value."""

    kind: str
    """string, number, integer, boolean, enum, array, object or raw."""
    schema: dict[str, Any]
    """The resolved schema (``$ref`` followed, a nullable ``anyOf`` unwrapped)."""
    title: str = ""
    description: str = ""
    required: bool = False
    nullable: bool = False
    default: Any = MISSING
    enum: list[Any] = field(default_factory=list)
    properties: dict[str, FieldSpec] = field(default_factory=dict)
    """Object fields, in schema order."""
    items: FieldSpec | None = None
    """The array's item spec."""


def resolve_ref(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any] | None:
    """Follow a local ``$ref`` (``#/$defs/X``, ``#/definitions/X``, any JSON pointer); None if unresolvable."""
    seen: set[str] = set()
    while isinstance(schema, dict) and "$ref" in schema:
        ref = schema["$ref"]
        if not isinstance(ref, str) or not ref.startswith("#") or ref in seen:
            return None
        seen.add(ref)
        target: Any = root
        for part in ref[1:].split("/")[1:]:
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(target, dict) or part not in target:
                return None
            target = target[part]
        if not isinstance(target, dict):
            return None
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        schema = {**target, **siblings}
    return schema


def _unwrap_nullable(schema: dict[str, Any], root: dict[str, Any]) -> tuple[dict[str, Any] | None, bool]:
    """``anyOf: [X, {type: null}]`` (and ``type: [X, "null"]``) as (X, True)."""
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list):
            real = [o for o in options if not (isinstance(o, dict) and o.get("type") == "null")]
            if len(real) == 1 and len(real) < len(options):
                inner = resolve_ref(real[0], root) if isinstance(real[0], dict) else None
                if inner is None:
                    return None, True
                rest = {k: v for k, v in schema.items() if k != key}
                return {**inner, **rest}, True
            return None, False
    kind = schema.get("type")
    if isinstance(kind, list):
        real_types = [t for t in kind if t != "null"]
        if len(real_types) == 1:
            return {**schema, "type": real_types[0]}, len(real_types) < len(kind)
        return None, "null" in kind
    return schema, False


def _kind(schema: dict[str, Any]) -> str:
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return "enum"
    if "const" in schema:
        return "enum"
    kind = schema.get("type")
    if kind in ("string", "number", "integer", "boolean", "array"):
        return str(kind)
    if kind == "object" or (kind is None and isinstance(schema.get("properties"), dict)):
        return (
            "object" if isinstance(schema.get("properties"), dict) or not schema.get("additionalProperties") else "raw"
        )
    return "raw"


def field_spec(schema: Any, root: dict[str, Any], required: bool = True, depth: int = 0) -> FieldSpec:
    """The spec of one value of ``schema`` (``root`` holds the ``$defs``)."""
    resolved = resolve_ref(schema, root) if isinstance(schema, dict) else None
    nullable = False
    if resolved is not None:
        resolved, nullable = _unwrap_nullable(resolved, root)
    if resolved is None or depth > MAX_DEPTH:
        original = schema if isinstance(schema, dict) else {}
        return FieldSpec(
            "raw", original, str(original.get("title", "")), str(original.get("description", "")), required
        )
    spec = FieldSpec(
        kind=_kind(resolved),
        schema=resolved,
        title=str(resolved.get("title", "")),
        description=str(resolved.get("description", "")),
        required=required,
        nullable=nullable,
        default=resolved.get("default", MISSING),
    )
    if spec.kind == "enum":
        spec.enum = list(resolved["enum"]) if "enum" in resolved else [resolved["const"]]
    elif spec.kind == "object":
        needed = set(resolved.get("required") or [])
        for name, sub in (resolved.get("properties") or {}).items():
            spec.properties[name] = field_spec(sub, root, name in needed, depth + 1)
    elif spec.kind == "array":
        items = resolved.get("items")
        spec.items = field_spec(items if isinstance(items, dict) else {}, root, True, depth + 1)
    return spec


def root_spec(schema: dict[str, Any] | None) -> FieldSpec:
    """The spec of a tool's whole input schema (an object; an empty schema has no fields)."""
    schema = schema or {"type": "object", "properties": {}}
    spec = field_spec(schema, schema)
    if spec.kind != "object":
        return FieldSpec("raw", schema, required=True)
    return spec


def format_hint(schema: dict[str, Any]) -> str:
    """A placeholder for a string's ``format`` (uri, email, date-time ...)."""
    hints = {
        "uri": "https://example.com/path",
        "url": "https://example.com/path",
        "email": "name@example.com",
        "date-time": "2026-12-01T09:30:00Z",
        "date": "2026-12-01",
        "time": "09:30:00",
        "uuid": "123e4567-e89b-12d3-a456-426614174000",
        "ipv4": "192.168.0.1",
    }
    return hints.get(str(schema.get("format", "")), "")


def bounds_hint(schema: dict[str, Any]) -> str:
    """``1 – 99``, ``≥ 0`` or ``""`` for a number's bounds."""
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    if low is not None and high is not None:
        return f"{low} – {high}"
    if low is not None:
        return f"≥ {low}" if "minimum" in schema else f"> {low}"
    if high is not None:
        return f"≤ {high}" if "maximum" in schema else f"< {high}"
    return ""

"""JSON Schema -> Gemini's OpenAPI-subset ``Schema`` (the ``parameters`` of a function declaration).

Rules (see :mod:`elftia_desktop.tools.formats.gemini` for the sources): references are inlined
before this pass, a recursive model :data:`~elftia_desktop.tools.refs.RECURSION_DEPTH` levels deep,
and the level below is a :func:`recursion_stub` (noted with the depth); ``const`` -> a one-value
``enum``; ``oneOf`` -> ``anyOf``; ``allOf`` merged; a type list with ``null`` -> ``nullable``,
several types -> ``anyOf``; ``enum`` only with strings on ``STRING`` (other enums are described
in the description instead); every schema gets a type (inferred, else ``anyOf`` of all types);
``ARRAY`` always has ``items``; ``required`` only names properties that exist; only documented
formats; ``exclusiveMinimum``/``exclusiveMaximum`` become ``minimum``/``maximum`` where exact
(integers) and are dropped otherwise; ``additionalProperties``, ``patternProperties``,
``$schema`` and every other unknown keyword are dropped, each with a note.
"""

from __future__ import annotations

import math
from typing import Any

from elftia_desktop.tools.arguments import MapRecorder, Where
from elftia_desktop.tools.describe import add_description, describe, encoded_text, with_extra_carrier
from elftia_desktop.tools.formats.jsonschema_keywords import is_number, valid_pattern
from elftia_desktop.tools.names import GEMINI_PARAMETER_NAME, parameter_names
from elftia_desktop.tools.notes import NoteLog, join_path
from elftia_desktop.tools.refs import MAX_DEPTH
from elftia_desktop.tools.schema import WRAPPED_PROPERTY, is_null_schema, merge_all_of, schema_types, string_list

GEMINI_FORMATS = {"STRING": {"enum", "date-time"}, "NUMBER": {"float", "double"}, "INTEGER": {"int32", "int64"}}
_TYPES = {"string": "STRING", "number": "NUMBER", "integer": "INTEGER", "boolean": "BOOLEAN",
          "array": "ARRAY", "object": "OBJECT"}  # fmt: skip
_COUNTS = {"STRING": ("minLength", "maxLength"), "ARRAY": ("minItems", "maxItems"),
           "OBJECT": ("minProperties", "maxProperties")}  # fmt: skip
_HANDLED = frozenset(
    {"type", "description", "title", "nullable", "default", "enum", "const", "format", "anyOf", "oneOf", "allOf",
     "properties", "required", "items", "prefixItems", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
     "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "pattern", "$schema"}
)  # fmt: skip
_NOT_DESCRIBED = frozenset({"additionalProperties", "patternProperties", "$comment", "$schema"})
_DEFAULT_TYPES: dict[str, type | tuple[type, ...]] = {"STRING": str, "BOOLEAN": bool, "ARRAY": list, "OBJECT": dict}
_PLAIN = frozenset({"allOf", "oneOf", "const", "anyOf"})
"""A node with none of these keys and one known type converts without normalising."""
_BOUNDED = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "pattern", *_COUNTS["STRING"],
                      *_COUNTS["ARRAY"], *_COUNTS["OBJECT"]})  # fmt: skip
"""The keywords :meth:`GeminiSchemaWriter._bounds` reads."""
_NUMBER_TYPES = (int, float)  # tuples, not ``int | float``: an inline union is built on every call
_TYPE_VALUES = (str, list)


def recursion_stub(target: dict[str, Any]) -> dict[str, Any]:
    """What stands in for a recursive reference: the target's type, without its inner structure."""
    types = schema_types(target) if isinstance(target, dict) else []
    stub: dict[str, Any] = {"type": types[0] if types else "object"}
    if stub["type"] == "array":
        stub["items"] = {"type": "object"}
    described = target.get("description") if isinstance(target, dict) else None
    note = "(further nesting omitted)"
    stub["description"] = f"{described} {note}" if isinstance(described, str) else note
    return stub


def _value_type(values: list[Any]) -> str | None:
    if all(isinstance(v, str) for v in values):
        return "string"
    if all(isinstance(v, bool) for v in values):
        return "boolean"
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return "integer"
    if all(is_number(v) for v in values):
        return "number"
    return None


def _infer_types(node: dict[str, Any]) -> list[str]:
    if any(k in node for k in ("properties", "required", "additionalProperties")):
        return ["object"]
    if any(k in node for k in ("items", "prefixItems", "minItems", "maxItems")):
        return ["array"]
    enum = node.get("enum")
    if isinstance(enum, list) and enum:
        found = _value_type([v for v in enum if v is not None])
        return [found] if found else []
    if any(k in node for k in ("minLength", "maxLength", "pattern", "format")):
        return ["string"]
    if any(k in node for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")):
        return ["number"]
    return []


class GeminiSchemaWriter:
    """Writes one (reference-free) JSON Schema as a Gemini ``Schema``."""

    def __init__(self, log: NoteLog) -> None:
        self.log = log
        self.maps = MapRecorder()
        """The way back for the arguments, recorded while writing (see :meth:`root`)."""

    def root(self, node: dict[str, Any]) -> dict[str, Any]:
        """The root: always an ``OBJECT``; the way back for its arguments joins the log's argument map.

        The map is only made for a tool whose arguments change (most keep their shape).
        """
        out = self._root(node)
        if self.maps.records:
            self.maps.build(self.log.argument_map())
        return out

    def _root(self, node: dict[str, Any]) -> dict[str, Any]:
        """A free-form root map is wrapped as the JSON-encoded ``value``."""
        if _is_free_form(node):
            if all(node.get(k) in (None, False) for k in ("additionalProperties", "patternProperties")):
                return {"type": "OBJECT", "properties": {}}  # no parameters
            self.log.argument_map().wrapped = WRAPPED_PROPERTY
            rest = {k: v for k, v in node.items() if k != "description"}
            value = self._encoded(rest, WRAPPED_PROPERTY, (WRAPPED_PROPERTY,), "a root of any keys")
            self.log.add("", "changed", f"the arguments are sent as the JSON-encoded property {WRAPPED_PROPERTY!r}, "
                         "unwrapped again before the call")  # fmt: skip
            return {"type": "OBJECT", "properties": {WRAPPED_PROPERTY: value}, "required": [WRAPPED_PROPERTY]}
        out = self.node(node, "", 0, ())
        if out.get("type") != "OBJECT":
            self.log.add("", "dropped", "the root did not convert to an OBJECT: the tool is sent without parameters")
            self.maps.discard_since(0)
            return {"type": "OBJECT", "properties": {}}
        out.pop("nullable", None)
        return out

    def node(self, node: Any, path: str, depth: int, at: Where) -> dict[str, Any]:
        """One schema node, converted; ``at`` says where its value sits (for the way back)."""
        if not isinstance(node, dict):
            if node is not True:
                self.log.add(path, "changed", "a boolean or invalid subschema written as an unconstrained value")
            node = {}
        if depth > MAX_DEPTH:
            return self._encoded(node, path, at, f"a value nested deeper than {MAX_DEPTH} levels")
        kind = node.get("type")
        plain = type(kind) is str and kind in _TYPES and _PLAIN.isdisjoint(node)
        if plain and (kind != "object" or not _is_free_form(node)):  # the common case, without the checks below
            return self._typed(node, kind, node.get("nullable") is True, path, depth, at)
        if "allOf" in node or "oneOf" in node or "const" in node:
            node = self._normalize(node, path)
        nullable = node.get("nullable") is True
        types = schema_types(node)
        if "null" in types:
            nullable, types = True, [t for t in types if t != "null"]
            self.log.add(join_path(path, "type"), "changed", "null in the type list written as nullable: true")
        if isinstance(node.get("anyOf"), list):
            return self._any_of(node, path, depth, nullable, at)
        if not isinstance(node.get("type"), _TYPE_VALUES):
            types = _infer_types(node)
        if not types:
            return self._encoded(node, path, at, "a value without a type", nullable)
        if len(types) > 1:
            self.log.add(join_path(path, "type"), "changed", f"type list {types} written as anyOf")
            return self._any_of({**node, "anyOf": [{**node, "type": t} for t in types]}, path, depth, nullable, at)
        if types == ["object"] and _is_free_form(node):
            return self._encoded(node, path, at, "an object without declared properties", nullable)
        return self._typed(node, types[0], nullable, path, depth, at)

    def _normalize(self, node: dict[str, Any], path: str) -> dict[str, Any]:
        if isinstance(node.get("allOf"), list):
            node = merge_all_of(node)
            self.log.add(join_path(path, "allOf"), "changed", "allOf merged into one schema (Gemini has no allOf)")
        if isinstance(node.get("oneOf"), list):
            branches = (
                [*node.get("anyOf", []), *node["oneOf"]] if isinstance(node.get("anyOf"), list) else node["oneOf"]
            )
            node = {**{k: v for k, v in node.items() if k != "oneOf"}, "anyOf": branches}
            self.log.add(join_path(path, "oneOf"), "changed", "oneOf written as anyOf (Gemini has no oneOf)")
        if "const" in node:
            node = {**{k: v for k, v in node.items() if k != "const"}, "enum": [node["const"]]}
            self.log.add(join_path(path, "const"), "changed", "const written as a one-value enum")
        return node

    def _any_of(self, node: dict[str, Any], path: str, depth: int, nullable: bool, at: Where) -> dict[str, Any]:
        branches, encoded, start = [], [], self.maps.mark()
        for i, branch in enumerate(node["anyOf"]):
            if is_null_schema(branch):
                nullable = True
                continue
            mark = self.maps.mark()
            branches.append(self.node(branch, f"{path}.anyOf[{i}]", depth + 1, at))
            encoded.append(self.maps.encoded_since(mark, at))
        if any(encoded) and any(_may_be_string(b) for b, e in zip(branches, encoded, strict=True) if not e):
            self.maps.discard_since(start)
            return self._encoded(node, path, at, "a union of a string and a value of that kind", nullable)
        if nullable and len(branches) < len(node["anyOf"]):
            self.log.add(join_path(path, "anyOf"), "changed", "the null branch written as nullable: true")
        if len(branches) == 1:
            single = dict(branches[0])
            for key in ("description", "title"):
                if isinstance(node.get(key), str):
                    single[key] = node[key]
            if nullable:
                single["nullable"] = True
            return single
        if not branches:
            return self._encoded({k: v for k, v in node.items() if k != "anyOf"}, path, at, "a value without a type",
                                 nullable)  # fmt: skip
        return self._wrap_any_of(node, branches, nullable)

    def _wrap_any_of(self, node: dict[str, Any], branches: list[dict[str, Any]], nullable: bool) -> dict[str, Any]:
        out: dict[str, Any] = {"anyOf": branches}
        for key in ("description", "title"):
            if isinstance(node.get(key), str):
                out[key] = node[key]
        if nullable:
            out["nullable"] = True
        return out

    def _encoded(self, node: dict[str, Any], path: str, at: Where, why: str, nullable: bool = False) -> dict[str, Any]:
        """A value Gemini's schema cannot describe, sent as a JSON-encoded ``STRING`` and decoded again."""
        self.maps.json_encoded(at)
        out: dict[str, Any] = {"type": "STRING"}
        for key in ("title", "description"):
            if isinstance(node.get(key), str):
                out[key] = node[key]
        add_description(out, encoded_text(node))
        if nullable:
            out["nullable"] = True
        self.log.add(path, "changed", f"{why} cannot be described in Gemini's schema: sent as a JSON-encoded "
                     "string, decoded again before the call")  # fmt: skip
        return out

    def _typed(
        self, node: dict[str, Any], json_type: str, nullable: bool, path: str, depth: int, at: Where
    ) -> dict[str, Any]:
        kind = _TYPES[json_type]
        out: dict[str, Any] = {"type": kind}
        title = node.get("title")
        if title is not None and isinstance(title, str):
            out["title"] = title
        description = node.get("description")
        if description is not None and isinstance(description, str):
            out["description"] = description
        if nullable:
            out["nullable"] = True
        if "enum" in node:
            self._enum(node, kind, out, path)
        if "format" in node:
            self._format(node, kind, out, path)
        if not _BOUNDED.isdisjoint(node):
            self._bounds(node, kind, out, path)
        if kind == "ARRAY":
            out["items"] = self._items(node, path, depth, at)
        elif kind == "OBJECT":
            self._object(node, out, path, depth, at)
        default = node.get("default")
        if default is not None and isinstance(default, _DEFAULT_TYPES.get(kind, _NUMBER_TYPES)):
            out["default"] = default
        elif default is not None:
            describe(out, node, ["default"], self.log, path, "a default of another type than the value's")
        elif "default" in node:
            self.log.add(join_path(path, "default"), "changed", "left out: a default of null")
        if node.get("additionalProperties") is False:
            self.log.add(join_path(path, "additionalProperties"), "changed",
                         "left out: Gemini's schema cannot refuse undeclared keys")  # fmt: skip
        if not _HANDLED.issuperset(node):
            others = [k for k in node if k not in _HANDLED and k not in _NOT_DESCRIBED]
            describe(out, node, others, self.log, path, "not part of Gemini's schema subset")
        return out

    def _enum(self, node: dict[str, Any], kind: str, out: dict[str, Any], path: str) -> None:
        enum = node.get("enum")
        if not isinstance(enum, list):
            return
        values = [v for v in enum if v is not None]
        if len(values) < len(enum):
            out["nullable"] = True
        if kind == "STRING" and all(isinstance(v, str) for v in values) and values:
            out["enum"] = values
            return
        shown = ", ".join(str(v) for v in values[:50])
        out["description"] = f"{out.get('description', '')} Allowed values: {shown}.".strip()
        self.log.add(join_path(path, "enum"), "changed", f"enum on {kind} moved into the description (strings only)")

    def _format(self, node: dict[str, Any], kind: str, out: dict[str, Any], path: str) -> None:
        fmt = node.get("format")
        if fmt is None:
            return
        if isinstance(fmt, str) and fmt in GEMINI_FORMATS.get(kind, ()):
            out["format"] = fmt
        else:
            describe(out, node, ["format"], self.log, path, f"not a format Gemini documents for {kind}")

    def _bounds(self, node: dict[str, Any], kind: str, out: dict[str, Any], path: str) -> None:
        if kind in ("NUMBER", "INTEGER"):
            for key in ("minimum", "maximum"):
                if is_number(node.get(key)):
                    out[key] = node[key]
            for key, bound, step in (("exclusiveMinimum", "minimum", 1), ("exclusiveMaximum", "maximum", -1)):
                value: Any = node.get(key)
                if kind == "INTEGER" and is_number(value) and math.isfinite(value):
                    out[bound] = math.floor(value) + 1 if step > 0 else math.ceil(value) - 1
                    self.log.add(join_path(path, key), "changed", f"written as {bound} {out[bound]}")
                elif key in node:
                    describe(out, node, [key], self.log, path, "Gemini has no exclusive bounds")
        for key in _COUNTS.get(kind, ()):
            value = node.get(key)
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                out[key] = value
        if kind == "STRING" and "pattern" in node:
            if valid_pattern(node["pattern"]):
                out["pattern"] = node["pattern"]
            else:
                describe(out, node, ["pattern"], self.log, path, "not a valid regular expression")

    def _items(self, node: dict[str, Any], path: str, depth: int, at: Where) -> dict[str, Any]:
        items = node.get("items")
        tuple_items = node.get("prefixItems") if isinstance(node.get("prefixItems"), list) else None
        if isinstance(items, list):
            tuple_items, items = items, None
        if tuple_items:
            self.log.add(join_path(path, "prefixItems"), "changed", "tuple written as an array of anyOf its item types")
            variants = [*tuple_items, *([items] if isinstance(items, dict) else [])]
            unique = [v for i, v in enumerate(variants) if v not in variants[:i]]
            items = unique[0] if len(unique) == 1 else {"anyOf": unique}
        return self.node(items if isinstance(items, dict) else {}, join_path(path, "items"), depth + 1, (*at, None))

    def _object(self, node: dict[str, Any], out: dict[str, Any], path: str, depth: int, at: Where) -> None:
        raw = node.get("properties")
        props: dict[str, Any] = raw if isinstance(raw, dict) else {}
        if props and any(node.get(k) not in (None, False) for k in ("additionalProperties", "patternProperties")):
            props = with_extra_carrier(props, node, path, at, self.maps, self.log)
        renamed = rename_properties(props, path, self.log)
        for original, new in renamed.items():
            self.maps.renamed(at, new, original)
        out["properties"] = converted = {}
        prefix = f"{path}.properties." if path else "properties."
        for name, sub in props.items():
            new = renamed.get(name, name) if renamed else name
            converted[new] = self.node(sub, f"{prefix}{name}", depth + 1, (*at, new))
        required = string_list(node.get("required"))
        kept = [renamed.get(r, r) for r in required if r in props]
        if kept:
            out["required"] = kept
        if len(kept) < len(required):
            missing = ", ".join(r for r in required if r not in props)
            self.log.add(join_path(path, "required"), "changed", f"names without a property removed: {missing}")


def rename_properties(props: dict[str, Any], path: str, log: NoteLog) -> dict[str, str]:
    """``{original: new}`` for the property names Gemini rejects, each noted."""
    if all(map(GEMINI_PARAMETER_NAME.match, props)):
        return {}  # the common case: every name is fine
    renamed = parameter_names(props)
    for original, new in renamed.items():
        log.add(join_path(path, f"properties.{original}"), "renamed", f"parameter {original!r} sent as {new!r} "
                "(Gemini parameter names are letters, digits and _, start with a letter or _, at most 64 "
                f"characters); the model's call is mapped back to {original!r}")  # fmt: skip
    return renamed


def _is_free_form(node: dict[str, Any]) -> bool:
    """An object without declared properties (a map, or any object): Gemini's schema cannot say so."""
    props = node.get("properties")
    return not (isinstance(props, dict) and props)


def _may_be_string(node: dict[str, Any]) -> bool:
    """Whether a converted branch may hold a string (then a JSON-encoded sibling would be ambiguous)."""
    if node.get("type") == "STRING":
        return True
    return any(_may_be_string(b) for b in node.get("anyOf") or [] if isinstance(b, dict))

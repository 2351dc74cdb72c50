"""JSON Schema -> the subset Gemini documents for ``parametersJsonSchema``.

Relied on: Gemini API "Structured output", section "JSON Schema support" (the JSON Schema that
``responseJsonSchema`` and ``parametersJsonSchema`` take): ``type`` (a list with ``null`` too),
``title``, ``description``, ``anyOf``, ``$ref``/``$defs``; objects ``properties``, ``required``,
``additionalProperties``; strings ``enum`` and ``format`` (date-time, date, time); numbers and
integers ``enum``, ``minimum``, ``maximum``; arrays ``items``, ``prefixItems``, ``minItems``,
``maxItems``. Other keywords "are ignored" at best, so none is sent:

* moved where the meaning stays exact: ``oneOf`` -> ``anyOf``; ``allOf`` merged; a string or
  number ``const`` -> a one-value ``enum``; an integer's ``exclusiveMinimum``/``exclusiveMaximum``
  -> ``minimum``/``maximum``;
* every other keyword (``default``, ``minLength``, ``pattern``, ``propertyNames`` ...) is said in
  the description (:mod:`elftia_desktop.tools.describe`), with a ``changed`` note.

Property names are kept: the naming rule Gemini documents is the one of ``parameters``
(OpenAPI), and JSON Schema property names are any string, so nothing is renamed in this mode.
"""

from __future__ import annotations

import math
from typing import Any

from elftia_desktop.tools.describe import describe
from elftia_desktop.tools.formats.jsonschema_keywords import is_number
from elftia_desktop.tools.notes import NoteLog, join_path
from elftia_desktop.tools.refs import MAX_DEPTH
from elftia_desktop.tools.schema import merge_all_of, schema_types

SUBSET_ANY = frozenset({"type", "title", "description", "anyOf", "$ref", "$defs"})
SUBSET_BY_TYPE = {
    "object": frozenset({"properties", "required", "additionalProperties"}),
    "string": frozenset({"enum", "format"}),
    "number": frozenset({"enum", "minimum", "maximum"}),
    "integer": frozenset({"enum", "minimum", "maximum"}),
    "array": frozenset({"items", "prefixItems", "minItems", "maxItems"}),
    "boolean": frozenset(),
    "null": frozenset(),
}
SUBSET = SUBSET_ANY.union(*SUBSET_BY_TYPE.values())
"""Every keyword Gemini documents for JSON Schema."""
STRING_FORMATS = frozenset({"date-time", "date", "time"})
_WHY = "not in the JSON Schema subset Gemini documents"
_ALLOWED = {t: SUBSET_ANY | extra for t, extra in SUBSET_BY_TYPE.items()}
_MOVED = frozenset({"allOf", "oneOf", "const", "exclusiveMinimum", "exclusiveMaximum"})
_ENUM_VALUES = (str, int, float)


class GeminiJsonSubset:
    """Rewrites one cleaned JSON Schema tree into Gemini's documented subset; see the module docstring."""

    def __init__(self, log: NoteLog) -> None:
        self.log = log

    def node(self, node: Any, path: str, depth: int) -> Any:
        """One schema, rewritten (a new tree)."""
        if not isinstance(node, dict) or depth > MAX_DEPTH:
            return node
        if not _MOVED.isdisjoint(node):
            node = self._moved(node, path)
        kind = node.get("type")
        allowed = _ALLOWED.get(kind) if type(kind) is str else None
        if allowed is None:
            types = schema_types(node)
            allowed = SUBSET_ANY.union(*(SUBSET_BY_TYPE.get(t, frozenset()) for t in types)) if types else SUBSET
        out: dict[str, Any] = {}
        described = []
        for key, value in node.items():
            if key not in allowed or (key == "format" and value not in STRING_FORMATS):
                described.append(key)
            elif key in ("properties", "$defs") and isinstance(value, dict):
                where = join_path(path, key)
                out[key] = {k: self.node(v, f"{where}.{k}", depth + 1) for k, v in value.items()}
            elif key in ("anyOf", "prefixItems") and isinstance(value, list):
                out[key] = [self.node(v, f"{path}.{key}[{i}]", depth + 1) for i, v in enumerate(value)]
            elif key in ("items", "additionalProperties"):
                out[key] = self.node(value, join_path(path, key), depth + 1)
            else:
                out[key] = value
        enum = out.get("enum")
        if isinstance(enum, list) and not all(v is None or isinstance(v, _ENUM_VALUES) for v in enum):
            described.append("enum")
            del out["enum"]
        if described:
            describe(out, node, [k for k in described if k != "$comment"], self.log, path, _WHY)
            if "$comment" in node:
                self.log.dropped(path, "$comment", "a comment for schema authors, not for the model")
        return out

    def _moved(self, node: dict[str, Any], path: str) -> dict[str, Any]:
        """``oneOf``, ``allOf``, ``const`` and an integer's exclusive bounds in the subset's words."""
        if isinstance(node.get("allOf"), list):
            node = merge_all_of(node)
            self.log.add(join_path(path, "allOf"), "changed", "allOf merged into one schema (not in Gemini's subset)")
        if isinstance(node.get("oneOf"), list):
            branches = [*node["anyOf"], *node["oneOf"]] if isinstance(node.get("anyOf"), list) else node["oneOf"]
            node = {**{k: v for k, v in node.items() if k != "oneOf"}, "anyOf": branches}
            self.log.add(join_path(path, "oneOf"), "changed", "oneOf written as anyOf (not in Gemini's subset)")
        const = node.get("const", ...)
        if (isinstance(const, str) or is_number(const)) and "enum" not in node:
            node = {**{k: v for k, v in node.items() if k != "const"}, "enum": [const]}
            self.log.add(join_path(path, "const"), "changed", "const written as a one-value enum")
        if schema_types(node) == ["integer"]:
            for key, bound, step in (("exclusiveMinimum", "minimum", 1), ("exclusiveMaximum", "maximum", -1)):
                value: Any = node.get(key)
                if is_number(value) and math.isfinite(value) and bound not in node:
                    exact = math.floor(value) + 1 if step > 0 else math.ceil(value) - 1
                    node = {**{k: v for k, v in node.items() if k != key}, bound: exact}
                    self.log.add(join_path(path, key), "changed", f"written as {bound} {exact}")
        return node


def gemini_json_subset(params: dict[str, Any], log: NoteLog) -> dict[str, Any]:
    """``params`` (a cleaned JSON Schema object) with only the keywords Gemini documents."""
    out: dict[str, Any] = GeminiJsonSubset(log).node(params, "", 0)
    return out

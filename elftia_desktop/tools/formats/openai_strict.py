"""OpenAI strict mode (Structured Outputs for function calling) and the way back for arguments.

Relied on: OpenAI "Structured Outputs" guide, section "Supported schemas" (platform.openai.com/docs/
guides/structured-outputs#supported-schemas), and the openai SDK's ``lib/_pydantic.py``
(``to_strict_json_schema``):

* every object has ``additionalProperties: false`` and lists every property in ``required``;
  an optional property is made nullable (``anyOf [T, {"type": "null"}]``) and
  :func:`strip_strict_nulls` removes those nulls again before the MCP call;
* supported: string ``pattern`` and ``format`` (date-time, time, date, duration, email, hostname,
  ipv4, ipv6, uuid); number ``multipleOf``, ``minimum``, ``maximum``, ``exclusiveMinimum``,
  ``exclusiveMaximum``; array ``items``, ``minItems``, ``maxItems``; ``enum``, ``const``,
  ``anyOf``, ``$ref``/``$defs`` (also recursive); a ``$ref`` has no sibling keywords;
* not supported: ``allOf`` (merged here), ``oneOf`` (-> ``anyOf``), ``not``, ``if``/``then``/``else``,
  ``dependent*``, ``patternProperties``, ``unevaluated*``, ``propertyNames``, ``prefixItems``,
  other keywords (dropped with a note); free-form maps and untyped values cannot be expressed,
  so such a tool falls back to ``strict: false``;
* limits: 5000 properties, 10 levels of nesting, 1000 enum values, 120,000 characters of names
  and enum values.
"""

from __future__ import annotations

from typing import Any

from elftia_desktop.tools.notes import NoteLog, join_path
from elftia_desktop.tools.refs import MAX_DEPTH
from elftia_desktop.tools.schema import deref, merge_all_of, process_json_schema, string_list

STRICT_FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"})
_COMMON = frozenset({"type", "description", "title", "enum", "const", "anyOf", "default", "$ref", "$defs"})
_BY_TYPE = {
    "string": frozenset({"pattern", "format"}),
    "number": frozenset({"multipleOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}),
    "integer": frozenset({"multipleOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}),
    "array": frozenset({"items", "minItems", "maxItems"}),
    "object": frozenset({"properties", "required", "additionalProperties"}),
    "boolean": frozenset(),
    "null": frozenset(),
}
_ALLOWED = {t: _COMMON | extra for t, extra in _BY_TYPE.items()}
"""The keywords strict mode keeps on a schema of one type."""
MAX_PROPERTIES = 5000
MAX_NESTING = 10
MAX_ENUM_VALUES = 1000
MAX_STRING_BUDGET = 120_000


class NotStrict(Exception):
    """The schema cannot be expressed in strict mode; the message says where and why."""


class _Strictifier:
    def __init__(self, log: NoteLog) -> None:
        self.log = log
        self.properties = 0
        self.enum_values = 0
        self.chars = 0

    def node(self, node: Any, path: str, depth: int, nesting: int) -> dict[str, Any]:
        """``node`` (at ``path``) rewritten for strict mode; ``NotStrict`` when it cannot be."""
        if not isinstance(node, dict) or depth > MAX_DEPTH:
            raise NotStrict(f"{path or 'root'}: an unconstrained value (any JSON) cannot be expressed")
        if "allOf" in node:
            node = merge_all_of(node)
            self.log.add(join_path(path, "allOf"), "changed", "allOf merged (strict mode does not support allOf)")
        if "oneOf" in node:
            node = {**{k: v for k, v in node.items() if k != "oneOf"}, "anyOf": node["oneOf"]}
            self.log.add(join_path(path, "oneOf"), "changed", "oneOf written as anyOf (strict mode has no oneOf)")
        if "$ref" in node:
            return {"$ref": node["$ref"]}
        types = node.get("type")
        type_list = types if isinstance(types, list) else [types] if isinstance(types, str) else []
        if not type_list and not ("anyOf" in node or "enum" in node or "const" in node):
            raise NotStrict(f"{path or 'root'}: a value without a type cannot be expressed")
        if len(type_list) > 1 and len([t for t in type_list if t != "null"]) > 1:
            return self._split_types(node, type_list, path, depth, nesting)
        return self._typed(node, type_list, path, depth, nesting)

    def _split_types(
        self, node: dict[str, Any], types: list[str], path: str, depth: int, nesting: int
    ) -> dict[str, Any]:
        keep = {k: v for k, v in node.items() if k in ("description", "title", "default")}
        rest = {k: v for k, v in node.items() if k not in keep}
        branches = [self.node({**rest, "type": t}, path, depth + 1, nesting) for t in types]
        self.log.add(join_path(path, "type"), "changed", f"type list {types} written as anyOf")
        return {**keep, "anyOf": branches}

    def _typed(self, node: dict[str, Any], types: list[str], path: str, depth: int, nesting: int) -> dict[str, Any]:
        allowed = _ALLOWED.get(types[0], _COMMON) if len(types) == 1 else _allowed(types)
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key not in allowed:
                self.log.dropped(path, key, "not supported in strict mode")
            elif key == "format" and not (isinstance(value, str) and value in STRICT_FORMATS):
                self.log.dropped(path, key, f"format {value!r} is not supported in strict mode")
            elif key == "default" and value is None:
                continue
            else:
                out[key] = value
        self._count(out)
        if "anyOf" in out:
            out["anyOf"] = [self.node(b, f"{path}.anyOf[{i}]", depth + 1, nesting) for i, b in enumerate(out["anyOf"])]
        if "object" in types:
            self._object(out, node, path, depth, nesting + 1)
        if "array" in types:
            if not isinstance(out.get("items"), dict):
                raise NotStrict(f"{path or 'root'}: an array without an items schema cannot be expressed")
            out["items"] = self.node(out["items"], join_path(path, "items"), depth + 1, nesting)
        return out

    def _object(self, out: dict[str, Any], node: dict[str, Any], path: str, depth: int, nesting: int) -> None:
        raw = out.get("properties")
        props: dict[str, Any] = raw if isinstance(raw, dict) else {}
        extra = node.get("additionalProperties")
        if not props and extra not in (None, False):
            raise NotStrict(f"{path or 'root'}: a free-form map (additionalProperties) cannot be expressed")
        if extra not in (None, False):
            self.log.add(join_path(path, "additionalProperties"), "changed", "set to false (strict mode requires it)")
        if nesting > MAX_NESTING:
            raise NotStrict(f"{path or 'root'}: objects nested deeper than {MAX_NESTING} levels")
        self.properties += len(props)
        required = set(string_list(node.get("required")))
        new_props: dict[str, Any] = {}
        for name, sub in props.items():
            where = join_path(path, f"properties.{name}")
            converted = self.node(sub, where, depth + 1, nesting)
            if name not in required and not _allows_null(converted):
                converted = _nullable(converted)
                self.log.add(where, "changed", "optional: made required and nullable (null is removed before the call)")
            new_props[name] = converted
        out["properties"] = new_props
        out["required"] = list(new_props)
        out["additionalProperties"] = False
        out.pop("type", None)
        out["type"] = "object"

    def _count(self, out: dict[str, Any]) -> None:
        enum = out.get("enum")
        if isinstance(enum, list):
            self.enum_values += len(enum)
            self.chars += sum([len(v) for v in enum if isinstance(v, str)])
        props = out.get("properties")
        if isinstance(props, dict):
            self.chars += sum(map(len, props))


def _allowed(types: list[str]) -> frozenset[str]:
    return _COMMON.union(*(_BY_TYPE.get(t, frozenset()) for t in types))


def _allows_null(node: dict[str, Any]) -> bool:
    types = node.get("type")
    if types == "null" or (isinstance(types, list) and "null" in types):
        return True
    branches = node.get("anyOf")
    return isinstance(branches, list) and any(isinstance(b, dict) and _allows_null(b) for b in branches)


def _nullable(node: dict[str, Any]) -> dict[str, Any]:
    keep = {k: v for k, v in node.items() if k in ("description", "title")}
    inner = {k: v for k, v in node.items() if k not in keep}
    if "anyOf" in inner and len(inner) == 1:
        return {**keep, "anyOf": [*inner["anyOf"], {"type": "null"}]}
    return {**keep, "anyOf": [inner, {"type": "null"}]}


def make_strict(params: dict[str, Any], log: NoteLog) -> dict[str, Any] | None:
    """``params`` (cleaned OpenAI parameters) in strict form, or None with a ``fallback`` note."""
    trial = NoteLog(log.tool, log.provider)
    worker = _Strictifier(trial)
    try:
        defs = params.get("$defs") or {}
        body = {k: v for k, v in params.items() if k != "$defs"}
        out = worker.node(body, "", 0, 0)
        if defs:
            out["$defs"] = {k: worker.node(v, f"$defs.{k}", 1, 1) for k, v in defs.items()}
        _check_limits(worker)
    except NotStrict as exc:
        log.add("", "fallback", f"sent with strict: false because {exc}")
        return None
    log.notes.extend(trial.notes)
    return out


def _check_limits(worker: _Strictifier) -> None:
    if worker.properties > MAX_PROPERTIES:
        raise NotStrict(f"{worker.properties} properties (strict mode allows {MAX_PROPERTIES})")
    if worker.enum_values > MAX_ENUM_VALUES:
        raise NotStrict(f"{worker.enum_values} enum values (strict mode allows {MAX_ENUM_VALUES})")
    if worker.chars > MAX_STRING_BUDGET:
        raise NotStrict(f"{worker.chars} characters of names and enum values (strict mode allows {MAX_STRING_BUDGET})")


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
            if item is None and key not in required and not _original_allows_null(sub, root):
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


def _original_allows_null(sub: Any, root: dict[str, Any]) -> bool:
    if not isinstance(sub, dict):
        return sub is True
    sub = deref(root, sub)
    if not sub or _allows_null(sub) or sub.get("nullable") is True or sub.get("const", 0) is None:
        return True
    enum = sub.get("enum")
    if isinstance(enum, list) and None in enum:
        return True
    return any(_original_allows_null(b, root) for k in ("anyOf", "oneOf") for b in sub.get(k) or [])

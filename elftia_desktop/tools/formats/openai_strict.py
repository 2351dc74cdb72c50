"""OpenAI strict mode (Structured Outputs for function calling) and the way back for arguments.

Relied on: OpenAI "Structured Outputs" guide, section "Supported schemas" (platform.openai.com/docs/
guides/structured-outputs#supported-schemas), and the openai SDK's ``lib/_pydantic.py``
(``to_strict_json_schema``):

* every object has ``additionalProperties: false`` and lists every property in ``required``;
  an optional property is made nullable (``anyOf [T, {"type": "null"}]``) and the tool's
  :class:`~elftia_desktop.tools.arguments.ArgumentMap` removes that null again ("omitted") before
  the MCP call (:func:`strip_strict_nulls` does the same from the original schema); an optional
  property that allows ``null`` itself gets one more branch, the text ``"<null>"`` for an explicit
  null (a string property then cannot carry that one text as a value), so "omitted" and null stay apart;
* supported: string ``pattern`` and ``format`` (date-time, time, date, duration, email, hostname,
  ipv4, ipv6, uuid); number ``multipleOf``, ``minimum``, ``maximum``, ``exclusiveMinimum``,
  ``exclusiveMaximum``; array ``items``, ``minItems``, ``maxItems``; ``enum``, ``const``,
  ``anyOf``, ``$ref``/``$defs`` (also recursive); a ``$ref`` has no sibling keywords;
* not supported, and so rewritten: ``allOf`` (merged), ``oneOf`` (-> ``anyOf``), a tuple
  (``prefixItems``: an array of ``anyOf`` its item types, the order described); ``default``,
  ``minLength``/``maxLength``, other formats and every other keyword are said in the description
  (:mod:`elftia_desktop.tools.describe`), each with a note;
* a value strict mode cannot describe (no type, a free-form object or map, objects nested deeper
  than 10 levels) is sent as a JSON-encoded string, decoded again by the argument map: the model
  may send the same values as before. A tool falls back to ``strict: false`` (with a note naming
  the reason) only over the limits: 5000 properties, 1000 enum values, 120,000 characters of
  names and enum values.
"""

from __future__ import annotations

from typing import Any

from elftia_desktop.tools.arguments import NULL_TEXT, ArgumentMap, MapRecorder, Where
from elftia_desktop.tools.describe import add_description, describe, encoded_text, value_text, with_extra_carrier
from elftia_desktop.tools.formats.strict_nulls import allows_null, nullable, nullable_leaf
from elftia_desktop.tools.formats.strict_nulls import strip_strict_nulls as strip_strict_nulls  # the way back, here too
from elftia_desktop.tools.notes import NoteLog, join_path
from elftia_desktop.tools.refs import MAX_DEPTH
from elftia_desktop.tools.schema import WRAPPED_PROPERTY, merge_all_of, string_list

STRICT_FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"})
_COMMON = frozenset({"type", "description", "title", "enum", "const", "anyOf", "$ref", "$defs"})
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
_OPTIONAL = "optional: made required and nullable (a null is removed before the call: the property is omitted)"
_LEAF = {t: _ALLOWED[t] - {"anyOf", "$ref", "$defs", "format"} for t in ("string", "number", "integer", "boolean")}
"""A scalar schema of only these keywords is kept as it is."""
_STRUCTURAL = frozenset({"prefixItems", "patternProperties", "additionalProperties", "$schema", "$comment"})
"""Handled by the object and array passes (or meaningless to the model), never described."""
_SINGLE = {t: [t] for t in _BY_TYPE}
"""One-type lists, shared (read only)."""
_OBJECT = _SINGLE["object"]
MAX_PROPERTIES = 5000
MAX_NESTING = 10
MAX_ENUM_VALUES = 1000
MAX_STRING_BUDGET = 120_000


class NotStrict(Exception):
    """The schema cannot be expressed in strict mode; the message says where and why."""


def _infer_type(node: dict[str, Any]) -> list[str]:
    if any(k in node for k in ("properties", "patternProperties", "additionalProperties", "required")):
        return ["object"]
    if any(k in node for k in ("items", "prefixItems")):
        return ["array"]
    return []


def _is_free_form(node: dict[str, Any]) -> bool:
    """An object whose keys are not declared: a map (``additionalProperties``) or any object."""
    props = node.get("properties")
    return not (isinstance(props, dict) and props) and node.get("additionalProperties") is not False


class _Strictifier:
    def __init__(self, log: NoteLog, maps: MapRecorder) -> None:
        self.log = log
        self.maps = maps
        self.wrapped = False
        """The root is a free-form map, sent as the JSON-encoded property ``value``."""
        self.properties = 0
        self.enum_values = 0
        self.chars = 0

    def node(self, node: Any, path: str, depth: int, nesting: int, at: Where) -> dict[str, Any]:
        """``node`` (at ``path``) rewritten for strict mode (JSON-encoded where it cannot be expressed)."""
        if not isinstance(node, dict) or not node or depth > MAX_DEPTH:
            return self._encoded(node if isinstance(node, dict) else {}, path, at, "a value of any type")
        kind = node.get("type")
        if type(kind) is str and "$ref" not in node and "allOf" not in node and "oneOf" not in node:  # the common case
            if kind != "object":
                return self._typed(node, _SINGLE.get(kind) or [kind], path, depth, nesting, at)
            if not _is_free_form(node) and nesting < MAX_NESTING:
                return self._typed(node, _OBJECT, path, depth, nesting, at)
        if "allOf" in node:
            node = merge_all_of(node)
            self.log.add(join_path(path, "allOf"), "changed", "allOf merged (strict mode does not support allOf)")
        if "oneOf" in node:
            node = {**{k: v for k, v in node.items() if k != "oneOf"}, "anyOf": node["oneOf"]}
            self.log.add(join_path(path, "oneOf"), "changed", "oneOf written as anyOf (strict mode has no oneOf)")
        if "$ref" in node:
            return self._ref(node, path, at)
        types = node.get("type")
        type_list = types if isinstance(types, list) else [types] if isinstance(types, str) else []
        if not type_list and not ("anyOf" in node or "enum" in node or "const" in node):
            type_list = _infer_type(node)
            if not type_list:
                return self._encoded(node, path, at, "a value without a type")
        if len(type_list) - type_list.count("null") > 1:
            return self._split_types(node, type_list, path, depth, nesting, at)
        if "object" in type_list and (_is_free_form(node) or nesting >= MAX_NESTING):
            why = "a free-form object" if _is_free_form(node) else f"objects nested deeper than {MAX_NESTING} levels"
            return self._encoded(node, path, at, why)
        return self._typed(node, type_list, path, depth, nesting, at)

    def root(self, body: dict[str, Any]) -> dict[str, Any]:
        """The root object; a free-form root map is wrapped as the JSON-encoded property ``value``."""
        props = body.get("properties")
        if isinstance(props, dict) and props:
            return self.node(body, "", 0, 0, ())
        extra = body.get("additionalProperties")
        if extra in (None, False) and not body.get("patternProperties"):
            return {"type": "object", "properties": {}, "required": [], "additionalProperties": False,
                    **{k: body[k] for k in ("description", "title") if isinstance(body.get(k), str)}}  # fmt: skip
        self.wrapped = True
        value = self._encoded({k: v for k, v in body.items() if k != "description"}, WRAPPED_PROPERTY,
                              (WRAPPED_PROPERTY,), "a root of any keys (a free-form map)")  # fmt: skip
        self.log.add("", "changed", f"the arguments are sent as the JSON-encoded property {WRAPPED_PROPERTY!r}, "
                     "unwrapped again before the call")  # fmt: skip
        out = {"type": "object", "properties": {WRAPPED_PROPERTY: value}, "required": [WRAPPED_PROPERTY]}
        return {**out, "additionalProperties": False}

    def _ref(self, node: dict[str, Any], path: str, at: Where) -> dict[str, Any]:
        ref = node["$ref"]
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            self.maps.ref(at, ref[len("#/$defs/") :])
        lost = [k for k in node if k not in ("$ref", "description", "title")]
        if lost:
            self.log.dropped(path, lost[0] if len(lost) == 1 else f"{{{', '.join(lost)}}}",
                             "strict mode allows no keyword beside $ref")  # fmt: skip
        return {"$ref": ref}

    def _encoded(self, node: dict[str, Any], path: str, at: Where, why: str) -> dict[str, Any]:
        self.maps.json_encoded(at)
        out: dict[str, Any] = {"type": "string"}
        for key in ("title", "description"):
            if isinstance(node.get(key), str):
                out[key] = node[key]
        add_description(out, encoded_text(node))
        self.log.add(path, "changed", f"{why} cannot be described in strict mode: sent as a JSON-encoded string, "
                     "decoded again before the call")  # fmt: skip
        return out

    def _split_types(
        self, node: dict[str, Any], types: list[str], path: str, depth: int, nesting: int, at: Where
    ) -> dict[str, Any]:
        keep = {k: v for k, v in node.items() if k in ("description", "title")}
        rest = {k: v for k, v in node.items() if k not in keep}
        self.log.add(join_path(path, "type"), "changed", f"type list {types} written as anyOf")
        return {**keep, **self._branches([{**rest, "type": t} for t in types], path, depth, nesting, at, rest)}

    def _branches(
        self, branches: list[Any], path: str, depth: int, nesting: int, at: Where, node: dict[str, Any]
    ) -> dict[str, Any]:
        """``{"anyOf": [...]}``, or the whole value JSON-encoded when a branch must be (it would be ambiguous)."""
        out, encoded, start = [], [], self.maps.mark()
        for i, branch in enumerate(branches):
            mark = self.maps.mark()
            out.append(self.node(branch, f"{path}.anyOf[{i}]", depth + 1, nesting, at))
            encoded.append(self.maps.encoded_since(mark, at))
        if any(encoded) and any(_may_be_string(b) for b, e in zip(out, encoded, strict=True) if not e):
            self.maps.discard_since(start)
            return self._encoded(node, path, at, "a union of a string and a value of that kind")
        return {"anyOf": out}

    def _typed(
        self, node: dict[str, Any], types: list[str], path: str, depth: int, nesting: int, at: Where
    ) -> dict[str, Any]:
        allowed = _ALLOWED.get(types[0], _COMMON) if len(types) == 1 else _allowed(types)
        out: dict[str, Any] = {}
        described = []
        for key, value in node.items():
            if key in allowed and (key != "format" or (isinstance(value, str) and value in STRICT_FORMATS)):
                out[key] = value
            elif key == "default" and value is None:  # pydantic's, on an optional value: says nothing more
                self.log.add(join_path(path, key), "changed", "left out: a default of null (omitted means null)")
            elif key not in _STRUCTURAL:
                described.append(key)
        if "type" not in out and "anyOf" not in out and "enum" not in out and "const" not in out:
            out["type"] = types[0] if len(types) == 1 else types
        if described:
            describe(out, node, described, self.log, path, "strict mode does not support it")
        enum = out.get("enum")
        if enum is not None:
            self._count_enum(enum)
        props = out.get("properties")
        if props is not None and isinstance(props, dict):
            self.chars += sum(map(len, props))
        if "anyOf" in out:
            union = self._branches(out.pop("anyOf"), path, depth, nesting, at, node)
            if "anyOf" not in union:
                return union  # the whole value JSON-encoded
            out["anyOf"] = union["anyOf"]
        if "object" in types:
            self._object(out, node, path, depth, nesting + 1, at)
        if "array" in types:
            self._array(out, node, path, depth, nesting, at)
        return out

    def _array(self, out: dict[str, Any], node: dict[str, Any], path: str, depth: int, nesting: int, at: Where) -> None:
        items = node.get("items")
        tuple_items = node.get("prefixItems")
        if isinstance(tuple_items, list) and tuple_items:
            variants = [*tuple_items, *([items] if isinstance(items, dict) else [])]
            unique = [v for i, v in enumerate(variants) if v not in variants[:i]]
            items = unique[0] if len(unique) == 1 else {"anyOf": unique}
            add_description(out, f"A tuple: item i follows prefixItems[i] of {value_text(tuple_items)}.")
            self.log.add(join_path(path, "prefixItems"), "changed",
                         "tuple written as an array of anyOf its item types, the order described")  # fmt: skip
        out["items"] = self.node(items if items is not None else {}, join_path(path, "items"), depth + 1, nesting,
                                 (*at, None))  # fmt: skip

    def _object(
        self, out: dict[str, Any], node: dict[str, Any], path: str, depth: int, nesting: int, at: Where
    ) -> None:
        raw = out.get("properties")
        props: dict[str, Any] = raw if isinstance(raw, dict) else {}
        extra = node.get("additionalProperties")
        if props and (extra not in (None, False) or node.get("patternProperties")):
            props = with_extra_carrier(props, node, path, at, self.maps, self.log)
        self.properties += len(props)
        required = _name_set(node.get("required"))
        prefix = f"{path}.properties." if path else "properties."
        new_props: dict[str, Any] = {}
        leaves = _LEAF if depth < MAX_DEPTH else {}
        omit_null, note = self.maps.omit_null, self.log.add
        for name, sub in props.items():
            kind = sub.get("type") if type(sub) is dict else None
            if type(kind) is str and kind in leaves and sub.keys() <= leaves[kind]:  # no temporary set
                if "enum" in sub:  # a plain scalar: strict mode keeps every keyword (what :meth:`node` does)
                    self._count_enum(sub["enum"])
                if name in required:
                    new_props[name] = dict(sub)
                    continue
                converted = nullable_leaf(sub)
            else:
                converted = self.node(sub, f"{prefix}{name}", depth + 1, nesting, (*at, name))
                if name in required:
                    new_props[name] = converted
                    continue
                if not _never_null(converted) and allows_null(converted):
                    new_props[name] = self._null_or_omitted(converted, f"{prefix}{name}", at, name)
                    continue
                converted = nullable(converted)
            omit_null(at, name)
            note(f"{prefix}{name}", "changed", _OPTIONAL)
            new_props[name] = converted
        out["properties"] = new_props
        out["required"] = list(new_props)
        out["additionalProperties"] = False
        out.pop("type", None)
        out["type"] = "object"

    def _null_or_omitted(self, converted: dict[str, Any], path: str, at: Where, name: str) -> dict[str, Any]:
        """An optional property that allows ``null``: ``null`` means omitted, :data:`NULL_TEXT` an explicit null.

        A string property keeps its plain values (never JSON-encoded for this): only the text
        :data:`NULL_TEXT` itself cannot be sent as a value there, a trade for every other string.
        """
        self.maps.omit_null(at, name)
        self.maps.null_text(at, name)
        self.log.add(path, "changed", f"{_OPTIONAL}; an explicit null is sent as {NULL_TEXT!r}")
        out = nullable(converted)
        out["anyOf"].append({"type": "string", "const": NULL_TEXT, "description": "null (null itself: omitted)"})
        return out

    def _count_enum(self, enum: Any) -> None:
        if isinstance(enum, list):
            self.enum_values += len(enum)
            self.chars += sum([len(v) for v in enum if isinstance(v, str)])


def _may_be_string(node: dict[str, Any]) -> bool:
    """Whether a converted branch may hold a string (then a JSON-encoded sibling branch would be ambiguous)."""
    types = node.get("type")
    if types == "string" or (isinstance(types, list) and "string" in types) or "$ref" in node:
        return True
    values = node["enum"] if isinstance(node.get("enum"), list) else [node.get("const")]
    if any(isinstance(v, str) for v in values):
        return True
    return any(_may_be_string(b) for b in node.get("anyOf") or [] if isinstance(b, dict))


def _allowed(types: list[str]) -> frozenset[str]:
    return _COMMON.union(*(_BY_TYPE.get(t, frozenset()) for t in types))


def _name_set(required: Any) -> set[Any]:
    """The names in a ``required`` list (a cleaned one holds strings only)."""
    try:
        return set(required) if isinstance(required, list) else set()
    except TypeError:  # an unhashable entry: not a name
        return set(string_list(required))


def _never_null(node: dict[str, Any]) -> bool:
    """A quick "no" of :func:`allows_null` for the common case: one type, not null, no union."""
    kind = node.get("type")
    return type(kind) is str and kind != "null" and "anyOf" not in node


def make_strict(params: dict[str, Any], log: NoteLog) -> dict[str, Any] | None:
    """``params`` (cleaned OpenAI parameters) in strict form, or None with a ``fallback`` note.

    On success the way back (nulls of optional properties, JSON-encoded values) joins the log's
    argument map.
    """
    start = len(log.notes)
    worker = _Strictifier(log, MapRecorder())
    def_maps: dict[str, ArgumentMap] = {}
    try:
        defs = params.get("$defs") or {}
        out = worker.root({k: v for k, v in params.items() if k != "$defs"} if "$defs" in params else params)
        if defs:
            out["$defs"] = {k: _def(worker, k, v, def_maps) for k, v in defs.items()}
        _check_limits(worker)
    except NotStrict as exc:
        del log.notes[start:]  # the notes of the strict attempt: that schema is not sent
        log.add("", "fallback", f"sent with strict: false because {exc}")
        return None
    if worker.maps.records or worker.wrapped or def_maps:  # most tools need no map: none is made
        amap = ArgumentMap(defs=def_maps, wrapped=WRAPPED_PROPERTY if worker.wrapped else None)
        built = worker.maps.build(amap)
        if log.arguments is None:
            log.arguments = built
        else:
            log.arguments.merge(built)
    return out


def _def(worker: _Strictifier, name: str, schema: Any, def_maps: dict[str, ArgumentMap]) -> dict[str, Any]:
    """One ``$defs`` entry in strict form; its way back becomes ``def_maps[name]``."""
    body_maps, worker.maps = worker.maps, MapRecorder()
    out = worker.node(schema, f"$defs.{name}", 1, 1, ())
    def_maps[name] = worker.maps.build(ArgumentMap())
    worker.maps = body_maps
    return out


def _check_limits(worker: _Strictifier) -> None:
    if worker.properties > MAX_PROPERTIES:
        raise NotStrict(f"{worker.properties} properties (strict mode allows {MAX_PROPERTIES})")
    if worker.enum_values > MAX_ENUM_VALUES:
        raise NotStrict(f"{worker.enum_values} enum values (strict mode allows {MAX_ENUM_VALUES})")
    if worker.chars > MAX_STRING_BUDGET:
        raise NotStrict(f"{worker.chars} characters of names and enum values (strict mode allows {MAX_STRING_BUDGET})")

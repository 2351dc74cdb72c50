"""A JSON Schema 2020-12 clean-up shared by the providers that take real JSON Schema.

Anthropic's ``input_schema`` is JSON Schema 2020-12 (docs.claude.com, "Define tools":
``input_schema`` is "a JSON Schema object"; the SDK's ``InputSchema`` links draft 2020-12), Gemini's
``parametersJsonSchema`` takes JSON Schema, and OpenAI's non-strict ``parameters`` takes JSON
Schema. MCP servers send draft-07 (the TypeScript SDK adds ``$schema`` draft-07 to every tool) and
sometimes invalid keyword values. This pass makes every schema valid 2020-12:
draft-07 tuples ``items: [...]`` -> ``prefixItems``; ``additionalItems`` -> ``items``; boolean
``exclusiveMinimum``/``exclusiveMaximum`` (draft-04) -> the numeric form; ``dependencies`` ->
``dependentRequired``/``dependentSchemas``; ``$schema``/``$id`` and anchors dropped; keyword values of
the wrong type dropped (and noted). Unknown keywords are kept: JSON Schema ignores them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from elftia_desktop.tools.convert import inline_refs, without_defs
from elftia_desktop.tools.formats.jsonschema_keywords import (
    BOOLEAN_OK,
    CHECKS,
    CONTAINERS,
    COUNTS,
    KNOWN,
    LEGACY_KEYS,
    NUMBERS,
    OPAQUE,
    PLAIN,
    SCAN_DEPTH,
    SCHEMA_KEYS,
    SCHEMA_MAPS,
    SCHEMA_TYPES,
    STRINGS,
    STRUCTURE,
    SUBSCHEMAS,
    TYPE_NAMES,
    is_number,
    kept_data,
    name_list,
    short,
)
from elftia_desktop.tools.notes import NoteLog, join_path
from elftia_desktop.tools.refs import MAX_DEPTH
from elftia_desktop.tools.schema import root_object, string_list


class JsonSchemaCleaner:
    """Rewrites one schema tree into valid JSON Schema 2020-12; see the module docstring."""

    def __init__(self, log: NoteLog, *, array_items: bool = False, share: bool = False) -> None:
        self.log = log
        self.array_items = array_items
        """Give every array an ``items`` (OpenAI rejects an array schema without one)."""
        self.share = share
        """Return a subschema that needs no change itself, not a copy: for a pass that builds a new tree
        from the result (OpenAI strict, Gemini's JSON Schema subset), which must not change it."""

    def clean(self, node: Any, path: str = "", depth: int = 0) -> Any:
        """A cleaned copy of ``node`` (a schema: a dict or a boolean); with :attr:`share`, the parts
        that need no change are returned as they are."""
        if isinstance(node, bool):
            return node
        if not isinstance(node, dict):
            self.log.add(path, "changed", f"not a schema ({type(node).__name__}); replaced by an unconstrained schema")
            return {}
        if depth > MAX_DEPTH:
            self.log.add(path, "cut", f"nested deeper than {MAX_DEPTH} levels; left unconstrained")
            return {}
        if self.share and self._plain(node):
            return self._shared(node, path, depth)
        out: dict[str, Any] = {}
        for key, value in node.items():  # the common cases first, without a call per keyword
            if type(value) is str and (key in STRINGS or (key == "type" and value in TYPE_NAMES)):
                out[key] = value
            elif key not in KNOWN or ((value is True or value is False) and key in BOOLEAN_OK):
                out[key] = value  # unknown keywords are kept: JSON Schema ignores them
            elif key == "properties" and type(value) is dict:
                where = f"{path}.properties" if path else "properties"
                out[key] = {k: self.clean(v, f"{where}.{k}", depth + 1) for k, v in value.items()}
            else:
                self._keyword(out, key, value, path, depth)
        if not LEGACY_KEYS.isdisjoint(node):
            self._legacy(out, node, path, depth)
        if self.array_items and "items" not in out and "prefixItems" not in out:
            kind = out.get("type")
            if kind == "array" or (isinstance(kind, list) and "array" in kind):
                out["items"] = {}
        return out

    def prepared(self, schema: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        """:func:`~elftia_desktop.tools.convert.prepare_schema` of ``schema``, the root cleaned; the ``$defs``
        are returned as they are, for the caller to clean.

        With :attr:`share`, a tree without references that cleaning leaves as it is (most tools) is
        returned itself after one walk (:meth:`unchanged`), not a reference scan and a cleaning pass.
        """
        root = root_object(schema, self.log)
        if self.share:
            body = without_defs(root)
            if self.unchanged(body, 0):
                return body, {}
        root, defs = inline_refs(root, schema, self.log)
        return self.clean(root), defs

    def unchanged(self, node: dict[str, Any], depth: int) -> bool:
        """Whether sharing :meth:`clean` returns ``node`` itself and notes nothing, and no ``$ref`` occurs in it.

        :meth:`_plain` and the walk into subschemas in one loop. Conservative: False for what the scan
        does not follow (a container under a keyword of its own, nesting deeper than :data:`SCAN_DEPTH`),
        which then takes the full path.
        """
        if depth > SCAN_DEPTH or "$ref" in node:
            return False
        for key, value in node.items():
            kind = type(value)
            if kind is str:
                if key in STRINGS or (key == "type" and value in TYPE_NAMES):
                    continue
            elif kind is dict:
                sub = SUBSCHEMAS.get(key)
                if sub == "schema" or sub == "map":
                    if self._unchanged_all(value.values() if sub == "map" else (value,), depth + 1):
                        continue
                    return False
                if key in OPAQUE and kept_data(key, value):
                    continue
                return False
            elif kind is bool:
                if key in BOOLEAN_OK:
                    continue
            elif kind is list:
                if key in OPAQUE and kept_data(key, value):
                    continue
                if SUBSCHEMAS.get(key) == "list" and value and self._unchanged_all(value, depth + 1):
                    continue
                return False
            elif kind is int and value >= 0 and (key in COUNTS or key in NUMBERS):
                continue
            if isinstance(value, CONTAINERS) or (key in KNOWN and not PLAIN[key](value)):
                return False
        if self.array_items and node.get("type") == "array":
            return "items" in node or "prefixItems" in node
        return True

    def _unchanged_all(self, subschemas: Iterable[Any], depth: int) -> bool:
        for sub in subschemas:
            if not (sub is True or sub is False or (type(sub) is dict and self.unchanged(sub, depth))):
                return False
        return True

    def _plain(self, node: dict[str, Any]) -> bool:
        """Whether cleaning changes nothing in ``node`` itself (its subschemas aside) and notes nothing."""
        for key, value in node.items():  # the common cases inline, then the rule of the keyword
            kind = type(value)
            if kind is str:
                if key in STRINGS or (key == "type" and value in TYPE_NAMES):
                    continue
            elif kind is dict:
                if key in SCHEMA_KEYS or key in SCHEMA_MAPS:
                    continue
            elif kind is bool:
                if key in BOOLEAN_OK:
                    continue
            elif kind is list:
                if key == "enum" or (key == "required" and name_list(value)):
                    continue
            elif kind is int and value >= 0 and (key in COUNTS or key in NUMBERS):
                continue
            if key in KNOWN and not PLAIN[key](value):
                return False
        if self.array_items and node.get("type") == "array":
            return "items" in node or "prefixItems" in node
        return True

    def _shared(self, node: dict[str, Any], path: str, depth: int) -> dict[str, Any]:
        """``node`` (a :meth:`_plain` one) with its subschemas cleaned: itself when none of them changes."""
        out: dict[str, Any] | None = None
        for key, value in node.items():
            kind = SUBSCHEMAS.get(key)
            if kind is None or value is True or value is False:
                continue
            where = f"{path}.{key}" if path else key
            if kind == "schema":
                new = self.clean(value, where, depth + 1)
            elif kind == "list":
                new = self._shared_list(value, where, depth + 1)
            else:
                new = self._shared_map(value, where, depth + 1)
            if new is not value:
                if out is None:
                    out = dict(node)
                out[key] = new
        return node if out is None else out

    def _shared_list(self, value: list[Any], where: str, depth: int) -> list[Any]:
        out: list[Any] | None = None
        for i, sub in enumerate(value):
            new = self.clean(sub, f"{where}[{i}]", depth)
            if out is not None:
                out.append(new)
            elif new is not sub:
                out = [*value[:i], new]
        return value if out is None else out

    def _shared_map(self, value: dict[str, Any], where: str, depth: int) -> dict[str, Any]:
        out: dict[str, Any] | None = None
        for name, sub in value.items():
            new = self.clean(sub, f"{where}.{name}", depth)
            if new is not sub:
                if out is None:
                    out = dict(value)
                out[name] = new
        return value if out is None else out

    def _keyword(self, out: dict[str, Any], key: str, value: Any, path: str, depth: int) -> None:
        check = CHECKS.get(key)
        ok: bool | None
        if check is not None:
            ok, value = check(value)
        elif key in STRUCTURE:
            ok = self._structural(out, STRUCTURE[key], key, value, path, depth)
        else:
            ok = True  # unknown keywords are kept: JSON Schema ignores them
        if ok:
            out[key] = value
        elif ok is False:
            where = join_path(path, key)
            self.log.add(where, "dropped", f"the value {short(value)} is not valid for {key!r} in JSON Schema")

    def _structural(self, out: dict[str, Any], kind: str, key: str, value: Any, path: str, depth: int) -> bool | None:
        """Whether ``value`` is valid for ``key``; None when it is handled here (subschemas are cleaned
        into ``out``) or elsewhere (:meth:`_legacy`), or dropped with a note."""
        if kind == "drop":
            if key != "$schema":
                self.log.dropped(path, key, "identifiers and dialect markers are not needed in a tool schema")
            return None
        if kind == "number":
            return None if isinstance(value, bool) else is_number(value)  # a boolean bound: see _legacy
        if kind == "legacy" or (key == "items" and isinstance(value, list)):
            return None  # rewritten by _legacy (draft-07 tuples, dependencies)
        where = join_path(path, key)
        if kind == "schema":
            if not isinstance(value, SCHEMA_TYPES):
                return False
            out[key] = self.clean(value, where, depth + 1)
        elif kind == "list":
            if not isinstance(value, list) or not value:
                return False
            out[key] = [self.clean(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(value)]
        else:
            if not isinstance(value, dict):
                return False
            out[key] = {k: self.clean(v, f"{where}.{k}", depth + 1) for k, v in value.items()}
        return None

    def _legacy(self, out: dict[str, Any], node: dict[str, Any], path: str, depth: int) -> None:
        items = node.get("items")
        if isinstance(items, list):
            tuple_items = [self.clean(v, f"{path}.items[{i}]", depth + 1) for i, v in enumerate(items)]
            if tuple_items:
                out["prefixItems"] = tuple_items
            extra = node.get("additionalItems")
            if isinstance(extra, dict | bool):
                out["items"] = self.clean(extra, join_path(path, "additionalItems"), depth + 1)
            self.log.add(join_path(path, "items"), "changed", "draft-07 tuple items written as 2020-12 prefixItems")
        for key, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
            if node.get(key) is True and is_number(node.get(bound)):
                out[key] = out.pop(bound)
                self.log.add(join_path(path, key), "changed", f"draft-04 boolean form written as a number ({bound})")
        deps = node.get("dependencies")
        if isinstance(deps, dict):
            required = {k: string_list(v) for k, v in deps.items() if isinstance(v, list)}
            schemas = {k: self.clean(v, f"{path}.dependencies.{k}", depth + 1) for k, v in deps.items()
                       if isinstance(v, dict | bool)}  # fmt: skip
            if required:
                out["dependentRequired"] = required
            if schemas:
                out["dependentSchemas"] = schemas

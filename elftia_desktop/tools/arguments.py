"""The way back for a model's tool-call arguments: the form the MCP server declared.

A conversion sometimes has to change the shape of a tool's arguments for a provider, and each
change is recorded in the tool's :class:`ArgumentMap` (kept beside its name in the
:class:`~elftia_desktop.tools.names.NameMap`), which undoes it before the call goes to the server:

* an input schema that is not an object is wrapped as the single property ``value``;
* Gemini gets other names for properties whose names it does not accept, at any depth;
* OpenAI strict mode makes optional properties required and nullable: a ``null`` there means
  "omitted" and is removed; where the server's schema allows ``null`` itself, the text
  :data:`NULL_TEXT` stands for that explicit ``null``;
* a value no provider schema can describe (Gemini's ``parameters`` for a free-form object, OpenAI
  strict for an untyped value or a free-form map) is sent as a JSON-encoded string and decoded;
* an object with declared properties that allows others too gets, where only declared properties
  can be sent, one more property that carries the others JSON-encoded; they are merged back in.

The map is a tree that follows the value: ``properties`` (by the provider's name) and ``items``
lead to the maps of nested values; the branches of an ``anyOf`` share their parent's map.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

_MAX_DEPTH = 64
NULL_TEXT = "<null>"
"""What a strict-mode model sends for an explicit ``null`` where a ``null`` itself means "omitted"."""


class ArgumentError(ValueError):
    """The model's arguments cannot be given to the server in the form it declared."""


def _decode(value: Any, where: str) -> Any:
    """A JSON-encoded value decoded (a non-string passes as it is)."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError as exc:
        raise ArgumentError(f"{where} must be a JSON-encoded value: {exc}") from None


@dataclass
class ArgumentMap:
    """How one value (the arguments object at the root) maps back to the server's form."""

    renamed: dict[str, str] = field(default_factory=dict)
    """Provider property name -> the server's name, at this level."""
    properties: dict[str, ArgumentMap] = field(default_factory=dict)
    """Provider property name -> how that property's value maps back."""
    items: ArgumentMap | None = None
    """How each element of an array maps back."""
    omit_null: set[str] = field(default_factory=set)
    """Provider property names whose ``null`` means "omitted" (OpenAI strict optional properties)."""
    null_text: set[str] = field(default_factory=set)
    """Provider property names where the text :data:`NULL_TEXT` means an explicit ``null``."""
    json_encoded: bool = False
    """The value was sent as a JSON-encoded string and is decoded (nothing below it changed)."""
    extra: str | None = None
    """The property that carries the object's other keys, JSON-encoded (merged in; the declared ones win)."""
    ref: str | None = None
    """The value follows a ``$defs`` entry: the name of that entry's map in the root's ``defs``."""
    defs: dict[str, ArgumentMap] = field(default_factory=dict)
    """At the root: the maps of the ``$defs`` entries (a recursive model maps back at every depth)."""
    wrapped: str | None = None
    """At the root: the property the whole input was wrapped in (the schema is not an object), or None."""

    def __bool__(self) -> bool:
        changes = self.renamed or self.properties or self.items or self.omit_null or self.null_text or self.defs
        marks = self.json_encoded or self.extra is not None or self.ref is not None or self.wrapped is not None
        return bool(changes) or marks

    def child(self, name: str) -> ArgumentMap:
        """The map of property ``name`` (the provider's name), created when first asked for."""
        sub = self.properties.get(name)
        if sub is None:  # not ``setdefault``: that would build a map on every call
            sub = self.properties[name] = ArgumentMap()
        return sub

    def item_map(self) -> ArgumentMap:
        """The map of an array's elements, created when first asked for."""
        if self.items is None:
            self.items = ArgumentMap()
        return self.items

    def merge(self, other: ArgumentMap) -> None:
        """Take in ``other``'s changes (the map of an ``anyOf`` branch joins its parent's)."""
        self.renamed.update(other.renamed)
        self.omit_null |= other.omit_null
        self.null_text |= other.null_text
        self.json_encoded = self.json_encoded or other.json_encoded
        self.ref = self.ref or other.ref
        self.extra = self.extra or other.extra
        for name, sub in other.properties.items():
            self.child(name).merge(sub)
        if other.items is not None:
            self.item_map().merge(other.items)
        for name, sub in other.defs.items():
            self.defs.setdefault(name, ArgumentMap()).merge(sub)
        self.wrapped = self.wrapped or other.wrapped

    def prune(self, alive: set[str] | None = None) -> ArgumentMap | None:
        """This map without empty children, or None when nothing changes (at the root: ``alive`` None)."""
        if alive is None:
            if self.defs:  # (empty ones skipped: most maps have neither definitions nor properties)
                self.defs = {k: v for k, v in self.defs.items() if v.prune(set(self.defs)) is not None}
            alive = set(self.defs)
        if self.ref is not None and self.ref not in alive:
            self.ref = None
        if self.properties:
            self.properties = {k: v for k, v in self.properties.items() if v.prune(alive) is not None}
        if self.items is not None and self.items.prune(alive) is None:
            self.items = None
        return self if self else None

    def restore(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """``arguments`` as the server declared them: original names, unwrapped, decoded; a new dict.

        Raises ``ArgumentError`` when a JSON-encoded value is not valid JSON, or when the input was
        wrapped and the wrapped value is not a JSON object (MCP passes a tool's arguments as an
        object, so nothing else can reach the server).
        """
        args = self.restore_value(dict(arguments), "arguments", 0, self.defs)
        if not isinstance(args, dict):
            raise ArgumentError(f"the arguments decode to a {type(args).__name__}, not an object")
        if self.wrapped is None:
            return args
        value = args.get(self.wrapped)
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise ArgumentError(
                f"the tool's input schema is not an object, and the {self.wrapped!r} sent is a "
                f"{type(value).__name__}: MCP can only pass an object of arguments"
            )
        return dict(value)

    def restore_value(self, value: Any, where: str, depth: int, defs: dict[str, ArgumentMap]) -> Any:
        """One value mapped back; ``where`` names it in an error, ``defs`` are the root's."""
        if depth > _MAX_DEPTH:
            return value
        target = defs.get(self.ref) if self.ref is not None else None
        if target is not None:
            return target.restore_value(value, where, depth + 1, defs)
        if self.json_encoded and isinstance(value, str):
            return _decode(value, where)
        if isinstance(value, dict):
            return self._restore_object(value, where, depth, defs)
        if isinstance(value, list) and self.items is not None:
            return [self.items.restore_value(v, f"{where}[{i}]", depth + 1, defs) for i, v in enumerate(value)]
        return value

    def _restore_object(
        self, value: dict[str, Any], where: str, depth: int, defs: dict[str, ArgumentMap]
    ) -> dict[str, Any]:
        out: dict[str, Any] = {}
        more: Any = None
        for key, item in value.items():
            if key == self.extra:
                more = item
                continue
            if item is None and key in self.omit_null:
                continue
            name = self.renamed.get(key, key)
            if item == NULL_TEXT and key in self.null_text:
                out[name] = None
                continue
            sub = self.properties.get(key)
            out[name] = item if sub is None else sub.restore_value(item, f"{where}.{name}", depth + 1, defs)
        if more is not None:
            extra = _decode(more, f"{where}.{self.extra}")
            if not isinstance(extra, dict):
                raise ArgumentError(f"{where}.{self.extra} must be a JSON-encoded object of further properties")
            out = {**extra, **out}
        return out

    def to_json(self) -> dict[str, Any]:
        """The map as plain JSON: ``renamed``, ``wrapped``, and the other parts where they are set."""
        out: dict[str, Any] = {"renamed": dict(self.renamed), "wrapped": self.wrapped}
        if self.omit_null:
            out["omitNull"] = sorted(self.omit_null)
        if self.null_text:
            out["nullText"] = sorted(self.null_text)
        if self.json_encoded:
            out["jsonEncoded"] = True
        if self.properties:
            out["properties"] = {k: v.to_json() for k, v in self.properties.items()}
        if self.items is not None:
            out["items"] = self.items.to_json()
        if self.ref is not None:
            out["ref"] = self.ref
        if self.extra is not None:
            out["extra"] = self.extra
        if self.defs:
            out["defs"] = {k: v.to_json() for k, v in self.defs.items()}
        return out


Step = str | None
"""One step down a value: a property (the provider's name), or ``None`` for an array's elements."""
Where = tuple[Step, ...]


class MapRecorder:
    """Collects what a schema pass changes, by where in the value, and builds the :class:`ArgumentMap` once.

    The passes walk every schema node; recording only the changes (and building the tree at the end)
    costs nothing for the many nodes that keep their shape. The branches of an ``anyOf`` record at
    their parent's place, so their changes join it.
    """

    def __init__(self) -> None:
        self.records: list[tuple[Where, str, str, str]] = []

    def json_encoded(self, where: Where) -> None:
        """The value at ``where`` is sent JSON-encoded."""
        self.records.append((where, "json", "", ""))

    def renamed(self, where: Where, new: str, original: str) -> None:
        """Property ``original`` of the object at ``where`` is sent as ``new``."""
        self.records.append((where, "rename", new, original))

    def omit_null(self, where: Where, name: str) -> None:
        """A null in property ``name`` of the object at ``where`` means "omitted"."""
        self.records.append((where, "omit", name, ""))

    def null_text(self, where: Where, name: str) -> None:
        """The text :data:`NULL_TEXT` in property ``name`` of the object at ``where`` means ``null``."""
        self.records.append((where, "null", name, ""))

    def extra(self, where: Where, name: str) -> None:
        """Property ``name`` of the object at ``where`` carries its other keys, JSON-encoded."""
        self.records.append((where, "extra", name, ""))

    def ref(self, where: Where, name: str) -> None:
        """The value at ``where`` follows the ``$defs`` entry ``name``."""
        self.records.append((where, "ref", name, ""))

    def mark(self) -> int:
        """A point to look back to (:meth:`encoded_since`, :meth:`discard_since`)."""
        return len(self.records)

    def encoded_since(self, mark: int, where: Where) -> bool:
        """Whether the value at ``where`` was made JSON-encoded after ``mark``."""
        return any(r[0] == where and r[1] == "json" for r in self.records[mark:])

    def discard_since(self, mark: int) -> None:
        """Forget what was recorded after ``mark`` (the value is sent whole, JSON-encoded, instead)."""
        del self.records[mark:]

    def build(self, into: ArgumentMap) -> ArgumentMap:
        """The recorded changes added to ``into`` (returned)."""
        for where, kind, first, second in self.records:
            node = into
            for step in where:
                node = node.item_map() if step is None else node.child(step)
            if kind == "json":
                node.json_encoded = True
            elif kind == "rename":
                node.renamed[first] = second
            elif kind == "omit":
                node.omit_null.add(first)
            elif kind == "null":
                node.null_text.add(first)
            elif kind == "extra":
                node.extra = first
            else:
                node.ref = first
        return into

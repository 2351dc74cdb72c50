"""The JSON Schema keywords the 2020-12 clean-up knows: which hold subschemas, which are rewritten or
dropped, how each keyword's value is checked, and which values the cleaner keeps as they are."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from elftia_desktop.tools.schema import JSON_TYPES, string_list

SCHEMA_KEYS = frozenset(
    {"not", "if", "then", "else", "items", "additionalProperties", "contains", "propertyNames",
     "unevaluatedItems", "unevaluatedProperties", "contentSchema"}
)  # fmt: skip
_SCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
SCHEMA_MAPS = frozenset({"properties", "patternProperties", "dependentSchemas", "$defs", "definitions"})
COUNTS = frozenset(
    {"maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties", "maxContains", "minContains"}
)
NUMBERS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"})
STRINGS = frozenset({"format", "title", "description", "$comment", "contentEncoding", "contentMediaType"})
_BOOLS = frozenset({"uniqueItems", "readOnly", "writeOnly", "deprecated"})
_NUMBER_TYPES = (int, float)  # tuples, not ``int | float``: an inline union is built on every call
SCHEMA_TYPES = (dict, bool)
TYPE_NAMES = frozenset(JSON_TYPES)
LEGACY_KEYS = frozenset({"items", "exclusiveMinimum", "exclusiveMaximum", "dependencies"})
_DROP = frozenset({"$schema", "$id", "id", "$anchor", "$dynamicAnchor", "$dynamicRef", "$recursiveRef",
                   "$recursiveAnchor", "$vocabulary"})  # fmt: skip


def is_number(value: Any) -> bool:
    """A JSON number (not a bool)."""
    return isinstance(value, _NUMBER_TYPES) and not isinstance(value, bool) and value == value


def valid_pattern(value: Any) -> bool:
    """Whether ``value`` is a regular expression Python (and so jsonschema) can compile."""
    if not isinstance(value, str):
        return False
    try:
        re.compile(value)
    except (re.error, RecursionError, OverflowError):
        return False
    return True


def _count_value(value: Any) -> tuple[bool, Any]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0, value


def _multiple_of(value: Any) -> tuple[bool, Any]:
    return is_number(value) and value > 0, value


def _string_value(value: Any) -> tuple[bool, Any]:
    return isinstance(value, str), value


def _bool_value(value: Any) -> tuple[bool, Any]:
    return isinstance(value, bool), value


def _pattern_value(value: Any) -> tuple[bool, Any]:
    return valid_pattern(value), value


def _required_value(value: Any) -> tuple[bool, Any]:
    return isinstance(value, list), string_list(value)


def _list_value(value: Any) -> tuple[bool, Any]:
    return isinstance(value, list), value


def _dependent_required(value: Any) -> tuple[bool, Any]:
    if not isinstance(value, dict):
        return False, value
    return True, {k: string_list(v) for k, v in value.items()}


def _check_type(value: Any) -> tuple[bool, Any]:
    if isinstance(value, str):
        return value in JSON_TYPES, value
    if isinstance(value, list):
        known = list(dict.fromkeys(t for t in value if isinstance(t, str) and t in JSON_TYPES))
        if not known:
            return False, value
        return True, known[0] if len(known) == 1 else known
    return False, value


def short(value: Any) -> str:
    """``value`` as a note shows it: its repr, cut at 40 characters."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


CHECKS: dict[str, Callable[[Any], tuple[bool, Any]]] = {
    **dict.fromkeys(COUNTS, _count_value),
    **dict.fromkeys(STRINGS, _string_value),
    **dict.fromkeys(_BOOLS, _bool_value),
    "multipleOf": _multiple_of,
    "pattern": _pattern_value,
    "type": _check_type,
    "required": _required_value,
    "examples": _list_value,
    "enum": _list_value,
    "dependentRequired": _dependent_required,
    "$ref": _string_value,
}
"""Keywords whose value is checked (and kept, or dropped with a note)."""
STRUCTURE: dict[str, str] = {
    **dict.fromkeys(_DROP, "drop"),
    **dict.fromkeys(("additionalItems", "dependencies"), "legacy"),
    **dict.fromkeys(NUMBERS, "number"),
    **dict.fromkeys(SCHEMA_KEYS, "schema"),
    **dict.fromkeys(_SCHEMA_LISTS, "list"),
    **dict.fromkeys(SCHEMA_MAPS, "map"),
}
"""Keywords that hold subschemas, or that are rewritten or dropped; all others are kept as they are."""
KNOWN = frozenset(CHECKS) | frozenset(STRUCTURE)
BOOLEAN_OK = SCHEMA_KEYS | _BOOLS
"""Keywords whose value may be a boolean as it is (a boolean subschema, a flag)."""


def name_list(value: Any) -> bool:
    """A list of distinct strings (a ``required`` that cleaning keeps as it is)."""
    if not isinstance(value, list) or not set(map(type, value)) <= _STR_TYPE:  # (a str subclass: not plain)
        return False
    return len(set(value)) == len(value)


_STR_TYPE = frozenset({str})


def kept_data(key: str, value: Any) -> bool:
    """Whether the cleaner keeps the container ``value`` of the data keyword ``key`` as it is (an ``enum`` or
    ``examples`` that is not a list, a ``required`` that is not a list of names, is not)."""
    return key not in PLAIN or PLAIN[key](value)


def _never(value: Any) -> bool:
    return False


def _kept_by(check: Callable[[Any], tuple[bool, Any]]) -> Callable[[Any], bool]:
    """Whether ``check`` keeps a value as it is (the checks that rewrite one have rules of their own below)."""
    return lambda value: check(value)[0]


PLAIN: dict[str, Callable[[Any], bool]] = {
    **{key: _kept_by(check) for key, check in CHECKS.items()},
    "type": lambda value: isinstance(value, str) and value in TYPE_NAMES,
    "required": name_list,
    "dependentRequired": _never,
    **dict.fromkeys(_DROP, _never),
    "additionalItems": _never,
    "dependencies": _never,
    **dict.fromkeys(NUMBERS, lambda value: not isinstance(value, bool) and is_number(value)),
    **dict.fromkeys(SCHEMA_KEYS, lambda value: isinstance(value, SCHEMA_TYPES)),
    **dict.fromkeys(_SCHEMA_LISTS, lambda value: isinstance(value, list) and len(value) > 0),
    **dict.fromkeys(SCHEMA_MAPS, lambda value: isinstance(value, dict)),
}
"""Per keyword: whether the cleaner keeps a value as it is, without a note (its subschemas aside)."""
SUBSCHEMAS = {key: kind for key, kind in STRUCTURE.items() if kind in ("schema", "list", "map")}
CONTAINERS = (dict, list)
OPAQUE = frozenset({"default", "enum", "const", "examples", "example", "required"})
"""Keywords whose container value :meth:`JsonSchemaCleaner.unchanged` need not look into: data (where the
reference scan does not look either) and a ``required`` that :meth:`JsonSchemaCleaner._plain` found to hold names."""
SCAN_DEPTH = 24
"""Deeper subschemas take the full path: the reference scan and the cleaner have depth rules of their own."""

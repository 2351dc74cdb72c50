"""Checking tool arguments against the tool's input schema with ``jsonschema``, errors by field path.

Shared by the Try form (each problem under its field) and ``elftia-mcp call`` (exit 2 before sending).

``null`` for an optional property whose schema does not allow ``null`` means "omitted" (as the
2026-07-28 transport says for its ``Mcp-Param`` headers): ``omit_null_optionals`` drops it, the check
judges what is left, and the connection layer sends what is left. A ``null`` for a required property,
or one the schema does not describe, stays a problem named by its field.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

import jsonschema
from jsonschema.exceptions import SchemaError
from jsonschema.exceptions import ValidationError as SchemaViolation

from elftia_desktop.core.text_rules import quoted

Path = tuple[str | int, ...]


@dataclass(frozen=True)
class FieldIssue:
    """One problem: where (a path of keys and indexes; empty for the whole value) and what."""

    path: Path
    message: str

    @property
    def where(self) -> str:
        """The path as ``customer.address.city`` / ``items[0].sku``."""
        text = ""
        for part in self.path:
            text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
        return text or "arguments"


def _is_date_time(value: object) -> bool:
    if not isinstance(value, str):
        return True
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return False
    return "T" in value.upper() and parsed.tzinfo is not None


def _is_uri(value: object) -> bool:
    if not isinstance(value, str):
        return True
    parts = urlsplit(value)
    return bool(parts.scheme) and bool(parts.netloc or parts.path) and " " not in value


def _format_checker(cls: Any) -> jsonschema.FormatChecker:
    """The draft's format checks plus ``date-time`` and ``uri`` (which need extra packages in jsonschema)."""
    checker = jsonschema.FormatChecker(list(cls.FORMAT_CHECKER.checkers))
    if "date-time" not in checker.checkers:
        checker.checks("date-time")(_is_date_time)
    if "uri" not in checker.checkers:
        checker.checks("uri")(_is_uri)
    return checker


def _issue(error: SchemaViolation) -> FieldIssue:
    path: Path = tuple(error.absolute_path)
    if error.validator == "required" and isinstance(error.instance, dict):
        named = [name for name in error.validator_value if error.message.startswith(repr(name))]
        missing = named or [name for name in error.validator_value if name not in error.instance]
        if missing:
            return FieldIssue((*path, missing[0]), "Required: fill this in.")
    if error.validator == "additionalProperties":
        return FieldIssue(path, error.message)
    if error.validator == "format":
        return FieldIssue(path, f"Not a valid {error.validator_value}: {quoted(error.instance)}.")
    if error.validator == "enum":
        options = ", ".join(repr(v) for v in error.validator_value)
        return FieldIssue(path, f"Must be one of {options}.")
    return FieldIssue(path, error.message[0].upper() + error.message[1:] + ("" if error.message.endswith(".") else "."))


def _allows_null(spec: Any) -> bool:
    """Whether a property schema admits ``null`` (``type``, ``anyOf``/``oneOf`` branches, ``enum``, ``const``)."""
    if not isinstance(spec, dict):
        return spec is True
    kind = spec.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind) or spec.get("nullable") is True:
        return True
    if ("const" in spec and spec["const"] is None) or None in (spec.get("enum") or []):
        return True
    branches = [*(spec.get("anyOf") or []), *(spec.get("oneOf") or [])]
    return any(_allows_null(branch) for branch in branches)


def _has_null(value: Any) -> bool:
    """Whether a ``null`` is anywhere in ``value`` (the common case, none, costs one walk and no copy)."""
    if value is None:
        return True
    if isinstance(value, dict):
        return any(_has_null(item) for item in value.values())
    return False


def omit_null_optionals(schema: dict[str, Any], value: Any) -> Any:
    """``value`` without the ``null`` values of optional properties that do not admit ``null`` (nested objects too)."""
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(value, dict) or not isinstance(properties, dict) or not _has_null(value):
        return value
    required = set(schema.get("required") or [])
    kept: dict[str, Any] = {}
    for name, item in value.items():
        spec = properties.get(name)
        if item is None and spec is not None and name not in required and not _allows_null(spec):
            continue
        kept[name] = omit_null_optionals(spec, item) if isinstance(spec, dict) else item
    return kept


def check(schema: dict[str, Any], value: Any) -> list[FieldIssue]:
    """Every problem of ``value`` under ``schema`` (draft from ``$schema``, default 2020-12), in path order.

    An optional property given as ``null`` where the schema does not admit it counts as omitted.
    """
    value = omit_null_optionals(schema, value)
    try:
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        cls.check_schema(schema)
    except SchemaError as exc:
        return [FieldIssue((), f"The tool's input schema is not valid JSON Schema: {exc.message}")]
    validator = cls(schema, format_checker=_format_checker(cls))
    issues = [_issue(e) for e in validator.iter_errors(value)]
    return sorted(issues, key=lambda i: [str(p) for p in i.path])

"""The inputs form of an install: fields generated from an entry or a bundle, and their checked values.

A :class:`FormField` is one value the user gives (``--value KEY=VALUE`` on the command line, a row
of the install form in the window): required ones are marked, secret ones masked and later kept in
the keyring, ``choices`` offered as a list, ``default`` filled in. :func:`resolve_values` checks
what the user gave against the fields and returns the value of every field, or raises
``InputsMissing`` naming each missing required one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from elftia_desktop.core.errors import ConfigError
from elftia_desktop.registry.entry import Input
from elftia_desktop.registry.errors import InputsMissing

FieldKind = Literal["env", "header", "argument", "variable", "config"]


@dataclass(frozen=True)
class FormField:
    """One value the user gives."""

    key: str
    """What the user types in ``--value KEY=VALUE`` (an env var name, a header name, an argument name)."""
    label: str
    kind: FieldKind
    required: bool = False
    secret: bool = False
    default: str | None = None
    choices: tuple[str, ...] = ()
    format: str = "string"
    """``string``, ``number``, ``boolean``, ``filepath`` or ``directory``."""
    multiple: bool = False
    """Several values (a bundle's multi-valued ``user_config``): separated by new lines or commas."""
    placeholder: str = ""


@dataclass
class FormBuilder:
    """Collects fields without duplicates (an entry may name the same variable twice)."""

    fields: list[FormField] = field(default_factory=list)

    def add(self, item: FormField) -> FormField:
        """Add ``item`` unless a field with its key exists; returns the field kept."""
        for existing in self.fields:
            if existing.key == item.key:
                return existing
        self.fields.append(item)
        return item

    def from_input(self, key: str, spec: Input, kind: FieldKind) -> FormField:
        """A field from a ``server.json`` input."""
        return self.add(
            FormField(
                key=key,
                label=spec.description or key,
                kind=kind,
                required=spec.isRequired,
                secret=spec.isSecret,
                default=spec.default,
                choices=tuple(spec.choices),
                format=spec.format,
                placeholder=spec.placeholder or "",
            )
        )


def resolve_values(fields: list[FormField], given: Mapping[str, str]) -> dict[str, str]:
    """The value of each field that has one (given, else its default); checks choices and formats."""
    keys = {f.key for f in fields}
    unknown = sorted(set(given) - keys)
    if unknown:
        known = ", ".join(sorted(keys)) or "none"
        raise ConfigError(f"--value {unknown[0]}: this server has no input named {unknown[0]!r} (inputs: {known})")
    values: dict[str, str] = {}
    missing: list[FormField] = []
    for item in fields:
        value = given.get(item.key)
        if value is None or value == "":
            value = item.default
        if value is None or value == "":
            if item.required:
                missing.append(item)
            continue
        _check_value(item, value)
        values[item.key] = value
    if missing:
        names = "; ".join(f"{f.key} ({f.label})" if f.label != f.key else f.key for f in missing)
        raise InputsMissing(
            f"Missing required input: {names}. Give it with --value KEY=VALUE", [f.key for f in missing]
        )
    return values


def _check_value(item: FormField, value: str) -> None:
    if item.choices and value not in item.choices:
        raise ConfigError(f"{item.key}: {value!r} is not one of {', '.join(item.choices)}")
    if item.format == "number":
        try:
            float(value)
        except ValueError:
            raise ConfigError(f"{item.key}: expected a number, got {value!r}") from None
    if item.format == "boolean" and value.lower() not in ("true", "false"):
        raise ConfigError(f"{item.key}: expected true or false, got {value!r}")


def parse_value_options(options: list[str]) -> dict[str, str]:
    """``KEY=VALUE`` strings from the command line; a malformed one is a ``ConfigError``."""
    values: dict[str, str] = {}
    for option in options:
        key, sep, value = option.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--value {option!r}: expected KEY=VALUE")
        values[key.strip()] = value
    return values

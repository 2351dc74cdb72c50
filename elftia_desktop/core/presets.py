"""Server presets (the original ``mcp-presets``): ready-made server definitions.

``resources/presets.json`` holds ``{"version": 1, "presets": [...]}``. A preset's ``args``, ``url``
and header values may contain ``{key}`` placeholders; each names one of its ``arguments``, which the
user fills in (``values``). Environment variables are listed in ``env`` and filled the same way
(``env_values``); secret ones end up in the keyring through the catalog (``secretKeys``).
``{python}`` stands for the interpreter running the app (``sys.executable``); built-in presets use
it as ``{python} -m elftia_desktop.builtin_servers.clock``. (A frozen app has no ``python -m``: its
caller passes ``python=`` the command from ``builtin_servers.launcher`` instead.)
"""

from __future__ import annotations

import json
import os
import re
import sys
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic.alias_generators import to_camel

from elftia_desktop.core.config_store import describe_validation_error
from elftia_desktop.core.errors import ConfigError
from elftia_desktop.core.models import (
    ENV_KEY_PATTERN,
    InstallSource,
    McpServerInput,
    McpServerTransport,
)
from elftia_desktop.core.resources import read_resource_text
from elftia_desktop.core.sandbox import preset_sandbox
from elftia_desktop.core.text_rules import quoted
from elftia_desktop.platform.sandbox import sandbox_support

PRESETS_RESOURCE = "presets.json"
PYTHON_PLACEHOLDER = "{python}"
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


class _Model(BaseModel):
    """Base: camelCase JSON names; unknown keys are errors (they are typos in presets.json)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


class PresetValuesMissing(ConfigError):
    """Required values of a preset were not given; ``missing`` names each."""

    def __init__(self, message: str, missing: list[str]) -> None:
        super().__init__(message)
        self.missing = missing


class PresetArgument(_Model):
    """A value the user gives, put into the preset's ``args``, ``url`` or headers as ``{key}``."""

    key: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    """The placeholder name."""
    label: str = Field(min_length=1)
    """What to ask the user."""
    placeholder: str = ""
    """An example value shown in an empty field."""
    is_path: bool = False
    """A file or folder; ``~`` is expanded and the UI offers a file picker."""
    required: bool = True
    secret: bool = False
    """Only allowed in headers (never stored in ``args`` or the URL)."""
    default: str | None = None
    """Used when the user gives nothing."""


class PresetEnvVar(_Model):
    """An environment variable the server reads."""

    name: str
    description: str = ""
    required: bool = False
    secret: bool = False
    """Stored in the keyring, not in the config file."""

    @model_validator(mode="after")
    def _name_is_env_name(self) -> PresetEnvVar:
        if not ENV_KEY_PATTERN.match(self.name):
            raise ValueError(f"env name {quoted(self.name)} is not a valid variable name")
        return self


class McpPreset(_Model):
    """One preset server."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    name: str = Field(min_length=1)
    """The server name a record gets by default."""
    description: str = Field(min_length=1)
    """One line."""
    category: str = Field(min_length=1)
    transport: McpServerTransport = McpServerTransport.STDIO
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    arguments: list[PresetArgument] = Field(default_factory=list)
    env: list[PresetEnvVar] = Field(default_factory=list)
    runtime: str | None = None
    """The runtime it needs (``node``, ``uv``, ``python``, ``docker``), None for remote servers."""
    homepage: str | None = None
    """Where to read about it; None for the built-in servers."""
    install_source: InstallSource = "manual"
    """``builtin`` for the app's own servers."""
    sandbox: dict[str, Any] | None = None
    """stdio: its sandbox profile (``McpSandbox`` fields, ``writeValues``, ``writeParentOf``), used where a
    sandbox works."""

    @model_validator(mode="after")
    def _consistent(self) -> McpPreset:
        if "\n" in self.description:
            raise ValueError("description must be one line")
        if self.transport is McpServerTransport.STDIO and not self.command:
            raise ValueError("a stdio preset needs a command")
        if self.transport is not McpServerTransport.STDIO and not self.url:
            raise ValueError(f"a {self.transport.value} preset needs a url")
        keys = [a.key for a in self.arguments]
        if len(set(keys)) != len(keys):
            raise ValueError(f"argument keys must be unique: {keys}")
        plain = [*self.args, self.url or "", self.command or ""]
        for name in sorted(_placeholders([*plain, *self.headers.values()]) - {"python", *keys}):
            raise ValueError(f"placeholder {{{name}}} names no argument")
        for argument in self.arguments:
            if argument.secret and argument.key in _placeholders(plain):
                raise ValueError(f"secret argument {quoted(argument.key)} may only be used in headers")
        return self

    @property
    def required_values(self) -> list[str]:
        """Keys of arguments that must be given (no default)."""
        return [a.key for a in self.arguments if a.required and a.default is None]

    @property
    def required_env(self) -> list[str]:
        """Names of environment variables that must be given."""
        return [e.name for e in self.env if e.required]


class PresetFile(_Model):
    """The shape of ``presets.json``."""

    version: int = 1
    presets: list[McpPreset]

    @model_validator(mode="after")
    def _ids_unique(self) -> PresetFile:
        ids = [p.id for p in self.presets]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise ValueError(f"preset ids must be unique; repeated: {', '.join(duplicates)}")
        return self


def _placeholders(texts: list[str]) -> set[str]:
    return {m.group(1) for text in texts for m in _PLACEHOLDER.finditer(text)}


def parse_presets(text: str, source: str = PRESETS_RESOURCE) -> list[McpPreset]:
    """Presets from JSON text; ``ConfigError`` names the line/column or the field that is wrong."""
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{source}: line {exc.lineno} column {exc.colno}: {exc.msg}") from exc
    try:
        return PresetFile.model_validate(data).presets
    except ValidationError as exc:
        raise ConfigError(f"{source}: {describe_validation_error(exc)}") from exc


def load_presets() -> list[McpPreset]:
    """The presets shipped with the app."""
    return parse_presets(read_resource_text(PRESETS_RESOURCE))


def find_preset(presets: list[McpPreset], name: str) -> McpPreset:
    """The preset with that id or name (case-insensitive); ``ConfigError`` listing the ids otherwise."""
    wanted = name.strip().lower()
    for preset in presets:
        if wanted in (preset.id, preset.name.lower()):
            return preset
    raise ConfigError(f"no preset named {quoted(name)}; presets: {', '.join(p.id for p in presets)}")


def missing_values(
    preset: McpPreset, values: dict[str, str], env_values: dict[str, str] | None = None
) -> tuple[list[str], list[str]]:
    """(argument keys, env names) that are required and not given (blank counts as not given)."""
    env_values = env_values or {}
    args = [k for k in preset.required_values if not values.get(k, "").strip()]
    env = [n for n in preset.required_env if not env_values.get(n, "").strip()]
    return args, env


def preset_to_input(
    preset: McpPreset,
    values: dict[str, str] | None = None,
    env_values: dict[str, str] | None = None,
    *,
    name: str | None = None,
    python: str | None = None,
) -> McpServerInput:
    """A server to add from ``preset`` filled with ``values`` (arguments) and ``env_values``.

    Raises ``PresetValuesMissing`` naming every missing required value, ``ConfigError`` for unknown keys.
    """
    values = {k: v for k, v in (values or {}).items()}
    env_values = dict(env_values or {})
    reject_unknown_values(preset, values, env_values)
    missing_args, missing_env = missing_values(preset, values, env_values)
    if missing_args or missing_env:
        labels = {a.key: a.label for a in preset.arguments}
        parts = [f"{k} ({labels[k]})" for k in missing_args] + [f"env {n}" for n in missing_env]
        raise PresetValuesMissing(
            f"preset {quoted(preset.id)} needs: {', '.join(parts)}", [*missing_args, *missing_env]
        )
    filled = _filled_values(preset, values, python or sys.executable)
    config, secret_keys = _config(preset, filled, env_values)
    try:
        sandbox = None
        if preset.sandbox is not None and sandbox_support() is None:
            sandbox = preset_sandbox(preset.sandbox, filled | env_values)
        return McpServerInput(
            name=name or preset.name,
            type=preset.transport,
            config=config,
            install_source=preset.install_source,
            is_trusted=preset.install_source == "builtin",
            secret_keys=secret_keys,
            sandbox=sandbox,
        )
    except ValidationError as exc:
        raise ConfigError(f"preset {quoted(preset.id)}: {describe_validation_error(exc)}") from exc


def _config(preset: McpPreset, filled: dict[str, str], env_values: dict[str, str]) -> tuple[dict[str, Any], list[str]]:
    """The server config and the names of its secret env vars / headers."""
    config: dict[str, Any] = {}
    secret_keys = [e.name for e in preset.env if e.secret and e.name in env_values]
    if preset.transport is McpServerTransport.STDIO:
        config["command"] = _fill(preset.command or "", filled)
        config["args"] = [_fill(a, filled) for a in preset.args if _kept(a, filled)]
        config["env"] = {k: v for k, v in env_values.items() if v != ""}
    else:
        config["url"] = _fill(preset.url or "", filled)
        config["headers"] = {h: _fill(v, filled) for h, v in preset.headers.items()}
        secret_args = {a.key for a in preset.arguments if a.secret}
        secret_keys += [h for h, v in preset.headers.items() if _placeholders([v]) & secret_args]
    return config, secret_keys


def reject_unknown_values(preset: McpPreset, values: dict[str, str], env_values: dict[str, str]) -> None:
    """``ConfigError`` naming a value the preset does not have, or a malformed env name."""
    known = {a.key for a in preset.arguments}
    unknown = sorted(set(values) - known)
    if unknown:
        expected = ", ".join(sorted(known)) or "none"
        raise ConfigError(f"preset {quoted(preset.id)} has no value {', '.join(unknown)} (its values: {expected})")
    for key in env_values:
        if not ENV_KEY_PATTERN.match(key):
            raise ConfigError(f"env {quoted(key)}: not a valid variable name")


def _filled_values(preset: McpPreset, values: dict[str, str], python: str) -> dict[str, str]:
    filled = {"python": python}
    for argument in preset.arguments:
        value = values.get(argument.key, "").strip() or (argument.default or "")
        if argument.is_path and value:
            value = os.path.expanduser(value)
        filled[argument.key] = value
    return filled


def _kept(arg: str, values: dict[str, str]) -> bool:
    """False for an argument whose placeholders are all empty (an optional value left out)."""
    names = _placeholders([arg])
    return not names or any(values.get(n) for n in names)


def _fill(template: str, values: dict[str, str]) -> str:
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)

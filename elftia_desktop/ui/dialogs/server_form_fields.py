"""Where the add form puts a model error, and how a preset's environment variable becomes a row."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from elftia_desktop.ui.widgets.key_value_editor import RowSpec

if TYPE_CHECKING:
    from elftia_desktop.core.presets import PresetEnvVar

FIELD_OF_PATH = {
    "name": "name",
    "type": "transport",
    "config.command": "command",
    "config.args": "args",
    "config.env": "env",
    "config.cwd": "cwd",
    "config.url": "url",
    "config.headers": "headers",
    "config.oauth": "auth",
    "config.timeout": "timeout",
    "scope": "scope",
    "projectPath": "project",
    "sandbox": "sandbox",
}


def error_field(loc: tuple[Any, ...], message: str) -> tuple[str, str]:
    """The form field an error belongs to and its message without the field prefix."""
    message = message.removeprefix("Value error, ")
    path = ".".join(str(part) for part in loc)
    if not path and ": " in message:
        prefix, rest = message.split(": ", 1)
        if " " not in prefix:
            path, message = prefix, rest
    for known in sorted(FIELD_OF_PATH, key=len, reverse=True):
        if path == known or path.startswith(known + "."):
            return FIELD_OF_PATH[known], message[:1].upper() + message[1:]
    return "general", message[:1].upper() + message[1:]


def env_row(var: PresetEnvVar) -> RowSpec:
    """A preset's environment variable as an empty row of the form (marked secret and required as it says)."""
    return RowSpec(var.name, "", var.secret, var.description, var.required)

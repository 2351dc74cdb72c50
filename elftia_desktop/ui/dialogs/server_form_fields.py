"""Where the add form shows a draft's field error, and how a preset's environment variable becomes a row."""

from __future__ import annotations

from typing import TYPE_CHECKING

from elftia_desktop.ui.widgets.key_value_editor import RowSpec

if TYPE_CHECKING:
    from elftia_desktop.core.presets import PresetEnvVar
    from elftia_desktop.core.server_draft import FieldError

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


def widget_error(error: FieldError) -> tuple[str, str]:
    """The form field an error belongs to (``general`` for none of them) and its message."""
    for known in sorted(FIELD_OF_PATH, key=len, reverse=True):
        if error.path == known or error.path.startswith(known + "."):
            return FIELD_OF_PATH[known], error.message
    return "general", error.message


def env_row(var: PresetEnvVar) -> RowSpec:
    """A preset's environment variable as an empty row of the form (marked secret and required as it says)."""
    return RowSpec(var.name, "", var.secret, var.description, var.required)

"""The values a preset needs (its ``arguments``), asked as fields of their own in the add form.

A preset's ``args``, ``url`` and header values hold ``{key}`` placeholders; the form shows them as
they are and fills them from these fields when it saves, so ``{directory}`` is never saved literally.
A required value left empty is an error under its field that names the preset and what it is for.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFormLayout, QLabel, QLineEdit, QWidget

from elftia_desktop.ui.dialogs.server_form_parts import FolderPicker

PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


class PresetValues(QWidget):
    """One field per preset argument; empty (and hidden by the form) for presets without arguments.

    Signals:
        changed(): a value changed.
    """

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.preset: dict[str, Any] = {}
        self.fields: dict[str, QLineEdit | FolderPicker] = {}
        self._layout = QFormLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)

    @property
    def arguments(self) -> list[dict[str, Any]]:
        """The preset's arguments (JSON dicts)."""
        return list(self.preset.get("arguments") or [])

    def set_preset(self, preset: dict[str, Any]) -> None:
        """Ask for ``preset``'s values (``{}``: none)."""
        while self._layout.rowCount():
            self._layout.removeRow(0)
        self.preset, self.fields = preset, {}
        name = str(preset.get("name") or "This preset")
        for argument in self.arguments:
            key, label = str(argument["key"]), str(argument["label"])
            example = str(argument.get("placeholder") or "")
            hint = f"e.g. {example}" if example else label
            field = self._field(argument, hint, label)
            field.setToolTip(f"{name} puts this where its settings say {{{key}}}")
            required = argument.get("required", True) and not argument.get("default")
            self._layout.addRow(QLabel(f"{label}{' *' if required else ''}", self), field)
            self.fields[key] = field
        self.changed.emit()

    def _field(self, argument: dict[str, Any], hint: str, label: str) -> QLineEdit | FolderPicker:
        default = str(argument.get("default") or "")
        if argument.get("isPath"):
            picker = FolderPicker(hint, label, self)
            picker.set_text(default)
            picker.changed.connect(self.changed)
            return picker
        edit = QLineEdit(default, self)
        edit.setPlaceholderText(hint)
        if argument.get("secret"):
            edit.setEchoMode(QLineEdit.EchoMode.Password)
        edit.textChanged.connect(self.changed)
        return edit

    def values(self) -> dict[str, str]:
        """The values typed, by key (paths with ``~`` expanded)."""
        out: dict[str, str] = {}
        for argument in self.arguments:
            key = str(argument["key"])
            field = self.fields[key]
            text = field.text().strip() or str(argument.get("default") or "")
            out[key] = os.path.expanduser(text) if argument.get("isPath") and text else text
        return out

    def problem(self) -> str:
        """The first required value still empty, said so that the user knows which and why ("" when none)."""
        values = self.values()
        name = str(self.preset.get("name") or "This preset")
        for argument in self.arguments:
            if argument.get("required", True) and not values[str(argument["key"])]:
                return f'Required: {name} needs "{argument["label"]}" to run.'
        return ""

    def uses_secret(self, text: str) -> bool:
        """True when ``text`` (a header value) holds a secret argument's placeholder: the header is secret."""
        secret = {str(a["key"]) for a in self.arguments if a.get("secret")}
        return any(m.group(1) in secret for m in PLACEHOLDER.finditer(text))

    def fill(self, text: str) -> str:
        """``text`` with every ``{key}`` of this preset (and ``{python}``) replaced by its value."""
        values = self.values() | {"python": sys.executable}
        return PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)

    def kept(self, arg: str) -> bool:
        """False for an argument whose placeholders are all optional values left empty."""
        names = [m.group(1) for m in PLACEHOLDER.finditer(arg)]
        values = self.values() | {"python": sys.executable}
        return not names or any(values.get(n) for n in names)

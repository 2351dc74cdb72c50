"""The values a preset needs (its ``arguments``), asked as fields of their own in the add form.

A preset's ``args``, ``url`` and header values hold ``{key}`` placeholders; the form shows them as
they are and fills them from these fields when it saves, so ``{directory}`` is never saved literally.
A required value left empty is an error under its field that names the preset and what it is for.
"""

from __future__ import annotations

import os
import re
import sys

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFormLayout, QLabel, QLineEdit, QWidget

from elftia_desktop.core.presets import McpPreset, PresetArgument
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
        self.preset: McpPreset | None = None
        self.fields: dict[str, QLineEdit | FolderPicker] = {}
        self._layout = QFormLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)

    @property
    def arguments(self) -> list[PresetArgument]:
        """The preset's arguments (none without a preset)."""
        return list(self.preset.arguments) if self.preset is not None else []

    @property
    def _name(self) -> str:
        return self.preset.name if self.preset is not None else "This preset"

    def set_preset(self, preset: McpPreset | None) -> None:
        """Ask for ``preset``'s values (None: none)."""
        while self._layout.rowCount():
            self._layout.removeRow(0)
        self.preset, self.fields = preset, {}
        for argument in self.arguments:
            key, label = argument.key, argument.label
            hint = f"e.g. {argument.placeholder}" if argument.placeholder else label
            field = self._field(argument, hint, label)
            field.setToolTip(f"{self._name} puts this where its settings say {{{key}}}")
            required = argument.required and not argument.default
            self._layout.addRow(QLabel(f"{label}{' *' if required else ''}", self), field)
            self.fields[key] = field
        self.changed.emit()

    def _field(self, argument: PresetArgument, hint: str, label: str) -> QLineEdit | FolderPicker:
        default = argument.default or ""
        if argument.is_path:
            picker = FolderPicker(hint, label, self)
            picker.set_text(default)
            picker.changed.connect(self.changed)
            return picker
        edit = QLineEdit(default, self)
        edit.setPlaceholderText(hint)
        if argument.secret:
            edit.setEchoMode(QLineEdit.EchoMode.Password)
        edit.textChanged.connect(self.changed)
        return edit

    def values(self) -> dict[str, str]:
        """The values typed, by key (paths with ``~`` expanded)."""
        out: dict[str, str] = {}
        for argument in self.arguments:
            text = self.fields[argument.key].text().strip() or argument.default or ""
            out[argument.key] = os.path.expanduser(text) if argument.is_path and text else text
        return out

    def problem(self) -> str:
        """The first required value still empty, said so that the user knows which and why ("" when none)."""
        values = self.values()
        for argument in self.arguments:
            if argument.required and not values[argument.key]:
                return f'Required: {self._name} needs "{argument.label}" to run.'
        return ""

    def uses_secret(self, text: str) -> bool:
        """True when ``text`` (a header value) holds a secret argument's placeholder: the header is secret."""
        secret = {a.key for a in self.arguments if a.secret}
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

"""The inputs form of an install (a registry entry or a ``.mcpb`` bundle), generated from its fields.

Required inputs are marked with ``*``, secret ones masked (they go to the keyring), choices offered
as a list, defaults filled in; multi-valued ones take one value per line or comma. The command or
URL that will run is shown below, updated as the user types.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from elftia_desktop.ui.secret_words import KEPT

if TYPE_CHECKING:
    from elftia_desktop.bridge.routes.registry import InstallForm


class InstallFormView(QWidget):
    """Fields, server name and the exact command of one install.

    Signals:
        valuesChanged(): a value was typed or chosen.
    """

    valuesChanged = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        self.notes = QLabel()
        self.notes.setWordWrap(True)
        self.notes.setObjectName("Muted")
        column.addWidget(self.notes)
        self.form = QFormLayout()
        self.form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapAllRows)  # labels above: fields keep their width
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        column.addLayout(self.form)
        self.command_title = QLabel("Will run")
        self.command_title.setObjectName("CardTitle")
        column.addWidget(self.command_title)
        self.command = QLabel()
        self.command.setObjectName("Command")
        self.command.setWordWrap(True)
        self.command.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.command.setStyleSheet("font-family: monospace;")
        for label in (self.notes, self.command):
            label.setTextFormat(Qt.TextFormat.PlainText)  # registry text is never rendered as HTML
        column.addWidget(self.command)
        self.name = QLineEdit()
        self.inputs: dict[str, Callable[[], str]] = {}
        self.widgets: dict[str, QWidget] = {}

    def show_form(self, form: InstallForm) -> None:
        """Build the rows of ``form``."""
        while self.form.rowCount():
            self.form.removeRow(0)
        self.inputs, self.widgets = {}, {}
        self.notes.setText("\n".join(form.notes))
        self.notes.setVisible(bool(form.notes))
        self.name = QLineEdit(form.default_name)
        self.name.setAccessibleName("Server name")
        self.form.addRow(_plain("Server name *"), self.name)
        for item in form.fields:
            widget: QWidget
            if item.choices:
                combo = QComboBox()
                combo.addItems(["", *item.choices])
                if item.default in item.choices:
                    combo.setCurrentText(item.default)
                combo.currentTextChanged.connect(lambda _t: self.valuesChanged.emit())
                widget, self.inputs[item.key] = combo, combo.currentText
            else:
                edit = QLineEdit(item.default or "")
                edit.setPlaceholderText(item.placeholder or ("one per line or comma" if item.multiple else ""))
                if item.secret:
                    edit.setEchoMode(QLineEdit.EchoMode.Password)
                    edit.setToolTip(KEPT[0].upper() + KEPT[1:])
                edit.textChanged.connect(lambda _t: self.valuesChanged.emit())
                widget, self.inputs[item.key] = edit, edit.text
            widget.setAccessibleName(item.key)
            self.widgets[item.key] = widget
            label = item.label if len(item.label) < 50 else item.label[:47] + "…"
            label += (" (secret)" if item.secret else "") + (" *" if item.required else "")
            self.form.addRow(_plain(label), widget)
        self.set_command(form.command)

    def values(self) -> dict[str, str]:
        """The values typed so far (empty ones left out)."""
        return {key: text for key, read in self.inputs.items() if (text := read().strip())}

    def set_command(self, command: str) -> None:
        """Show the command line or URL that will run."""
        self.command.setText(command)


def _plain(text: str) -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label

"""A key/value editor with a per-row secret toggle (environment variables, HTTP headers).

A secret row masks its value until the user asks to see it. Names that look secret
(``API_KEY``, ``Authorization`` ...) are marked secret as they are typed, unless the user
changed the toggle of that row by hand. In edit mode a value kept as a ``${secret:NAME}``
reference is never shown: the row shows a ``••••••`` placeholder and keeps the reference
unless the user types a new value (or renames the key, which needs the value again).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QToolButton, QVBoxLayout, QWidget

from elftia_desktop.ui.secret_words import SECRET_STORE
from elftia_desktop.ui.theme import ACCENT

SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|AUTH|CREDENTIAL", re.IGNORECASE)
SECRET_REF = re.compile(r"^\$\{secret:([^}]+)\}$")
KEPT_PLACEHOLDER = "••••••  saved"
"""Short enough for the edit form's value column; the tooltip says how to replace it."""
KEPT_TOOLTIP = "Saved as a secret: type a new value to replace it"


def looks_secret(name: str) -> bool:
    """True when a variable or header name suggests its value is a secret."""
    return bool(SECRET_NAME.search(name))


@dataclass(frozen=True)
class RowSpec:
    """One row to show: a preset's variable or a saved value."""

    key: str
    value: str = ""
    secret: bool | None = None
    """None: decide from the name (and whether the value is a saved reference)."""
    hint: str = ""
    required: bool = False


def _button(text: str, tooltip: str, parent: QWidget, checkable: bool = False) -> QToolButton:
    button = QToolButton(parent)
    button.setText(text)
    button.setToolTip(tooltip)
    button.setAccessibleName(tooltip.split(":")[0])
    button.setCheckable(checkable)
    button.setAutoRaise(not checkable)
    button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
    return button


class _Row(QWidget):
    """Name, value, Secret toggle, Show toggle, remove."""

    def __init__(self, editor: KeyValueEditor, spec: RowSpec) -> None:
        super().__init__(editor)
        self.editor = editor
        self.required = spec.required
        self.toggled_by_hand = False
        ref = SECRET_REF.match(spec.value)
        self.kept_ref = spec.value if ref else ""
        self.kept_key = spec.key if ref else ""
        self.key = QLineEdit(spec.key, self)
        self.key.setCursorPosition(0)
        self.key.setPlaceholderText(editor.key_placeholder)
        self.key.setToolTip(spec.hint or f"The {editor.noun} name")
        self.value = QLineEdit("" if ref else spec.value, self)
        self.value.setToolTip(spec.hint or "The value")
        self.value.setCursorPosition(0)
        self.secret = _button("Secret", f"Secret: mask the value and keep it in {SECRET_STORE}", self, True)
        self.reveal = _button("Show", "Show: reveal the masked value", self, True)
        self.remove = _button("✕", f"Remove this {editor.noun}", self)
        self.secret.setChecked(bool(ref) or (spec.secret if spec.secret is not None else looks_secret(spec.key)))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self.key, 1)
        layout.addWidget(self.value, 1)
        layout.addWidget(self.secret)
        layout.addWidget(self.reveal)
        layout.addWidget(self.remove)
        self.key.textChanged.connect(self._key_changed)
        self.value.textChanged.connect(self._refresh)
        self.value.textChanged.connect(editor.changed)
        self.secret.toggled.connect(self._secret_toggled)
        self.reveal.toggled.connect(self._refresh)
        self.remove.clicked.connect(lambda: editor.remove_row(editor.row_index(self)))
        self._hint = spec.hint
        self._refresh()

    def keeps_saved_value(self) -> bool:
        """True while the row stands for a saved secret the user has not replaced."""
        return bool(self.kept_ref) and self.value.text() == "" and self.key.text() == self.kept_key

    def effective_value(self) -> str:
        """What goes into the mapping: the typed value, or the kept reference."""
        return self.kept_ref if self.keeps_saved_value() else self.value.text()

    def _key_changed(self, text: str) -> None:
        if not self.toggled_by_hand and not self.keeps_saved_value():
            self.secret.blockSignals(True)
            self.secret.setChecked(looks_secret(text) or bool(self.kept_ref and text == self.kept_key))
            self.secret.blockSignals(False)
        self._refresh()
        self.editor.changed.emit()

    def _secret_toggled(self, checked: bool) -> None:
        self.toggled_by_hand = True
        if checked:
            self.reveal.setChecked(False)
        self._refresh()
        self.editor.changed.emit()

    def _refresh(self) -> None:
        kept = self.keeps_saved_value()
        secret = self.secret.isChecked()
        masked = secret and not self.reveal.isChecked()
        self.value.setEchoMode(QLineEdit.EchoMode.Password if masked else QLineEdit.EchoMode.Normal)
        self.reveal.setEnabled(secret and not kept)
        self.reveal.setText("Hide" if self.reveal.isChecked() else "Show")
        self.secret.setEnabled(not kept)
        if kept:
            self.value.setPlaceholderText(KEPT_PLACEHOLDER)
            self.value.setToolTip(KEPT_TOOLTIP)
            self.secret.setToolTip(KEPT_TOOLTIP)
            self.reveal.setToolTip("The saved value is never shown: type a new one to replace it")
        else:
            lost = bool(self.kept_ref) and self.key.text() != self.kept_key
            required = "required" if self.required else "value"
            hint = f"{required} — {self._hint}" if self._hint else required
            self.value.setPlaceholderText("type the value again (name changed)" if lost else hint)
            self.value.setToolTip(self._hint or "The value")
            self.secret.setToolTip(f"Secret: mask the value and keep it in {SECRET_STORE}")
            self.reveal.setToolTip("Show: reveal the masked value" if secret else "Only secret values are masked")


class KeyValueEditor(QWidget):
    """Rows of name/value pairs with a per-row secret toggle.

    Signals:
        changed(): a row was added, removed or edited, or a toggle changed.
    """

    changed = Signal()

    def __init__(
        self,
        noun: str = "variable",
        key_pattern: re.Pattern[str] | None = None,
        add_label: str = "Add &variable",
        key_placeholder: str = "NAME",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.noun = noun
        self.key_placeholder = key_placeholder
        self._key_pattern = key_pattern
        self._rows: list[_Row] = []
        self._rows_box = QVBoxLayout()
        self._rows_box.setContentsMargins(0, 0, 0, 0)
        self._rows_box.setSpacing(4)
        self.add_button = QPushButton(add_label, self)
        self.add_button.setToolTip(f"Add an empty {noun} row")
        self.add_button.clicked.connect(lambda: self.add_row(RowSpec(""), focus=True))
        self.error_label = QLabel(self)
        self.error_label.setObjectName("FieldError")
        self.error_label.setWordWrap(True)
        self.error_label.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addStretch(1)
        layout.addLayout(buttons)  # above the rows: a row added moves the rows below, never the button clicked
        layout.addLayout(self._rows_box)
        layout.addWidget(self.error_label)
        self.changed.connect(self._mark_bad_keys)
        self.setStyleSheet(
            f"QToolButton:checked {{ background: {ACCENT}; color: white; border: 1px solid {ACCENT};"
            " border-radius: 4px; padding: 2px 6px; }"
            "QToolButton:checked:disabled { background: #8d9ad8; border-color: #8d9ad8; }"
        )

    # -- reading ---------------------------------------------------------------------------

    def mapping(self) -> dict[str, str]:
        """``{name: value}`` of the rows with a name; saved secrets stay references."""
        return {row.key.text().strip(): row.effective_value() for row in self._rows if row.key.text().strip()}

    def secret_keys(self) -> list[str]:
        """The names of the rows marked secret."""
        return [row.key.text().strip() for row in self._rows if row.key.text().strip() and row.secret.isChecked()]

    def problems(self) -> list[str]:
        """What the model cannot see: a value without a name, a name twice, a required value missing."""
        found: list[str] = []
        seen: set[str] = set()
        for index, row in enumerate(self._rows, start=1):
            key = row.key.text().strip()
            if not key:
                if row.value.text():
                    found.append(f"row {index}: the {self.noun} has a value but no name")
                continue
            if key in seen:
                found.append(f"{key}: the {self.noun} is listed twice")
            seen.add(key)
            if row.required and not row.effective_value():
                found.append(f"{key}: a value is required")
        return found

    # -- editing ---------------------------------------------------------------------------

    def set_rows(self, specs: list[RowSpec]) -> None:
        """Replace every row."""
        for row in list(self._rows):
            self._drop(row)
        for spec in specs:
            self.add_row(spec)
        self.changed.emit()

    def set_mapping(self, values: dict[str, str], secret: set[str] | None = None) -> None:
        """Show saved values; names in ``secret`` and ``${secret:…}`` references are secret rows."""
        marked = secret or set()
        self.set_rows([RowSpec(k, v, True if k in marked else None) for k, v in values.items()])

    def add_row(self, spec: RowSpec, *, focus: bool = False) -> _Row:
        """Append a row."""
        row = _Row(self, spec)
        self._rows.append(row)
        self._rows_box.addWidget(row)
        if focus:
            row.key.setFocus(Qt.FocusReason.OtherFocusReason)
        self.changed.emit()
        return row

    def remove_row(self, index: int) -> None:
        """Delete one row; focus moves to a neighbour."""
        if not 0 <= index < len(self._rows):
            return
        self._drop(self._rows[index])
        if self._rows:
            self._rows[min(index, len(self._rows) - 1)].key.setFocus()
        else:
            self.add_button.setFocus()
        self.changed.emit()

    def row(self, index: int) -> _Row:
        """The row at ``index`` (its ``key``, ``value``, ``secret``, ``reveal`` widgets)."""
        return self._rows[index]

    def row_index(self, row: QWidget) -> int:
        """The index of a row widget."""
        return self._rows.index(row)  # type: ignore[arg-type]

    def row_count(self) -> int:
        """How many rows there are."""
        return len(self._rows)

    def set_error(self, text: str) -> None:
        """Show (or with ``""`` hide) an inline error under the rows."""
        self.error_label.setText(text)
        self.error_label.setVisible(bool(text))

    def _drop(self, row: _Row) -> None:
        self._rows.remove(row)
        self._rows_box.removeWidget(row)
        row.hide()
        row.deleteLater()

    def _mark_bad_keys(self) -> None:
        for row in self._rows:
            key = row.key.text().strip()
            bad = bool(key) and self._key_pattern is not None and not self._key_pattern.match(key)
            row.key.setProperty("invalid", bad)
            row.key.setStyleSheet("QLineEdit { border: 1px solid #d64545; border-radius: 3px; }" if bad else "")

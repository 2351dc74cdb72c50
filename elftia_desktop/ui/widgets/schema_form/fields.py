"""The form's field widgets for single values: text, numbers, booleans, choices, raw JSON.

Every field shows its own error line under its editor (an edit hides it and keeps its line empty
until the next check), reports ``MISSING`` when it is not set (so the key is left out of the
arguments) and emits ``changed`` on every edit.
"""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import QLocale, QRegularExpression, Qt, Signal
from PySide6.QtGui import QDoubleValidator, QFontDatabase, QRegularExpressionValidator, QValidator
from PySide6.QtWidgets import QCheckBox, QComboBox, QLabel, QLineEdit, QPlainTextEdit, QVBoxLayout, QWidget

from elftia_desktop.ui.widgets.schema_form.schema import MISSING, FieldSpec, bounds_hint, format_hint

Path = tuple[str | int, ...]
NOT_SET = "— not set —"


class FieldWidget(QWidget):
    """A field for one value of the schema.

    Signals:
        changed(): the value was edited.
    """

    changed = Signal()

    def __init__(self, spec: FieldSpec, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.spec = spec
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(2)
        self.error = QLabel(self)
        self.error.setObjectName("FieldError")
        self.error.setWordWrap(True)
        self.error.hide()

    def _finish(self, editor: QWidget) -> None:
        """Put the editor above the error line (focusing the field focuses it)."""
        self.setFocusProxy(editor)
        self._layout.addWidget(editor)
        self._layout.addWidget(self.error)
        if self.spec.description:
            editor.setToolTip(self.spec.description)
        self.changed.connect(self._edited)

    def _edited(self) -> None:
        """An edit answers the field's error: it goes, and its line stays empty until the next check, so
        the fields below do not move up under the pointer while the user types."""
        if self.error.isVisible():
            self._keep_room(True)
            self.error.hide()

    def _keep_room(self, keep: bool) -> None:
        policy = self.error.sizePolicy()
        policy.setRetainSizeWhenHidden(keep)
        self.error.setSizePolicy(policy)

    def value(self) -> Any:
        """The value, or ``MISSING`` when not set."""
        raise NotImplementedError

    def set_value(self, value: Any) -> None:
        """Show ``value`` (``MISSING`` clears the field)."""
        raise NotImplementedError

    def local_issue(self) -> str | None:
        """A problem the schema check cannot see (text that is not JSON)."""
        return None

    def local_issues(self) -> list[tuple[FieldWidget, str]]:
        """Every field (this one or below) with a :meth:`local_issue`, and the issue."""
        issue = self.local_issue()
        return [(self, issue)] if issue else []

    def show_error(self, text: str) -> None:
        """Show ``text`` under the field ("" hides it, and gives back the line an edit kept)."""
        self._keep_room(False)
        self.error.setText(text)
        self.error.setVisible(bool(text))

    def clear_errors(self) -> None:
        """Hide this field's errors (and its children's)."""
        self.show_error("")

    def field_at(self, path: Path) -> tuple[FieldWidget, Path]:
        """The deepest field on ``path`` and the part of the path below it."""
        return self, path

    def fill_default(self) -> None:
        """Show the schema's default, if it has one."""
        if self.spec.default is not MISSING and self.spec.default is not None:
            self.set_value(self.spec.default)


class StringField(FieldWidget):
    """A line of text; ``format`` (uri, email, date-time ...) gives the placeholder."""

    def __init__(self, spec: FieldSpec, parent: QWidget | None = None) -> None:
        super().__init__(spec, parent)
        self.editor = QLineEdit(self)
        hint = format_hint(spec.schema)
        fmt = spec.schema.get("format")
        self.editor.setPlaceholderText(f"{fmt}: {hint}" if hint else "text")  # the label says "(optional)"
        if isinstance(spec.schema.get("maxLength"), int):
            self.editor.setMaxLength(spec.schema["maxLength"])
        self.editor.textEdited.connect(lambda _t: self.changed.emit())
        self._finish(self.editor)

    def value(self) -> Any:
        """The text, or ``MISSING`` when empty."""
        return self.editor.text() or MISSING

    def set_value(self, value: Any) -> None:
        """Show a string (other values as JSON)."""
        if value is MISSING or value is None:
            self.editor.clear()
        else:
            self.editor.setText(value if isinstance(value, str) else json.dumps(value))


def _number_validator(integer: bool, parent: QWidget) -> QValidator:
    """Digits only for integers (any size, unlike QIntValidator); a dot-decimal, locale-free number otherwise."""
    if integer:
        return QRegularExpressionValidator(QRegularExpression(r"-?\d*"), parent)
    validator = QDoubleValidator(parent)
    validator.setLocale(QLocale.c())
    validator.setNotation(QDoubleValidator.Notation.ScientificNotation)
    return validator


class NumberField(FieldWidget):
    """A number or integer typed as text; the bounds are shown and checked."""

    def __init__(self, spec: FieldSpec, parent: QWidget | None = None) -> None:
        super().__init__(spec, parent)
        self.integer = spec.kind == "integer"
        self.editor = QLineEdit(self)
        bounds = bounds_hint(spec.schema)
        kind = "integer" if self.integer else "number"
        self.editor.setPlaceholderText(f"{kind}, {bounds}" if bounds else kind)
        self.editor.setValidator(_number_validator(self.integer, self))
        self.editor.textEdited.connect(lambda _t: self.changed.emit())
        self._finish(self.editor)

    def value(self) -> Any:
        """An int or float; text that is not a number is passed on for the schema check to name."""
        text = self.editor.text().strip()
        if not text:
            return MISSING
        try:
            return int(text) if self.integer else (int(text) if text.lstrip("-").isdigit() else float(text))
        except ValueError:
            return text

    def set_value(self, value: Any) -> None:
        """Show a number."""
        self.editor.setText("" if value is MISSING or value is None else str(value))


class BooleanField(FieldWidget):
    """A check box; an optional one without default has a third state, not set."""

    def __init__(self, spec: FieldSpec, parent: QWidget | None = None) -> None:
        super().__init__(spec, parent)
        self.editor = QCheckBox(self)
        self.tristate = not spec.required and spec.default is MISSING
        self.editor.setTristate(self.tristate)
        if self.tristate:
            self.editor.setCheckState(Qt.CheckState.PartiallyChecked)
        self.editor.stateChanged.connect(self._state)
        self._finish(self.editor)
        self._state()

    def _state(self) -> None:
        state = self.editor.checkState()
        texts = {Qt.CheckState.Checked: "true", Qt.CheckState.Unchecked: "false"}
        self.editor.setText(texts.get(state, "not set"))
        self.changed.emit()

    def value(self) -> Any:
        """True, False, or ``MISSING`` (the third state)."""
        state = self.editor.checkState()
        if state == Qt.CheckState.PartiallyChecked:
            return MISSING
        return state == Qt.CheckState.Checked

    def set_value(self, value: Any) -> None:
        """Check, uncheck, or (``MISSING``) unset."""
        if value is MISSING or value is None:
            self.editor.setCheckState(Qt.CheckState.PartiallyChecked if self.tristate else Qt.CheckState.Unchecked)
        else:
            self.editor.setCheckState(Qt.CheckState.Checked if value else Qt.CheckState.Unchecked)


class EnumField(FieldWidget):
    """A combo box of the allowed values (optional ones start with "not set")."""

    def __init__(self, spec: FieldSpec, parent: QWidget | None = None) -> None:
        super().__init__(spec, parent)
        self.editor = QComboBox(self)
        self.optional = not spec.required
        if self.optional:
            self.editor.addItem(NOT_SET, None)
        for option in spec.enum:
            self.editor.addItem(option if isinstance(option, str) else json.dumps(option), option)
        self.editor.currentIndexChanged.connect(lambda _i: self.changed.emit())
        self._finish(self.editor)

    def value(self) -> Any:
        """The chosen value, or ``MISSING``."""
        if self.optional and self.editor.currentIndex() == 0:
            return MISSING
        return self.editor.currentData()

    def set_value(self, value: Any) -> None:
        """Choose ``value`` (unknown values leave the choice alone)."""
        if value is MISSING:
            self.editor.setCurrentIndex(0)
            return
        for index in range(self.editor.count()):
            if (not self.optional or index > 0) and self.editor.itemData(index) == value:
                self.editor.setCurrentIndex(index)
                return


class RawField(FieldWidget):
    """JSON text for a value the form cannot express (``oneOf``, maps, no type)."""

    def __init__(self, spec: FieldSpec, parent: QWidget | None = None) -> None:
        super().__init__(spec, parent)
        self.editor = QPlainTextEdit(self)
        self.editor.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.editor.setPlaceholderText("JSON value")  # the label says "(optional)"
        self.editor.setFixedHeight(self.editor.fontMetrics().lineSpacing() * 3 + 14)
        self.editor.textChanged.connect(self.changed.emit)
        self._finish(self.editor)

    def value(self) -> Any:
        """The parsed JSON, ``MISSING`` when empty, the text itself when it is not JSON."""
        text = self.editor.toPlainText().strip()
        if not text:
            return MISSING
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return text

    def local_issue(self) -> str | None:
        """Text that is not JSON, with its line and column."""
        text = self.editor.toPlainText().strip()
        try:
            if text:
                json.loads(text)
        except json.JSONDecodeError as exc:
            return f"Not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})."
        return None

    def set_value(self, value: Any) -> None:
        """Show ``value`` as JSON."""
        self.editor.setPlainText("" if value is MISSING else json.dumps(value, indent=2))

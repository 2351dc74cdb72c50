"""``SchemaForm``: a form generated from a JSON schema, with a raw-JSON editor kept in sync.

The Form tab has one field per property (nested objects, arrays with add/remove, enums as
combo boxes, optional fields marked, defaults filled in, ``$ref``/``$defs`` resolved). The
JSON tab shows the same arguments as text; editing either updates the other, and keys the
form cannot show are kept from the JSON. :meth:`SchemaForm.validate` checks the arguments
with ``jsonschema`` and puts each error next to its field.
"""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QFrame, QLabel, QPlainTextEdit, QScrollArea, QTabWidget, QVBoxLayout, QWidget

from elftia_desktop.core.argument_check import FieldIssue, check
from elftia_desktop.ui.widgets.fixed_space import reserve_lines
from elftia_desktop.ui.widgets.schema_form.containers import ObjectField, build_field
from elftia_desktop.ui.widgets.schema_form.fields import FieldWidget
from elftia_desktop.ui.widgets.schema_form.schema import MISSING, FieldSpec, root_spec


class SchemaForm(QWidget):
    """Arguments for a tool (or any object schema) as a form and as JSON.

    Signals:
        changed(): the arguments were edited (in either tab).
    """

    changed = Signal()

    def __init__(self, schema: dict[str, Any] | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.schema: dict[str, Any] = schema or {"type": "object", "properties": {}}
        self.spec: FieldSpec = root_spec(self.schema)
        self._extra: dict[str, Any] = {}
        self._syncing = False
        self.tabs = QTabWidget(self)
        self.root: FieldWidget = self._build_root()
        self.tabs.addTab(self._form_page(), "Form")
        self.tabs.addTab(self._json_page(), "JSON")
        self.problem = QLabel(self)
        self.problem.setObjectName("FieldError")
        self.problem.setWordWrap(True)
        reserve_lines(self.problem, 2)  # the form does not move down when a problem shows
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.problem)
        self.root.changed.connect(self._form_edited)
        self._write_json()

    def _build_root(self) -> FieldWidget:
        if self.spec.kind == "object":
            return ObjectField(self.spec, None, framed=False)
        return build_field(self.spec)

    def _form_page(self) -> QWidget:
        self.form_scroll = QScrollArea(self)
        self.form_scroll.setWidgetResizable(True)
        self.form_scroll.setFrameShape(QFrame.Shape.NoFrame)
        holder = QWidget(self.form_scroll)
        column = QVBoxLayout(holder)
        column.setContentsMargins(8, 8, 8, 8)
        column.addWidget(self.root)
        column.addStretch(1)
        self.form_scroll.setWidget(holder)
        return self.form_scroll

    def _json_page(self) -> QWidget:
        page = QWidget(self)
        self.json_edit = QPlainTextEdit(page)
        self.json_edit.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.json_edit.setToolTip("The same arguments as JSON; for what the form cannot express")
        self.json_edit.textChanged.connect(self._json_edited)
        self.json_error = QLabel(page)
        self.json_error.setObjectName("FieldError")
        self.json_error.setWordWrap(True)
        self.json_error.hide()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(self.json_edit, 1)
        layout.addWidget(self.json_error)
        return page

    # -- values ------------------------------------------------------------------------------

    def value(self) -> dict[str, Any]:
        """The arguments: the form's values plus JSON keys the form has no field for."""
        value = self.root.value()
        merged = value if isinstance(value, dict) else {}
        return {**self._extra, **merged}

    def set_value(self, value: dict[str, Any]) -> None:
        """Show ``value`` in both tabs (a re-run from the history)."""
        self._syncing = True
        try:
            self.root.set_value(value)
            self._extra = {k: v for k, v in value.items() if k not in self.spec.properties}
        finally:
            self._syncing = False
        self._write_json()
        self.changed.emit()

    def _write_json(self) -> None:
        self._syncing = True
        try:
            self.json_edit.setPlainText(json.dumps(self.value(), indent=2, ensure_ascii=False))
            self.json_error.hide()
        finally:
            self._syncing = False

    def _form_edited(self) -> None:
        if not self._syncing:
            self._write_json()
            self.changed.emit()

    def _json_error(self) -> str | None:
        text = self.json_edit.toPlainText().strip() or "{}"
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError as exc:
            return f"Not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})."
        return None if isinstance(parsed, dict) else "The arguments must be a JSON object ({…})."

    def _json_edited(self) -> None:
        if self._syncing:
            return
        error = self._json_error()
        self.json_error.setText(error or "")
        self.json_error.setVisible(error is not None)
        if error is None:
            parsed = json.loads(self.json_edit.toPlainText().strip() or "{}")
            self._syncing = True
            try:
                self.root.set_value(parsed)
                self._extra = {k: v for k, v in parsed.items() if k not in self.spec.properties}
            finally:
                self._syncing = False
            self.changed.emit()

    # -- validation --------------------------------------------------------------------------

    def validate(self) -> list[FieldIssue]:
        """Check the arguments; each problem is shown next to its field. Empty: good to send."""
        self.root.clear_errors()
        self.problem.setText("")
        json_error = self._json_error()
        if json_error is not None:
            self.tabs.setCurrentIndex(1)
            self._show_problem(json_error)
            return [FieldIssue((), json_error)]
        local = self.root.local_issues()
        if local:
            for field, message in local:
                field.show_error(message)
            return self._report([field for field, _ in local], [FieldIssue((), m) for _, m in local])
        issues = check(self.schema, self.value())
        placed: dict[int, list[str]] = {}
        targets: list[FieldWidget] = []
        for issue in issues:
            target, rest = self.root.field_at(issue.path)
            prefix = FieldIssue(rest, "").where + ": " if rest else ""
            placed.setdefault(id(target), []).append(prefix + issue.message)
            targets.append(target)
            target.show_error(" ".join(placed[id(target)]))
        return self._report(targets, issues)

    def _report(self, fields: list[FieldWidget], issues: list[FieldIssue]) -> list[FieldIssue]:
        """Say how many problems there are, scroll to the first marked field and focus it."""
        first = fields[0] if fields else None
        if issues:
            self.tabs.setCurrentIndex(0)
            self._show_problem(f"{len(issues)} problem{'s' if len(issues) != 1 else ''}: see the marked fields.")
            if first is not None and first is not self.root:
                self.form_scroll.ensureWidgetVisible(first)
                first.setFocus()  # the cursor goes to the field with the error
        return issues

    def _show_problem(self, text: str) -> None:
        self.problem.setText(text)

    def field(self, *path: str | int) -> FieldWidget:
        """The field at ``path`` (tests and re-runs)."""
        target, rest = self.root.field_at(tuple(path))
        if rest:
            raise KeyError(path)
        return target


__all__ = ["MISSING", "SchemaForm"]

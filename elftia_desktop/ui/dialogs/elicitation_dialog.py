"""A server asks the user for input (MCP elicitation): one field per property of its schema."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)


class ElicitationDialog(QDialog):
    """Shows the server's message and a form built from its flat ``requestedSchema``.

    After ``exec()``, ``action`` is ``accept``, ``decline`` or ``cancel`` and ``content()``
    holds the answers (accept only). Elicitation schemas are flat objects of strings,
    numbers, integers, booleans and string enums (MCP specification).
    """

    def __init__(self, server_name: str, message: str, schema: dict[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.action = "cancel"
        self.fields: dict[str, QWidget] = {}
        self.types: dict[str, str] = {}
        self.setWindowTitle(f"{server_name} asks")
        self.setMinimumWidth(420)
        layout = QVBoxLayout(self)
        text = QLabel(message)
        text.setWordWrap(True)
        layout.addWidget(text)
        form = QFormLayout()
        properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        required = set(schema.get("required") or [])
        for name, spec in (properties or {}).items():
            spec = spec if isinstance(spec, dict) else {}
            widget = self._field(spec)
            widget.setToolTip(str(spec.get("description", "")))
            self.fields[name] = widget
            label = str(spec.get("title") or name) + (" *" if name in required else "")
            form.addRow(f"{label}:", widget)
        layout.addLayout(form)
        note = QLabel("Only answer if you trust this server. Decline to send nothing.")
        note.setObjectName("Muted")
        layout.addWidget(note)
        buttons = QDialogButtonBox()
        send = buttons.addButton("Send", QDialogButtonBox.ButtonRole.AcceptRole)
        send.setObjectName("Primary")
        send.setToolTip("Send these answers to the server")
        decline = buttons.addButton("Decline", QDialogButtonBox.ButtonRole.RejectRole)
        decline.setToolTip("Tell the server you will not answer")
        self.send_button, self.decline_button = send, decline
        send.clicked.connect(lambda: self._finish("accept"))
        decline.clicked.connect(lambda: self._finish("decline"))
        layout.addWidget(buttons)

    def _field(self, spec: dict[str, Any]) -> QWidget:
        kind = str(spec.get("type", "string"))
        default = spec.get("default")
        if isinstance(spec.get("enum"), list):
            box = QComboBox()
            box.addItems([str(v) for v in spec["enum"]])
            if default is not None:
                box.setCurrentText(str(default))
            return box
        if kind == "boolean":
            check = QCheckBox()
            check.setChecked(bool(default))
            return check
        if kind in ("integer", "number"):
            spin: QSpinBox | QDoubleSpinBox = QSpinBox() if kind == "integer" else QDoubleSpinBox()
            spin.setRange(int(spec.get("minimum", -(10**9))), int(spec.get("maximum", 10**9)))
            if isinstance(default, int | float):
                spin.setValue(default)  # type: ignore[arg-type]
            return spin
        edit = QLineEdit("" if default is None else str(default))
        return edit

    def _finish(self, action: str) -> None:
        self.action = action
        self.accept() if action == "accept" else self.reject()

    def content(self) -> dict[str, Any]:
        """The answers by property name."""
        values: dict[str, Any] = {}
        for name, widget in self.fields.items():
            if isinstance(widget, QComboBox):
                values[name] = widget.currentText()
            elif isinstance(widget, QCheckBox):
                values[name] = widget.isChecked()
            elif isinstance(widget, QSpinBox | QDoubleSpinBox):
                values[name] = widget.value()
            elif isinstance(widget, QLineEdit):
                values[name] = widget.text()
        return values

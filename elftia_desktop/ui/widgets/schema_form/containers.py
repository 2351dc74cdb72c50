"""Nested objects and arrays of the form, and :func:`build_field`, which picks a widget per spec."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QFrame, QHBoxLayout, QLabel, QPushButton, QToolButton, QVBoxLayout, QWidget

from elftia_desktop.ui.theme import muted_text_color
from elftia_desktop.ui.widgets.schema_form.fields import (
    BooleanField,
    EnumField,
    FieldWidget,
    NumberField,
    Path,
    RawField,
    StringField,
)
from elftia_desktop.ui.widgets.schema_form.schema import MISSING, FieldSpec

_SCALARS: dict[str, type[FieldWidget]] = {
    "string": StringField,
    "number": NumberField,
    "integer": NumberField,
    "boolean": BooleanField,
    "enum": EnumField,
    "raw": RawField,
}


def build_field(spec: FieldSpec, parent: QWidget | None = None, framed: bool = True) -> FieldWidget:
    """The widget for ``spec``, with its default filled in (``framed``: a nested object's left rule)."""
    if spec.kind == "object":
        widget: FieldWidget = ObjectField(spec, parent, framed=framed)
    elif spec.kind == "array":
        widget = ArrayField(spec, parent)
    else:
        widget = _SCALARS[spec.kind](spec, parent)
    widget.fill_default()
    return widget


def field_label(name: str, spec: FieldSpec, muted: str) -> str:
    """``name`` in bold; optional fields say so."""
    text = f"<b>{name}</b>"
    if not spec.required:
        text += f" <span style='color:{muted}'>(optional)</span>"
    return text


class ObjectField(FieldWidget):
    """An object: one labelled row per property; nested objects and arrays get a framed block."""

    def __init__(self, spec: FieldSpec, parent: QWidget | None = None, framed: bool = True) -> None:
        super().__init__(spec, parent)
        muted = muted_text_color().name()
        body = QFrame(self)
        if framed:
            body.setObjectName("NestedBlock")
            body.setStyleSheet(f"QFrame#NestedBlock {{ border: none; border-left: 2px solid {muted}; }}")
        form = QFormLayout(body)
        form.setContentsMargins(10 if framed else 0, 2, 0, 2)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.children_by_name: dict[str, FieldWidget] = {}
        for name, child_spec in spec.properties.items():
            child = build_field(child_spec, body)
            child.changed.connect(self.changed.emit)
            child.setObjectName(f"field:{name}")
            label = QLabel(field_label(name, child_spec, muted), body)
            label.setToolTip(child_spec.description or child_spec.title)
            label.setBuddy(child)
            if child_spec.kind in ("object", "array"):
                form.addRow(label)
                form.addRow(child)
            else:
                form.addRow(label, child)
            self.children_by_name[name] = child
        if not spec.properties:
            form.addRow(QLabel("<i>No arguments.</i>", body))
        self._finish(body)

    def value(self) -> Any:
        """The set properties; an optional object with none set is ``MISSING``."""
        values = {name: child.value() for name, child in self.children_by_name.items()}
        result = {name: v for name, v in values.items() if v is not MISSING}
        if not result and not self.spec.required:
            return MISSING
        return result

    def set_value(self, value: Any) -> None:
        """Fill the children from a dict (keys not in the schema are ignored)."""
        source = value if isinstance(value, dict) else {}
        for name, child in self.children_by_name.items():
            child.set_value(source.get(name, MISSING))

    def local_issues(self) -> list[tuple[FieldWidget, str]]:
        """The children's own problems."""
        return [found for child in self.children_by_name.values() for found in child.local_issues()]

    def clear_errors(self) -> None:
        """Hide every error in the object."""
        super().clear_errors()
        for child in self.children_by_name.values():
            child.clear_errors()

    def field_at(self, path: Path) -> tuple[FieldWidget, Path]:
        """Descend into the named property."""
        if path and isinstance(path[0], str) and path[0] in self.children_by_name:
            return self.children_by_name[path[0]].field_at(path[1:])
        return self, path


class ArrayField(FieldWidget):
    """A list: one row per item with a remove button, and Add item."""

    def __init__(self, spec: FieldSpec, parent: QWidget | None = None) -> None:
        super().__init__(spec, parent)
        self.item_spec = spec.items or FieldSpec("raw", {})
        self.rows: list[FieldWidget] = []
        self._row_boxes: list[QFrame] = []
        self._captions: list[QLabel | None] = []
        body = QWidget(self)
        self.row_layout = QVBoxLayout(body)
        self.row_layout.setContentsMargins(0, 0, 0, 0)
        self.row_layout.setSpacing(4)
        self.add_button = QPushButton("+ Add item", body)
        self.add_button.setAutoDefault(False)
        self.add_button.setToolTip("Add one more item to this list")
        self.add_button.clicked.connect(lambda: self.add_row())
        self.row_layout.addWidget(self.add_button, 0, Qt.AlignmentFlag.AlignLeft)
        self._finish(body)

    def add_row(self, value: Any = MISSING) -> FieldWidget:
        """Add one item (its defaults filled in, or ``value``)."""
        box = QFrame(self)
        nested = self.item_spec.kind in ("object", "array")
        row = build_field(self.item_spec, box, framed=False)
        if value is not MISSING:
            row.set_value(value)
        row.changed.connect(self.changed.emit)
        remove = QToolButton(box)
        remove.setText("✕")
        remove.setAutoRaise(True)
        remove.setToolTip("Remove this item")
        remove.clicked.connect(lambda: self.remove_row(self._row_boxes.index(box)))
        caption: QLabel | None = None
        if nested:
            box.setObjectName("ArrayItem")
            box.setStyleSheet(
                f"QFrame#ArrayItem {{ border: 1px solid {muted_text_color().name()}; border-radius: 6px; }}"
            )
            column = QVBoxLayout(box)
            column.setContentsMargins(8, 4, 4, 6)
            head = QHBoxLayout()
            caption = QLabel(box)
            head.addWidget(caption, 1)
            head.addWidget(remove)
            column.addLayout(head)
            column.addWidget(row)
        else:
            line = QHBoxLayout(box)
            line.setContentsMargins(0, 0, 0, 0)
            line.addWidget(row, 1)
            line.addWidget(remove, 0, Qt.AlignmentFlag.AlignTop)
        self.rows.append(row)
        self._row_boxes.append(box)
        self._captions.append(caption)
        self.row_layout.insertWidget(self.row_layout.count() - 1, box)
        box.show()
        self._renumber()
        self.changed.emit()
        return row

    def remove_row(self, index: int) -> None:
        """Remove item ``index``."""
        box = self._row_boxes.pop(index)
        self.rows.pop(index)
        self._captions.pop(index)
        self.row_layout.removeWidget(box)
        box.hide()
        box.deleteLater()
        self._renumber()
        self.changed.emit()

    def _renumber(self) -> None:
        for index, (box, caption) in enumerate(zip(self._row_boxes, self._captions, strict=True)):
            box.setAccessibleName(f"item {index + 1}")
            if caption is not None:
                caption.setText(f"<b>Item {index + 1}</b>")

    def value(self) -> Any:
        """The items that are set; an optional empty list is ``MISSING``."""
        items = [v for v in (row.value() for row in self.rows) if v is not MISSING]
        if not items and not self.spec.required:
            return MISSING
        return items

    def set_value(self, value: Any) -> None:
        """One row per item of ``value``."""
        while self.rows:
            self.remove_row(0)
        if isinstance(value, list):
            for item in value:
                self.add_row(item)

    def local_issues(self) -> list[tuple[FieldWidget, str]]:
        """The items' own problems."""
        return [found for row in self.rows for found in row.local_issues()]

    def clear_errors(self) -> None:
        """Hide every error in the list."""
        super().clear_errors()
        for row in self.rows:
            row.clear_errors()

    def field_at(self, path: Path) -> tuple[FieldWidget, Path]:
        """Descend into item ``path[0]``."""
        if path and isinstance(path[0], int) and 0 <= path[0] < len(self.rows):
            return self.rows[path[0]].field_at(path[1:])
        return self, path

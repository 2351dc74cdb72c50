"""An editable, reorderable list of strings (a stdio server's arguments, one per row)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QHBoxLayout, QLineEdit, QPushButton, QToolButton, QVBoxLayout, QWidget


def _tool_button(text: str, tooltip: str, parent: QWidget) -> QToolButton:
    button = QToolButton(parent)
    button.setText(text)
    button.setToolTip(tooltip)
    button.setAccessibleName(tooltip)
    button.setAutoRaise(True)
    button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
    return button


class _Row(QWidget):
    """One item: the text, move up/down, remove."""

    def __init__(self, editor: ListEditor, text: str, placeholder: str, required: bool = False) -> None:
        super().__init__(editor)
        self.required = required
        self.edit = QLineEdit(text, self)
        self.edit.setPlaceholderText(placeholder)
        self.edit.setToolTip("One argument; spaces inside it are kept (no shell quoting needed)")
        self.up = _tool_button("▲", "Move this argument up (Alt+Up)", self)
        self.down = _tool_button("▼", "Move this argument down (Alt+Down)", self)
        self.remove = _tool_button("✕", "Remove this argument", self)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.edit, 1)
        for button in (self.up, self.down, self.remove):
            layout.addWidget(button)
        self.up.clicked.connect(lambda: editor.move_row(editor.row_of(self), -1))
        self.down.clicked.connect(lambda: editor.move_row(editor.row_of(self), 1))
        self.remove.clicked.connect(lambda: editor.remove_row(editor.row_of(self)))
        self.edit.textChanged.connect(editor.changed)
        self.edit.installEventFilter(editor)


class ListEditor(QWidget):
    """Rows of single-line items with up/down/remove buttons, under an Add button that stays where it is.

    Empty rows are ignored by :meth:`items`. Alt+Up / Alt+Down move the focused row.

    Signals:
        changed(): any item was added, removed, edited or moved.
    """

    changed = Signal()

    def __init__(
        self,
        add_label: str = "&Add argument",
        placeholder: str = "argument",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._placeholder = placeholder
        self._rows: list[_Row] = []
        self._rows_box = QVBoxLayout()
        self._rows_box.setSpacing(4)
        self._rows_box.setContentsMargins(0, 0, 0, 0)
        self.add_button = QPushButton(add_label, self)
        self.add_button.setToolTip("Add an empty row at the end")
        self.add_button.clicked.connect(lambda: self.add_row("", focus=True))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addStretch(1)
        layout.addLayout(buttons)  # above the rows: a row added moves the rows below, never the button clicked
        layout.addLayout(self._rows_box)

    # -- public API ------------------------------------------------------------------------

    def items(self) -> list[str]:
        """The non-empty items, in order."""
        return [row.edit.text() for row in self._rows if row.edit.text() != ""]

    def set_items(self, items: list[str], placeholders: list[str] | None = None) -> None:
        """Replace every row; ``placeholders`` gives hints for rows (e.g. a required path)."""
        for row in list(self._rows):
            self._drop(row)
        hints = placeholders or []
        for index, item in enumerate(items):
            self.add_row(item, placeholder=hints[index] if index < len(hints) else None)
        self.changed.emit()

    def missing_required(self) -> list[str]:
        """The hints of required rows that are still empty."""
        return [row.edit.placeholderText() for row in self._rows if row.required and not row.edit.text()]

    def row_count(self) -> int:
        """How many rows there are, empty ones included."""
        return len(self._rows)

    def row_edit(self, row: int) -> QLineEdit:
        """The line edit of ``row`` (for focus and tests)."""
        return self._rows[row].edit

    def row_of(self, row_widget: QWidget) -> int:
        """The index of a row widget."""
        return self._rows.index(row_widget)  # type: ignore[arg-type]

    def add_row(
        self, text: str = "", *, focus: bool = False, placeholder: str | None = None, required: bool = False
    ) -> QLineEdit:
        """Append a row and return its line edit; a ``required`` row must not stay empty."""
        row = _Row(self, text, placeholder or self._placeholder, required)
        self._rows.append(row)
        self._rows_box.addWidget(row)
        self._update_buttons()
        if focus:
            row.edit.setFocus(Qt.FocusReason.OtherFocusReason)
        self.changed.emit()
        return row.edit

    def remove_row(self, row: int) -> None:
        """Delete ``row``; focus moves to its neighbour."""
        if not 0 <= row < len(self._rows):
            return
        self._drop(self._rows[row])
        if self._rows:
            self._rows[min(row, len(self._rows) - 1)].edit.setFocus()
        else:
            self.add_button.setFocus()
        self._update_buttons()
        self.changed.emit()

    def move_row(self, row: int, delta: int) -> None:
        """Move ``row`` up (-1) or down (+1); the text moves and focus follows it."""
        target = row + delta
        if not (0 <= row < len(self._rows) and 0 <= target < len(self._rows)):
            return
        a, b = self._rows[row].edit, self._rows[target].edit
        text_a, text_b = a.text(), b.text()
        hint_a, hint_b = a.placeholderText(), b.placeholderText()
        for edit in (a, b):
            edit.blockSignals(True)
        a.setText(text_b)
        b.setText(text_a)
        a.setPlaceholderText(hint_b)
        b.setPlaceholderText(hint_a)
        row_a, row_b = self._rows[row], self._rows[target]
        row_a.required, row_b.required = row_b.required, row_a.required
        for edit in (a, b):
            edit.blockSignals(False)
        b.setFocus(Qt.FocusReason.OtherFocusReason)
        self.changed.emit()

    # -- internals -------------------------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Alt+Up / Alt+Down in a row move it."""
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            alt = event.modifiers() & Qt.KeyboardModifier.AltModifier
            delta = {Qt.Key.Key_Up: -1, Qt.Key.Key_Down: 1}.get(Qt.Key(event.key()))
            row = next((r for r in self._rows if r.edit is watched), None)
            if alt and delta is not None and row is not None:
                self.move_row(self._rows.index(row), delta)
                return True
        return super().eventFilter(watched, event)

    def _drop(self, row: _Row) -> None:
        self._rows.remove(row)
        self._rows_box.removeWidget(row)
        row.hide()
        row.deleteLater()

    def _update_buttons(self) -> None:
        last = len(self._rows) - 1
        for index, row in enumerate(self._rows):
            row.up.setEnabled(index > 0)
            row.down.setEnabled(index < last)

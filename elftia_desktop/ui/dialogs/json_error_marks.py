"""Where a JSON syntax error is in the paste-JSON editor: its document position, and the marks that show it
(the whole line tinted, the spot itself in the error colour)."""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QTextCursor, QTextFormat
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit

from elftia_desktop.ui.dialogs.json_preview import utf16_offset
from elftia_desktop.ui.theme import STATE_COLORS


def error_position(editor: QPlainTextEdit, line: int, column: int) -> int:
    """The document position of a 1-based JSON line/column, clamped to the text."""
    document = editor.document()
    block = document.findBlockByNumber(min(max(line, 1), document.blockCount()) - 1)
    offset = min(utf16_offset(block.text(), column), block.length() - 1)
    return block.position() + max(offset, 0)


def error_marks(editor: QPlainTextEdit, line: int, column: int, dark: bool) -> list[QTextEdit.ExtraSelection]:
    """The error's line, tinted (darker on a dark theme), and the character at the spot, marked."""
    position = error_position(editor, line, column)
    whole = QTextEdit.ExtraSelection()
    whole.format.setBackground(QColor("#4a2020" if dark else "#fde8e8"))
    whole.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
    whole.cursor = QTextCursor(editor.document())
    whole.cursor.setPosition(position)
    spot = QTextEdit.ExtraSelection()
    spot.format.setBackground(QColor(STATE_COLORS["error"]))
    spot.format.setForeground(QColor("white"))
    spot.format.setFontWeight(QFont.Weight.Bold)
    spot.cursor = QTextCursor(editor.document())
    spot.cursor.setPosition(position)
    at_end = position >= editor.document().characterCount() - 1
    spot.cursor.movePosition(
        QTextCursor.MoveOperation.Left if at_end else QTextCursor.MoveOperation.Right,
        QTextCursor.MoveMode.KeepAnchor,
    )
    return [whole, spot]

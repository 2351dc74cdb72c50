"""Text from servers and registries (Markdown-ish) in a label: `code` spans shown as code, not as backticks.

Everything else stays plain: the text is escaped, so a server's HTML never renders."""

from __future__ import annotations

import re
from html import escape

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

_CODE = re.compile(r"`([^`\n]+)`")


def code_spans_html(text: str) -> str:
    """``text`` escaped as rich text, its `code` spans in a monospace font, its line breaks kept."""
    html = _CODE.sub(r"<code>\1</code>", escape(text, quote=False))
    return html.replace("\n", "<br>")


def drop_code_marks(text: str) -> str:
    """``text`` with the backticks of its `code` spans dropped, for a plain cell that cannot show code."""
    return _CODE.sub(r"\1", text)


def set_description(label: QLabel, text: str) -> None:
    """Show ``text`` in ``label`` with :func:`code_spans_html` (the label is switched to rich text)."""
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setText(code_spans_html(text))

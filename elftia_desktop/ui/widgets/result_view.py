"""``ResultView``: the outcome of a tool call, a prompt or a resource read, block by block.

A header says what happened (OK, tool error, failed, cancelled) and how long it took; below
it every content block is rendered (text, image, audio, embedded resource, resource link)
and ``structuredContent`` appears as a tree. An ``isError`` result is framed in the error
colour.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QVBoxLayout, QWidget

from elftia_desktop.ui.theme import STATE_COLORS, muted_text_color
from elftia_desktop.ui.widgets.content_blocks import (
    ResourceLinkWidget,
    block_widget,
    json_tree,
    resource_contents_widget,
)

if TYPE_CHECKING:
    from elftia_desktop.bridge.results_explore import RenderedPrompt, ResourceRead
    from elftia_desktop.core.models import MCPCallToolResponse

OUTCOME_STYLE = {
    "ok": ("OK", STATE_COLORS["connected"]),
    "error": ("Tool error", STATE_COLORS["error"]),
    "failed": ("Failed", STATE_COLORS["error"]),
    "cancelled": ("Cancelled", STATE_COLORS["connecting"]),
}


def format_duration(ms: float) -> str:
    """``840 ms`` / ``2.4 s``."""
    return f"{ms:.0f} ms" if ms < 1000 else f"{ms / 1000:.1f} s"


class ResultView(QScrollArea):
    """Shows one result at a time.

    Signals:
        readRequested(str): Read was pressed on a resource link (its URI).
    """

    readRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.outcome = ""
        self.blocks: list[QWidget] = []
        self.body = QFrame()
        self.body.setObjectName("ResultBody")
        self.column = QVBoxLayout(self.body)
        self.column.setContentsMargins(10, 8, 10, 8)
        self.column.setSpacing(8)
        self.header = QLabel(self.body)
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setWordWrap(True)
        self.header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.column.addWidget(self.header)
        self.column.addStretch(1)
        self.setWidget(self.body)
        self.clear("Nothing called yet. Fill in the arguments and press Call.")

    def clear(self, note: str = "") -> None:
        """Remove the shown result; ``note`` replaces it."""
        for widget in self.blocks:
            self.column.removeWidget(widget)
            widget.hide()
            widget.deleteLater()
        self.blocks = []
        self.outcome = ""
        self.body.setStyleSheet("")
        self.header.setText(f"<span style='color:{muted_text_color().name()}'>{note}</span>" if note else "")

    def _head(self, outcome: str, detail: str) -> None:
        text, color = OUTCOME_STYLE[outcome]
        self.outcome = outcome
        chip = f"<span style='color:{color}; font-weight:600'>● {text}</span>"
        self.header.setText(f"{chip}&nbsp;&nbsp;{detail}")
        if outcome in ("error", "failed"):
            self.body.setStyleSheet(
                f"QFrame#ResultBody {{ border: 1px solid {color}; border-radius: 8px; }}"
                f" QPlainTextEdit#ResultText {{ color: {color}; }}"
            )
        else:
            self.body.setStyleSheet("")

    def _add(self, widget: QWidget) -> None:
        if isinstance(widget, ResourceLinkWidget):
            widget.readRequested.connect(self.readRequested.emit)
        self.column.insertWidget(self.column.count() - 1, widget)
        widget.show()
        self.blocks.append(widget)

    def _caption(self, text: str) -> None:
        label = QLabel(f"<b>{text}</b>", self.body)
        self._add(label)

    def show_response(self, response: MCPCallToolResponse, duration_ms: float) -> None:
        """A tool's answer: its content blocks and structured content, with the duration."""
        self.clear()
        count = len(response.content)
        detail = f"{format_duration(duration_ms)} · {count} content block{'s' if count != 1 else ''}"
        self._head("error" if response.is_error else "ok", detail)
        for block in response.content:
            self._add(block_widget(block, self.body))
        if response.structured_content is not None:
            self._caption("Structured content")
            self._add(json_tree(response.structured_content, self.body))

    def show_failure(self, message: str, duration_ms: float | None = None, cancelled: bool = False) -> None:
        """A call that did not produce a result (refused, connection lost, timed out, cancelled)."""
        self.clear()
        took = f"after {format_duration(duration_ms)} · " if duration_ms is not None else ""
        self._head("cancelled" if cancelled else "failed", took + _escape(message))

    def show_messages(self, prompt: RenderedPrompt, duration_ms: float) -> None:
        """A rendered prompt: each message's role, then its content."""
        self.clear()
        count = len(prompt.messages)
        self._head("ok", f"{format_duration(duration_ms)} · {count} message{'s' if count != 1 else ''}")
        for message in prompt.messages:
            self._caption(message.role)
            self._add(block_widget(message.content, self.body))

    def show_contents(self, read: ResourceRead, duration_ms: float) -> None:
        """A read resource: every ``contents`` entry with a preview."""
        self.clear()
        count = len(read.contents)
        self._head("ok", f"{format_duration(duration_ms)} · {count} item{'s' if count != 1 else ''}")
        for entry in read.contents:
            self._add(resource_contents_widget(entry.as_json(), self.body))


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


__all__ = ["ResultView", "format_duration"]

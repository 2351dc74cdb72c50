"""The one way a page or dialog shows a failed request: plain text escaped, details behind Details.

``BridgeError.message`` is plain text (stderr tails, paths with ``<…>``): it is always escaped
before it reaches a notice bar, which renders rich text. What the user did is prefixed as plain
text too (``"The install link could not be opened"``).
"""

from __future__ import annotations

from html import escape

from elftia_desktop.bridge.errors import BridgeError
from elftia_desktop.ui.widgets.notice_bar import NoticeBar


def error_text(error: BridgeError, context: str = "") -> str:
    """The error as one line of plain text: ``"<context>: <message>"`` (or just the message)."""
    return f"{context}: {error.message}" if context else error.message


def show_error(notice: NoticeBar, error: BridgeError, context: str = "") -> None:
    """Show ``error`` in ``notice``: escaped, with its details (or the full message) behind Details.

    A cancelled request is a warning, not an error.
    """
    kind = "warning" if error.cancelled else "error"
    notice.show_message(escape(error_text(error, context), quote=False), kind, error.details or error.message)

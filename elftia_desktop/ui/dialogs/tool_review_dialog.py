"""``ToolReviewDialog``: the tools a trusted server changed since it was trusted, before they are served.

Each held-back tool is listed with a check box, the diff of its definition (what was pinned, what
the server says now) and the lint's findings. "Accept selected" or "Accept all" pins them as they
are now (``mcp:accept-tools``); until then agents, the loader and the gateway do not see them.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QFontDatabase, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from elftia_desktop.ui.lint_words import findings_summary, only_shadowing
from elftia_desktop.ui.theme import STATE_COLORS

if TYPE_CHECKING:
    from elftia_desktop.bridge.errors import BridgeError
    from elftia_desktop.bridge.results_explore import ReviewRow, ToolReview
    from elftia_desktop.bridge.router import McpRouter
    from elftia_desktop.core.tool_pins import LintFinding

STATUS_LABELS = {"changed": "changed", "new": "new tool", "instructions": "server instructions changed"}


class ToolReviewDialog(QDialog):
    """Loads ``mcp:tool-review`` for one server and accepts the tools the user picks.

    Signals:
        toolsAccepted(list): the names pinned (after a successful accept).
    """

    toolsAccepted = Signal(list)

    def __init__(self, router: McpRouter, server_id: str, server_name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.router = router
        self.server_id = server_id
        self.setWindowTitle(f"Changed tools of {server_name}")
        self.resize(780, 600)
        self.checks: dict[str, QCheckBox] = {}
        column = QVBoxLayout(self)
        self.intro = QLabel(f'Loading what changed in "{escape(server_name)}"…')
        self.intro.setWordWrap(True)
        column.addWidget(self.intro)
        self.items = QVBoxLayout()
        holder = QWidget()
        holder.setLayout(self.items)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(holder)
        column.addWidget(scroll, 1)
        self.error = QLabel()
        self.error.setObjectName("FieldError")
        self.error.setWordWrap(True)
        self.error.hide()
        column.addWidget(self.error)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.accept_selected = QPushButton("Accept selected")
        self.accept_selected.setToolTip("Serve the checked tools as they are now")
        self.accept_all = QPushButton("Accept all")
        self.accept_all.setObjectName("Primary")
        self.accept_all.setToolTip("Serve every changed tool as it is now")
        for button in (self.accept_selected, self.accept_all):
            button.setEnabled(False)
            buttons.addButton(button, QDialogButtonBox.ButtonRole.ActionRole)
        self.accept_selected.clicked.connect(lambda: self._accept([n for n, c in self.checks.items() if c.isChecked()]))
        self.accept_all.clicked.connect(lambda: self._accept(None))
        buttons.rejected.connect(self.reject)
        column.addWidget(buttons)
        router.tool_review.review(server_id).then(self, self.show_review, self._failed)

    def show_review(self, review: ToolReview) -> None:
        """Fill the dialog from a ``mcp:tool-review`` result."""
        items, flagged = review.items, review.pinned_findings
        if not items and only_shadowing(flagged):
            self.intro.setText(
                f"Every tool is as it was when you trusted the server, but {escape(findings_summary(flagged))}: "
                "a model may call one for the other. <b>Accept all</b> marks this as read."
            )
        elif not items and flagged:
            self.intro.setText(
                f"Every tool is as it was when you trusted the server, but {escape(findings_summary(flagged))}. "
                "Read the findings below; <b>Accept all</b> marks them as read."
            )
        elif not items:
            self.intro.setText("Nothing waits for review: every tool is as it was when you trusted the server.")
        else:
            self.intro.setText(
                f"<b>{len(items)} change{'s' if len(items) != 1 else ''}</b> since you trusted this server. "
                "Until you accept them, agents and the gateway do not see these tools. Read each change: a "
                "description can tell the model to do things you never asked for."
            )
        for item in items:
            self._add_item(item)
        for finding in flagged:
            self.items.addWidget(_finding_label(finding, f"in the pinned tool {finding.tool}"))
        self.items.addStretch(1)
        self.accept_all.setEnabled(bool(items or flagged))
        self.accept_selected.setEnabled(bool(items))

    def _add_item(self, item: ReviewRow) -> None:
        name = item.name
        check = QCheckBox(f"{name} — {STATUS_LABELS.get(item.status, item.status)}")
        check.setChecked(True)
        self.checks[name] = check
        self.items.addWidget(check)
        for finding in item.findings:
            self.items.addWidget(_finding_label(finding, ""))
        diff = QPlainTextEdit()
        diff.setReadOnly(True)
        diff.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        diff.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        _fill(diff, item.diff)
        diff.setMinimumHeight(140)
        self.items.addWidget(diff)

    def _accept(self, names: list[str] | None) -> None:
        if names is not None and not names:
            self.error.setText("Check at least one tool to accept.")
            self.error.show()
            return
        self.accept_all.setEnabled(False)
        self.accept_selected.setEnabled(False)
        self.router.tool_review.accept(self.server_id, names).then(self, self._accepted, self._failed)

    def _accepted(self, names: list[str]) -> None:
        self.toolsAccepted.emit(list(names))
        self.accept()

    def _failed(self, error: BridgeError) -> None:
        self.error.setText(escape(error.message))
        self.error.show()
        self.accept_all.setEnabled(bool(self.checks))
        self.accept_selected.setEnabled(bool(self.checks))


def _finding_label(finding: LintFinding, where: str) -> QLabel:
    suffix = f" ({escape(where)})" if where else ""
    label = QLabel(
        f"<span style='color:{STATE_COLORS['error']}'>⚠ {escape(finding.rule)}</span>: {escape(finding.detail)}{suffix}"
    )
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def _fill(view: QPlainTextEdit, lines: Sequence[str]) -> None:
    cursor = view.textCursor()
    colors = {"+": STATE_COLORS["connected"], "-": STATE_COLORS["error"], "@": STATE_COLORS["connecting"]}
    for line in lines:
        fmt = QTextCharFormat()
        color = colors.get(line[:1]) if not line.startswith(("+++", "---")) else None
        if color:
            fmt.setForeground(QColor(color))
        cursor.insertText(line + "\n", fmt)
    cursor.movePosition(QTextCursor.MoveOperation.Start)
    view.setTextCursor(cursor)

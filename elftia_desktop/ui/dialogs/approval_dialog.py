"""Asks the user whether a tool that is not auto-approved may run: allow once, always allow, or deny."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from elftia_desktop.core.approvals import Answer

if TYPE_CHECKING:
    from elftia_desktop.bridge.router import McpRouter
    from elftia_desktop.bridge.signals import ApprovalQuestion


class ApprovalDialog(QDialog):
    """Shows the server, the tool, its annotations and the arguments of the call.

    After it closes, ``answer`` holds the choice; closing it any other way (Escape, the window's
    close button) denies.
    """

    def __init__(
        self, server_name: str, tool_name: str, hints: str, arguments: str, parent: QWidget | None = None
    ) -> None:
        """``hints``: what the server says of the tool (a sentence); ``arguments``: the call's, as JSON."""
        super().__init__(parent)
        self.answer = Answer.DENY
        self.setWindowTitle("Allow this tool to run?")
        self.setMinimumWidth(480)
        layout = QVBoxLayout(self)
        layout.setSpacing(10)
        title = QLabel(f'<b>Run "{escape(tool_name)}" of "{escape(server_name)}"?</b>')  # names come from servers
        title.setObjectName("EmptyTitle")
        title.setWordWrap(True)
        layout.addWidget(title)
        self.hints_label = QLabel(hints)
        self.hints_label.setWordWrap(True)
        self.hints_label.setToolTip("What the server says about the tool (readOnly, destructive, openWorld hints)")
        layout.addWidget(self.hints_label)
        layout.addWidget(QLabel("Arguments:"))
        self.arguments = QPlainTextEdit(arguments)
        self.arguments.setReadOnly(True)
        self.arguments.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.arguments.setMaximumHeight(160)
        layout.addWidget(self.arguments)
        note = QLabel('"Always allow" lets this tool run without asking; switch it back in the server\'s Discover.')
        note.setObjectName("Muted")
        note.setWordWrap(True)
        layout.addWidget(note)
        layout.addWidget(self._buttons())

    def _buttons(self) -> QDialogButtonBox:
        buttons = QDialogButtonBox()
        self.deny_button = buttons.addButton(Answer.DENY.value, QDialogButtonBox.ButtonRole.RejectRole)
        self.deny_button.setToolTip("Do not run the tool; the caller is told you denied it")
        self.always_button = buttons.addButton(Answer.ALWAYS.value, QDialogButtonBox.ButtonRole.AcceptRole)
        self.always_button.setToolTip("Run it now and from now on without asking")
        self.once_button = buttons.addButton(Answer.ONCE.value, QDialogButtonBox.ButtonRole.AcceptRole)
        self.once_button.setObjectName("Primary")
        self.once_button.setToolTip("Run it this time only")
        self.deny_button.setDefault(True)
        for button, answer in (
            (self.once_button, Answer.ONCE),
            (self.always_button, Answer.ALWAYS),
            (self.deny_button, Answer.DENY),
        ):
            button.clicked.connect(lambda _=False, a=answer: self._finish(a))
        return buttons

    def _finish(self, answer: Answer) -> None:
        self.answer = answer
        if answer is Answer.DENY:
            self.reject()
        else:
            self.accept()


def ask_approval(router: McpRouter, question: ApprovalQuestion, parent: QWidget) -> ApprovalDialog:
    """Open the dialog for a router's ``approvalRequested`` (not blocking); the answer goes back to the router."""
    request = question.request
    dialog = ApprovalDialog(
        request.server_name, request.tool_name, request.described(), request.arguments_text(), parent
    )
    dialog.finished.connect(lambda _code: router.answer_approval(question.ticket, dialog.answer))
    dialog.open()
    return dialog

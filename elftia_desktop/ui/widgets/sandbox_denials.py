"""What a server's sandbox blocked, each with one click to allow it and trust the server with it.

``DenialsBox`` lists the denials the router's activity log kept for one server (a host the
proxy refused, a path the server could not open); its **Allow** button calls ``allow_denial``,
which loosens the server's sandbox profile by exactly that and marks it trusted (the same one click
as on the server card). A denial one click cannot allow shows no button.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Slot
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from elftia_desktop.bridge.activity import ActivityLog
from elftia_desktop.bridge.errors import BridgeError
from elftia_desktop.bridge.pending import Done, Failed
from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.models import McpActionResult, McpServerRecord
from elftia_desktop.core.sandbox import McpSandbox, allow_blocked
from elftia_desktop.core.server_update import McpServerUpdate

SHOWN = 8
"""Denials listed (the latest); the rest are in the server's log."""


def allow_denial(
    router: McpRouter,
    record: McpServerRecord,
    what: str,
    receiver: QObject,
    on_error: Failed | None = None,
    on_done: Done[McpActionResult] | None = None,
) -> McpSandbox | None:
    """Allow ``what`` in ``record``'s sandbox and trust it with that: the saved profile, or None when one
    click cannot allow it."""
    sandbox = allow_blocked(record.sandbox, what)
    if sandbox is None:
        return None
    router.activity.clear_blocked(record.id, what)
    router.servers.update(record.id, McpServerUpdate(sandbox=sandbox, is_trusted=True)).then(
        receiver, on_done, on_error
    )
    return sandbox


class DenialsBox(QFrame):
    """The sandbox denials of one server, newest first (and why an Allow failed), hidden while there are none."""

    def __init__(self, router: McpRouter, record: McpServerRecord, parent: QWidget | None = None) -> None:
        """``record``: the server as shown (its profile says which denials one click can allow)."""
        super().__init__(parent)
        self.setObjectName("DenialsBox")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.router = router
        self.activity: ActivityLog = router.activity
        self.record = record
        self.server_id = record.id
        title = QLabel("⛔  Blocked by the sandbox", self)
        font = title.font()
        font.setBold(True)
        title.setFont(font)
        self.grid = QGridLayout()
        self.grid.setColumnStretch(0, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.addWidget(title)
        layout.addLayout(self.grid)
        self.error = QLabel(self)
        self.error.setObjectName("FieldError")
        self.error.setWordWrap(True)
        self.error.hide()
        layout.addWidget(self.error)
        self.buttons: dict[str, QPushButton] = {}
        self.activity.blockedChanged.connect(self._changed)
        self.refresh()

    @Slot(str)
    def _changed(self, server_id: str) -> None:
        if server_id == self.server_id:
            self.refresh()

    def refresh(self) -> None:
        """Show the activity log's current denials of the server."""
        while self.grid.count():
            item = self.grid.takeAt(0)
            if item is not None and (widget := item.widget()) is not None:
                widget.deleteLater()
        self.buttons.clear()
        denials = list(reversed(self.activity.blocked(self.server_id)))[:SHOWN]
        for row, what in enumerate(denials):
            label = QLabel(what, self)
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.grid.addWidget(label, row, 0)
            if allow_blocked(self.record.sandbox, what) is not None:
                self.grid.addWidget(self._allow_button(what), row, 1, Qt.AlignmentFlag.AlignRight)
        self.setVisible(bool(denials) or not self.error.isHidden())

    def _allow_button(self, what: str) -> QPushButton:
        button = QPushButton("Allow", self)
        button.setAutoDefault(False)
        button.setToolTip(f"Allow this in the server's sandbox and trust the server with it: {what}")
        button.clicked.connect(lambda: self.allow(what))
        self.buttons[what] = button
        return button

    def allow(self, what: str) -> None:
        """Allow one denial (the Allow button): the profile loosened by it, the server trusted, the row gone."""
        self.error.hide()
        sandbox = allow_denial(self.router, self.record, what, self, self._failed, self._saved)
        if sandbox is not None:  # the next denial builds on this allowance, not on the profile shown at first
            self.record = self.record.model_copy(update={"sandbox": sandbox, "is_trusted": True})

    def _saved(self, result: McpActionResult) -> None:
        if not result.success:
            self._say(result.error or result.message or "the server was not saved")

    def _failed(self, error: BridgeError) -> None:
        self._say(error.message)

    def _say(self, message: str) -> None:
        """The profile could not be saved: say so here (the server's next denial is listed again)."""
        self.error.setText(f"Could not allow it: {message}")
        self.error.show()
        self.show()

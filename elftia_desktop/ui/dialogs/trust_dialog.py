"""Asks the user to confirm exactly what an untrusted (or changed) server will run."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from elftia_desktop.bridge.results import LaunchChange, LaunchInfo


class TrustDialog(QDialog):
    """Shows the launch rows (command, arguments, folder, env keys, URL) and what changed.

    ``info`` is the router's ``launch_info`` result. Accepting means the user trusts the server.
    """

    def __init__(self, info: LaunchInfo, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        name = info.name
        changes = info.changes
        stdio = info.transport == "stdio"
        self.setWindowTitle(f"Trust {name}?")
        self.setMinimumWidth(520)
        layout = QVBoxLayout(self)
        layout.setSpacing(12)

        title = QLabel(
            f"<b>{'What this server runs changed' if changes else 'Run this server for the first time?'}</b>"
        )
        title.setObjectName("EmptyTitle")
        layout.addWidget(title)
        intro = QLabel(
            (
                f'"{name}" is new here and you have not confirmed it yet. '
                if not changes
                else f'"{name}" was trusted before, but what it runs has changed since. '
            )
            + (
                "It will start this program on your computer with your permissions:"
                if stdio
                else "The app will connect to this address and send it your requests:"
            )
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)

        layout.addLayout(_rows_form(info.rows))

        if changes:
            diff = _changes_label(changes)
            layout.addWidget(QLabel("Changes since you trusted it:"))
            layout.addWidget(diff)

        warning = QLabel("Only trust servers from sources you know. Secret values are not shown.")
        warning.setObjectName("Muted")
        warning.setWordWrap(True)
        layout.addWidget(warning)

        buttons = QDialogButtonBox()
        self.trust_button = buttons.addButton("Trust and start", QDialogButtonBox.ButtonRole.AcceptRole)
        self.trust_button.setObjectName("Primary")
        self.trust_button.setToolTip("Mark the server trusted and start it")
        cancel = buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        cancel.setToolTip("Do not start the server")
        cancel.setDefault(True)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)


def _rows_form(rows: list[tuple[str, str]]) -> QFormLayout:
    """What the server runs (or where it connects), one selectable row a field; name and transport left out."""
    form = QFormLayout()
    form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
    for label, value in rows:
        if label in ("Name", "Transport"):
            continue
        field = QLabel(f"<code>{_escape(str(value))}</code>")
        field.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        field.setWordWrap(True)
        form.addRow(f"{label}:", field)
    return form


def _changes_label(changes: list[LaunchChange]) -> QLabel:
    """Each changed field: the confirmed value struck out, then the value now."""
    diff = QLabel(
        "<br>".join(
            f"<b>{_escape(c.field)}</b>: <span style='color:#d64545'><s>{_escape(c.confirmed)}</s></span>"
            f" → <span style='color:#2e9d57'>{_escape(c.now)}</span>"
            for c in changes
        )
    )
    diff.setObjectName("Banner")
    diff.setWordWrap(True)
    diff.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return diff


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

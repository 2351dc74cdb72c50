"""A coloured dot with the connection state; the error reason shows on hover."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QWidget

from elftia_desktop.ui.theme import STATE_COLORS

STATE_LABELS = {
    "connected": "Connected",
    "connecting": "Connecting…",
    "disconnected": "Not connected",
    "error": "Error",
    "auth_required": "Auth required",
    "untrusted": "Needs trust",
}


class StateBadge(QLabel):
    """Shows one connection state."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = "disconnected"
        widths = []
        for state in STATE_LABELS:  # as wide as the widest state: a change moves nothing beside it
            self.set_state(state)
            widths.append(self.sizeHint().width())
        self.setMinimumWidth(max(widths))
        self.set_state("disconnected")

    def set_state(self, state: str, error: str = "") -> None:
        """Show ``state``; ``error`` becomes the tooltip when the state is error or auth required."""
        self.state = state
        color = STATE_COLORS.get(state, STATE_COLORS["disconnected"])
        label = STATE_LABELS.get(state, state)
        self.setText(f'<span style="color:{color}; font-size:13pt">●</span>&nbsp;{label}')
        self.setToolTip(error if state in ("error", "auth_required", "untrusted") and error else f"Connection: {label}")
        self.setAccessibleName(f"Connection state: {label}")

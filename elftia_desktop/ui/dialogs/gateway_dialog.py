"""``GatewayDialog``: the "Use in other apps" panel of one agent in a window of its own."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QVBoxLayout, QWidget

from elftia_desktop.ui.widgets.gateway_panel import GatewayPanel

if TYPE_CHECKING:
    from elftia_desktop.bridge.router import McpRouter


class GatewayDialog(QDialog):
    """Install an agent's gateway entry into other MCP apps, or copy it."""

    def __init__(self, router: McpRouter, agent: str | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Use {agent} in other apps" if agent else "Use Elftia in other apps")
        self.resize(760, 620)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 18, 20, 14)
        self.panel = GatewayPanel(router, agent, self)
        layout.addWidget(self.panel, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

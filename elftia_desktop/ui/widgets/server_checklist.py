"""``ServerChecklist``: our servers with a check box each, for choosing what to export or push."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QWidget

if TYPE_CHECKING:
    from elftia_desktop.core.models import McpServerRecord


class ServerChecklist(QListWidget):
    """A list of servers to tick; the ticks survive a reload for servers that are still there.

    Signals:
        ticksChanged(): a box was ticked or cleared, or the list was reloaded.
    """

    ticksChanged = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ServerChecklist")
        self.itemChanged.connect(lambda _item: self.ticksChanged.emit())

    def set_records(self, records: list[McpServerRecord]) -> None:
        """Show ``records``; previously ticked ids stay ticked."""
        ticked = set(self.checked_ids())
        self.blockSignals(True)
        self.clear()
        for record in records:
            target = record.config.command if record.type.value == "stdio" else record.config.url
            item = QListWidgetItem(f"{record.name}   ({record.type.value})")
            args = record.config.args if record.type.value == "stdio" else []
            item.setToolTip(" ".join([target or "", *args]))
            item.setData(Qt.ItemDataRole.UserRole, record.id)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if record.id in ticked else Qt.CheckState.Unchecked)
            self.addItem(item)
        self.blockSignals(False)
        self.ticksChanged.emit()

    def checked_ids(self) -> list[str]:
        """Ids of the ticked servers, in list order."""
        return [
            str(self.item(i).data(Qt.ItemDataRole.UserRole))
            for i in range(self.count())
            if self.item(i).checkState() == Qt.CheckState.Checked
        ]

    def set_checked(self, server_ids: list[str] | None) -> None:
        """Tick exactly ``server_ids`` (None: all)."""
        self.blockSignals(True)
        for i in range(self.count()):
            item = self.item(i)
            on = server_ids is None or item.data(Qt.ItemDataRole.UserRole) in server_ids
            item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
        self.blockSignals(False)
        self.ticksChanged.emit()

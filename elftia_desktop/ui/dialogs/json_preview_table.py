"""The paste-JSON dialog's preview table: one row a server, even heights, the action in the last column."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QHeaderView, QTableWidget, QWidget


def preview_table(page: QWidget) -> QTableWidget:
    """The preview: one row a server, with the action for a name that is taken."""
    table = QTableWidget(0, 5, page)
    table.setHorizontalHeaderLabels(["Server", "Transport", "Runs", "Status", "Action"])
    table.verticalHeader().hide()
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    table.setSelectionMode(QTableWidget.SelectionMode.NoSelection)
    table.setWordWrap(False)
    rows = table.verticalHeader()  # every row as tall as one with a choice box: even heights
    rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    rows.setDefaultSectionSize(QComboBox().sizeHint().height() + 6)
    header = table.horizontalHeader()
    fixed, stretch = QHeaderView.ResizeMode.Fixed, QHeaderView.ResizeMode.Stretch
    modes = (QHeaderView.ResizeMode.ResizeToContents, fixed, stretch, stretch, fixed)
    for column, mode in enumerate(modes):
        header.setSectionResizeMode(column, mode)
    header.resizeSection(1, table.fontMetrics().horizontalAdvance("Streamable HTTP") + 16)  # the widest
    header.resizeSection(4, 200)
    table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    table.setToolTip("The servers that will be added; choose what happens to names that are taken")
    return table

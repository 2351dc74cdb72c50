"""What the Servers page shows with no servers: where to start (presets, other apps' servers, pasted JSON)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget


def empty_state(presets: Callable[[], None], other_apps: Callable[[], None], paste: Callable[[], None]) -> QWidget:
    """The empty page: a title, what servers are for, and a button per way to start (each calls its callback)."""
    box = QWidget()
    column = QVBoxLayout(box)
    column.addStretch(1)
    title = QLabel("No MCP servers yet")
    title.setObjectName("EmptyTitle")
    title.setAlignment(Qt.AlignmentFlag.AlignCenter)
    column.addWidget(title)
    text = QLabel(
        "Servers give your assistant tools: files, the web, GitHub, databases and more.\n"
        "Start from a preset, bring the servers you already set up in other apps, or paste JSON."
    )
    text.setObjectName("Muted")
    text.setAlignment(Qt.AlignmentFlag.AlignCenter)
    column.addWidget(text)
    row = QHBoxLayout()
    row.addStretch(1)
    for label, tip, slot in (
        ("Browse presets", "Pick from built-in and official servers", presets),
        (
            "Import from other apps",
            "Find servers set up in Claude, Cursor, VS Code …",
            other_apps,
        ),
        ("Paste JSON", "Add servers from a JSON snippet", paste),
    ):
        button = QPushButton(label)
        button.setToolTip(tip)
        button.clicked.connect(slot)
        row.addWidget(button)
    row.addStretch(1)
    column.addSpacing(8)
    column.addLayout(row)
    column.addStretch(2)
    return box

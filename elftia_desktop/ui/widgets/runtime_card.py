"""``RuntimeCard``: one runtime on the Dependencies page: found or not, who needs it, install it."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from elftia_desktop.ui.theme import STATE_COLORS

if TYPE_CHECKING:
    from elftia_desktop.bridge.results import RuntimeView

_STATUS = {
    # status: (chip text, colour)
    "ok": ("Found", STATE_COLORS["connected"]),
    "missing": ("Not found", STATE_COLORS["error"]),
    "too-old": ("Too old", STATE_COLORS["connecting"]),
    "broken": ("Does not run", STATE_COLORS["error"]),
}


class RuntimeCard(QFrame):
    """A card for one row of ``mcp:dependencies``; the install panel shows progress while it runs.

    Signals:
        installRequested(str): the runtime's main command to install.
        uninstallRequested(str): the main command of a runtime the app installed.
        cancelRequested(str): stop the running install of this command.
    """

    installRequested = Signal(str)
    uninstallRequested = Signal(str)
    cancelRequested = Signal(str)

    def __init__(self, row: RuntimeView, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Card")
        self.row = row
        self.command = row.command
        self.installing = False
        column = QVBoxLayout(self)
        column.setContentsMargins(16, 12, 16, 12)
        column.setSpacing(6)
        column.addLayout(self._build_header())
        self.reason = QLabel(row.reason)
        self.reason.setObjectName("CardSubtitle")
        self.reason.setWordWrap(True)
        column.addWidget(self.reason)
        self.details = QLabel()
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        column.addWidget(self.details)
        column.addWidget(self._build_instructions())
        column.addWidget(self._build_progress())
        self.update_row(row)

    def _build_header(self) -> QHBoxLayout:
        header = QHBoxLayout()
        self.title = QLabel(self.row.title)
        self.title.setObjectName("CardTitle")
        self.title.setMinimumHeight(30)  # as tall as the buttons, so every card's header lines up
        header.addWidget(self.title)
        self.chip = QLabel()
        header.addWidget(self.chip)
        header.addStretch(1)
        self.how_button = QPushButton("How to install")
        self.how_button.setCheckable(True)
        self.how_button.setToolTip("Show the commands to install it by hand on this system")
        self.how_button.toggled.connect(lambda on: self.instructions.setVisible(on))
        header.addWidget(self.how_button)
        self.uninstall_button = QPushButton("Uninstall")
        self.uninstall_button.setToolTip("Remove the copy the app installed in its tools folder")
        self.uninstall_button.clicked.connect(lambda: self.uninstallRequested.emit(self.command))
        header.addWidget(self.uninstall_button)
        self.install_button = QPushButton("Install")
        self.install_button.setObjectName("Primary")
        self.install_button.clicked.connect(lambda: self.installRequested.emit(self.command))
        header.addWidget(self.install_button)
        return header

    def _build_instructions(self) -> QLabel:
        self.instructions = QLabel()
        self.instructions.setObjectName("Instructions")
        self.instructions.setWordWrap(True)
        self.instructions.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.instructions.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.instructions.hide()
        return self.instructions

    def _build_progress(self) -> QWidget:
        self.progress_panel = QWidget()
        column = QVBoxLayout(self.progress_panel)
        column.setContentsMargins(0, 4, 0, 0)
        row = QHBoxLayout()
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)
        self.progress.setTextVisible(False)
        self.progress.setMaximumHeight(10)
        row.addWidget(self.progress, 1)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop the install; what it started is removed")
        self.cancel_button.clicked.connect(self._cancel)
        row.addWidget(self.cancel_button)
        column.addLayout(row)
        self.last_line = QLabel()
        self.last_line.setObjectName("Muted")
        column.addWidget(self.last_line)
        self.log = QPlainTextEdit()
        self.log.setReadOnly(True)
        self.log.setMaximumBlockCount(2000)
        self.log.setFixedHeight(110)
        self.log.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        column.addWidget(self.log)
        self.progress_panel.hide()
        return self.progress_panel

    # -- state ---------------------------------------------------------------------------------

    def update_row(self, row: RuntimeView) -> None:
        """Show a fresh check of this runtime."""
        self.row = row
        text, color = _STATUS.get(row.status, ("?", STATE_COLORS["disconnected"]))
        version = f" {row.version}" if row.version and row.status != "missing" else ""
        self.chip.setText(f"● {text}{version}")
        self.chip.setStyleSheet(f"color: {color}; font-weight: 600;")
        self.details.setText(self._details_html(row))
        self.instructions.setText(self._instructions_text(row))
        self._update_buttons()

    def _details_html(self, row: RuntimeView) -> str:
        parts = []
        if row.path:
            where = escape(row.path) + (" <i>(installed by the app)</i>" if row.managed else "")
            parts.append(f"<b>Path:</b> {where}")
        parts.append(f"<b>Commands:</b> {escape(', '.join(row.commands))}")
        if row.minimum:
            parts.append(f"<b>Needs:</b> {escape(row.minimum)} or newer")
        own = row.own_interpreter
        if row.needed_by or not own:  # servers on Elftia's own Python need nothing of this runtime
            needed = escape(", ".join(row.needed_by)) if row.needed_by else "no configured server"
            parts.append(f"<b>Needed by:</b> {needed}")
        if own:
            parts.append(
                f"{escape(', '.join(own.servers))} run on Elftia's own Python ({escape(own.path)}): nothing to install"
            )
        html = " &nbsp;·&nbsp; ".join(parts)
        if row.problem:
            html += f"<br><span style='color:{STATE_COLORS['error']}'>{escape(row.problem.splitlines()[0])}</span>"
        return html

    @staticmethod
    def _instructions_text(row: RuntimeView) -> str:
        text = row.instructions
        if row.can_install and row.install_source != "system":  # a system plan's text says it all
            source = "PyPI" if row.install_source == "pypi" else "the npm registry"
            text += f"\n\nOr press Install: the app installs it from {source} into its own tools folder."
        return text

    def _update_buttons(self) -> None:
        row = self.row
        can_install = row.can_install and row.status != "ok"
        self.install_button.setVisible(can_install and not self.installing)
        system = row.install_source == "system"
        where = "with the system's package manager" if system else "into the app's tools folder (no admin rights)"
        self.install_button.setToolTip(f"Install {row.title} {where}")
        self.uninstall_button.setVisible(row.managed and not self.installing)
        self.how_button.setVisible(row.status != "ok")
        if row.status == "ok":
            self.how_button.setChecked(False)
        self.cancel_button.setEnabled(self.installing)

    def start_install(self) -> None:
        """Show the progress panel with an empty log."""
        self.installing = True
        self.log.clear()
        self.last_line.setText(f"Installing {self.row.title}…")
        self.progress.setRange(0, 0)
        self.progress.show()
        self.cancel_button.show()
        self.progress_panel.show()
        self._update_buttons()

    def add_progress(self, line: str) -> None:
        """One line of the installer's output."""
        self.last_line.setText(line[:160])
        self.log.appendPlainText(line)

    def finish_install(self, message: str) -> None:
        """The install ended (done, failed or cancelled): the bar and Cancel go, the outcome and the log stay."""
        self.installing = False
        self.progress.hide()
        self.cancel_button.hide()
        self.last_line.setText(message)
        self._update_buttons()

    def _cancel(self) -> None:
        self.cancel_button.setEnabled(False)
        self.last_line.setText("Cancelling…")
        self.cancelRequested.emit(self.command)

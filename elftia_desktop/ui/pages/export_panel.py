"""``ExportPanel``: a selection of our servers in another app's format, to a file or into the app's config."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from elftia_desktop.bridge.errors import BridgeError
from elftia_desktop.bridge.results import AppWriteResult, ExportFileResult, ExportPlan, ExportView, placeholder_names
from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.ui.dialogs.diff_dialog import DiffDialog
from elftia_desktop.ui.error_presenter import show_error
from elftia_desktop.ui.widgets.notice_bar import NoticeBar
from elftia_desktop.ui.widgets.server_checklist import ServerChecklist

if TYPE_CHECKING:
    from elftia_desktop.core.models import McpServerRecord

FORMATS = [
    ("cursor", "Cursor", "mcp.json"),
    ("claude-desktop", "Claude Desktop", "claude_desktop_config.json"),
    ("claude-code", "Claude Code", ".mcp.json"),
    ("vscode", "VS Code", "mcp.json"),
]


class ExportPanel(QWidget):
    """Tick servers, choose the app, see the file it gets; save it, or write it into the app's config."""

    def __init__(self, router: McpRouter, notice: NoticeBar, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.router = router
        self.notice = notice
        self.exported: ExportView | None = None
        self.dialog: DiffDialog | None = None
        self._pending = QTimer(self)
        self._pending.setSingleShot(True)
        self._pending.setInterval(120)
        self._pending.timeout.connect(self.refresh)
        column = QVBoxLayout(self)
        column.setContentsMargins(10, 10, 10, 10)
        split = QSplitter()
        split.addWidget(self._build_selection())
        split.addWidget(self._build_output())
        split.setSizes([260, 520])
        column.addWidget(split, 1)

    def _build_selection(self) -> QWidget:
        box = QWidget()
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(QLabel("<b>Your servers</b> — tick what to export"))
        self.servers = ServerChecklist()
        self.servers.ticksChanged.connect(self._pending.start)
        column.addWidget(self.servers, 1)
        row = QHBoxLayout()
        for label, ids in (("All", None), ("None", [])):
            button = QPushButton(label)
            button.clicked.connect(lambda _=False, ids=ids: self.servers.set_checked(ids))
            row.addWidget(button)
        row.addStretch(1)
        column.addLayout(row)
        return box

    def _build_output(self) -> QWidget:
        box = QWidget()
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        row.addWidget(QLabel("<b>For</b>"))
        self.format = QComboBox()
        for fmt_id, label, _file in FORMATS:
            self.format.addItem(label, fmt_id)
        self.format.currentIndexChanged.connect(self._format_changed)
        row.addWidget(self.format)
        row.addStretch(1)
        column.addLayout(row)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setPlaceholderText("Tick servers on the left to see the file.")
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        column.addWidget(self.text, 1)
        self.warnings = QLabel()
        self.warnings.setObjectName("Muted")
        self.warnings.setWordWrap(True)
        column.addWidget(self.warnings)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        self.save_button = QPushButton("Save to file…")
        self.save_button.setToolTip("Write (or merge into) a file you choose; other servers in it are kept")
        self.save_button.clicked.connect(self._choose_file)
        buttons.addWidget(self.save_button)
        self.write_button = QPushButton()
        self.write_button.setObjectName("Primary")
        self.write_button.clicked.connect(self.plan_write)
        buttons.addWidget(self.write_button)
        column.addLayout(buttons)
        self._format_changed()
        return box

    # -- state ---------------------------------------------------------------------------------

    def set_records(self, records: list[McpServerRecord]) -> None:
        """Show our servers (ticks kept)."""
        self.servers.set_records(records)

    @property
    def fmt(self) -> str:
        """The chosen format's id."""
        return str(self.format.currentData())

    @property
    def label(self) -> str:
        """The chosen app's name."""
        return self.format.currentText()

    def _format_changed(self) -> None:
        self.write_button.setText(f"Write into {self.label}'s config…")
        self.write_button.setToolTip(f"Show the change to {self.label}'s own config file, back it up, then write")
        self._pending.start()

    def refresh(self) -> None:
        """Show the export of the ticked servers in the chosen format."""
        ids = self.servers.checked_ids()
        for button in (self.save_button, self.write_button):
            button.setEnabled(bool(ids))
        if not ids:
            self.exported = None
            self.text.clear()
            self.warnings.clear()
            return
        self.router.integrations.export(ids, self.fmt).then(self, self._show_export, self._failed)

    def _show_export(self, exported: ExportView) -> None:
        self.exported = exported
        self.text.setPlainText(exported.text)
        notes = [escape(w) for w in exported.warnings]
        if exported.placeholders:
            names = ", ".join(placeholder_names(exported.placeholders))
            notes.insert(0, f"Secrets are written as placeholders the app fills in: {escape(names)}.")
        notes.append(f"{escape(self.label)} reads <i>{escape(exported.app_path)}</i>.")
        self.warnings.setText("<br>".join(notes))

    # -- to a file -----------------------------------------------------------------------------

    def _choose_file(self) -> None:
        default = next(name for fmt_id, _l, name in FORMATS if fmt_id == self.fmt)
        path, _ = QFileDialog.getSaveFileName(self, f"Export for {self.label}", default, "JSON (*.json)")
        if path:
            self.save_to(path)

    def save_to(self, path: str) -> None:
        """Write the ticked servers in the chosen format to ``path`` (merging into an existing file)."""
        ids = self.servers.checked_ids()

        def done(result: ExportFileResult) -> None:
            """Say where the servers were written."""
            replaced = f" (replaced there: {', '.join(result.replaced)})" if result.replaced else ""
            text = f"Wrote {len(ids)} server(s) in {self.label}'s format to {result.path}{replaced}."
            self.notice.show_message(escape(text), "success", "\n".join(result.warnings))

        self.router.integrations.export_to_file(ids, self.fmt, path).then(self, done, self._failed)

    # -- into the app's config -----------------------------------------------------------------

    def plan_write(self) -> None:
        """Ask for the diff of writing into the app's config, then show it for confirmation."""
        ids = self.servers.checked_ids()
        label = self.label
        fmt = self.fmt
        self.router.integrations.plan_export_into_app(ids, fmt).then(
            self, lambda plan: self._confirm(ids, fmt, label, plan), self._failed
        )

    def _confirm(self, ids: list[str], fmt: str, label: str, plan: ExportPlan) -> None:
        self.dialog = DiffDialog(label, plan, self)

        def answered(code: int) -> None:
            """Write into the app's file when the person accepted the diff."""
            if code == DiffDialog.DialogCode.Accepted:
                self.router.integrations.export_into_app(ids, fmt, plan.digest, plan.after_digest).then(
                    self, lambda r: self._written(label, r), self._failed
                )

        self.dialog.finished.connect(answered)
        self.dialog.open()

    def _written(self, label: str, result: AppWriteResult) -> None:
        backup = f" The previous file was saved as {result.backup}." if result.backup else ""
        self.notice.show_message(f"Wrote into {label}'s config {result.path}.{backup}", "success")

    def _failed(self, error: BridgeError) -> None:
        show_error(self.notice, error)

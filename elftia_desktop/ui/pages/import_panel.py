"""``ImportPanel``: the configs other apps keep on this machine, a preview per server, Import."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from elftia_desktop.bridge.errors import BridgeError
from elftia_desktop.bridge.results import DetectedConfig, FileError, ImportOutcome, ImportPreview, ImportRow
from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.ui.error_presenter import show_error
from elftia_desktop.ui.theme import STATE_COLORS
from elftia_desktop.ui.widgets.notice_bar import NoticeBar

POLICIES = [("rename", 'Rename (add as "name (2)")'), ("skip", "Skip"), ("replace", "Replace the existing one")]
_ROLE = Qt.ItemDataRole.UserRole


class ImportPanel(QWidget):
    """Detected configs (tick the files), the preview of their servers (tick the rows), Import.

    Signals:
        imported(int): how many servers were added (they are untrusted).
    """

    imported = Signal(int)

    def __init__(self, router: McpRouter, notice: NoticeBar, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.router = router
        self.notice = notice
        self.configs: list[DetectedConfig] = []
        self.rows: tuple[ImportRow, ...] = ()
        self.file_errors: tuple[FileError, ...] = ()
        self.policy_boxes: dict[str, QComboBox] = {}
        self.loaded = False
        column = QVBoxLayout(self)
        column.setContentsMargins(10, 10, 10, 10)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self._build_sources())
        split.addWidget(self._build_preview())
        split.setSizes([170, 330])
        column.addWidget(split, 1)
        column.addLayout(self._build_footer())

    def _build_sources(self) -> QWidget:
        box = QWidget()
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        head = QHBoxLayout()
        label = QLabel("<b>Found on this machine</b> — tick the files to bring servers from")
        head.addWidget(label, 1)
        self.rescan_button = QPushButton("Look again")
        self.rescan_button.setToolTip("Search the config files of Claude, Cursor, VS Code and other apps again")
        self.rescan_button.clicked.connect(self.detect)
        head.addWidget(self.rescan_button)
        column.addLayout(head)
        self.sources = QTreeWidget()
        self.sources.setHeaderLabels(["App", "Servers", "File"])
        self.sources.setRootIsDecorated(False)
        self.sources.setObjectName("DataTable")
        self.sources.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.sources.header().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.sources.itemChanged.connect(self._source_ticked)
        column.addWidget(self.sources, 1)
        return box

    def _build_preview(self) -> QWidget:
        box = QWidget()
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 6, 0, 0)
        column.addWidget(QLabel("<b>Servers in those files</b> — what each runs; secrets are shown as such"))
        self.preview = QTreeWidget()
        self.preview.setHeaderLabels(["Server", "From", "Runs / URL", "Secrets", "If the name is taken"])
        self.preview.setRootIsDecorated(False)
        self.preview.setObjectName("DataTable")
        self.preview.setWordWrap(True)
        header = self.preview.header()
        for col in (0, 1, 3, 4):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.setStretchLastSection(False)
        self.preview.itemChanged.connect(lambda _i, _c: self._update_import_button())
        column.addWidget(self.preview, 1)
        return box

    def _build_footer(self) -> QHBoxLayout:
        row = QHBoxLayout()
        note = QLabel("Imported servers arrive untrusted: they do not start until you trust them on the Servers page.")
        note.setObjectName("Muted")
        note.setWordWrap(True)
        row.addWidget(note, 1)
        self.import_button = QPushButton("Import")
        self.import_button.setObjectName("Primary")
        self.import_button.clicked.connect(self.import_selected)
        row.addWidget(self.import_button)
        self._update_import_button()
        return row

    def _source_ticked(self, _item: QTreeWidgetItem, col: int) -> None:
        if col == 0:
            self.refresh_preview()

    # -- detect --------------------------------------------------------------------------------

    def detect(self) -> None:
        """Look for other apps' config files."""
        self.rescan_button.setEnabled(False)
        self.router.integrations.detect().then(self, self._show_configs, self._failed)

    def show_sources(self, configs: list[DetectedConfig]) -> None:
        """Show these files (e.g. Claude Code's, for a pull) instead of a search result."""
        self._show_configs(configs)

    def _show_configs(self, configs: list[DetectedConfig]) -> None:
        self.loaded = True
        self.rescan_button.setEnabled(True)
        self.configs = configs
        self.sources.blockSignals(True)
        self.sources.clear()
        for config in configs:
            item = QTreeWidgetItem([config.label, "", config.path])
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(0, Qt.CheckState.Checked)
            item.setData(0, _ROLE, config)
            item.setToolTip(2, config.path)
            if config.error is not None:
                item.setText(1, f"cannot be read ({config.error.where or 'see tooltip'})")
                item.setForeground(1, QColor(STATE_COLORS["error"]))
                item.setToolTip(1, config.error.error)
            else:
                item.setText(1, f"{config.count} server{'s' if config.count != 1 else ''}")
                if config.elftia_entries:  # written by "Use in other apps": it runs Elftia itself, never offered
                    own = ", ".join(config.elftia_entries)
                    item.setToolTip(1, f"Not offered: {own} (Elftia's own gateway entry)")
            self.sources.addTopLevelItem(item)
        if not configs:  # said in the list itself: a notice would float over the Import button
            none = QTreeWidgetItem(["No MCP config of another app was found on this machine."])
            none.setFlags(Qt.ItemFlag.NoItemFlags)
            self.sources.addTopLevelItem(none)
            none.setFirstColumnSpanned(True)
        self.sources.blockSignals(False)
        self.refresh_preview()

    def checked_sources(self) -> list[DetectedConfig]:
        """The ticked files."""
        out = []
        for i in range(self.sources.topLevelItemCount()):
            item = self.sources.topLevelItem(i)
            if item is not None and item.checkState(0) == Qt.CheckState.Checked:
                out.append(item.data(0, _ROLE))
        return out

    # -- preview -------------------------------------------------------------------------------

    def refresh_preview(self, announce: bool = True) -> None:
        """Preview the servers of the ticked files (``announce``: name the unreadable ones in the notice bar)."""
        sources = self.checked_sources()
        if not sources:
            self._show_preview(ImportPreview())
            return
        self.router.integrations.preview_import(sources).then(
            self, lambda p: self._show_preview(p, announce), self._failed
        )

    def _show_preview(self, preview: ImportPreview, announce: bool = True) -> None:
        self.rows, self.file_errors = preview.rows, preview.file_errors
        self.preview.blockSignals(True)
        self.preview.clear()
        self.policy_boxes.clear()
        for row in self.rows:
            self._add_preview_row(row)
        self.preview.blockSignals(False)
        self._update_import_button()
        if announce:
            self._show_file_errors()

    def _add_preview_row(self, row: ImportRow) -> None:
        source = next((c.label for c in self.configs if c.path == row.source), row.app)
        secrets = ", ".join(row.secrets) or "—"
        item = QTreeWidgetItem([row.name, source, row.error or row.runs, secrets, ""])
        item.setData(0, _ROLE, row.key)
        item.setToolTip(2, self._row_tooltip(row))
        item.setToolTip(0, "\n".join(row.warnings) or row.name)
        if row.error:
            item.setForeground(2, QColor(STATE_COLORS["error"]))
            item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsUserCheckable & ~Qt.ItemFlag.ItemIsEnabled)
            item.setText(4, "cannot be imported")
        else:
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(0, Qt.CheckState.Checked)
            if row.warnings:
                item.setText(0, f"{row.name}  ⚠")
        self.preview.addTopLevelItem(item)
        if row.error:
            return
        if row.conflict:
            box = QComboBox()
            for value, label in POLICIES:
                box.addItem(label, value)
            box.setCurrentIndex(1)
            box.setToolTip(f'A server named "{row.conflict}" exists already')
            box.currentIndexChanged.connect(lambda _index: self._update_import_button())
            self.preview.setItemWidget(item, 4, box)
            self.policy_boxes[row.key] = box
        else:
            item.setText(4, "new name")

    @staticmethod
    def _row_tooltip(row: ImportRow) -> str:
        lines = [f"{row.transport or '?'}: {row.runs}"]
        lines += [f"env {k} = {v}" for k, v in row.env]
        lines += [f"header {k}: {v}" for k, v in row.headers]
        lines += row.warnings
        return "\n".join(lines)

    def _show_file_errors(self) -> None:
        if not self.file_errors:
            return
        parts = []
        for error in self.file_errors:
            where = error.where
            parts.append(f"<b>{escape(error.path)}</b>{' at ' + where if where else ''}")
        text = "This file could not be read; the others can still be imported: " + "; ".join(parts)
        self.notice.show_message(text, "warning", "\n\n".join(e.error for e in self.file_errors))

    def choices(self) -> dict[str, str]:
        """Row key -> policy for every ticked row."""
        out = {}
        for i in range(self.preview.topLevelItemCount()):
            item = self.preview.topLevelItem(i)
            if item is None or item.checkState(0) != Qt.CheckState.Checked:
                continue
            key = str(item.data(0, _ROLE))
            box = self.policy_boxes.get(key)
            out[key] = str(box.currentData()) if box is not None else "skip"
        return out

    def _update_import_button(self) -> None:
        """Count the rows that will be imported: ticked, and not a taken name set to Skip."""
        count = sum(1 for key, policy in self.choices().items() if not (policy == "skip" and key in self.policy_boxes))
        self.import_button.setEnabled(count > 0)
        self.import_button.setText(f"Import {count} server{'s' if count != 1 else ''}" if count else "Import")

    # -- import --------------------------------------------------------------------------------

    def import_selected(self) -> None:
        """Import the ticked rows with their conflict choices."""
        picked = self.choices()
        if not picked:
            return
        self.import_button.setEnabled(False)
        self.router.integrations.import_servers(self.checked_sources(), picked).then(self, self._imported, self._failed)

    def _imported(self, outcome: ImportOutcome) -> None:
        results = outcome.results
        added = [r for r in results if r.added]
        failed = [r for r in results if r.status == "failed"]
        lines = [f"{r.status}: {r.name}" + (f" → {r.server_name}" if r.status == "renamed" else "") for r in results]
        lines += [f"{r.name}: {r.error}" for r in failed]
        text = (
            f"Imported {len(added)} of {len(results)} servers; they are untrusted until you trust them "
            "on the Servers page."
            if added
            else f"Nothing was imported ({len(results) - len(failed)} skipped, {len(failed)} failed): see Details."
        )
        if outcome.vault_warning and added:
            text += f"<br>{escape(outcome.vault_warning)}"
        unread = [f"{e.path} ({e.where or 'unreadable'})" for e in outcome.file_errors]
        if unread:
            text += f"<br>Not read: {escape('; '.join(unread))}"
            lines += [e.error for e in outcome.file_errors]
        kind = "success" if added else "error" if failed else "info"
        self.notice.show_message(text, kind, "\n".join(lines))
        self.imported.emit(len(added))
        self.refresh_preview(announce=False)

    def _failed(self, error: BridgeError) -> None:
        self.rescan_button.setEnabled(True)
        self._update_import_button()
        show_error(self.notice, error)

"""``SettingsPage``: timeouts, log size, start-up, theme, folders, the secrets backend and a backup."""

from __future__ import annotations

from html import escape

from pydantic import ValidationError
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QApplication, QFileDialog, QHBoxLayout, QLabel, QPushButton, QWidget

from elftia_desktop.bridge.errors import BridgeError, to_bridge_error
from elftia_desktop.bridge.results import BackupResult, SettingsView
from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.settings_store import AppSettings
from elftia_desktop.ui.error_presenter import show_error
from elftia_desktop.ui.pages.page_frame import PageFrame
from elftia_desktop.ui.pages.settings_sections import PlacesSection, ValuesSection, card, secrets_html
from elftia_desktop.ui.theme import set_theme_mode, theme_mode

SAVED_NOTES = {
    "connect_timeout": "New connections and calls use the new timeouts.",
    "call_timeout": "New connections and calls use the new timeouts.",
    "log_lines": "The log size applies at once.",
    "startup": "The start-up choice applies from the next start.",
    "theme": "The theme is in force.",
    "registry_url": "Browse searches the new registries from its next search.",
    "extra_registries": "Browse searches the new registries from its next search.",
}
"""What saving a changed value means (by ``AppSettings`` field), said once per kind of value."""


class SettingsPage(PageFrame):
    """The Settings page; loads at once (the saved theme applies at start), saves through the router.

    Signals:
        themeChanged(str): ``system``, ``light`` or ``dark`` was put in force.
    """

    themeChanged = Signal(str)

    def __init__(self, router: McpRouter, parent: QWidget | None = None) -> None:
        super().__init__("Settings", parent)
        self.router = router
        self.saved: AppSettings | None = None
        self.info: SettingsView | None = None
        self._theme = theme_mode()
        self.summary.setText("Connections, appearance, where your data lives, and secrets")
        self.revert_button = QPushButton("Revert")
        self.revert_button.setToolTip("Show the saved values again")
        self.revert_button.clicked.connect(self._revert)
        self.header_actions.addWidget(self.revert_button)
        self.save_button = QPushButton("&Save")
        self.save_button.setObjectName("Primary")
        self.save_button.clicked.connect(self.save)
        self.header_actions.addWidget(self.save_button)
        scroll, column = self.card_scroll()
        self.values = ValuesSection()
        self.values.edited.connect(self._update_buttons)
        self.values.theme.currentIndexChanged.connect(lambda _i: self._apply_theme(self.values.theme_mode()))
        column.insertWidget(0, self.values)
        self.places = PlacesSection()
        self.places.openFailed.connect(lambda text: self.notice.show_message(escape(text), "error"))
        column.insertWidget(1, self.places)
        column.insertWidget(2, self._build_secrets())
        column.insertWidget(3, self._build_backup())
        self.body.addWidget(scroll, 1)
        self._update_buttons()
        router.signals.settingsChanged.connect(self.load)
        QTimer.singleShot(0, self.load)

    def _build_secrets(self) -> QWidget:
        frame, column = card("Secrets")
        self.secrets = QLabel("…")
        self.secrets.setWordWrap(True)
        self.secrets.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        column.addWidget(self.secrets)
        return frame

    def _build_backup(self) -> QWidget:
        frame, column = card(
            "Backup",
            "One file with every server and these settings, to keep a copy. Secret values are not in it: "
            "they stay where secrets are kept (above).",
        )
        row = QHBoxLayout()
        row.addStretch(1)
        self.backup_button = QPushButton("Export backup…")
        self.backup_button.clicked.connect(self._choose_backup)
        row.addWidget(self.backup_button)
        column.addLayout(row)
        return frame

    # -- load / save ---------------------------------------------------------------------------

    def load(self) -> None:
        """Fetch the settings, folders and secrets backend."""
        self.router.settings.load().then(self, self._show, self._failed)

    def _show(self, info: SettingsView) -> None:
        """Show the saved values; values the user changed and did not save yet stay as typed."""
        edited = self.dirty()
        self.info = info
        self.saved = info.settings
        if not edited:
            self.values.set_values(self.saved)
        self.places.set_paths(info.paths)
        self.secrets.setText(secrets_html(info.secrets))
        self._apply_theme(self.values.theme_mode())  # the one shown: a choice not saved yet stays in force
        self._update_buttons()

    def dirty(self) -> bool:
        """True when the values shown differ from the saved ones (a setting not shown here is not compared)."""
        return self.saved is not None and self.values.differs(self.saved)

    def _update_buttons(self) -> None:
        self.save_button.setEnabled(self.dirty())
        self.revert_button.setEnabled(self.dirty())
        if self.dirty() and self.notice.kind == "success":
            self.notice.hide()  # "Saved." no longer describes what is shown

    def _revert(self) -> None:
        if self.saved is not None:
            self.values.set_values(self.saved)
            self._apply_theme(self.saved.theme)
        self._update_buttons()

    def save(self) -> None:
        """Save the values shown; the services use them from the next connection and call on."""
        try:
            values = self.values.values()
        except ValidationError as exc:  # a value the settings do not take, named
            show_error(self.notice, to_bridge_error(exc))
            return
        self.save_button.setEnabled(False)
        self.router.settings.save(values).then(self, self._saved, self._failed)

    def _saved(self, values: AppSettings) -> None:
        before = self.saved
        self.saved = values
        self.values.set_values(values)
        self._apply_theme(values.theme)
        self._update_buttons()
        changed = [name for name in SAVED_NOTES if before is None or getattr(before, name) != getattr(values, name)]
        notes = list(dict.fromkeys(SAVED_NOTES[key] for key in changed))
        self.notice.show_message("Saved. " + " ".join(notes) if notes else "Saved; nothing had changed.", "success")

    def _apply_theme(self, mode: str) -> None:
        app = QApplication.instance()
        if isinstance(app, QApplication):
            set_theme_mode(app, mode)  # nothing happens when that theme is already in force
        if mode != self._theme:
            self._theme = mode
            self.themeChanged.emit(mode)

    # -- backup --------------------------------------------------------------------------------

    def _choose_backup(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export backup", "elftia-backup.json", "JSON (*.json)")
        if path:
            self.export_backup(path)

    def export_backup(self, path: str) -> None:
        """Write the backup to ``path``."""

        def done(result: BackupResult) -> None:
            """Say where the backup was written."""
            extra = f"; {result.secrets_left_out} secret value(s) left out" if result.secrets_left_out else ""
            self.notice.show_message(
                escape(f"Backup of {result.servers} server(s) written to {result.path}{extra}."), "success"
            )

        self.router.settings.export_backup(path).then(self, done, self._failed)

    def _failed(self, error: BridgeError) -> None:
        self._update_buttons()
        show_error(self.notice, error)

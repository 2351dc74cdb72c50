"""The cards of the Settings page: connections, appearance, folders, secrets, backup."""

from __future__ import annotations

import shutil
import sys
from html import escape

from PySide6.QtCore import QProcess, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QGridLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from elftia_desktop.bridge.channels import SettingsSaveInput
from elftia_desktop.bridge.results import SecretsBackend, SettingsPaths
from elftia_desktop.core.settings_store import AppSettings
from elftia_desktop.ui.theme import STATE_COLORS

STARTUP = [
    ("first-use", "Connect a server when it is first used"),
    ("at-start", "Connect every active, trusted server when the app starts"),
]
THEMES = [("system", "Follow the system"), ("light", "Light"), ("dark", "Dark")]


def card(title: str, intro: str = "") -> tuple[QFrame, QVBoxLayout]:
    """A titled card and its column."""
    frame = QFrame()
    frame.setObjectName("Card")
    column = QVBoxLayout(frame)
    column.setContentsMargins(16, 12, 16, 14)
    column.setSpacing(8)
    heading = QLabel(title)
    heading.setObjectName("CardTitle")
    column.addWidget(heading)
    if intro:
        text = QLabel(intro)
        text.setObjectName("CardSubtitle")
        text.setWordWrap(True)
        column.addWidget(text)
    return frame, column


def _form() -> QFormLayout:
    form = QFormLayout()
    form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
    form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
    form.setHorizontalSpacing(14)
    return form


def _combo(options: list[tuple[str, str]]) -> QComboBox:
    box = QComboBox()
    box.setMinimumWidth(200)
    for value, label in options:
        box.addItem(label, value)
    return box


class ValuesSection(QWidget):
    """The editable settings (connections and appearance) as two cards.

    Signals:
        edited(): any value changed.
    """

    edited = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(10)
        frame, inner = card("Connections", "Used by every server that does not set its own (in its form).")
        form = _form()
        self.connect_timeout = self._seconds(1, 600, "Starting a server and its initialize handshake")
        form.addRow("Connect timeout", self.connect_timeout)
        self.call_timeout = self._seconds(1, 3600, "One tool call; the server is told to stop when it runs out")
        form.addRow("Tool call timeout", self.call_timeout)
        self.log_lines = QSpinBox()
        self.log_lines.setRange(50, 100_000)
        self.log_lines.setSingleStep(100)
        self.log_lines.setSuffix(" lines")
        self.log_lines.setMinimumWidth(120)
        self.log_lines.setToolTip("How much of each server's output (stderr, log messages) is kept")
        self.log_lines.valueChanged.connect(lambda *_: self.edited.emit())
        form.addRow("Log kept per server", self.log_lines)
        self.startup = _combo(STARTUP)
        self.startup.currentIndexChanged.connect(lambda *_: self.edited.emit())
        form.addRow("At start-up", self.startup)
        inner.addLayout(form)
        column.addWidget(frame)
        frame, inner = card("Appearance")
        form = _form()
        self.theme = _combo(THEMES)
        self.theme.currentIndexChanged.connect(lambda *_: self.edited.emit())
        form.addRow("Theme", self.theme)
        inner.addLayout(form)
        column.addWidget(frame)
        frame, inner = card("Registries", "Where the Browse page finds servers (ELFTIA_REGISTRY_URL overrides it).")
        form = _form()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)  # whole addresses in view
        self.registry_url = QLineEdit()
        self.registry_url.setToolTip("The MCP registry's base address, e.g. https://registry.modelcontextprotocol.io")
        self.registry_url.textEdited.connect(lambda *_: self.edited.emit())
        form.addRow("Registry", self.registry_url)
        self.extra_registries = QLineEdit()
        self.extra_registries.setPlaceholderText("https://mcp.example.org (an organisation's), separated by spaces")
        self.extra_registries.textEdited.connect(lambda *_: self.edited.emit())
        form.addRow("More registries", self.extra_registries)
        inner.addLayout(form)
        column.addWidget(frame)

    def _seconds(self, low: float, high: float, tip: str) -> QDoubleSpinBox:
        box = QDoubleSpinBox()
        box.setRange(low, high)
        box.setDecimals(0)
        box.setSuffix(" s")
        box.setMinimumWidth(120)
        box.setToolTip(tip)
        box.valueChanged.connect(lambda *_: self.edited.emit())
        return box

    def set_values(self, values: AppSettings) -> None:
        """Show saved values (no ``edited`` signal)."""
        widgets = (self.connect_timeout, self.call_timeout, self.log_lines, self.startup, self.theme)
        for widget in widgets:
            widget.blockSignals(True)
        self.connect_timeout.setValue(values.connect_timeout)
        self.call_timeout.setValue(values.call_timeout)
        self.log_lines.setValue(values.log_lines)
        self.startup.setCurrentIndex(max(0, self.startup.findData(values.startup)))
        self.theme.setCurrentIndex(max(0, self.theme.findData(values.theme)))
        self.registry_url.setText(values.registry_url)
        self.extra_registries.setText(" ".join(values.extra_registries))
        for widget in widgets:
            widget.blockSignals(False)

    def theme_mode(self) -> str:
        """The theme chosen: ``system``, ``light`` or ``dark``."""
        return str(self.theme.currentData())

    def _shown(self) -> tuple[object, ...]:
        return (
            self.connect_timeout.value(),
            self.call_timeout.value(),
            self.log_lines.value(),
            self.startup.currentData(),
            self.theme_mode(),
            self.registry_url.text().strip(),
            self.extra_registries.text().split(),
        )

    def differs(self, saved: AppSettings) -> bool:
        """True when a value shown is not the saved one (a setting not shown here is not compared)."""
        kept = (saved.connect_timeout, saved.call_timeout, saved.log_lines, saved.startup, saved.theme)
        return self._shown() != (*kept, saved.registry_url, saved.extra_registries)

    def values(self) -> SettingsSaveInput:
        """The values shown, as ``app:save-settings`` takes them (only these: the others keep their saved value).

        Raises ``pydantic.ValidationError`` naming each field whose value the settings do not take.
        """
        connect, call, lines, startup, theme, registry, extra = self._shown()
        return SettingsSaveInput.model_validate(  # JSON spelling: an error names the field as the file does
            {
                "connectTimeout": connect,
                "callTimeout": call,
                "logLines": lines,
                "startup": startup,
                "theme": theme,
                "registryUrl": registry,
                "extraRegistries": extra,
            }
        )


class PlacesSection(QWidget):
    """Where the config and data live, with Open Folder buttons.

    Signals:
        openFailed(str): a folder could not be shown; the message says which and why.
    """

    openFailed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._openers: list[QProcess] = []
        frame, column = card("Where your data lives")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(frame)
        self.grid = QGridLayout()
        self.grid.setColumnStretch(1, 1)
        self.grid.setHorizontalSpacing(12)
        column.addLayout(self.grid)
        self.paths: dict[str, QLabel] = {}

    def set_paths(self, paths: SettingsPaths) -> None:
        """Show the folders and files (``app:settings`` ``paths``)."""
        rows = [
            ("dataDir", "Data folder", True, paths.data_dir),
            ("configDir", "Private settings folder", True, paths.config_dir),
            ("configFile", "Server list", False, paths.config_file),
            ("settingsFile", "Settings", False, paths.settings_file),
            ("toolsDir", "Runtimes the app installed", False, paths.tools_dir),
        ]
        for index, (key, label, openable, path) in enumerate(rows):
            if key in self.paths:
                self.paths[key].setText(path)
                continue
            self.grid.addWidget(QLabel(f"<b>{label}</b>"), index, 0)
            value = QLabel(path)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            value.setWordWrap(True)
            self.paths[key] = value
            self.grid.addWidget(value, index, 1)
            if openable:
                button = QPushButton("Open folder")
                button.setToolTip(f"Show {path} in the file manager")
                button.clicked.connect(lambda _=False, k=key: self.open_folder(self.paths[k].text()))
                self.grid.addWidget(button, index, 2)

    def open_folder(self, path: str) -> None:
        """Open ``path`` in the desktop's file manager; ``openFailed`` says so when that does not work.

        On Linux ``xdg-open`` runs as a watched process (Qt would report success as soon as it started it).
        """
        opener = shutil.which("xdg-open") if sys.platform.startswith("linux") else None
        if opener is None:
            if not QDesktopServices.openUrl(QUrl.fromLocalFile(path)):
                self.openFailed.emit(f"{path} could not be opened: no file manager answered.")
            return
        process = QProcess(self)
        self._openers.append(process)

        def finished(code: int, _status: QProcess.ExitStatus) -> None:
            """Say why xdg-open failed, from its last line on stderr."""
            self._openers.remove(process)
            said = bytes(process.readAllStandardError().data()).decode(errors="replace").strip()
            if code != 0:
                detail = f": {said.splitlines()[-1]}" if said else ""
                self.openFailed.emit(f"{path} could not be opened (xdg-open exited with code {code}{detail}).")
            process.deleteLater()

        def failed(error: QProcess.ProcessError) -> None:
            """Say that xdg-open could not be started."""
            if error == QProcess.ProcessError.FailedToStart:
                self._openers.remove(process)
                self.openFailed.emit(f"{path} could not be opened: xdg-open did not start.")

        process.finished.connect(finished)
        process.errorOccurred.connect(failed)
        process.start(opener, [path])


def secrets_html(secrets: SecretsBackend) -> str:
    """Which backend keeps the secrets, and how to get a keyring when the file is used."""
    if secrets.uses_keyring:
        ok = STATE_COLORS["connected"]
        return (
            f"<span style='color:{ok}'><b>● OS keyring</b></span> ({escape(secrets.backend_name)}): "
            "secret env values and headers are kept there; the server list holds only references."
        )
    warn = STATE_COLORS["connecting"]
    help_html = escape(secrets.help or "").replace("\n", "<br>")
    return (
        f"<span style='color:{warn}'><b>● A file only you can read</b></span>: {escape(secrets.fallback_file)}<br>"
        f"No working OS keyring was found. {help_html}"
    )

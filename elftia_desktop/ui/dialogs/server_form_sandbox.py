"""The server form's Sandbox section (stdio): on or off, the paths it may read and write, its network.

Off by default for a server typed by hand (offered, with what it means); a preset or an
install link fills it with the profile it carries. Where no sandbox works (Windows, or Linux
without bubblewrap) the switch is disabled and the reason is said plainly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QLabel, QVBoxLayout, QWidget

from elftia_desktop.core.sandbox import sandbox_unavailable
from elftia_desktop.core.server_draft import SandboxDraft
from elftia_desktop.ui.widgets.list_editor import ListEditor

NETWORKS = [
    ("none", "No network"),
    ("loopback", "Only this computer (through its proxy)"),
    ("allow", "Only these hosts (through its proxy)"),
    ("any", "Any host"),
]
PROXY_NOTE = (
    "Through the proxy: HTTPS_PROXY is set inside, and NODE_USE_ENV_PROXY=1 for Node. Node 20's built-in fetch "
    "ignores both, so a server that uses it reaches no host here; Node 22.21+ and 24.5+ use the proxy."
)
"""Shown under the network choice while it goes through the sandbox's proxy."""


class SandboxSection(QWidget):
    """Run in a sandbox, May read, May write, Network (and its hosts).

    Signals:
        changed(): any of its fields changed.
    """

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.unavailable = sandbox_unavailable()
        self._was_set = False
        """A record or preset gave it a sandbox: saved even when switched off (so "off" is kept)."""
        self.enabled = QCheckBox("Run in a sandbox: only the files and network allowed below", self)
        self.enabled.setToolTip(
            "The system read-only, its own runtime and working folder, a private /tmp; the rest of your "
            "home folder, your other files and your environment are hidden from it"
        )
        self.note = QLabel(self)
        self.note.setObjectName("Muted")
        self.note.setWordWrap(True)
        self.read = ListEditor("Add a folder it may &read", "/path or ~/path", self)
        self.write = ListEditor("Add a folder it may &write", "/path or ~/path", self)
        self.net = QComboBox(self)
        for value, label in NETWORKS:
            self.net.addItem(label, value)
        self.net.setToolTip("Hosts it may reach; each refused host is shown in its log")
        self.hosts = ListEditor("Add a &host", "api.example.com:443", self)
        self.proxy_note = QLabel(PROXY_NOTE, self)
        self.proxy_note.setObjectName("Muted")
        self.proxy_note.setWordWrap(True)
        self.details = QWidget(self)
        rows = QFormLayout(self.details)
        rows.setContentsMargins(0, 0, 0, 0)
        rows.addRow("May read", self.read)
        rows.addRow("May write", self.write)
        rows.addRow("Network", self.net)
        rows.addRow("Hosts", self.hosts)
        rows.addRow("", self.proxy_note)
        self._rows = rows
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.enabled)
        column.addWidget(self.note)
        column.addWidget(self.details)
        for signal in (self.enabled.toggled, self.read.changed, self.write.changed, self.net.currentIndexChanged):
            signal.connect(self._on_change)
        self.hosts.changed.connect(self._on_change)
        self._show()

    def _on_change(self, *_args: object) -> None:
        self._show()
        self.changed.emit()

    def _show(self) -> None:
        on = self.enabled.isChecked()
        if self.unavailable is not None:
            self.enabled.setEnabled(on)  # a sandbox set elsewhere can still be turned off here
            self.note.setText(f"No sandbox here: {self.unavailable}. The server runs with all your rights.")
        else:
            self.note.setText(
                "" if on else "Off: the server runs with all your rights (your files, network, environment)."
            )
        self.note.setVisible(bool(self.note.text()))
        self.details.setVisible(on)
        self._rows.setRowVisible(self.hosts, self.net.currentData() == "allow")
        self._rows.setRowVisible(self.proxy_note, self.net.currentData() in ("loopback", "allow"))

    def value(self, fill: Callable[[str], str] | None = None) -> SandboxDraft | None:
        """The section as typed (``fill``: fills a preset's ``{key}`` in paths), or None when off and never set."""
        if not self.enabled.isChecked() and not self._was_set:
            return None
        filled = (lambda text: text) if fill is None else fill
        net = str(self.net.currentData())
        return SandboxDraft(
            enabled=self.enabled.isChecked(),
            allow_read=tuple(p for p in (filled(i) for i in self.read.items()) if p),
            allow_write=tuple(p for p in (filled(i) for i in self.write.items()) if p),
            net=net,
            allow_net=tuple(self.hosts.items()) if net == "allow" else (),
        )

    def set_value(self, sandbox: SandboxDraft | None, write_values: Sequence[str] = ()) -> None:
        """Show a record's or preset's sandbox (None: off); a preset's ``write_values`` become ``{key}`` paths."""
        self._was_set = sandbox is not None
        shown = sandbox or SandboxDraft(enabled=False)
        self.enabled.setChecked(shown.enabled)
        self.read.set_items(list(shown.allow_read))
        self.write.set_items([*shown.allow_write, *("{" + key + "}" for key in write_values)])
        self.net.setCurrentIndex(max(0, self.net.findData(shown.net)))
        self.hosts.set_items(list(shown.allow_net))
        self._show()

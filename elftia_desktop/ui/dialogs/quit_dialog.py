"""``QuitDialog``: other apps use Elftia's servers; quitting keeps them running in the background, or stops them.

It names each app (with its process id), the servers it uses and its calls running, so the
person knows whose tools would stop. "Don't ask again" saves the answer as the quit choice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from html import escape

from PySide6.QtWidgets import QCheckBox, QDialog, QDialogButtonBox, QLabel, QPushButton, QVBoxLayout, QWidget

from elftia_desktop.bridge.pool_host import PoolClient, QuitChoice


def describe(client: PoolClient, server_name: Callable[[str], str]) -> str:
    """One app's line: name and version, pid, the servers it uses and its calls running (HTML)."""
    servers = ", ".join(server_name(server_id) for server_id in client.servers) or "no server yet"
    line = f"<b>{escape(client.label)}</b> (process {client.pid or '?'}): {escape(servers)}"
    if client.calls_in_flight:
        line += f" — {client.calls_in_flight} call{'s' if client.calls_in_flight != 1 else ''} running"
    return line


class QuitDialog(QDialog):
    """Asks what happens to the servers other apps use when the window quits.

    After it closes, :attr:`choice` is ``keep``, ``stop`` or None (cancelled: the window stays),
    and :attr:`remember` whether "Don't ask again" was ticked.
    """

    def __init__(
        self, clients: Sequence[PoolClient], server_name: Callable[[str], str], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Other apps use Elftia's servers")
        self.setMinimumWidth(520)
        self.choice: QuitChoice | None = None
        layout = QVBoxLayout(self)
        count = len(clients)
        intro = QLabel(
            f"{count} app{'s' if count != 1 else ''} still use{'s' if count == 1 else ''} servers that "
            "this window runs:"
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.apps = QLabel("<br>".join(describe(c, server_name) for c in clients))
        self.apps.setWordWrap(True)
        layout.addWidget(self.apps)
        note = QLabel(
            "Keep them running: a background process serves the apps from now on (their next call reaches it); "
            "each server starts again there on its next use, so what it held in memory is lost. Stop them: the "
            "servers stop with Elftia, and an app's next call starts them again."
        )
        note.setObjectName("Muted")
        note.setWordWrap(True)
        layout.addWidget(note)
        self.dont_ask = QCheckBox("Don't ask again (change it on the Activity page)")
        layout.addWidget(self.dont_ask)
        buttons = QDialogButtonBox()
        self.keep_button = QPushButton("&Keep them running")
        self.keep_button.setObjectName("Primary")
        self.keep_button.setDefault(True)
        self.stop_button = QPushButton("&Stop them and quit")
        buttons.addButton(self.keep_button, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(self.stop_button, QDialogButtonBox.ButtonRole.DestructiveRole)
        buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.keep_button.clicked.connect(lambda: self._answer("keep"))
        self.stop_button.clicked.connect(lambda: self._answer("stop"))
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    @property
    def remember(self) -> bool:
        """Whether the answer is to be the quit choice from now on."""
        return self.dont_ask.isChecked()

    def _answer(self, choice: QuitChoice) -> None:
        self.choice = choice
        self.accept()

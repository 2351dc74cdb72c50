"""``GatewayPanel``: "Use in other apps" for one agent.

Pick an app; Install… shows the exact change to that app's config file as a diff and writes it
(the file is backed up first); Uninstall takes only Elftia's entry out again. The entry's JSON is
shown for copying by hand, and the HTTP way (command line, URL, bearer token) beside it.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from elftia_desktop.ui.error_presenter import show_error
from elftia_desktop.ui.widgets.notice_bar import NoticeBar

if TYPE_CHECKING:
    from elftia_desktop.bridge.errors import BridgeError
    from elftia_desktop.bridge.results import GatewayApp, GatewayChange, GatewayInfo
    from elftia_desktop.bridge.router import McpRouter


class DiffDialog(QDialog):
    """Shows the change to another app's config before it is written; OK writes it."""

    def __init__(self, title: str, summary: str, diff: str, action: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.resize(720, 440)
        layout = QVBoxLayout(self)
        label = QLabel(summary)
        label.setWordWrap(True)
        layout.addWidget(label)
        self.view = QPlainTextEdit(readOnly=True)
        self.view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.view.setPlainText(diff or "Nothing changes.")
        layout.addWidget(self.view, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText(action)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)


class GatewayPanel(QWidget):
    """Install the gateway for one agent into other MCP apps, or copy its entry.

    Signals:
        changed(str): an app's config was written (the app's id).
    """

    changed = Signal(str)

    def __init__(self, router: McpRouter, agent: str | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.router = router
        self.agent = agent
        self.info: GatewayInfo | None = None
        self._build()
        self.reload()

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(10)
        who = f"the agent {self.agent}" if self.agent else "every active server"
        intro = QLabel(
            f"Point other MCP apps at Elftia: one entry serves {who}. The servers' secrets stay in "
            "Elftia's secret store, and each app starts the servers only when it needs them."
        )
        intro.setWordWrap(True)
        intro.setObjectName("Muted")
        layout.addWidget(intro)
        self.notice = NoticeBar()
        layout.addWidget(self.notice)
        layout.addLayout(self._app_row())
        self.path = QLabel()
        self.path.setObjectName("Muted")
        self.path.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.path)
        self.hub = QCheckBox("Hub mode: two tools (find_tools, call_tool) instead of every tool, to save context")
        self.hub.toggled.connect(lambda _on: self.reload())
        layout.addWidget(self.hub)
        self.entry = QPlainTextEdit(readOnly=True)
        self.entry.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.entry.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.entry.setMinimumHeight(150)
        layout.addWidget(self.entry, 1)
        layout.addLayout(self._http_form())

    def _app_row(self) -> QHBoxLayout:
        row = QHBoxLayout()
        row.addWidget(QLabel("App:"))
        self.apps = QComboBox()
        self.apps.setMinimumWidth(220)
        self.apps.currentIndexChanged.connect(lambda _i: self._show_app())
        row.addWidget(self.apps, 1)
        self.install_button = QPushButton("&Install…")
        self.install_button.setObjectName("Primary")
        self.install_button.setToolTip("Show the change to the app's config file, then write it (a backup first)")
        self.install_button.clicked.connect(lambda: self._preview(remove=False))
        self.uninstall_button = QPushButton("&Uninstall…")
        self.uninstall_button.setToolTip("Take Elftia's entry out of the app's config (nothing else)")
        self.uninstall_button.clicked.connect(lambda: self._preview(remove=True))
        self.copy_button = QPushButton("&Copy JSON")
        self.copy_button.setToolTip("Copy the entry, to paste into the app's config by hand")
        self.copy_button.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.entry.toPlainText()))
        for button in (self.install_button, self.uninstall_button, self.copy_button):
            row.addWidget(button)
        return row

    def _http_form(self) -> QFormLayout:
        form = QFormLayout()
        form.setContentsMargins(0, 6, 0, 0)
        title = QLabel("Over HTTP (apps that connect to a URL)")
        title.setObjectName("CardTitle")
        form.addRow(title)
        self.http_command = QLineEdit(readOnly=True)
        form.addRow("Run:", self.http_command)
        self.http_url = QLineEdit(readOnly=True)
        form.addRow("URL:", self.http_url)
        token_row = QHBoxLayout()
        self.token = QLineEdit(readOnly=True)
        self.token.setEchoMode(QLineEdit.EchoMode.Password)
        token_row.addWidget(self.token, 1)
        self.show_token = QPushButton("Show")
        self.show_token.setCheckable(True)
        self.show_token.toggled.connect(self._toggle_token)
        copy_token = QPushButton("Copy")
        copy_token.setToolTip("Copy 'Authorization: Bearer …' for the app's headers")
        copy_token.clicked.connect(
            lambda: QGuiApplication.clipboard().setText(f"Authorization: Bearer {self.token.text()}")
        )
        self.new_token_button = QPushButton("New token")
        self.new_token_button.setToolTip("Make a new token; apps with the old one are refused from then on")
        self.new_token_button.clicked.connect(self._reset_token)
        for button in (self.show_token, copy_token, self.new_token_button):
            token_row.addWidget(button)
        form.addRow("Bearer token:", token_row)
        return form

    # -- data ----------------------------------------------------------------------------------

    def _target(self, **extra: object) -> dict[str, object]:
        return {"agent": self.agent, "hub": self.hub.isChecked()} | extra

    def reload(self) -> None:
        """Ask for the entries, the apps' files and the token."""
        self.router.gateway.info(self._target()).then(self, self._set_info, self.show_error)

    def _set_info(self, info: GatewayInfo) -> None:
        self.info = info
        current = self.apps.currentData()
        self.apps.blockSignals(True)
        self.apps.clear()
        for app in info.apps:
            self.apps.addItem(app.label + ("  (installed)" if app.installed else ""), app.id)
        index = self.apps.findData(current)
        self.apps.setCurrentIndex(max(index, 0))
        self.apps.blockSignals(False)
        self.http_command.setText(shlex.join(info.http_command))
        self.http_url.setText(info.http_url)
        self.token.setText(info.token)
        self._show_app()

    def current_app(self) -> GatewayApp | None:
        """The chosen app's row of ``gateway:info``."""
        return self.info.app(str(self.apps.currentData())) if self.info is not None else None

    def _show_app(self) -> None:
        app = self.current_app()
        if app is None:
            return
        self.entry.setPlainText(app.entry)
        self.path.setText(f"Config file: {app.path}")
        self.uninstall_button.setEnabled(app.installed)

    def _toggle_token(self, shown: bool) -> None:
        self.token.setEchoMode(QLineEdit.EchoMode.Normal if shown else QLineEdit.EchoMode.Password)
        self.show_token.setText("Hide" if shown else "Show")

    def _reset_token(self) -> None:
        def done(token: str) -> None:
            """Show the new token and say what to do with it."""
            self.token.setText(token)
            self.notice.show_message("A new token was made: give it to the apps that connect over HTTP.", "info")

        self.router.gateway.reset_token().then(self, done, self.show_error)

    # -- install / uninstall -------------------------------------------------------------------

    def _preview(self, remove: bool) -> None:
        app = self.current_app()
        if app is None:
            return
        self.router.gateway.preview(self._target(app=app.id, remove=remove)).then(
            self, lambda plan: self._confirm(plan, remove), self.show_error
        )

    def _confirm(self, plan: GatewayChange, remove: bool) -> None:
        verb = "Uninstall" if remove else "Install"
        summary = (
            f'{"Remove" if remove else "Write"} the entry "{plan.name}" {"from" if remove else "in"} '
            f"{plan.label}'s config {plan.path}. The file is backed up first."
        )
        for warning in plan.warnings:
            summary += f"\n{warning}"
        dialog = DiffDialog(f"{verb} in {plan.label}", summary, plan.diff, verb, self)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        self.router.gateway.apply(self._target(app=plan.app, remove=remove)).then(
            self, lambda result: self._applied(result, remove), self.show_error
        )

    def _applied(self, result: GatewayChange, remove: bool) -> None:
        done = "removed from" if remove else "written to"
        backup = f" Backup: {result.backup}" if result.backup else ""
        self.notice.show_message(
            f"Elftia's entry was {done} {result.label}'s config. Restart {result.label} to use it.{backup}",
            "success",
        )
        self.changed.emit(result.app)
        self.reload()

    def show_error(self, error: BridgeError) -> None:
        """Show a failed request in the panel's notice bar."""
        show_error(self.notice, error)

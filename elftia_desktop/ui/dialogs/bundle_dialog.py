"""``BundleDialog``: a ``.mcpb`` bundle's manifest (name, author, tools, signature), its
``user_config`` form and what it runs; Install unpacks it and adds the server untrusted."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

from elftia_desktop.ui.error_presenter import show_error
from elftia_desktop.ui.widgets.install_form import InstallFormView
from elftia_desktop.ui.widgets.notice_bar import NoticeBar

if TYPE_CHECKING:
    from elftia_desktop.bridge.errors import BridgeError
    from elftia_desktop.bridge.router import McpRouter
    from elftia_desktop.bridge.routes.registry import InstallForm
    from elftia_desktop.core.models import McpServerRecord


class BundleDialog(QDialog):
    """Install one bundle.

    Signals:
        added(object): the new (untrusted) server record.
    """

    added = Signal(object)

    def __init__(self, router: McpRouter, form: InstallForm, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.router = router
        self.bundle_form = form
        self.setWindowTitle(f"Install bundle: {form.title}")
        self.setMinimumWidth(560)
        column = QVBoxLayout(self)
        heading = QLabel(f"{form.title} {form.version}")
        heading.setObjectName("PageTitle")
        heading.setTextFormat(Qt.TextFormat.PlainText)
        column.addWidget(heading)
        self.notice = NoticeBar()
        column.addWidget(self.notice)
        self.form = InstallFormView()
        self.form.show_form(form)
        self.form.valuesChanged.connect(
            lambda: self.form.set_command(router.registry.preview(form.key, self.form.values()))
        )
        column.addWidget(self.form)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.install_button = buttons.addButton("Install", QDialogButtonBox.ButtonRole.AcceptRole)
        self.install_button.setObjectName("Primary")
        buttons.accepted.connect(self.install)
        buttons.rejected.connect(self.reject)
        column.addWidget(buttons)

    def install(self) -> None:
        """Unpack and add the server with the values given; errors stay in the dialog."""
        self.install_button.setEnabled(False)
        self.router.registry.install_bundle(
            self.bundle_form.key, self.form.name.text().strip(), self.form.values()
        ).then(self, self._done, self._failed)

    def _done(self, record: McpServerRecord) -> None:
        self.added.emit(record)
        self.accept()

    def _failed(self, error: BridgeError) -> None:
        self.install_button.setEnabled(True)
        show_error(self.notice, error)

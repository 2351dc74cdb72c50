"""``DependenciesPage``: every runtime servers are started with, found or not; install, cancel, uninstall."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from PySide6.QtCore import Slot
from PySide6.QtWidgets import QMessageBox, QPushButton, QWidget

from elftia_desktop.bridge.errors import BridgeError
from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.ui.error_presenter import show_error
from elftia_desktop.ui.pages.page_frame import FirstShow, PageFrame
from elftia_desktop.ui.widgets.runtime_card import RuntimeCard

if TYPE_CHECKING:
    from elftia_desktop.bridge.results import RuntimeView
    from elftia_desktop.core.models import DependencyInstallResult


class DependenciesPage(PageFrame):
    """The Dependencies page: one card per runtime of the table, re-checked after every install."""

    def __init__(self, router: McpRouter, parent: QWidget | None = None) -> None:
        super().__init__("Dependencies", parent)
        self.router = router
        self.cards: dict[str, RuntimeCard] = {}
        self.rows: list[RuntimeView] = []
        self.loaded = False
        self.checking = False
        """True while a check runs; a reload asked for meanwhile runs right after it."""
        self._again = False
        self._first_show = FirstShow(self, self.reload)
        self.recheck_button = QPushButton("&Check again")
        self.recheck_button.setToolTip("Look for every runtime again (after you installed one by hand)")
        self.recheck_button.clicked.connect(self.reload)
        self.header_actions.addWidget(self.recheck_button)
        scroll, self.card_column = self.card_scroll()
        self.body.addWidget(scroll, 1)
        router.signals.serversChanged.connect(self.reload)

    @Slot()
    def reload(self) -> None:
        """Check every runtime again (the page keeps showing the last result meanwhile)."""
        if not self._first_show.started:
            return
        if self.checking:
            self._again = True
            return
        self.checking = True
        self.recheck_button.setEnabled(False)
        self.summary.setText("Checking runtimes…" if not self.loaded else self.summary.text())
        self.router.deps.rows().then(self, self._show_rows, self._check_failed)

    def _checked(self) -> None:
        self.checking = False
        self.recheck_button.setEnabled(True)
        if self._again:
            self._again = False
            self.reload()

    def _show_rows(self, rows: list[RuntimeView]) -> None:
        self.loaded = True
        self.rows = rows
        self.recheck_button.setEnabled(True)
        for row in rows:
            card = self.cards.get(row.name)
            if card is None:
                card = self._new_card(row)
            else:
                card.update_row(row)
        found = sum(1 for r in rows if r.status == "ok")
        needed_missing = [r.title for r in rows if r.status != "ok" and r.needed_by]
        text = f"{found} of {len(rows)} runtimes found"
        if needed_missing:
            text += f" · missing for your servers: {', '.join(needed_missing)}"
        self.summary.setText(text)
        self._checked()

    def _new_card(self, row: RuntimeView) -> RuntimeCard:
        card = RuntimeCard(row)
        card.installRequested.connect(self._install)
        card.uninstallRequested.connect(self._uninstall)
        card.cancelRequested.connect(self._cancel)
        self.card_column.insertWidget(self.card_column.count() - 1, card)
        self.cards[row.name] = card
        return card

    def _card_for(self, command: str) -> RuntimeCard | None:
        return next((c for c in self.cards.values() if c.command == command), None)

    def _check_failed(self, error: BridgeError) -> None:
        self._checked()
        self._show_error(error)

    def _show_error(self, error: BridgeError) -> None:
        show_error(self.notice, error)

    # -- install / uninstall ------------------------------------------------------------------

    @Slot(str)
    def _install(self, command: str) -> None:
        card = self._card_for(command)
        if card is None:
            return
        card.start_install()
        self.notice.hide()

        def done(result: DependencyInstallResult) -> None:
            """Show the install's result on its card."""
            self._install_finished(card, result)

        def failed(error: BridgeError) -> None:
            """Show why the install failed."""
            card.finish_install(f"Failed: {error.message}")
            self._show_error(error)

        install = self.router.deps.install(command).progress(
            self, lambda report: card.add_progress(report.message or "")
        )
        install.then(self, done, failed)

    def _install_finished(self, card: RuntimeCard, result: DependencyInstallResult) -> None:
        title = card.row.title
        if result.success:
            version = f" {result.version}" if result.version else ""
            card.finish_install(f"Installed {title}{version} at {result.path}")
            self.notice.show_message(escape(f"{title}{version} is installed and ready for your servers."), "success")
        else:
            error = result.error or "the install failed"
            card.finish_install(error)
            details = "\n".join(result.log) + ("\n\n" + result.instructions if result.instructions else "")
            kind = "warning" if result.cancelled else "error"
            self.notice.show_message(escape(f"{title}: {error}"), kind, details.strip())
        self.reload()

    @Slot(str)
    def _cancel(self, command: str) -> None:
        def done(cancelled: bool) -> None:
            """Say so on the card when the install had already ended."""
            card = self._card_for(command)
            if not cancelled and card is not None:
                card.finish_install("Nothing to cancel: the install had already ended.")

        self.router.deps.cancel_install(command).then(self, done, self._show_error)

    @Slot(str)
    def _uninstall(self, command: str) -> None:
        card = self._card_for(command)
        if card is None:
            return
        title = card.row.title
        answer = QMessageBox.question(
            self,
            f"Uninstall {title}",
            f"Remove the {title} the app installed in its tools folder?\n"
            "Servers that start with it stop working until it is installed again.",
        )
        if answer != QMessageBox.StandardButton.Yes:
            return
        self.router.deps.uninstall(command).then(self, lambda r: self._uninstalled(title, r), self._show_error)

    def _uninstalled(self, title: str, result: DependencyInstallResult) -> None:
        if result.success:
            self.notice.show_message(
                escape(f"{title} was removed from the app's tools folder."), "success", "\n".join(result.log)
            )
        else:
            self.notice.show_message(escape(f"{title}: {result.error}"), "error")
        self.reload()

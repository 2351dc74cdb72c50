"""``BrowsePage``: find servers in the MCP registries (and the featured ones shipped with the app),
read an entry's details, fill its inputs and install it; "Install bundle…" opens a ``.mcpb`` file.

Search runs on every keystroke against the entries the bridge holds in memory; the registries
are refreshed in the background when the page is first shown and with Refresh. An entry's
``icons`` are shown before it, fetched, kept and drawn by the same code as the cards' icons
(``router.icons``), for the first :data:`ICON_ROWS` results of a search. Installed servers
arrive untrusted: the Servers page asks the user to review what they run.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QIcon, QImage, QPixmap, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from elftia_desktop.ui.error_presenter import show_error
from elftia_desktop.ui.pages.page_frame import PageFrame
from elftia_desktop.ui.widgets.inline_code import set_description
from elftia_desktop.ui.widgets.install_form import InstallFormView

if TYPE_CHECKING:
    from elftia_desktop.bridge.errors import BridgeError
    from elftia_desktop.bridge.router import McpRouter
    from elftia_desktop.bridge.routes.registry import EntryView, InstallForm
    from elftia_desktop.core.models import DependencyInstallResult, McpServerRecord

ICON_PIXELS = 20
"""The side of a row's icon (drawn at twice that: sharp on HiDPI), as on the server cards."""
ICON_ROWS = 100
"""Rows of a search whose icons are fetched (a narrower search fetches the others')."""


class BrowsePage(PageFrame):
    """The Browse page.

    Signals:
        installed(str): the id of a server just added (untrusted).
    """

    installed = Signal(str)

    def __init__(self, router: McpRouter, parent: QWidget | None = None) -> None:
        super().__init__("Browse", parent)
        self.router = router
        self.synced = False
        self.current: InstallForm | None = None
        self._chosen: str | None = None
        """The key of the entry chosen last: a plan that comes for an entry chosen before it is dropped."""
        self.views: list[EntryView] = []
        self.icons: dict[str, QImage] = {}
        """Entry key -> its icon, once drawn."""
        self._asked: set[str] = set()
        blank = QPixmap(ICON_PIXELS, ICON_PIXELS)
        blank.fill(Qt.GlobalColor.transparent)
        self._blank = QIcon(blank)
        """Rows without an icon keep its room, so every row's text starts at the same place."""
        refresh = QPushButton("Refresh")
        refresh.setToolTip("Fetch what changed in the registries since the last refresh")
        refresh.clicked.connect(self.sync)
        self.header_actions.addWidget(refresh)
        bundle = QPushButton("Install &bundle…")
        bundle.setToolTip("Install a .mcpb bundle file (Claude Desktop extensions)")
        bundle.clicked.connect(self.choose_bundle)
        self.header_actions.addWidget(bundle)
        self._build()
        self.search()

    def _build(self) -> None:
        row = QHBoxLayout()
        self.query = QLineEdit(placeholderText="Search servers by name or description…")
        self.query.setClearButtonEnabled(True)
        self.query.textChanged.connect(lambda _t: self.search())
        row.addWidget(self.query, 1)
        self.show_removed = QCheckBox("Show deprecated")
        self.show_removed.toggled.connect(lambda _on: self.search())
        row.addWidget(self.show_removed)
        self.body.addLayout(row)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        self.results = QListWidget()
        self.results.setAlternatingRowColors(True)
        self.results.setTextElideMode(Qt.TextElideMode.ElideRight)  # long lines end in "…"; no sideways scrolling
        self.results.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.results.setSpacing(2)
        self.results.setIconSize(QSize(ICON_PIXELS, ICON_PIXELS))
        self.results.currentRowChanged.connect(self._select)
        splitter.addWidget(self.results)
        splitter.addWidget(self._build_details())
        splitter.setSizes([420, 520])
        self.body.addWidget(splitter, 1)

    def _build_details(self) -> QWidget:
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        holder = QWidget()
        column = QVBoxLayout(holder)
        self.heading = QLabel("Choose a server on the left")
        self.heading.setObjectName("PageTitle")
        self.heading.setWordWrap(True)
        column.addWidget(self.heading)
        self.meta = QLabel()
        self.meta.setObjectName("Muted")
        self.meta.setWordWrap(True)
        self.meta.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        column.addWidget(self.meta)
        self.description = QLabel()
        self.description.setWordWrap(True)
        column.addWidget(self.description)
        for label in (self.heading, self.meta):
            label.setTextFormat(Qt.TextFormat.PlainText)  # registry text is never rendered as HTML
        self.form = InstallFormView()
        self.form.valuesChanged.connect(self._preview)
        self.form.hide()
        column.addWidget(self.form)
        self.install_button = QPushButton("Install")
        self.install_button.setObjectName("Primary")
        self.install_button.setToolTip("Add this server; it stays untrusted until you review what it runs")
        self.install_button.clicked.connect(self.install)
        self.install_button.hide()
        buttons = QHBoxLayout()
        self.runtime_button = QPushButton()
        self.runtime_button.setToolTip("Install the runtime this server starts with into the app's tools folder")
        self.runtime_button.clicked.connect(self.install_runtime)
        self.runtime_button.hide()
        buttons.addWidget(self.runtime_button)
        buttons.addWidget(self.install_button)
        buttons.addStretch(1)
        column.addLayout(buttons)
        column.addStretch(1)
        scroll.setWidget(holder)
        return scroll

    def showEvent(self, event: QShowEvent) -> None:
        """Refresh the registries the first time the page is shown."""
        super().showEvent(event)
        if not self.synced:
            self.sync()

    def sync(self) -> None:
        """Refresh every registry in the background, then search again."""
        self.synced = True
        self.summary.setText("Refreshing the registries…")
        self.router.registry.sync().then(self, self._synced, self.show_error)

    def _synced(self, problems: list[str]) -> None:
        if problems:
            self.notice.show_message("Some registries could not be refreshed.", "warning", "\n".join(problems))
        self.search()

    def search(self) -> None:
        """Show the entries matching the search box (from memory: no waiting)."""
        self.views = self.router.registry.search(self.query.text(), include_removed=self.show_removed.isChecked())
        self.results.blockSignals(True)
        self.results.clear()
        for view in self.views:
            status = "" if view.installable else f"  [{view.status_text[:80]}]"
            source = "featured" if view.source == "featured" else view.source.split("//")[-1]
            where = f"{source} · {view.runtime} · {view.transport}"
            text = f"{view.title}  {view.version}{status}\n{view.description[:90]}\n{where}"
            item = QListWidgetItem(self._icon_of(view, self.results.count() < ICON_ROWS), text)
            item.setToolTip(f"{view.name}\n{view.description}" + ("" if view.installable else f"\n{view.status_text}"))
            self.results.addItem(item)
        self.results.blockSignals(False)
        self.summary.setText(f"{len(self.views)} server{'s' if len(self.views) != 1 else ''} found")

    def _icon_of(self, view: EntryView, fetch: bool) -> QIcon:
        """The row's icon: drawn already, else blank (and asked for, once, when ``fetch``)."""
        image = self.icons.get(view.key)
        if image is not None:
            return QIcon(QPixmap.fromImage(image))
        if fetch and view.icons and view.key not in self._asked:
            self._asked.add(view.key)

            def drawn(image: QImage, key: str = view.key) -> None:
                """Put the drawn icon on its row."""
                self._set_icon(key, image)

            self.router.icons.image(view.icons).then(self, drawn)  # a failed icon: the row stays blank
        return self._blank

    def _set_icon(self, key: str, image: QImage) -> None:
        self.icons[key] = image
        for row, view in enumerate(self.views):
            item = self.results.item(row)
            if view.key == key and item is not None:
                item.setIcon(QIcon(QPixmap.fromImage(image)))

    def _select(self, row: int) -> None:
        if not 0 <= row < len(self.views):
            return
        view = self.views[row]
        self.heading.setText(view.title)
        self.meta.setText(
            f"{view.name} · version {view.version} · from {view.source} · {view.status_text}\n"
            f"Needs: {view.runtime} · transport: {view.transport}"
        )
        set_description(self.description, view.description)  # escaped: `code` spans only
        self.form.hide()
        self.install_button.hide()
        self.runtime_button.hide()
        self._chosen = view.key
        self.router.registry.prepare(view.key).then(self, self._show_form, self.show_error)

    def _show_form(self, form: InstallForm) -> None:
        if form.key != self._chosen:  # the plan of an entry chosen before, slower than the one chosen since
            return
        self.current = form
        self.form.show_form(form)
        self._preview()
        self.form.show()
        self.install_button.setText(f"Install {form.version}")
        self.install_button.show()
        self.runtime_button.setVisible(form.missing_runtime is not None)
        self.runtime_button.setEnabled(True)
        self.runtime_button.setText(f"Install {form.missing_runtime} first")

    def install_runtime(self) -> None:
        """Install the missing runtime (as the Dependencies page does), then check the entry again."""
        form = self.current
        if form is None or form.missing_runtime is None:
            return
        self.runtime_button.setEnabled(False)
        self.runtime_button.setText(f"Installing {form.missing_runtime}…")
        self.router.deps.install(form.missing_runtime).then(self, self._runtime_installed, self.show_error)

    def _runtime_installed(self, result: DependencyInstallResult) -> None:
        if not result.success:
            self.notice.show_message(escape(result.error or "The install failed", quote=False), "error")
        if self.current is not None:
            self.router.registry.prepare(self.current.key).then(self, self._show_form, self.show_error)

    def _preview(self) -> None:
        if self.current is not None:
            self.form.set_command(self.router.registry.preview(self.current.key, self.form.values()))

    def install(self) -> None:
        """Add the selected entry's server with the values given."""
        if self.current is None:
            return
        form = self.current
        self.router.registry.install(form.key, self.form.name.text().strip(), self.form.values()).then(
            self, self._added, self.show_error
        )

    def _added(self, record: McpServerRecord) -> None:
        name = escape(record.name, quote=False)
        text = f"Added {name}. It is not trusted yet: review what it runs on the Servers page."
        after = (self.current.post_install or "").strip() if self.current is not None else ""
        if after:  # the publisher's words, shown as text: nothing in them is run
            first = escape(after.splitlines()[0][:200], quote=False)
            text += f"<br>The publisher's post-install instructions (not run): {first}"
        self.notice.show_message(text, "success", after)
        self.installed.emit(record.id)

    def choose_bundle(self) -> None:
        """Pick a ``.mcpb`` file and open it in the bundle dialog."""
        path, _ = QFileDialog.getOpenFileName(self, "Install bundle", "", "MCP bundles (*.mcpb *.dxt)")
        if path:
            self.open_bundle(path)

    def open_bundle(self, path: str) -> None:
        """Read a bundle and show its manifest and form."""
        from elftia_desktop.ui.dialogs.bundle_dialog import BundleDialog

        def show(form: InstallForm) -> None:
            """Open the bundle dialog on the form that was read."""
            dialog = BundleDialog(self.router, form, self)
            dialog.added.connect(self._added)
            dialog.open()

        self.router.registry.open_bundle(path).then(self, show, self.show_error)

    def show_error(self, error: BridgeError) -> None:
        """Show a failure in the notice bar."""
        show_error(self.notice, error)

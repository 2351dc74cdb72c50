"""The main window: a sidebar of pages, the page stack and a status bar with a busy indicator."""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import partial

from PySide6.QtCore import QByteArray, QCoreApplication, QSettings, Qt, QUrl, Slot
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QProgressBar,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from elftia_desktop.bridge.errors import BridgeError
from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.bridge.signals import ApprovalQuestion, ElicitationRequest, ToolCalled
from elftia_desktop.core.url_elicitation import question_in
from elftia_desktop.ui.dialogs.approval_dialog import ask_approval
from elftia_desktop.ui.dialogs.elicitation_dialog import ElicitationDialog
from elftia_desktop.ui.dialogs.quit_dialog import QuitDialog
from elftia_desktop.ui.dialogs.url_elicitation_dialog import UrlElicitationDialog
from elftia_desktop.ui.pages.activity_page import QUIT_CHOICE_KEY, ActivityPage, saved_quit_choice
from elftia_desktop.ui.pages.agents_page import AgentsPage
from elftia_desktop.ui.pages.browse_page import BrowsePage
from elftia_desktop.ui.pages.dependencies_page import DependenciesPage
from elftia_desktop.ui.pages.import_export_page import ImportExportPage
from elftia_desktop.ui.pages.servers_page import McpServersPage
from elftia_desktop.ui.pages.settings_page import SettingsPage
from elftia_desktop.ui.server_flows import ServerFlows
from elftia_desktop.ui.theme import THEME_KEY

BUNDLE_SUFFIXES = (".mcpb", ".dxt")
"""Arguments that end with these are bundle files (open-with from the desktop)."""
LINK_SCHEME = "elftia:"
"""Arguments that start with this are install links (parsed and checked by the service layer)."""

PAGES = [
    ("servers", "Servers", "Your MCP servers: state, tools and actions"),
    ("agents", "Agents", "Which servers and tools each agent may use"),
    ("dependencies", "Dependencies", "Runtimes that servers need: Node, uv, Python, Docker …"),
    ("import", "Import / Export", "Bring servers from Claude, Cursor, VS Code and other apps, or send yours"),
    ("browse", "Browse", "Find servers in the MCP registry and install them, or install a .mcpb bundle"),
    ("activity", "Activity", "Which apps use your servers through Elftia, and what they call"),
    ("settings", "Settings", "Timeouts, start-up, theme, data folder and secrets"),
]


def bundle_argument(argument: str) -> str:
    """A bundle file argument as an absolute path (``file://`` URLs from the desktop too); others unchanged."""
    text = argument.strip()
    if not text.lower().endswith(BUNDLE_SUFFIXES):
        return argument
    if text.lower().startswith("file:"):
        return QUrl(text).toLocalFile()
    return os.path.abspath(text)


class MainWindow(QMainWindow):
    """The app's window; remembers its size and position in ``settings``."""

    def __init__(self, router: McpRouter, settings: QSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.router = router
        self.settings = settings
        self.setWindowTitle("Servers — Elftia")
        self.setMinimumSize(860, 560)

        central = QWidget()
        row = QHBoxLayout(central)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)
        row.addWidget(self._build_sidebar())
        self.stack = QStackedWidget()
        row.addWidget(self.stack, 1)
        self.setCentralWidget(central)

        self.servers_page = McpServersPage(router)
        self.flows = ServerFlows(router, self.servers_page, self)
        self.agents_page = AgentsPage(router)
        self.browse_page = BrowsePage(router)
        self.import_page = ImportExportPage(router)
        self.import_page.navigate.connect(self.show_page)
        self.settings_page = SettingsPage(router)
        self.settings_page.themeChanged.connect(lambda mode: self.settings.setValue(THEME_KEY, mode))
        self.activity_page = self._build_activity_page()
        self._quit_ready = False
        """The apps attached to the pool were dealt with (or none were): the next quit goes through."""
        self.pages: dict[str, QWidget] = {
            "servers": self.servers_page,
            "browse": self.browse_page,
            "agents": self.agents_page,
            "dependencies": DependenciesPage(router),
            "import": self.import_page,
            "activity": self.activity_page,
            "settings": self.settings_page,
        }
        for key, _, _ in PAGES:
            self.stack.addWidget(self.pages[key])
        self.servers_page.navigate.connect(self.show_page)

        self._build_status_bar()
        self._build_shortcuts()
        self.sidebar.setCurrentRow(0)
        self._restore_geometry()

    def _build_activity_page(self) -> ActivityPage:
        """The Activity page; its quit choice goes to the pool host (the saved one at once)."""
        page = ActivityPage(self.router, self.settings, self.server_name)
        page.quitChoiceChanged.connect(self.router.pool.set_quit_choice)
        self.router.pool.set_quit_choice(saved_quit_choice(self.settings))
        return page

    def _build_sidebar(self) -> QWidget:
        sidebar = QWidget()
        sidebar.setObjectName("Sidebar")
        sidebar.setFixedWidth(196)
        column = QVBoxLayout(sidebar)
        column.setContentsMargins(8, 18, 8, 12)
        brand = QLabel("Elftia")
        brand.setObjectName("PageTitle")
        brand.setContentsMargins(12, 0, 0, 8)
        column.addWidget(brand)
        self.sidebar = QListWidget()
        self.sidebar.setObjectName("SidebarList")
        for index, (key, label, tip) in enumerate(PAGES):
            item = QListWidgetItem(label)
            item.setData(Qt.ItemDataRole.UserRole, key)
            item.setToolTip(f"{tip} (Ctrl+{index + 1})")
            self.sidebar.addItem(item)
        self.sidebar.currentRowChanged.connect(self._page_changed)
        column.addWidget(self.sidebar, 1)
        return sidebar

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)
        self.busy.setMaximumWidth(120)
        self.busy.setMaximumHeight(12)
        self.busy.setTextVisible(False)
        self.busy.setToolTip("Working…")
        self.busy.hide()
        bar.addPermanentWidget(self.busy)
        self.router.signals.busyChanged.connect(self.busy.setVisible)
        self.router.signals.toolCalled.connect(self._on_tool_called)
        # only failures no page shows (the page's own notice says the others: no second copy down here)
        self.router.signals.unanswered.connect(self._on_unanswered)
        self.router.signals.elicitationRequested.connect(self._on_elicitation)
        self.router.signals.approvalRequested.connect(self._on_approval)

    def _build_shortcuts(self) -> None:
        self._shortcuts: list[QShortcut] = []
        for index in range(len(PAGES)):
            self._add_shortcut(QKeySequence(f"Ctrl+{index + 1}"), partial(self.sidebar.setCurrentRow, index))
        self._add_shortcut(QKeySequence(QKeySequence.StandardKey.New), self.flows.add_server)
        self._add_shortcut(QKeySequence(QKeySequence.StandardKey.Find), self._focus_filter)

    def _add_shortcut(self, keys: QKeySequence, action: Callable[[], object]) -> None:
        shortcut = QShortcut(keys, self)
        shortcut.activated.connect(action)
        self._shortcuts.append(shortcut)

    def _focus_filter(self) -> None:
        self.show_page("servers")
        self.servers_page.filter.setFocus()

    @Slot(int)
    def _page_changed(self, row: int) -> None:
        """Show the page of sidebar row ``row`` and name it in the window title."""
        self.stack.setCurrentIndex(row)
        if 0 <= row < len(PAGES):
            self.setWindowTitle(f"{PAGES[row][1]} — Elftia")

    @Slot(str)
    def show_page(self, key: str) -> None:
        """Switch to the page named ``key``."""
        keys = [k for k, _, _ in PAGES]
        if key in keys:
            self.sidebar.setCurrentRow(keys.index(key))

    @Slot(list)
    def handle_arguments(self, arguments: list[str]) -> None:
        """Come forward and open each ``elftia:`` install link among ``arguments`` in the add form."""
        if self.isMinimized():
            self.showNormal()
        self.raise_()
        self.activateWindow()
        for argument in arguments:
            if argument.strip().lower().endswith(BUNDLE_SUFFIXES):
                self.show_page("browse")
                self.browse_page.open_bundle(argument.strip())
            elif argument.strip().lower().startswith(LINK_SCHEME):
                self.show_page("servers")
                self.flows.open_link(argument.strip())

    @Slot(object)
    def _on_elicitation(self, request: ElicitationRequest) -> None:
        """A server asks for input: show its form; the answer goes back through the router."""
        record = self.servers_page.record(request.server_id)
        name = record.name if record else request.server_id
        asked_url = question_in(request.schema)  # URL mode: the domain shown, opened only on a click
        dialog: ElicitationDialog | UrlElicitationDialog = (
            UrlElicitationDialog(name, request.message, asked_url, self)
            if asked_url is not None
            else ElicitationDialog(name, request.message, request.schema or {}, self)
        )

        def answer(_code: int) -> None:
            """Send the person's answer (or decline, or cancel) back to the server."""
            if dialog.action == "accept":
                self.router.answer_elicitation(request.ticket, "accept", dialog.content())
            else:
                self.router.answer_elicitation(request.ticket, "decline" if dialog.action == "decline" else "cancel")

        dialog.finished.connect(answer)
        dialog.open()

    @Slot(object)
    def _on_approval(self, question: ApprovalQuestion) -> None:
        """A tool that is not auto-approved waits: ask (over any open modal dialog, such as Try)."""
        ask_approval(self.router, question, QApplication.activeModalWidget() or self)

    @Slot(int, str, object)
    def _on_unanswered(self, _ticket: int, _channel: str, error: BridgeError) -> None:
        """A failure no page shows, in the status bar (a slot of the window: it goes with the window)."""
        self.statusBar().showMessage(error.message, 8000)

    @Slot(object)
    def _on_tool_called(self, call: ToolCalled) -> None:
        if call.caller is not None:
            return  # another app's call (this window hosts the pool): the Activity page shows those
        outcome = "ok" if call.ok else "failed"
        self.statusBar().showMessage(f"Tool {call.tool_name} {outcome} in {call.duration_ms:.0f} ms", 5000)

    def _restore_geometry(self) -> None:
        geometry = self.settings.value("window/geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        else:
            self.resize(1040, 700)

    def server_name(self, server_id: str) -> str:
        """A server's name (its id when it is not in the list)."""
        record = self.servers_page.record(server_id)
        return record.name if record is not None else server_id

    # -- quitting ------------------------------------------------------------------------------

    @Slot()
    def request_quit(self) -> None:
        """Quit (Ctrl+Q), first dealing with the apps attached to the pool (asking, or as the setting says)."""
        if self._quit_guard():
            QCoreApplication.quit()

    def _quit_guard(self) -> bool:
        """True: quit now. False: the apps attached are being dealt with; the quit follows."""
        users = self.router.pool.state.users
        if self._quit_ready or not users:
            return True
        choice = saved_quit_choice(self.settings)
        if choice != "ask":
            self._hand_off(choice == "keep")
            return False
        dialog = QuitDialog(users, self.server_name, self)

        def answered(_code: int) -> None:
            """Hand over or stop as answered; a cancel keeps the window."""
            if dialog.choice is None:
                return
            if dialog.remember:
                self.settings.setValue(QUIT_CHOICE_KEY, dialog.choice)
            self._hand_off(dialog.choice == "keep")

        dialog.finished.connect(answered)
        dialog.open()
        return False

    def _hand_off(self, keep: bool) -> None:
        """Stop accepting apps (with ``keep``: their calls finish; a daemon takes over once the window is gone)."""
        self.statusBar().showMessage(
            "Letting the apps' calls finish; their servers go on in the background…" if keep else "Stopping…"
        )
        self.router.pool.prepare_quit(keep).then(self, lambda _none: self._quit_now(), lambda _error: self._quit_now())

    def _quit_now(self) -> None:
        self.allow_quit()
        QCoreApplication.quit()

    def allow_quit(self) -> None:
        """Let the next quit through without asking (a signal or the session's end cannot ask; Qt cancels a
        quit that a window's close refuses)."""
        self._quit_ready = True

    def closeEvent(self, event: QCloseEvent) -> None:
        """Remember the window's geometry, then close (after the quit guard: see :meth:`request_quit`)."""
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.sync()
        if not self._quit_guard():
            event.ignore()
            return
        super().closeEvent(event)

"""``ActivityPage``: which apps use Elftia's servers through the window's pool host, and what they call.

One row per attached client: the app (its ``clientInfo`` name and version), how it attached
(a gateway of an agent, the hub, or a command), its process, since when, the servers it called
and its calls in flight. Below: the pool's tasks (``TaskList``), and what quitting the window does
while apps are attached.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QSettings, Qt, Signal, Slot
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QHeaderView, QLabel, QTableWidget, QTableWidgetItem, QWidget

from elftia_desktop.bridge.pool_host import PoolClient, PoolState, QuitChoice
from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.ui.pages.page_frame import PageFrame
from elftia_desktop.ui.widgets.task_list import TaskList

QUIT_CHOICE_KEY = "pool/quitChoice"
"""Where the window's settings keep what quitting does while apps are attached."""
QUIT_CHOICES: list[tuple[QuitChoice, str]] = [
    ("ask", "Ask me"),
    ("keep", "Keep their servers running in the background"),
    ("stop", "Stop their servers"),
]
COLUMNS = ["App", "Attached as", "Process", "Since", "Servers it called", "Calls running"]


def saved_quit_choice(settings: QSettings) -> QuitChoice:
    """The saved quit choice (``ask`` when none or an unknown one is saved)."""
    value = str(settings.value(QUIT_CHOICE_KEY, "ask"))
    return next((choice for choice, _ in QUIT_CHOICES if choice == value), "ask")


def attached_as(client: PoolClient) -> str:
    """How a client attached, in words."""
    if client.role == "command":
        return "command line"
    kind = "HTTP gateway" if client.role == "http" else "gateway"
    if client.hub:
        return f"{kind} · hub"
    return f"{kind} · agent {client.agent}" if client.agent else f"{kind} · every active server"


class ActivityPage(PageFrame):
    """The Activity page (see the module docstring).

    Signals:
        quitChoiceChanged(str): the person chose what quitting does (``ask``, ``keep``, ``stop``).
    """

    quitChoiceChanged = Signal(str)

    def __init__(
        self,
        router: McpRouter,
        settings: QSettings,
        server_name: Callable[[str], str],
        parent: QWidget | None = None,
    ) -> None:
        """``server_name(id)``: the name of a server (the servers page knows them)."""
        super().__init__("Activity", parent)
        self.router = router
        self.settings = settings
        self.server_name = server_name
        self.state = router.pool.state
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.setAlternatingRowColors(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)
        self.body.addWidget(self.table, 1)
        self.empty = QLabel(
            'No app uses Elftia\'s servers right now. Apps you set up with "Use in other apps" on the Agents '
            'page, and "elftia-mcp call" in a terminal, show here while they are attached.'
        )
        self.empty.setObjectName("Muted")
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.body.addWidget(self.empty, 1)
        self.task_list = TaskList(router)  # the pool's tasks, running and ended (they outlive the window)
        self.body.addWidget(self.task_list, 1)
        self.body.addLayout(self._quit_row())
        router.signals.poolChanged.connect(self.show_state)
        self.show_state(self.state)

    def _quit_row(self) -> QHBoxLayout:
        row = QHBoxLayout()
        row.addWidget(QLabel("When you quit Elftia while apps use its servers:"))
        self.quit_choice = QComboBox()
        for choice, label in QUIT_CHOICES:
            self.quit_choice.addItem(label, choice)
        self.quit_choice.setCurrentIndex(self.quit_choice.findData(saved_quit_choice(self.settings)))
        self.quit_choice.setToolTip(
            "Keep: a background process serves the apps from now on; each server starts again there on its next use "
            "(what it held in memory is lost). Stop: the apps' next call starts their servers again."
        )
        self.quit_choice.currentIndexChanged.connect(self._choice_changed)
        row.addWidget(self.quit_choice)
        row.addStretch(1)
        return row

    def _choice_changed(self, _index: int) -> None:
        choice = str(self.quit_choice.currentData())
        self.settings.setValue(QUIT_CHOICE_KEY, choice)
        self.quitChoiceChanged.emit(choice)

    @Slot(object)
    def show_state(self, state: PoolState) -> None:
        """Show the attached clients and whether the window hosts the pool."""
        self.state = state
        users = state.users
        if state.hosting:
            apps = len({c.pid for c in users})
            self.summary.setText(
                f"Elftia shares its servers with other apps: {apps} app{'s' if apps != 1 else ''} attached"
            )
            self.summary.setToolTip(f"Apps attach through {state.socket}")
        else:
            self.summary.setText(state.problem or "Elftia does not share its servers with other apps")
            self.summary.setToolTip("")
        self.table.setRowCount(len(users))
        for row, client in enumerate(users):
            for column, text in enumerate(self._cells(client)):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                self.table.setItem(row, column, item)
        self.table.setVisible(bool(users))
        self.empty.setVisible(not users)

    def _cells(self, client: PoolClient) -> list[str]:
        servers = ", ".join(self.server_name(server_id) for server_id in client.servers) or "none yet"
        return [
            client.label,
            attached_as(client),
            str(client.pid) if client.pid is not None else "?",
            time.strftime("%H:%M:%S", time.localtime(client.since)),
            servers,
            str(client.calls_in_flight),
        ]

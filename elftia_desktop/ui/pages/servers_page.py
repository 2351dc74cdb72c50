"""``McpServersPage``: every configured server as a card with its live state and actions."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QImage
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from elftia_desktop.bridge.errors import BridgeError
from elftia_desktop.bridge.pool_host import PoolState
from elftia_desktop.bridge.results import LaunchInfo
from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.server_update import McpServerUpdate
from elftia_desktop.ui.dialogs.logs_dialog import LogsDialog
from elftia_desktop.ui.dialogs.tool_review_dialog import ToolReviewDialog
from elftia_desktop.ui.dialogs.trust_dialog import TrustDialog
from elftia_desktop.ui.error_presenter import show_error
from elftia_desktop.ui.pages.page_frame import FirstShow
from elftia_desktop.ui.pages.servers_actions import ServerActions
from elftia_desktop.ui.pages.servers_auth import ServerAuthActions
from elftia_desktop.ui.pages.servers_empty import empty_state
from elftia_desktop.ui.widgets.elided import ElidedLabel
from elftia_desktop.ui.widgets.fixed_space import steady_width
from elftia_desktop.ui.widgets.notice_bar import NoticeBar
from elftia_desktop.ui.widgets.sandbox_denials import DenialsBox, allow_denial
from elftia_desktop.ui.widgets.server_card import ServerCard

if TYPE_CHECKING:
    from elftia_desktop.bridge.results_explore import HeldTools
    from elftia_desktop.bridge.signals import ConnectionStateChanged
    from elftia_desktop.core.models import McpServerRecord, MCPTool


class McpServersPage(QWidget):
    """The servers page.

    Signals:
        addRequested(): the user wants the add form.
        pasteJsonRequested(): the user wants the paste-JSON dialog.
        discoverRequested(str): server id to open in the discover panel.
        editRequested(str): server id to edit.
        navigate(str): another page by name (presets, import).
    """

    addRequested = Signal()
    pasteJsonRequested = Signal()
    discoverRequested = Signal(str)
    editRequested = Signal(str)
    navigate = Signal(str)

    def __init__(self, router: McpRouter, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Page")
        self.router = router
        self.records: list[McpServerRecord] = []
        self.cards: dict[str, ServerCard] = {}
        self.states: dict[str, tuple[str, str]] = {}
        self._changed_since_snapshot: set[str] = set()
        """Servers whose state an event set after the last snapshot was asked for (the snapshot is older)."""
        self.protocols: dict[str, str] = {}
        self.icons: dict[str, QImage] = {}
        """The protocol each connected server agreed on (``2026-07-28``, ``handshake 2025-11-25``)."""
        self.tool_counts: dict[str, int] = {}
        self.held: dict[str, HeldTools] = {}
        """Server id -> ``{held, flagged, findings}``: tools held back since they changed, tools the lint flagged,
        what it found in them."""
        self.loaded = False
        self._build()
        self.auth = ServerAuthActions(self)
        self.server_actions = ServerActions(self)
        router.signals.serversChanged.connect(self.reload)
        router.signals.connectionStateChanged.connect(self._on_state)
        router.signals.serverIconChanged.connect(self._on_icon)
        router.signals.toolsChanged.connect(self._fetch_tool_count)
        router.activity.recorded.connect(self._on_activity)
        router.signals.poolChanged.connect(self._show_users)
        router.activity.blockedChanged.connect(self._on_blocked)
        self._first_show = FirstShow(self, self._first_load)

    def _first_load(self) -> None:
        self.router.app.notices().then(self, self._show_startup_notices)
        self.reload()

    # -- layout --------------------------------------------------------------------------------

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 20, 24, 16)
        layout.setSpacing(12)

        header = QHBoxLayout()
        titles = QVBoxLayout()
        title = QLabel("MCP Servers")
        title.setObjectName("PageTitle")
        titles.addWidget(title)
        self.summary = ElidedLabel(Qt.TextElideMode.ElideRight)  # a longer count moves nothing beside it
        self.summary.setObjectName("Muted")
        self.summary.set_full_text("Loading…")
        titles.addWidget(self.summary)
        header.addLayout(titles, 1)
        self.filter = QLineEdit(placeholderText="Filter servers…")
        self.filter.setClearButtonEnabled(True)
        self.filter.setFixedWidth(200)  # typing (and "· 1 shown" in the summary) never moves it
        self.filter.setToolTip("Show only servers whose name, command or URL contains this text (Ctrl+F)")
        self.filter.textChanged.connect(self._apply_filter)
        header.addWidget(self.filter)
        paste = QPushButton("Paste &JSON…")
        paste.setToolTip("Add servers from a JSON snippet (Claude Desktop, Cursor, VS Code … format)")
        paste.clicked.connect(self.pasteJsonRequested.emit)
        header.addWidget(paste)
        add = QPushButton("&Add server")
        add.setObjectName("Primary")
        add.setToolTip("Add a server from a preset or by hand (Ctrl+N)")
        add.clicked.connect(self.addRequested.emit)
        header.addWidget(add)
        layout.addLayout(header)

        self.secrets_banner = NoticeBar()
        layout.addWidget(self.secrets_banner)
        self.notice = NoticeBar()
        self.notice.float_over(self)

        self.card_scroll = QScrollArea()
        self.card_scroll.setObjectName("CardScroll")
        self.card_scroll.setWidgetResizable(True)
        self.card_scroll.setFrameShape(QFrame.Shape.NoFrame)
        holder = QWidget()
        holder.setObjectName("CardHolder")
        self.card_layout = QVBoxLayout(holder)
        self.card_layout.setContentsMargins(0, 0, 4, 0)
        self.card_layout.setSpacing(10)
        self.notice.keep_room_in(self.card_layout)
        self.card_layout.addStretch(1)
        self.card_scroll.setWidget(holder)
        steady_width(self.card_scroll, self.card_layout)  # a scroll bar that comes moves no card's controls
        layout.addWidget(self.card_scroll, 1)

        self.empty = empty_state(
            self.addRequested.emit, lambda: self.navigate.emit("import"), self.pasteJsonRequested.emit
        )
        layout.addWidget(self.empty, 1)
        self.empty.hide()

    # -- data ----------------------------------------------------------------------------------

    @Slot()
    def reload(self) -> None:
        """Fetch the server list and the live states."""
        self.router.servers.records().then(self, self._set_records, self.show_error)
        self._changed_since_snapshot.clear()
        self.router.servers.states().then(self, self._set_states)
        self._fetch_held()

    def _fetch_held(self) -> None:
        self.router.tool_review.held().then(self, self._set_held)

    def _set_held(self, held: dict[str, HeldTools]) -> None:
        self.held = dict(held)
        for server_id, card in self.cards.items():
            self._show_held(server_id, card)

    def _show_held(self, server_id: str, card: ServerCard) -> None:
        held = self.held.get(server_id)
        if held is None:
            card.set_held_tools([])
        else:
            card.set_held_tools(held.held, held.flagged, held.findings)

    def _set_records(self, records: list[McpServerRecord]) -> None:
        self.loaded = True
        self.records = list(records)
        seen = set()
        for index, record in enumerate(self.records):
            seen.add(record.id)
            card = self.cards.get(record.id)
            if card is None:
                card = ServerCard(record)
                card.actionRequested.connect(self._on_action)
                card.activeToggled.connect(self._on_toggle)
                self.cards[record.id] = card
            else:
                card.set_record(record)
            self.card_layout.insertWidget(index, card)
            state, error = self.states.get(record.id, ("disconnected", ""))
            card.set_state(state, error)
            card.set_protocol(self.protocols.get(record.id, ""))
            card.set_icon(self.icons.get(record.id))
            card.set_tool_count(self.tool_counts.get(record.id))
            self._show_held(record.id, card)
            card.set_activity(self.router.activity.calls(record.id))
            self._card_users(card, self.router.pool.state)
            self.auth.refresh(record)
        for server_id in list(self.cards):
            if server_id not in seen:
                self.cards.pop(server_id).deleteLater()
                self.router.activity.forget(server_id)
        self._apply_filter()
        if any(r.registry_origin is not None for r in self.records):
            self.router.registry.outdated().then(self, self._set_updates)

    def _set_updates(self, latest: dict[str, str]) -> None:
        """Show the "update available" badges (``{serverId: newer version}``)."""
        for server_id, card in self.cards.items():
            card.set_update(latest.get(server_id))

    def _set_states(self, states: dict[str, tuple[str, str]]) -> None:
        """The snapshot of every state; a state an event brought since it was asked for is newer and stays."""
        for server_id, (state, error) in states.items():
            if server_id not in self._changed_since_snapshot:
                self._show_state(server_id, state, error)

    @Slot(object)
    def _on_state(self, event: ConnectionStateChanged) -> None:
        self._changed_since_snapshot.add(event.server_id)
        self._show_state(event.server_id, event.state, event.reason or "")
        self._show_protocol(event.server_id, event.protocol or "")

    def _show_state(self, server_id: str, state: str, error: str) -> None:
        """Keep ``state`` and show it on the server's card (and what follows from it)."""
        self.states[server_id] = (state, error)
        card = self.cards.get(server_id)
        if card is not None:
            card.set_state(state, error)
        if state == "connected" and server_id not in self.tool_counts:
            self._fetch_tool_count(server_id)
        record = self.record(server_id)
        if record is not None and state != "connecting":
            self.auth.refresh(record)
        self._update_summary()

    def _show_protocol(self, server_id: str, protocol: str) -> None:
        self.protocols[server_id] = protocol
        card = self.cards.get(server_id)
        if card is not None:
            card.set_protocol(protocol)

    def _on_icon(self, server_id: str, image: QImage) -> None:
        self.icons[server_id] = image
        if server_id in self.cards:
            self.cards[server_id].set_icon(image)

    @Slot(str)
    def _fetch_tool_count(self, server_id: str) -> None:
        def done(tools: list[MCPTool]) -> None:
            """Show the number of tools on the server's card."""
            self.tool_counts[server_id] = len(tools)
            if server_id in self.cards:
                self.cards[server_id].set_tool_count(len(tools))
            self._fetch_held()  # the listing compared the tools with their pins

        self.router.tools.of_server(server_id).then(self, done)

    def _apply_filter(self) -> None:
        needle = self.filter.text().strip().lower()
        for card in self.cards.values():
            config = card.record.config
            haystack = " ".join([card.record.name, config.command or "", *config.args, config.url or ""]).lower()
            card.setVisible(not needle or needle in haystack)
        empty = self.loaded and not self.records
        self.empty.setVisible(empty)
        self.card_scroll.setVisible(not empty)
        self._update_summary()

    def _update_summary(self) -> None:
        total = len(self.records)
        connected = sum(1 for sid, (state, _) in self.states.items() if state == "connected" and sid in self.cards)
        shown = sum(1 for card in self.cards.values() if not card.isHidden())
        count = f"{total} server{'s' if total != 1 else ''}" if shown == total else f"{shown} of {total} shown"
        text = f"{count} · {connected} connected"
        self.summary.set_full_text(text)
        self.summary.setToolTip(text)

    def _show_startup_notices(self, notices: list[str]) -> None:
        if notices:
            self.secrets_banner.show_message("<br>".join(notices), "warning")

    # -- actions -------------------------------------------------------------------------------

    def record(self, server_id: str) -> McpServerRecord | None:
        """The shown record with that id."""
        return next((r for r in self.records if r.id == server_id), None)

    @Slot(str, bool)
    def _on_toggle(self, server_id: str, active: bool) -> None:
        record = self.record(server_id)
        if record is not None:
            failed = self.server_actions.failed_on(record)
            self.router.servers.update(server_id, McpServerUpdate(is_active=active)).then(self, on_error=failed)

    def drop_card(self, server_id: str) -> None:
        """Take a server that is no longer configured off the page (then ask for the list again)."""
        self._set_records([r for r in self.records if r.id != server_id])
        self.reload()

    @Slot(str, str)
    def _on_action(self, action: str, server_id: str) -> None:
        record = self.record(server_id)
        if record is None:
            return
        if action == "test":
            self.run_trusted(record, lambda: self.server_actions.test(record))
        elif action == "discover":
            self.run_trusted(record, lambda: self.discoverRequested.emit(server_id))
        elif action == "edit":
            self.editRequested.emit(server_id)
        elif action == "logs":
            LogsDialog(self.router, server_id, record.name, self).open()
        elif action == "remove":
            self.server_actions.confirm_remove(record)
        elif action == "trust":
            self.run_trusted(record, lambda: self.server_actions.test(record), always_ask=True)
        elif action == "sign-in":
            self.run_trusted(record, lambda: self.auth.sign_in(record))
        elif action == "sign-out":
            self.auth.sign_out(record)
        elif action == "review-tools":
            dialog = ToolReviewDialog(self.router, server_id, record.name, self)
            dialog.toolsAccepted.connect(lambda _names: self._fetch_held())
            dialog.open()
        elif action == "update":
            self.router.registry.update(server_id).then(self, on_error=self.server_actions.failed_on(record))
        elif action == "allow-blocked":
            self._allow_blocked(record)
        elif action == "activity":
            from elftia_desktop.ui.dialogs.discover_activity import ActivityDialog

            denials = DenialsBox(self.router, record)
            ActivityDialog(self.router.activity, server_id, record.name, self, denials).open()

    @Slot(str)
    def _on_blocked(self, server_id: str) -> None:
        """The card shows the latest of what the server's sandbox refused (the activity log keeps them)."""
        card = self.cards.get(server_id)
        if card is not None:
            card.clear_blocked()
            for what in self.router.activity.blocked(server_id):
                card.add_blocked(what)

    def _allow_blocked(self, record: McpServerRecord) -> None:
        """Allow the card's last denial in the server's sandbox and trust it with that (one click)."""
        card = self.cards[record.id]
        if not card.blocked or allow_denial(self.router, record, card.blocked[-1], self, self.show_error) is None:
            LogsDialog(self.router, record.id, record.name, self).open()  # nothing one click can allow: see why

    @Slot(object)
    def _show_users(self, state: PoolState) -> None:
        """Show on each card which other apps use the server (from the pool host's clients)."""
        for card in self.cards.values():
            self._card_users(card, state)

    @staticmethod
    def _card_users(card: ServerCard, state: PoolState) -> None:
        card.set_users([c.name for c in state.users_of(card.record.id)])

    @Slot(str)
    def _on_activity(self, server_id: str) -> None:
        card = self.cards.get(server_id)
        if card is not None:
            card.set_activity(self.router.activity.calls(server_id))

    def run_trusted(self, record: McpServerRecord, then: Callable[[], None], always_ask: bool = False) -> None:
        """Run ``then`` once the server is trusted, asking the user first when it is not."""

        def ask(info: LaunchInfo) -> None:
            """Run ``then`` at once, or after the person trusted the server."""
            if not info.needs_confirmation and not always_ask:
                then()
                return
            dialog = TrustDialog(info, self)
            if dialog.exec() == TrustDialog.DialogCode.Accepted:
                failed = self.server_actions.failed_on(record)
                self.router.servers.trust(record.id).then(self, lambda _: then(), failed)

        self.router.servers.launch_info(record.id).then(self, ask, self.server_actions.failed_on(record))

    def show_error(self, error: BridgeError) -> None:
        """Show a failed request with its reason and a Details button."""
        show_error(self.notice, error)

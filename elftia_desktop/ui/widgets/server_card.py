"""One server on the servers page: name, transport, scope, live state, tools, switch, actions.

Its recent tool calls show as a sparkline and a last-call badge; clicking the badge asks for
the server's Activity.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from elftia_desktop.ui.theme import STATE_COLORS
from elftia_desktop.ui.widgets.sparkline import Sparkline
from elftia_desktop.ui.widgets.state_badge import StateBadge
from elftia_desktop.ui.widgets.toggle_switch import ToggleSwitch

if TYPE_CHECKING:
    from collections.abc import Sequence

    from elftia_desktop.bridge.activity import CallRecord
    from elftia_desktop.core.models import McpAuthStatus, McpServerRecord

TRANSPORT_LABELS = {"stdio": "stdio", "sse": "SSE", "http": "Streamable HTTP"}
AUTH_ACTIONS = [
    ("sign-in", "Sign in", "Sign in to this server in the browser (OAuth); the tokens go to the keyring"),
    ("sign-out", "Sign out", "Forget this server's sign-in: its tokens are deleted from the keyring"),
]
ACTIONS = [
    ("test", "Test", "Connect and list the server's tools"),
    ("discover", "Discover", "Browse tools, prompts and resources; switch tools on or off"),
    ("edit", "Edit", "Change the server's settings"),
    ("logs", "Logs", "Show the server's output and protocol log"),
    ("remove", "Remove", "Remove the server and its stored secrets"),
]


class ServerCard(QFrame):
    """A card for one record.

    Signals:
        actionRequested(str, str): action name (test, discover, edit, logs, remove, trust, activity, sign-in,
            sign-out, review-tools), server id.
        activeToggled(str, bool): server id, new ``isActive``.
    """

    actionRequested = Signal(str, str)
    activeToggled = Signal(str, bool)

    def __init__(self, record: McpServerRecord, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Card")
        self.record = record
        self.tool_count: int | None = None
        self._subtitle_text = ""
        outer = QVBoxLayout(self)
        outer.setContentsMargins(16, 12, 16, 12)
        outer.setSpacing(6)

        top = QHBoxLayout()
        self.title = QLabel()
        self.title.setObjectName("CardTitle")
        top.addWidget(self.title)
        self.transport_chip = _chip()
        self.scope_chip = _chip()
        self.trust_chip = _chip()
        for chip in (self.transport_chip, self.scope_chip, self.trust_chip):
            top.addWidget(chip)
        top.addStretch(1)
        self.badge = StateBadge()
        top.addWidget(self.badge)
        top.addSpacing(12)
        self.switch = ToggleSwitch()
        self.switch.toggled.connect(lambda on: self.activeToggled.emit(self.record.id, on))
        top.addWidget(self.switch)
        outer.addLayout(top)

        self.subtitle = QLabel()
        self.subtitle.setObjectName("CardSubtitle")
        self.subtitle.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        outer.addWidget(self.subtitle)
        self.auth_label = QLabel()
        self.auth_label.setObjectName("Muted")
        self.auth_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        outer.addWidget(self.auth_label)
        self.changed_tools = QPushButton()
        self.changed_tools.setObjectName("ChangedTools")
        self.changed_tools.setToolTip(
            "These tools changed since you trusted the server; they are held back until you review them"
        )
        self.changed_tools.clicked.connect(lambda: self.actionRequested.emit("review-tools", self.record.id))
        self.changed_tools.hide()
        outer.addWidget(self.changed_tools, 0, Qt.AlignmentFlag.AlignLeft)

        row = QHBoxLayout()
        row.setSpacing(6)
        self.buttons: dict[str, QPushButton] = {}
        for name, label, tip in ACTIONS:
            button = QPushButton(label)
            button.setToolTip(tip)
            button.clicked.connect(lambda _=False, n=name: self.actionRequested.emit(n, self.record.id))
            row.addWidget(button)
            self.buttons[name] = button
        for name, label, tip in AUTH_ACTIONS:
            button = QPushButton(label)
            button.setObjectName("Primary" if name == "sign-in" else "")
            button.setToolTip(tip)
            button.clicked.connect(lambda _=False, n=name: self.actionRequested.emit(n, self.record.id))
            row.addWidget(button)
            self.buttons[name] = button
        row.addStretch(1)
        self._build_activity(row)
        self.review = QPushButton("Review and trust…")
        self.review.setToolTip("See exactly what this server runs before it starts")
        self.review.clicked.connect(lambda: self.actionRequested.emit("trust", self.record.id))
        row.addWidget(self.review)
        outer.addLayout(row)
        self.set_record(record)

    def _build_activity(self, row: QHBoxLayout) -> None:
        self.sparkline = Sparkline()
        self.sparkline.hide()
        self.last_call = QLabel()
        self.last_call.setObjectName("Muted")
        self.last_call.setToolTip("The latest tool call; click for the server's recent activity")
        self.last_call.linkActivated.connect(lambda _link: self.actionRequested.emit("activity", self.record.id))
        self.last_call.hide()
        row.addWidget(self.sparkline)
        row.addWidget(self.last_call)

    def set_record(self, record: McpServerRecord) -> None:
        """Show ``record``'s current fields."""
        self.record = record
        self.title.setText(record.name)
        self.transport_chip.setText(TRANSPORT_LABELS.get(record.type.value, record.type.value))
        self.scope_chip.setText("project" if record.scope.value == "local" else "user")
        self.scope_chip.setToolTip(record.project_path or "Available everywhere")
        self.trust_chip.setVisible(not record.is_trusted)
        self.trust_chip.setText("not trusted")
        self.trust_chip.setToolTip("Added from an import or pasted JSON: it will not start until you confirm it")
        self.review.setVisible(not record.is_trusted)
        self.switch.blockSignals(True)
        self.switch.setChecked(record.is_active)
        self.switch.blockSignals(False)
        self.switch.setToolTip("Disable this server" if record.is_active else "Enable this server")
        self.switch.setAccessibleName(f"{record.name} enabled")
        self._update_subtitle()
        self.set_auth(None)

    def set_auth(self, status: McpAuthStatus | None) -> None:
        """Show the OAuth sign-in (None: not known yet); hidden for servers without OAuth."""
        oauth = self.record.config.oauth
        machine = oauth is not None and oauth.grant_type == "client_credentials"
        signed_in = status is not None and status.signed_in
        self.auth_label.setVisible(oauth is not None)
        self.buttons["sign-in"].setVisible(oauth is not None and not machine and not signed_in)
        self.buttons["sign-out"].setVisible(oauth is not None and signed_in)
        if oauth is None:
            return
        if status is None:
            text = "sign-in"
        elif machine:
            text = "machine to machine (client credentials)" + (" · token stored" if signed_in else "")
        elif signed_in:
            text = "signed in" + (f" as {status.subject}" if status.subject else "")
            if status.scopes:
                text += f" · scopes: {' '.join(status.scopes)}"
        else:
            text = "not signed in"
        self.auth_label.setText(f"OAuth · {text}")
        self.auth_label.setToolTip("Tokens are kept in the system keyring, never in the config file")

    def set_held_tools(self, held: Sequence[str], flagged: Sequence[str] = ()) -> None:
        """Show the "Changed tools" banner for the tools held back, or the lint's flags of a first trust."""
        names = list(held or flagged)
        self.changed_tools.setVisible(bool(names))
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        if held:
            self.changed_tools.setText(f"⚠  Changed tools: {shown} — held back until you review them…")
        else:
            self.changed_tools.setText(f"⚠  Tool descriptions to check: {shown} — review…")

    def set_state(self, state: str, error: str = "") -> None:
        """Show the live connection state."""
        self.badge.set_state(state, error)

    def set_tool_count(self, count: int | None) -> None:
        """Show how many tools the server offers (None: unknown)."""
        self.tool_count = count
        self._update_subtitle()

    def set_activity(self, calls: Sequence[CallRecord]) -> None:
        """Show the server's recent calls (oldest first): sparkline and last-call badge."""
        self.sparkline.set_calls(calls)
        self.sparkline.setVisible(bool(calls))
        self.last_call.setVisible(bool(calls))
        if not calls:
            return
        last = calls[-1]
        took = f"{last.duration_ms:.0f} ms" if last.duration_ms < 1000 else f"{last.duration_ms / 1000:.1f} s"
        mark = "" if last.ok else f" <span style='color:{STATE_COLORS['error']}'>{last.outcome}</span>"
        when = time.strftime("%H:%M", time.localtime(last.at))
        self.last_call.setText(
            f"<a href='activity' style='color:inherit; text-decoration:none'>"
            f"last call: {last.tool_name} · {took}{mark} · {when}</a>"
        )
        bad = sum(1 for c in calls if not c.ok)
        self.sparkline.setToolTip(f"The last {len(calls[-30:])} calls by latency; {bad} of {len(calls)} not OK")

    def _update_subtitle(self) -> None:
        config = self.record.config
        target = (
            config.url or "" if self.record.type.value != "stdio" else " ".join([config.command or "", *config.args])
        )
        parts = [target]
        if self.tool_count is not None:
            parts.append(f"{self.tool_count} tool{'s' if self.tool_count != 1 else ''}")
        if self.record.disabled_tools:
            parts.append(f"{len(self.record.disabled_tools)} off")
        self._subtitle_text = "  ·  ".join(parts)
        self.subtitle.setToolTip(target)
        self._elide_subtitle()

    def _elide_subtitle(self) -> None:
        width = max(200, self.width() - 40)  # the card's inner width: never wider than the card
        metrics = self.subtitle.fontMetrics()
        self.subtitle.setText(metrics.elidedText(self._subtitle_text, Qt.TextElideMode.ElideMiddle, width))

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Re-elide the subtitle to the card's new width."""
        super().resizeEvent(event)
        self._elide_subtitle()


def _chip() -> QLabel:
    chip = QLabel()
    chip.setObjectName("Chip")
    return chip

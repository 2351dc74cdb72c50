"""One server on the servers page: name, transport, scope, sandbox, live state and protocol, tools, switch, actions.

Its recent tool calls show as a sparkline and a last-call badge; clicking the badge asks for
the server's Activity.
"""

from __future__ import annotations

from collections.abc import Sequence
from shlex import quote
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from elftia_desktop.core.sandbox import describe_sandbox, sandbox_unavailable
from elftia_desktop.core.trust import needs_confirmation
from elftia_desktop.ui.lint_words import findings_summary
from elftia_desktop.ui.secret_words import KEPT
from elftia_desktop.ui.theme import error_text_color, muted_text_color
from elftia_desktop.ui.widgets.elided import ElidedButton, ElidedLabel
from elftia_desktop.ui.widgets.fixed_space import keep_place
from elftia_desktop.ui.widgets.server_card_text import last_call_html, protocol_label
from elftia_desktop.ui.widgets.sparkline import Sparkline
from elftia_desktop.ui.widgets.state_badge import StateBadge
from elftia_desktop.ui.widgets.toggle_switch import ToggleSwitch

if TYPE_CHECKING:
    from elftia_desktop.bridge.signals import ToolCalled
    from elftia_desktop.core.models import McpAuthStatus, McpServerRecord
    from elftia_desktop.core.tool_pins import LintFinding

TRANSPORT_LABELS = {"stdio": "stdio", "sse": "SSE", "http": "Streamable HTTP"}
AUTH_ACTIONS = [
    ("sign-in", "Sign in", "Sign in to this server in the browser (OAuth); the tokens are kept with your secrets"),
    ("sign-out", "Sign out", "Forget this server's sign-in: its tokens are deleted from where your secrets are kept"),
]
ACTIONS = [
    ("test", "Test", "Connect and list the server's tools"),
    ("discover", "Discover", "Browse tools, prompts and resources; switch tools on or off"),
    ("edit", "Edit", "Change the server's settings"),
    ("logs", "Logs", "Show the server's output and protocol log"),
    ("remove", "Remove", "Remove the server and its stored secrets"),
]


UNTRUSTED_REASON = (
    "Added from an import, pasted JSON, a link, a registry or an edit of the config file outside the app: "
    "it does not start until you review what it runs and trust it (Trust…)"
)


class ServerCard(QFrame):
    """A card for one record.

    Signals:
        actionRequested(str, str): action name (test, discover, edit, logs, remove, trust, activity, sign-in,
            sign-out, update, review-tools, allow-blocked), server id.
        activeToggled(str, bool): server id, new ``isActive``.
    """

    actionRequested = Signal(str, str)
    activeToggled = Signal(str, bool)

    def __init__(self, record: McpServerRecord, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Card")
        self.record = record
        self.tool_count: int | None = None
        self._state = ("disconnected", "")
        self._last_call_color = ""
        outer = QVBoxLayout(self)
        outer.setContentsMargins(16, 12, 16, 12)
        outer.setSpacing(6)

        outer.addLayout(self._top_row())
        self._text_lines(outer)
        outer.addLayout(self._action_row())
        outer.addWidget(self._build_activity())
        self._late_lines(outer)  # below the buttons: a line that comes moves none of them under the pointer
        self._calls: Sequence[ToolCalled] = ()
        self.set_record(record)

    def _text_lines(self, outer: QVBoxLayout) -> None:
        """The command or URL and the protocol, a failure's reason (a line kept for it; all of it on hover), the
        sign-in line."""
        self.subtitle = ElidedLabel(Qt.TextElideMode.ElideMiddle)
        self.subtitle.setObjectName("CardSubtitle")
        self.subtitle.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.protocol = QLabel()  # beside the command, which shortens for it: the card never widens
        self.protocol.setObjectName("Muted")
        self.protocol.hide()
        line = QHBoxLayout()
        line.addWidget(self.subtitle, 1)
        line.addWidget(self.protocol)
        outer.addLayout(line)
        self.reason = ElidedLabel(Qt.TextElideMode.ElideRight)
        self.reason.setObjectName("FieldError")
        keep_place(self.reason)  # a Test's failure moves no card below under the pointer
        self.reason.hide()
        outer.addWidget(self.reason)
        self.auth_label = QLabel()
        self.auth_label.setObjectName("Muted")
        self.auth_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        outer.addWidget(self.auth_label)

    def _late_lines(self, outer: QVBoxLayout) -> None:
        """Lines that come and go while the card is used: the apps using it, tools to review, sandbox denials."""
        self.used_by = ElidedLabel(Qt.TextElideMode.ElideRight)
        self.used_by.setObjectName("Muted")
        self.used_by.hide()
        outer.addWidget(self.used_by)
        self.changed_tools = ElidedButton()
        self.changed_tools.setObjectName("ChangedTools")
        self.changed_tools.clicked.connect(lambda: self.actionRequested.emit("review-tools", self.record.id))
        self.changed_tools.hide()
        outer.addWidget(self.changed_tools, 0, Qt.AlignmentFlag.AlignLeft)
        self.blocked: list[str] = []
        """What the sandbox refused since the card was built (``network HOST:PORT (…)``, ``file PATH (…)``)."""
        self.blocked_button = ElidedButton()
        self.blocked_button.setObjectName("ChangedTools")
        self.blocked_button.setToolTip("Its sandbox refused this: click to allow it (the server is trusted with it)")
        self.blocked_button.clicked.connect(lambda: self.actionRequested.emit("allow-blocked", self.record.id))
        self.blocked_button.hide()
        outer.addWidget(self.blocked_button, 0, Qt.AlignmentFlag.AlignLeft)

    def _action_row(self) -> QHBoxLayout:
        """The action buttons, then (right) Update to … and Trust… when they apply."""
        row = QHBoxLayout()
        row.setSpacing(6)
        self.buttons: dict[str, QPushButton] = {}
        for name, label, tip in (*ACTIONS, *AUTH_ACTIONS):
            button = QPushButton(label)
            button.setObjectName("Primary" if name == "sign-in" else "")
            button.setToolTip(tip)
            button.clicked.connect(lambda _=False, n=name: self.actionRequested.emit(n, self.record.id))
            row.addWidget(button)
            self.buttons[name] = button
        row.addStretch(1)
        self.update_button = QPushButton()
        self.update_button.setObjectName("Primary")
        self.update_button.setToolTip("Re-pin to the registry's newer version, keeping your inputs (asks trust again)")
        self.update_button.clicked.connect(lambda: self.actionRequested.emit("update", self.record.id))
        self.update_button.hide()
        row.addWidget(self.update_button)
        self.review = QPushButton("Trust…")
        self.review.setObjectName("Primary")
        self.review.setToolTip("See exactly what this server runs, then trust it so it may start")
        self.review.clicked.connect(lambda: self.actionRequested.emit("trust", self.record.id))
        row.addWidget(self.review)
        return row

    def _top_row(self) -> QHBoxLayout:
        """The name, the transport, scope and trust chips, the state badge and the on/off switch."""
        top = QHBoxLayout()
        self.icon = QLabel()
        self.icon.setFixedSize(20, 20)
        self.icon.hide()
        top.addWidget(self.icon)
        self.title = ElidedLabel(Qt.TextElideMode.ElideRight)
        self.title.setObjectName("CardTitle")
        top.addWidget(self.title, 1)
        self.transport_chip = _chip()
        self.scope_chip = _chip()
        self.sandbox_chip = _chip()
        self.sandbox_chip.hide()
        self.update_chip = _chip()
        self.update_chip.hide()
        for chip in (self.transport_chip, self.scope_chip, self.sandbox_chip, self.update_chip):
            top.addWidget(chip)
        self.badge = StateBadge()
        top.addWidget(self.badge)
        top.addSpacing(12)
        self.switch = ToggleSwitch()
        self.switch.toggled.connect(lambda on: self.activeToggled.emit(self.record.id, on))
        top.addWidget(self.switch)
        return top

    def _build_activity(self) -> QWidget:
        """The sparkline and the last-call badge, on a line of their own so they never widen the card."""
        self.activity = QWidget()
        row = QHBoxLayout(self.activity)
        row.setContentsMargins(0, 0, 0, 0)
        self.sparkline = Sparkline()
        self.last_call = QLabel()
        self.last_call.setToolTip("The latest tool call; click for the server's recent activity")
        self.last_call.linkActivated.connect(lambda _link: self.actionRequested.emit("activity", self.record.id))
        self.last_call.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        row.addWidget(self.sparkline)
        row.addWidget(self.last_call, 1)
        keep_place(self.activity)  # the first call shows it without moving the cards below under the pointer
        self.activity.hide()
        return self.activity

    def set_record(self, record: McpServerRecord) -> None:
        """Show ``record``'s current fields."""
        self.record = record
        self.title.set_full_text(record.name)
        self.title.setToolTip(record.name)
        self.transport_chip.setText(TRANSPORT_LABELS.get(record.type.value, record.type.value))
        self.scope_chip.setText("project" if record.scope.value == "local" else "user")
        self.scope_chip.setToolTip(record.project_path or "Available everywhere")
        self._show_sandbox(record)
        self.review.setVisible(needs_confirmation(record))
        self.switch.blockSignals(True)
        self.switch.setChecked(record.is_active)
        self.switch.blockSignals(False)
        self.switch.setToolTip("Disable this server" if record.is_active else "Enable this server")
        self.switch.setAccessibleName(f"{record.name} enabled")
        self._update_subtitle()
        self.set_state(*self._state)
        self.set_auth(None)

    def _show_sandbox(self, record: McpServerRecord) -> None:
        """The sandbox chip of a stdio server that has a profile switched on, its profile in the tooltip."""
        sandbox = record.sandbox
        shown = record.type.value == "stdio" and sandbox is not None and sandbox.enabled
        self.sandbox_chip.setVisible(shown)
        if not shown:
            return
        missing = sandbox_unavailable()
        self.sandbox_chip.setText("sandboxed" if missing is None else "no sandbox here")
        rows = describe_sandbox(sandbox, missing)
        self.sandbox_chip.setToolTip("\n".join(f"{label}: {value}" for label, value in rows))

    def set_update(self, latest: str | None) -> None:
        """Show the "update available" badge for a registry server with a newer version (None: hide it)."""
        origin = self.record.registry_origin
        self.update_chip.setVisible(latest is not None)
        self.update_button.setVisible(latest is not None)
        if latest is not None and origin is not None:
            self.update_chip.setText(f"update available: {latest}")
            self.update_chip.setToolTip(f"{origin.name} {origin.version} is installed; {latest} is published")
            self.update_button.setText(f"Update to {latest}")

    def set_auth(self, status: McpAuthStatus | None) -> None:
        """Show the OAuth sign-in (None: not known yet): when configured, or discovered (a challenge, tokens)."""
        oauth = self.record.config.oauth
        machine = oauth is not None and oauth.grant_type == "client_credentials"
        signed_in = status is not None and status.signed_in
        asked = status is not None and status.oauth and status.state.value == "auth_required"
        shown = oauth is not None or signed_in or asked
        self.auth_label.setVisible(shown)
        self.buttons["sign-in"].setVisible(shown and not machine and not signed_in)
        self.buttons["sign-out"].setVisible(shown and signed_in)
        if not shown:
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
        self.auth_label.setToolTip(f"Tokens are {KEPT}")

    def set_users(self, apps: Sequence[str]) -> None:
        """Show which other apps use this server through Elftia (``apps``: their names)."""
        unique = list(dict.fromkeys(apps))
        self.used_by.setVisible(bool(unique))
        text = f"Used by {', '.join(unique)}"
        self.used_by.set_full_text(text)
        self.used_by.setToolTip(f"{text} (see the Activity page)")

    def set_held_tools(
        self, held: Sequence[str], flagged: Sequence[str] = (), findings: Sequence[LintFinding] = ()
    ) -> None:
        """Show the banner for the tools held back, or for the lint's flags of a first trust (``findings``:
        what it found; the banner says it)."""
        names = list(held or flagged)
        self.changed_tools.setVisible(bool(names))
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        command = f"elftia-mcp review {quote(self.record.name)}"
        if held:
            count = f"{len(names)} tool{'s' if len(names) != 1 else ''}"
            text = f"⚠  {count} held back, changed since you trusted it: {shown} — Review…"
            tip = "These tools changed since you trusted the server; they are held back until you review them"
        elif findings:
            text, tip = f"⚠  To check: {findings_summary(findings)} — review…", "To check before you use them"
        else:
            text, tip = f"⚠  Tool descriptions to check: {shown} — review…", "To check before you use them"
        self.changed_tools.set_full_text(text)
        self.changed_tools.setToolTip(f"{text.removeprefix('⚠  ')}\n\n{tip} (here, or in a terminal: {command})")

    def add_blocked(self, what: str) -> None:
        """Show the last thing the sandbox refused (``what``: a log line's text after ``[sandbox] blocked:``)."""
        self.blocked.append(what)
        more = f" (+{len(self.blocked) - 1} more in Activity)" if len(self.blocked) > 1 else ""
        self.blocked_button.set_full_text(f"⛔  Sandbox blocked {what}{more} — allow…")
        self.blocked_button.show()

    def clear_blocked(self) -> None:
        """Forget the shown denials (after they were allowed)."""
        self.blocked.clear()
        self.blocked_button.hide()

    def set_state(self, state: str, error: str = "") -> None:
        """Show the live connection state; an untrusted server shows that it needs trust instead.

        ``error``: why the server failed, without its name (the card shows the name).
        """
        self._state = (state, error)
        untrusted = needs_confirmation(self.record)
        if untrusted:
            self.badge.set_state("untrusted", UNTRUSTED_REASON)
        else:
            self.badge.set_state(state, error)
        shown = "" if untrusted or state not in ("error", "auth_required") else error
        first_line = shown.splitlines()[0] if shown else ""
        self.reason.set_full_text(first_line)  # one line; the whole reason on hover and in Logs
        self.reason.setToolTip(shown)
        self.reason.setVisible(bool(shown))

    def set_icon(self, image: QImage | None) -> None:
        """Show the server's icon before its name (None: no icon); drawn at 20 px, sharp on HiDPI."""
        self.icon.setVisible(image is not None)
        if image is None:
            return
        pixmap = QPixmap.fromImage(image)
        pixmap.setDevicePixelRatio(max(1.0, image.width() / 20))
        self.icon.setPixmap(pixmap)
        self.icon.setAccessibleName(f"Icon of {self.record.name}")

    def set_protocol(self, text: str) -> None:
        """Show the protocol the connection agreed on after the command ("": none, hidden), and the
        server's extensions after a dot.

        ``text``: ``2026-07-28``, or ``handshake 2025-11-25`` for the initialize handshake era, then
        ``" · apps, skills"`` when the server declared extensions."""
        label = protocol_label(text)
        self.protocol.setText(label.shown)
        self.protocol.setVisible(bool(label.shown))
        self.protocol.setToolTip(label.tip)
        self.protocol.setAccessibleName(label.accessible)

    def set_tool_count(self, count: int | None) -> None:
        """Show how many tools the server offers (None: unknown)."""
        self.tool_count = count
        self._update_subtitle()

    def set_activity(self, calls: Sequence[ToolCalled]) -> None:
        """Show the server's recent calls (oldest first): sparkline and last-call badge."""
        self._calls = calls
        self.sparkline.set_calls(calls)
        self.activity.setVisible(bool(calls))
        if not calls:
            return
        self._show_last_call()
        bad = sum(1 for c in calls if not c.ok)
        self.sparkline.setToolTip(f"The last {len(calls[-30:])} calls by latency; {bad} of {len(calls)} not OK")

    def _show_last_call(self) -> None:
        """The last-call badge in the palette's own colours (it follows a theme switch)."""
        palette = QApplication.palette()
        self._last_call_color = muted_text_color(palette).name()
        self.last_call.setText(last_call_html(self._calls[-1], self._last_call_color, error_text_color(palette)))

    def changeEvent(self, event: QEvent) -> None:
        """Re-colour the last-call badge when the theme switches."""
        super().changeEvent(event)
        if (
            event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange)
            and self._calls
            and self._last_call_color != muted_text_color(QApplication.palette()).name()
        ):
            self._show_last_call()

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
        self.subtitle.set_full_text("  ·  ".join(parts))
        self.subtitle.setToolTip(target)


def _chip() -> QLabel:
    chip = QLabel()
    chip.setObjectName("Chip")
    return chip

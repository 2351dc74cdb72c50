"""Issue 33: what a server's sandbox blocked shows in its Activity, each with one click to allow it and re-trust.

The denials come from the server's log (``logLine``, ``[sandbox] blocked: …``) into the router's activity
log; the Activity dialog (the card's) and Discover's Activity tab list them with an Allow button that
loosens the saved profile by exactly that denial and trusts the server with it.
"""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.activity import BLOCKED_PER_SERVER, ActivityLog
from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.models import McpServerInput, McpServerRecord
from elftia_desktop.core.sandbox import BLOCKED_PREFIX, McpSandbox
from elftia_desktop.ui.dialogs.discover_activity import ActivityDialog
from elftia_desktop.ui.dialogs.discover_dialog import DiscoverDialog
from elftia_desktop.ui.pages.servers_page import McpServersPage
from elftia_desktop.ui.widgets.sandbox_denials import DenialsBox
from tests.helpers.live_router import add_servers

HOST = "network api.github.com:443 (not allowed)"
FILE = "file /home/ann/.gitconfig (outside the sandbox)"
NO_NET = "network (the sandbox has no network: [Errno 101] Network is unreachable)"


def test_the_activity_log_keeps_only_denials_latest_last_without_repeats() -> None:
    log = ActivityLog()
    log.note_log_line("s", "an ordinary stderr line")
    log.note_log_line("s", BLOCKED_PREFIX + HOST)
    log.note_log_line("s", BLOCKED_PREFIX + FILE)
    log.note_log_line("s", BLOCKED_PREFIX + HOST)
    assert log.blocked("s") == [FILE, HOST] and log.blocked("other") == []
    for n in range(BLOCKED_PER_SERVER + 5):
        log.note_log_line("s", f"{BLOCKED_PREFIX}file /x/{n} (not allowed)")
    assert len(log.blocked("s")) == BLOCKED_PER_SERVER
    log.clear_blocked("s", f"file /x/{BLOCKED_PER_SERVER + 4} (not allowed)")
    assert f"file /x/{BLOCKED_PER_SERVER + 4} (not allowed)" not in log.blocked("s")
    log.forget("s")
    assert log.blocked("s") == []


def _saved(page: McpServersPage, server_id: str) -> McpSandbox:
    """The server's sandbox profile as the page has it (saved and reloaded)."""
    record = page.record(server_id)
    assert record is not None and record.sandbox is not None
    return record.sandbox


def test_activity_lists_denials_and_each_allow_loosens_the_profile_and_trusts(qtbot: QtBot, router: McpRouter) -> None:
    (record,) = add_servers(
        McpServerInput(
            name="files", config={"command": "npx", "args": ["-y", "srv"]}, sandbox={"net": "none"}, is_active=False
        )
    )
    assert not record.is_trusted
    page = McpServersPage(router)
    qtbot.addWidget(page)
    page.show()
    qtbot.waitUntil(lambda: record.id in page.cards, timeout=30_000)
    for what in (HOST, FILE, NO_NET):
        router.signals.logLine.emit(record.id, BLOCKED_PREFIX + what)
    router.signals.logLine.emit(record.id, "npm notice: not a denial")
    page._on_action("activity", record.id)
    dialog = page.findChild(ActivityDialog)
    assert dialog is not None and isinstance(dialog.panel.denials, DenialsBox)
    box = dialog.panel.denials
    qtbot.waitUntil(box.isVisible, timeout=10_000)
    assert set(box.buttons) == {HOST, FILE}  # nothing one click can allow for "no network": no button
    assert page.cards[record.id].blocked[-1] == NO_NET  # the card shows the latest too
    box.buttons[HOST].click()
    qtbot.waitUntil(lambda: _saved(page, record.id).allow_net == ["api.github.com:443"], timeout=30_000)
    assert set(box.buttons) == {FILE} and HOST not in page.cards[record.id].blocked
    box.buttons[FILE].click()  # builds on the first allowance, not on the profile shown at first
    qtbot.waitUntil(lambda: _saved(page, record.id).allow_read == ["/home/ann/.gitconfig"], timeout=30_000)
    saved = page.record(record.id)
    assert saved is not None and saved.sandbox is not None and saved.is_trusted
    assert saved.sandbox.net == "allow" and saved.sandbox.allow_net == ["api.github.com:443"]
    assert box.buttons == {} and router.activity.blocked(record.id) == [NO_NET]
    dialog.close()


def test_an_allow_that_cannot_be_saved_says_so_in_the_box(qtbot: QtBot, router: McpRouter) -> None:
    gone = McpServerRecord(name="gone", type="stdio", config={"command": "npx"}, sandbox={"net": "none"})
    router.activity.note_log_line(gone.id, BLOCKED_PREFIX + FILE)  # a server removed meanwhile: not in the store
    box = DenialsBox(router, gone)
    qtbot.addWidget(box)
    box.show()
    box.buttons[FILE].click()
    qtbot.waitUntil(box.error.isVisible, timeout=30_000)
    assert box.error.text().startswith("Could not allow it: ")


def test_discovers_activity_tab_lists_the_denials_too(qtbot: QtBot, router: McpRouter) -> None:
    (record,) = add_servers(
        McpServerInput(name="files", config={"command": "npx"}, sandbox={"net": "none"}, is_active=False)
    )
    router.signals.logLine.emit(record.id, BLOCKED_PREFIX + FILE)
    dialog = DiscoverDialog(router, record)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.show_tab("activity")
    box = dialog.activity.denials
    assert isinstance(box, DenialsBox) and box.isVisible() and set(box.buttons) == {FILE}
    router.signals.logLine.emit(record.id, BLOCKED_PREFIX + HOST)
    assert set(box.buttons) == {FILE, HOST}  # it follows the log live

"""The servers page against the real services and real MCP test servers."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QDialog, QLabel, QMessageBox, QPushButton
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.secrets import SecretVault
from elftia_desktop.ui.dialogs.logs_dialog import LogsDialog
from elftia_desktop.ui.dialogs.trust_dialog import TrustDialog
from elftia_desktop.ui.pages.servers_page import McpServersPage
from tests.helpers.live_router import add_servers, server_input, settle
from tests.helpers.modal import when_modal

pytestmark = pytest.mark.usefixtures("memory_servers")

WAIT = 30_000


def stored(name: str):  # type: ignore[no-untyped-def]
    return ServerCatalog(ConfigStore(), SecretVault()).find(name)


def open_page(qtbot: QtBot, router: McpRouter, count: int) -> McpServersPage:
    page = McpServersPage(router)
    qtbot.addWidget(page)
    page.resize(1000, 700)
    page.show()
    qtbot.waitUntil(lambda: len(page.cards) == count, timeout=WAIT)
    return page


def test_cards_show_each_server_and_filter(qtbot: QtBot, router: McpRouter) -> None:
    add_servers(server_input("Alpha"), server_input("Beta", module="paginated"))
    page = open_page(qtbot, router, 2)
    assert [c.title.text() for c in page.cards.values()] == ["Alpha", "Beta"]
    assert page.summary.full_text == "2 servers · 0 connected"
    page.filter.setText("pagin")
    assert page.cards[stored("Alpha").id].isHidden() and not page.cards[stored("Beta").id].isHidden()
    assert page.summary.full_text == "1 of 2 shown · 0 connected"


def test_empty_state_points_to_presets_and_import(qtbot: QtBot, router: McpRouter) -> None:
    ConfigStore().mutate(lambda records: None)  # an existing, empty config: no first-run servers
    page = open_page(qtbot, router, 0)
    qtbot.waitUntil(lambda: page.empty.isVisible(), timeout=WAIT)
    labels = {b.text() for b in page.empty.findChildren(QPushButton)}
    assert labels == {"Browse presets", "Import from other apps", "Paste JSON"}
    with qtbot.waitSignal(page.navigate) as signal:
        next(b for b in page.empty.findChildren(QPushButton) if b.text() == "Import from other apps").click()
    assert signal.args == ["import"]


def test_test_button_connects_and_shows_tools(qtbot: QtBot, router: McpRouter) -> None:
    (record,) = add_servers(server_input("Echo"))
    page = open_page(qtbot, router, 1)
    card = page.cards[record.id]
    card.buttons["test"].click()
    qtbot.waitUntil(lambda: page.notice.isVisible() and "works" in page.notice.label.text(), timeout=WAIT)
    assert page.notice.kind == "success" and "echo" in page.notice.label.text()
    qtbot.waitUntil(lambda: card.badge.state == "connected", timeout=WAIT)
    assert card.tool_count is not None and card.tool_count > 3
    assert f"{card.tool_count} tools" in card.subtitle.text()
    assert page.summary.full_text == "1 server · 1 connected"


def test_failed_start_shows_error_state_with_reason(qtbot: QtBot, router: McpRouter) -> None:
    (record,) = add_servers(server_input("Broken", module="exit3"))
    page = open_page(qtbot, router, 1)
    page.cards[record.id].buttons["test"].click()
    qtbot.waitUntil(lambda: page.notice.kind == "error" and page.notice.isVisible(), timeout=WAIT)
    assert "exited with code 3" in page.notice.label.text()
    qtbot.waitUntil(lambda: page.cards[record.id].badge.state == "error", timeout=WAIT)
    assert "exited with code 3" in page.cards[record.id].badge.toolTip()
    assert stored("Broken").id == record.id  # nothing lost


def test_untrusted_server_asks_before_it_starts(qtbot: QtBot, router: McpRouter) -> None:
    (record,) = add_servers(server_input("Imported", trusted=False))
    page = open_page(qtbot, router, 1)
    card = page.cards[record.id]
    assert card.review.isVisibleTo(page) and card.review.text() == "Trust…"
    assert card.badge.state == "untrusted" and "Needs trust" in card.badge.text()  # not a red "Error"

    rejected = when_modal(lambda d: d.reject())
    card.buttons["test"].click()
    qtbot.waitUntil(lambda: bool(rejected), timeout=WAIT)
    assert isinstance(rejected[0], TrustDialog)
    assert "tests.servers.basic" in " ".join(label.text() for label in rejected[0].findChildren(QLabel))
    settle(qtbot, router)
    assert card.badge.state == "untrusted" and stored("Imported").is_trusted is False

    accepted = when_modal(lambda d: d.accept())
    card.buttons["test"].click()
    qtbot.waitUntil(lambda: bool(accepted), timeout=WAIT)
    qtbot.waitUntil(lambda: "works" in page.notice.label.text(), timeout=WAIT)
    assert stored("Imported").is_trusted is True
    qtbot.waitUntil(lambda: not card.review.isVisibleTo(page), timeout=WAIT)
    qtbot.waitUntil(lambda: card.badge.state == "connected", timeout=WAIT)


def test_switch_disables_the_server(qtbot: QtBot, router: McpRouter) -> None:
    (record,) = add_servers(server_input("Toggle"))
    page = open_page(qtbot, router, 1)
    page.cards[record.id].switch.click()
    qtbot.waitUntil(lambda: stored("Toggle").is_active is False, timeout=WAIT)
    qtbot.waitUntil(lambda: not page.cards[record.id].switch.isChecked(), timeout=WAIT)


def test_remove_asks_then_removes(qtbot: QtBot, router: McpRouter) -> None:
    (record,) = add_servers(server_input("Doomed"))
    page = open_page(qtbot, router, 1)

    def press(button: QMessageBox.StandardButton):  # type: ignore[no-untyped-def]
        return lambda box: box.button(button).click()

    cancelled = when_modal(press(QMessageBox.StandardButton.Cancel))
    page.cards[record.id].buttons["remove"].click()
    qtbot.waitUntil(lambda: bool(cancelled), timeout=WAIT)
    settle(qtbot, router)
    assert [r.name for r in ServerCatalog(ConfigStore(), SecretVault()).all()] == ["Doomed"]

    when_modal(press(QMessageBox.StandardButton.Yes))
    page.cards[record.id].buttons["remove"].click()
    qtbot.waitUntil(lambda: not page.cards, timeout=WAIT)
    assert ServerCatalog(ConfigStore(), SecretVault()).all() == []
    qtbot.waitUntil(lambda: "Removed" in page.notice.label.text(), timeout=WAIT)  # the card may go first


@pytest.mark.real_process
def test_logs_dialog_shows_stderr_live_and_filters(qtbot: QtBot, router: McpRouter) -> None:
    (record,) = add_servers(server_input("Chatty"))
    page = open_page(qtbot, router, 1)
    dialog = LogsDialog(router, record.id, "Chatty", page)
    qtbot.addWidget(dialog)
    dialog.show()
    router.tools.call(record.id, "stderr", {"line": "hello from the server"})
    qtbot.waitUntil(lambda: "hello from the server" in dialog.view.toPlainText(), timeout=WAIT)
    dialog.search.setText("HELLO")
    assert dialog.shown_lines() and all("hello" in line.lower() for line in dialog.shown_lines())
    dialog.copy_to_clipboard()
    from PySide6.QtGui import QGuiApplication

    assert "hello from the server" in QGuiApplication.clipboard().text()
    dialog.done(QDialog.DialogCode.Accepted)


def test_edit_reconnects_the_server(qtbot: QtBot, router: McpRouter) -> None:
    from PySide6.QtCore import Qt

    from elftia_desktop.ui.dialogs.server_form import McpServerForm
    from elftia_desktop.ui.server_flows import ServerFlows

    (record,) = add_servers(server_input("Editable"))
    page = open_page(qtbot, router, 1)
    pids: list[int] = []

    def remember_pid() -> None:
        router.tools.call(record.id, "pid").then(router.signals, lambda r: pids.append(int(r.content[0]["text"])))

    remember_pid()
    qtbot.waitUntil(lambda: len(pids) == 1, timeout=WAIT)
    states: list[str] = []
    router.signals.connectionStateChanged.connect(
        lambda e: states.append(e.state) if e.server_id == record.id else None
    )

    saved: list[object] = []

    def edit(form: object) -> None:
        assert isinstance(form, McpServerForm)
        form.saved.connect(saved.append)
        qtbot.mouseClick(form.ui.env.add_button, Qt.MouseButton.LeftButton)
        qtbot.keyClicks(form.ui.env.row(0).key, "MODE")
        qtbot.keyClicks(form.ui.env.row(0).value, "fast")
        qtbot.mouseClick(form.ui.save, Qt.MouseButton.LeftButton)

    when_modal(edit)
    ServerFlows(router, page, page).edit_server(record.id)  # the form closes at once, then the server reconnects
    assert saved and saved[0].success  # type: ignore[attr-defined]
    qtbot.waitUntil(lambda: states[-2:] == ["connecting", "connected"], timeout=WAIT)
    assert "disconnected" in states
    remember_pid()
    qtbot.waitUntil(lambda: len(pids) == 2, timeout=WAIT)
    assert pids[0] != pids[1], "a new process started with the new settings"
    qtbot.waitUntil(lambda: page.cards[record.id].badge.state == "connected", timeout=WAIT)

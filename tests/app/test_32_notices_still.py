"""Issue 32: a notice that comes or goes never moves the page's cards under the pointer, and the
"Connecting…" notice of a saved server goes when its state moves on."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.ui.pages.servers_page import McpServersPage
from elftia_desktop.ui.server_flows import ServerFlows
from tests.app.test_servers_page import WAIT, open_page
from tests.helpers.live_router import add_servers, server_input

pytestmark = pytest.mark.usefixtures("memory_servers")


def _places(page: McpServersPage) -> list[QRect]:
    """Where each card and its Test button are, in the page's coordinates."""
    out = []
    for card in page.cards.values():
        out.append(QRect(card.mapTo(page, card.rect().topLeft()), card.size()))
        button = card.buttons["test"]
        out.append(QRect(button.mapTo(page, button.rect().topLeft()), button.size()))
    return out


def test_a_test_and_its_error_move_no_card(qtbot: QtBot, router: McpRouter) -> None:
    add_servers(server_input("Broken", module="exit3"), server_input("Echo"))
    page = open_page(qtbot, router, 2)
    before = _places(page)
    broken, echo = page.cards.values()
    broken.buttons["test"].click()
    qtbot.waitUntil(lambda: page.notice.kind == "error" and page.notice.isVisible(), timeout=WAIT)
    assert "exited with code 3" in page.notice.label.text()
    assert _places(page) == before  # the error floats over the page's bottom edge
    assert page.notice.geometry().bottom() < page.height()  # and is inside the page, not clipped
    echo.buttons["test"].click()
    qtbot.waitUntil(lambda: page.notice.kind == "success" and "works" in page.notice.label.text(), timeout=WAIT)
    assert _places(page) == before
    page.notice.hide()
    assert _places(page) == before


def test_connecting_notice_goes_when_the_server_connects(qtbot: QtBot, router: McpRouter) -> None:
    (record,) = add_servers(server_input("Echo"))
    page = open_page(qtbot, router, 1)
    flows = ServerFlows(router, page, page)
    before = _places(page)
    flows._connect_saved(record, "Saved <b>Echo</b>.")
    assert page.notice.isVisible() and "Connecting…" in page.notice.label.text()
    assert _places(page) == before
    qtbot.waitUntil(lambda: page.cards[record.id].badge.state == "connected", timeout=WAIT)
    qtbot.waitUntil(lambda: not page.notice.isVisible(), timeout=WAIT)  # stale "Connecting…" gone


def test_a_shown_notice_leaves_room_to_scroll_the_last_card_out_from_under_it(qtbot: QtBot, router: McpRouter) -> None:
    add_servers(server_input("Echo"))
    page = open_page(qtbot, router, 1)
    before, bottom = _places(page), page.card_layout.contentsMargins().bottom()
    page.notice.show_message("A message that stays until dismissed", "warning")
    qtbot.waitUntil(page.notice.isVisible, timeout=WAIT)
    assert page.card_layout.contentsMargins().bottom() >= bottom + page.notice.height()
    assert _places(page) == before  # the room is at the end: nothing above it moves
    page.notice.hide()
    assert page.card_layout.contentsMargins().bottom() == bottom
    assert _places(page) == before


def test_a_banner_that_comes_to_a_card_moves_none_of_its_buttons(qtbot: QtBot, router: McpRouter) -> None:
    add_servers(server_input("Echo"))
    page = open_page(qtbot, router, 1)
    [card] = page.cards.values()

    def buttons() -> list[QRect]:
        return [QRect(b.mapTo(page, b.rect().topLeft()), b.size()) for b in card.buttons.values() if b.isVisible()]

    before = buttons()
    card.set_held_tools(["echo"])  # the review banner, as a Test that lists changed tools shows it
    qtbot.waitUntil(card.changed_tools.isVisible, timeout=WAIT)
    qtbot.waitUntil(lambda: card.changed_tools.geometry().top() > 0, timeout=WAIT)
    assert before and buttons() == before


def test_a_scroll_bar_that_a_notice_brings_moves_no_switch_sideways(qtbot: QtBot, router: McpRouter) -> None:
    """The walk's find: three cards that just fit, a Test notice keeps room below them, the scroll bar
    comes, and every card's chips and on/off switch moved 12 px left."""
    add_servers(server_input("Alpha"), server_input("Beta"), server_input("Gamma"))
    page = open_page(qtbot, router, 3)
    content = page.card_scroll.widget()
    page.resize(1000, page.height() - page.card_scroll.viewport().height() + content.sizeHint().height() + 8)
    bar = page.card_scroll.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() == 0, timeout=WAIT)

    def switches() -> list[QRect]:
        return [QRect(c.switch.mapTo(page, c.switch.rect().topLeft()), c.switch.size()) for c in page.cards.values()]

    before = switches()
    page.notice.show_message("A message that stays until dismissed", "warning")
    qtbot.waitUntil(lambda: bar.maximum() > 0 and bar.isVisible(), timeout=WAIT)
    qtbot.waitUntil(lambda: switches() == before, timeout=WAIT)
    page.notice.hide()
    qtbot.waitUntil(lambda: bar.maximum() == 0, timeout=WAIT)
    assert switches() == before

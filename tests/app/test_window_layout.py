"""The real window at its default size and at 900×600, light and dark: nothing clipped, nothing elided.

Cards with a last-call badge (real tool calls, one failed), a long name and an untrusted server must keep
their state, switch and buttons inside the servers list, with no horizontal scrollbar; every page fits.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QAbstractScrollArea, QApplication, QWidget
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.ui.main_window import PAGES, MainWindow
from elftia_desktop.ui.theme import is_dark, set_theme_mode
from elftia_desktop.ui.widgets.server_card import ServerCard
from tests.helpers.live_router import add_servers, server_input

pytestmark = pytest.mark.usefixtures("memory_servers")

WAIT = 30_000
SIZES = [(1040, 700), (900, 600)]


@pytest.fixture
def app_theme(qapp: QApplication) -> Iterator[QApplication]:
    """Whatever a test does to the theme, the next one starts with the system palette."""
    yield qapp
    set_theme_mode(qapp, "system")


def inside(widget: QWidget, container: QWidget) -> bool:
    """True when ``widget`` is wholly within ``container``'s visible rectangle."""
    top_left = widget.mapTo(container, widget.rect().topLeft())
    bottom_right = widget.mapTo(container, widget.rect().bottomRight())
    return container.rect().contains(top_left) and container.rect().contains(bottom_right)


def check_cards(window: MainWindow) -> None:
    page = window.servers_page
    scroll = page.card_scroll
    assert not scroll.horizontalScrollBar().isVisible(), "the servers list scrolls sideways"
    viewport = scroll.viewport()
    for card in page.cards.values():
        name = card.record.name
        assert card.width() <= viewport.width(), f"{name}: card wider than the list"
        assert card.badge.width() >= card.badge.sizeHint().width(), f"{name}: state cut to {card.badge.width()} px"
        for widget in [card.badge, card.switch, *[b for b in card.buttons.values() if b.isVisible()]]:
            assert inside(widget, card), f"{name}: {widget.objectName() or type(widget).__name__} is cut off"
            assert widget.width() >= widget.minimumSizeHint().width(), f"{name}: {widget} squeezed"
        if card.activity.isVisible():
            assert inside(card.last_call, card)
            assert card.last_call.width() >= card.last_call.sizeHint().width(), f"{name}: last call cut"


def check_pages(qtbot: QtBot, window: MainWindow) -> None:
    for key, _, _ in PAGES:
        window.show_page(key)
        page = window.pages[key]
        qtbot.waitUntil(lambda p=page: p.isVisible(), timeout=WAIT)
        need = page.minimumSizeHint()
        assert need.width() <= window.stack.width(), f"{key}: needs {need.width()} px, has {window.stack.width()}"
        assert need.height() <= window.stack.height(), f"{key}: needs {need.height()} px of height"
        for area in page.findChildren(QAbstractScrollArea):
            if area.isVisible() and area.objectName() in ("CardScroll",):
                assert not area.horizontalScrollBar().isVisible(), f"{key}: scrolls sideways"
    window.show_page("servers")


def test_no_card_or_page_is_clipped(qtbot: QtBot, router: McpRouter, tmp_path: Path, app_theme: QApplication) -> None:
    records = add_servers(
        server_input("A server with a rather long descriptive name for the tools it offers"),
        server_input("second"),
        server_input("pasted", trusted=False),
    )
    window = MainWindow(router, QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: len(window.servers_page.cards) == 3, timeout=WAIT)
    done: list[object] = []
    for record, tool, args in [(records[0], "echo", {"text": "hi"}), (records[1], "fail", {"reason": "no"})]:
        router.tools.call(record.id, tool, args).then(router.signals, done.append)
    cards = window.servers_page.cards
    qtbot.waitUntil(lambda: cards[records[0].id].activity.isVisible(), timeout=WAIT)
    qtbot.waitUntil(lambda: cards[records[1].id].activity.isVisible(), timeout=WAIT)
    untrusted: ServerCard = cards[records[2].id]
    assert untrusted.badge.state == "untrusted" and untrusted.review.isVisible()
    # Banners with long texts (many held tools, a long denied path) are shortened, never widen the card.
    cards[records[1].id].set_held_tools([f"a_rather_long_tool_name_number_{i}" for i in range(8)])
    cards[records[1].id].add_blocked("file /home/someone/projects/a/very/deep/folder/with/a/long/name.txt (read)")

    for mode in ("light", "dark"):
        set_theme_mode(app_theme, mode)
        assert is_dark(app_theme.palette()) == (mode == "dark")
        for width, height in SIZES:
            window.resize(width, height)
            qtbot.waitUntil(lambda w=width, h=height: window.size().width() == w and window.height() == h)
            QApplication.processEvents()
            check_cards(window)
            check_pages(qtbot, window)

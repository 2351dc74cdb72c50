"""Issue 36: the router's event signals carry the service's dataclasses, and the widgets read their attributes."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.bridge.signals import ConnectionStateChanged, ToolCalled
from elftia_desktop.core.models import ConnectionState
from elftia_desktop.ui.pages.servers_page import McpServersPage
from tests.helpers.live_router import add_servers, server_input

WAIT = 30_000
pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("memory_servers")]


def test_a_connect_reaches_the_card_as_one_state_event_with_its_protocol(qtbot: QtBot, router: McpRouter) -> None:
    (record,) = add_servers(server_input("basic"))
    page = McpServersPage(router)
    qtbot.addWidget(page)
    page.resize(1000, 700)
    page.show()
    qtbot.waitUntil(lambda: record.id in page.cards, timeout=WAIT)
    card = page.cards[record.id]
    assert not card.protocol.isVisible()  # not connected yet: no protocol shown
    states: list[ConnectionStateChanged] = []
    called: list[ToolCalled] = []
    router.signals.connectionStateChanged.connect(states.append)
    router.signals.toolCalled.connect(called.append)
    router.tools.call(record.id, "echo", {"text": "hi"}).then(page)
    qtbot.waitUntil(lambda: bool(called) and card.badge.state == "connected", timeout=WAIT)
    connected = [s for s in states if s.server_id == record.id and s.state is ConnectionState.CONNECTED]
    assert connected and connected[-1].protocol and connected[-1].error is None
    assert [s.protocol for s in states if s.state is ConnectionState.CONNECTING] == [None]
    assert page.protocols[record.id] == connected[-1].protocol and card.protocol.isVisible()
    assert called[-1].server_id == record.id and called[-1].tool_name == "echo" and called[-1].ok
    assert router.activity.last(record.id) is called[-1]  # the activity log keeps the event itself

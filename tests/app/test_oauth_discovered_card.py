"""Sign in on the card of a remote server with no ``oauth`` object: the 401 challenge is enough."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.models import McpServerInput
from elftia_desktop.ui.pages.servers_page import McpServersPage
from tests.helpers.live_router import add_servers
from tests.helpers.memory_keyring import MemoryKeyring
from tests.helpers.oauth_gui import ThreadBrowser
from tests.servers.serve_http import serve_http

WAIT = 60_000
pytestmark = pytest.mark.timeout(240)


@pytest.fixture(autouse=True)
def no_display(monkeypatch: pytest.MonkeyPatch) -> None:
    """No real browser opens during the tests."""
    monkeypatch.setenv("DISPLAY", "")
    monkeypatch.setenv("WAYLAND_DISPLAY", "")


def test_a_challenged_server_offers_sign_in(qtbot: QtBot, router: McpRouter, memory_keyring: MemoryKeyring) -> None:
    browser = ThreadBrowser()
    router.signals.signInStarted.connect(browser.visit)
    with serve_http("oauth") as url:
        plain = McpServerInput.model_validate(
            {"name": "Found", "type": "http", "config": {"url": url}, "isTrusted": True}
        )
        (record,) = add_servers(plain)
        page = McpServersPage(router)
        qtbot.addWidget(page)
        page.resize(1000, 600)
        page.show()
        qtbot.waitUntil(lambda: record.id in page.cards, timeout=WAIT)
        card = page.cards[record.id]
        router.servers.reconnect(record.id)  # the background connect meets the challenge
        qtbot.waitUntil(lambda: card.badge.state == "auth_required", timeout=WAIT)
        qtbot.waitUntil(lambda: card.buttons["sign-in"].isVisibleTo(card), timeout=WAIT)
        assert "elftia-mcp login" in card.badge.toolTip() and browser.urls == []

        card.buttons["sign-in"].click()
        qtbot.waitUntil(lambda: "Signed in to" in page.notice.label.text(), timeout=WAIT)
        qtbot.waitUntil(lambda: card.badge.state == "connected", timeout=WAIT)
        qtbot.waitUntil(lambda: card.auth_label.text().startswith("OAuth · signed in as ada@example.com"), timeout=WAIT)
        assert len(browser.urls) == 1 and card.buttons["sign-out"].isVisibleTo(card)

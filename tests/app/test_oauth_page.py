"""Sign in / Sign out on the servers page (issue 16), against the real OAuth test server.

The browser step is played by ``ThreadBrowser``: it follows the address the window shows
(``signInStarted``) to the test authorization server and on to our loopback callback.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.secrets import SERVICE_NAME
from elftia_desktop.ui.pages.servers_page import McpServersPage
from tests.connections.oauth_helpers import revoke_all
from tests.helpers.live_router import add_servers
from tests.helpers.memory_keyring import MemoryKeyring
from tests.helpers.oauth_gui import ThreadBrowser, oauth_server_input
from tests.servers.serve_http import serve_http

WAIT = 60_000
pytestmark = pytest.mark.timeout(240)


@pytest.fixture(autouse=True)
def no_display(monkeypatch: pytest.MonkeyPatch) -> None:
    """No real browser opens during the tests."""
    monkeypatch.setenv("DISPLAY", "")
    monkeypatch.setenv("WAYLAND_DISPLAY", "")


@pytest.fixture(scope="module")
def oauth_url() -> Iterator[str]:
    """One OAuth test server for the module: each test signs in with a client of its own."""
    with serve_http("oauth") as url:
        yield url


def _open(qtbot: QtBot, router: McpRouter) -> McpServersPage:
    page = McpServersPage(router)
    qtbot.addWidget(page)
    page.resize(1000, 600)
    page.show()
    qtbot.waitUntil(lambda: len(page.cards) == 1, timeout=WAIT)
    return page


def test_sign_in_and_out_from_the_card(
    qtbot: QtBot, router: McpRouter, oauth_url: str, memory_keyring: MemoryKeyring
) -> None:
    browser = ThreadBrowser()
    router.signals.signInStarted.connect(browser.visit)
    (record,) = add_servers(oauth_server_input("Linear", oauth_url))
    page = _open(qtbot, router)
    card = page.cards[record.id]
    qtbot.waitUntil(lambda: card.auth_label.text() == "OAuth · not signed in", timeout=WAIT)
    assert card.buttons["sign-in"].isVisibleTo(card) and not card.buttons["sign-out"].isVisibleTo(card)

    card.buttons["sign-in"].click()
    qtbot.waitUntil(lambda: "Signed in to" in page.notice.label.text(), timeout=WAIT)
    assert "ada@example.com" in page.notice.label.text() and len(browser.urls) == 1
    assert "return to Elftia" in browser.pages[0]
    qtbot.waitUntil(lambda: card.badge.state == "connected", timeout=WAIT)
    assert card.auth_label.text().startswith("OAuth · signed in as ada@example.com")
    assert card.buttons["sign-out"].isVisibleTo(card) and not card.buttons["sign-in"].isVisibleTo(card)
    assert (SERVICE_NAME, f"{record.id}:oauth:tokens") in memory_keyring.values

    revoke_all(oauth_url)  # Test meets the 401 and signs in in place
    card.buttons["test"].click()
    qtbot.waitUntil(lambda: "works" in page.notice.label.text(), timeout=WAIT)
    assert len(browser.urls) == 2

    card.buttons["sign-out"].click()
    qtbot.waitUntil(lambda: "Signed out of" in page.notice.label.text(), timeout=WAIT)
    assert card.auth_label.text() == "OAuth · not signed in"
    assert (SERVICE_NAME, f"{record.id}:oauth:tokens") not in memory_keyring.values


def test_background_connect_shows_auth_required(qtbot: QtBot, router: McpRouter, oauth_url: str) -> None:
    browser = ThreadBrowser()
    router.signals.signInStarted.connect(browser.visit)
    (record,) = add_servers(oauth_server_input("Notion", oauth_url))
    page = _open(qtbot, router)
    card = page.cards[record.id]
    router.servers.reconnect(record.id)  # a background reconnect: no browser, the card says why
    qtbot.waitUntil(lambda: card.badge.state == "auth_required", timeout=WAIT)
    assert "Auth required" in card.badge.text() and "sign-in required" in card.badge.toolTip()
    assert browser.urls == []

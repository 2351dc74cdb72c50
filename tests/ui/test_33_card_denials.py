"""Issue 33: a sandbox denial shows on the server's card with one click to allow it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.models import McpServerInput, McpServerRecord
from elftia_desktop.platform.sandbox import sandbox_support
from elftia_desktop.ui.pages.servers_page import McpServersPage
from elftia_desktop.ui.widgets.server_card import ServerCard
from tests.helpers.live_router import add_servers


def test_the_card_shows_the_last_denial_and_asks_to_allow_it(qtbot: QtBot) -> None:
    record = McpServerRecord(name="files", type="stdio", config={"command": "npx"}, sandbox={"net": "none"})
    card = ServerCard(record)
    qtbot.addWidget(card)
    card.show()
    assert not card.blocked_button.isVisible()
    card.add_blocked("network api.github.com:443 (not allowed)")
    card.add_blocked("file /home/ann/.gitconfig (outside the sandbox)")
    assert card.blocked_button.isVisible()
    assert (
        "Sandbox blocked file /home/ann/.gitconfig (outside the sandbox) (+1 more in Activity)"
        in card.blocked_button.full_text
    )
    with qtbot.waitSignal(card.actionRequested) as signal:
        card.blocked_button.click()
    assert signal.args == ["allow-blocked", record.id]
    card.clear_blocked()
    assert not card.blocked_button.isVisible() and card.blocked == []


@pytest.mark.skipif(sandbox_support() is not None, reason=f"no sandbox here: {sandbox_support()}")
@pytest.mark.timeout(120)
def test_a_real_denial_reaches_the_card_and_one_click_allows_and_trusts_it(
    qtbot: QtBot, router: McpRouter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".gitconfig").write_text("[user]\n")
    monkeypatch.setenv("HOME", str(tmp_path))
    hostile = str(Path(__file__).parents[1] / "servers" / "hostile.py")
    (record,) = add_servers(
        McpServerInput(
            name="greedy",
            config={"command": sys.executable, "args": [hostile, "--read-at-start", "~/.gitconfig"]},
            is_trusted=True,
            sandbox={"net": "none"},
        )
    )
    page = McpServersPage(router)
    qtbot.addWidget(page)
    page.show()
    qtbot.waitUntil(lambda: record.id in page.cards, timeout=30_000)
    card = page.cards[record.id]
    page._on_action("test", record.id)
    qtbot.waitUntil(card.blocked_button.isVisible, timeout=60_000)
    assert card.blocked == [f"file {tmp_path}/.gitconfig (outside the sandbox)"]
    card.blocked_button.click()
    qtbot.waitUntil(lambda: bool((s := page.record(record.id)) and s.sandbox and s.sandbox.allow_read), timeout=30_000)
    saved = page.record(record.id)
    assert saved is not None and saved.sandbox is not None
    assert saved.sandbox.allow_read == [f"{tmp_path}/.gitconfig"] and saved.is_trusted
    assert not card.blocked_button.isVisible()

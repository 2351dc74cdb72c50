"""Issue 32: the card's review banner says what the lint found; a tool whose name is also another
server's is a name clash, not "a description to check"."""

from __future__ import annotations

import sys
from pathlib import Path

from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.explore_views import held_tools as typed_held_tools
from elftia_desktop.connections.tool_guard import held_tools
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.secrets import SecretVault
from elftia_desktop.core.tool_pin_store import PinStore
from elftia_desktop.core.tool_pins import LintFinding
from elftia_desktop.ui.lint_words import findings_summary, only_shadowing
from elftia_desktop.ui.widgets.server_card import ServerCard
from tests.cli.test_servers import cli
from tests.helpers.processes import REPO

BASIC = [sys.executable, str(REPO / "tests" / "servers" / "basic.py")]


def test_a_shadowing_name_is_named_as_such_on_the_card(qtbot: QtBot, isolated_data_dir: Path) -> None:
    for name in ("First", "Second"):
        assert cli("add", name, "--trust", "--", *BASIC).returncode == 0
        assert cli("tools", "--server", name).returncode == 0  # the first listing pins (and lints) them
    record = ServerCatalog(ConfigStore(), SecretVault()).find("Second")
    banner = typed_held_tools(held_tools(PinStore(isolated_data_dir / "tool-pins.json")))[record.id]
    assert banner.held == () and "echo" in banner.flagged
    assert only_shadowing(banner.findings)

    card = ServerCard(record)
    qtbot.addWidget(card)
    card.set_held_tools(banner.held, banner.flagged, banner.findings)
    text = card.changed_tools.full_text
    assert text.startswith("⚠  To check: ")
    assert "has the same name as a tool of First" in text and "description" not in text
    assert findings_summary(banner.findings) in text


def test_a_description_finding_says_what_it_tells_the_model() -> None:
    finding = LintFinding("weather", "hide-from-user", "'Do not tell the user'")
    assert findings_summary([finding, finding]) == (
        "weather's description tells the model to keep something from you (and 1 more)"
    )
    assert not only_shadowing([finding])

"""The dialogs against the real services: a real router, real config store, real MCP test servers."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.models import McpServerRecord, McpToolListing
from elftia_desktop.core.secrets import SecretVault
from elftia_desktop.ui.dialogs.discover_dialog import DiscoverDialog
from elftia_desktop.ui.dialogs.json_import_dialog import JsonImportDialog
from elftia_desktop.ui.dialogs.server_form import McpServerForm
from tests.helpers.live_router import ROOT, add_servers, server_input

pytestmark = pytest.mark.usefixtures("memory_servers")

WAIT = 30_000


def catalog() -> ServerCatalog:
    return ServerCatalog(ConfigStore(), SecretVault())


def call(qtbot: QtBot, method: Any, *args: Any) -> Any:
    """Run one router channel and wait for its result."""
    box: dict[str, Any] = {}
    owner = QObject()
    method(*args).then(owner, lambda r: box.setdefault("ok", r), lambda e: box.setdefault("error", e))
    qtbot.waitUntil(lambda: bool(box), timeout=WAIT)
    assert "error" not in box, box.get("error")
    return box["ok"]


def fill_basic_server(qtbot: QtBot, form: McpServerForm, name: str) -> None:
    qtbot.keyClicks(form.ui.name, name)
    qtbot.keyClicks(form.ui.command, sys.executable)
    for arg in ("-m", "tests.servers.basic"):
        qtbot.mouseClick(form.ui.args.add_button, Qt.MouseButton.LeftButton)
        qtbot.keyClicks(form.ui.args.row_edit(form.ui.args.row_count() - 1), arg)
    form.ui.cwd.set_text(str(ROOT))


def test_add_server_through_the_form(qtbot: QtBot, router: McpRouter) -> None:
    form = McpServerForm(router)
    qtbot.addWidget(form)
    form.show()
    fill_basic_server(qtbot, form, "Echo")
    qtbot.waitUntil(lambda: "✓" in form.ui.dependency.label.full_text, timeout=WAIT)
    assert "python" in form.ui.dependency.label.full_text.lower()
    qtbot.mouseClick(form.ui.env.add_button, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(form.ui.env.row(0).key, "SERVICE_TOKEN")
    qtbot.keyClicks(form.ui.env.row(0).value, "tok-123")
    assert form.ui.test.isEnabled() and "without saving" in form.ui.test.toolTip()
    qtbot.mouseClick(form.ui.test, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Connected" in form.ui.test_result.text(), timeout=WAIT)
    assert [r.name for r in catalog().all()] == [], "testing does not save"
    with qtbot.waitSignal(form.saved, timeout=WAIT) as saved:
        qtbot.mouseClick(form.ui.save, Qt.MouseButton.LeftButton)
    assert saved.args[0].success
    assert form.result() == McpServerForm.DialogCode.Accepted
    record = catalog().find("Echo")
    assert record.config.args == ["-m", "tests.servers.basic"]
    assert record.config.env == {"SERVICE_TOKEN": "${secret:SERVICE_TOKEN}"}
    assert catalog().vault.load(record.id, "env", "SERVICE_TOKEN") == "tok-123"
    assert "tok-123" not in ConfigStore().path.read_text()
    listing: McpToolListing = call(qtbot, router.tools.all_active)
    assert {t.name for t in listing.tools if t.server_name == "Echo"} >= {"echo", "add"}


def test_taken_name_is_shown_under_the_name_field(qtbot: QtBot, router: McpRouter) -> None:
    add_servers(server_input("Echo"))
    form = McpServerForm(router)
    qtbot.addWidget(form)
    form.show()
    fill_basic_server(qtbot, form, "echo")
    qtbot.mouseClick(form.ui.save, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: form.ui.error_labels["name"].isVisible(), timeout=WAIT)
    assert "exists already" in form.ui.error_labels["name"].text()
    assert form.isVisible() and form.result() != McpServerForm.DialogCode.Accepted
    assert form.focusWidget() is form.ui.name  # the walk's find: the focus had gone to the preset search
    qtbot.keyClicks(form.ui.name, "2")
    assert not form.ui.error_labels["name"].isVisible()


def test_edit_keeps_the_saved_secret_and_tests_the_saved_server(qtbot: QtBot, router: McpRouter) -> None:
    (record,) = add_servers(server_input("Echo"))
    catalog().update(record.id, {"config": {"env": {"API_KEY": "k-1"}}})
    record = catalog().get(record.id)
    assert record.config.env == {"API_KEY": "${secret:API_KEY}"}
    form = McpServerForm(router, record=record)
    qtbot.addWidget(form)
    form.show()
    assert form.ui.test.isEnabled()
    qtbot.mouseClick(form.ui.test, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Connected" in form.ui.test_result.text(), timeout=WAIT)
    assert "tools" in form.ui.test_result.text()
    qtbot.keyClicks(form.ui.args.add_row(""), "--verbose-not-used")
    form.ui.args.remove_row(form.ui.args.row_count() - 1)
    qtbot.keyClicks(form.ui.name, " renamed")
    assert form.ui.test.isEnabled(), "changed settings can be tried before saving"
    with qtbot.waitSignal(form.saved, timeout=WAIT):
        qtbot.mouseClick(form.ui.save, Qt.MouseButton.LeftButton)
    after = catalog().get(record.id)
    assert after.name == "Echo renamed"
    assert after.config.env == {"API_KEY": "${secret:API_KEY}"}
    assert catalog().vault.load(record.id, "env", "API_KEY") == "k-1"
    assert "secretKeys" not in after.to_json_dict()


def test_unsaved_edit_is_tested_with_the_saved_secret(qtbot: QtBot, router: McpRouter) -> None:
    token_server = str(ROOT / "tests" / "integrations" / "token_server.py")
    (record,) = add_servers(server_input("Guarded"))
    catalog().update(
        record.id,
        {"config": {"args": [token_server, "right-token"], "env": {"ECHO_TOKEN": "right-token"}}},
        {"ECHO_TOKEN"},
    )
    record = catalog().get(record.id)
    assert record.config.env == {"ECHO_TOKEN": "${secret:ECHO_TOKEN}"}
    form = McpServerForm(router, record=record)
    qtbot.addWidget(form)
    form.show()
    qtbot.keyClicks(form.ui.name, " (edited)")  # unsaved change; the secret stays a stored reference
    qtbot.mouseClick(form.ui.test, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Connected" in form.ui.test_result.text(), timeout=WAIT)
    assert catalog().get(record.id).name == "Guarded", "testing does not save"


def test_paste_json_with_syntax_error_then_conflicts(qtbot: QtBot, router: McpRouter) -> None:
    add_servers(server_input("alpha"), server_input("beta"))
    names = [r.name for r in call(qtbot, router.servers.records)]
    dialog = JsonImportDialog(router, existing_names=names)
    qtbot.addWidget(dialog)
    dialog.show()
    entry = {"command": sys.executable, "args": ["-m", "tests.servers.basic"], "cwd": str(ROOT)}
    dialog.set_text('{"mcpServers": {"alpha": ' + json.dumps(entry) + ' "gamma": {}}}')
    assert dialog.error is not None and dialog.error.line == 1 and not dialog.submit.isEnabled()
    servers = {"alpha": entry, "beta": entry, "gamma": entry, "delta": {"type": "sse"}}
    dialog.set_text(json.dumps({"mcpServers": servers}, indent=2))
    assert dialog.error is None
    assert [r.action for r in dialog.rows] == ["rename", "rename", "add", "invalid"]
    dialog.set_action(1, "skip")
    with qtbot.waitSignal(dialog.imported, timeout=WAIT) as done:
        qtbot.mouseClick(dialog.submit, Qt.MouseButton.LeftButton)
    outcome = {name: (kind, text) for name, kind, text in done.args[0]}
    assert outcome["alpha"] == ("added", "Added as alpha (2).")
    assert outcome["beta"] == ("skipped", "Skipped, as chosen")
    assert outcome["gamma"][0] == "added"
    assert outcome["delta"][0] == "failed" and "URL" in outcome["delta"][1]
    assert dialog.stack.currentIndex() == 1
    assert dialog.result_page.result_title.text() == "Added 2 of 4 servers — 1 failed"
    stored = [r.name for r in catalog().all()]
    assert sorted(stored) == ["alpha", "alpha (2)", "beta", "gamma"]
    assert all(not r.is_trusted for r in catalog().all() if r.name not in ("alpha", "beta"))


def test_replace_choice_replaces_the_existing_server(qtbot: QtBot, router: McpRouter) -> None:
    (old,) = add_servers(server_input("alpha"))
    dialog = JsonImportDialog(router, existing_names=["alpha"])
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.set_text(json.dumps({"alpha": {"url": "http://127.0.0.1:9/mcp"}}))
    dialog.set_action(0, "replace")
    with qtbot.waitSignal(dialog.imported, timeout=WAIT):
        dialog.start_import()
    (record,) = catalog().all()
    assert record.name == "alpha" and record.id != old.id and record.config.url == "http://127.0.0.1:9/mcp"


def test_discover_and_toggle_a_tool_off(qtbot: QtBot, router: McpRouter) -> None:
    (record,) = add_servers(server_input("Echo"))
    dialog = DiscoverDialog(router, record)
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.busy.isVisible()
    qtbot.waitUntil(lambda: dialog.discovered is not None, timeout=WAIT)
    assert not dialog.busy.isVisible()
    assert {"echo", "add", "slow"} <= set(dialog.cards)
    assert dialog.tabs.tabText(0).startswith("&Tools (")
    card = dialog.cards["echo"]
    assert any("unchanged" in label.text() for label in card.findChildren(QLabel))
    assert '"text"' in card.schema.toPlainText() and not card.schema.isVisible()
    card.schema_button.click()
    qtbot.waitUntil(card.schema.isVisible, timeout=WAIT)
    # click() rather than a synthesized mouse click: under load a tooltip window can sit over the
    # switch and take a synthesized click (it is delivered by position, not to the widget)
    card.enabled.click()
    assert not card.auto.isEnabled()
    qtbot.waitUntil(lambda: "no longer enabled" in dialog.status.text(), timeout=WAIT)
    assert catalog().get(record.id).disabled_tools == ["echo"]
    listing: McpToolListing = call(qtbot, router.tools.all_active)
    names = {t.name for t in listing.tools if t.server_id == record.id}
    assert "echo" not in names and "add" in names
    dialog.cards["add"].auto.click()
    qtbot.waitUntil(lambda: "add is no longer auto-approved" in dialog.status.text(), timeout=WAIT)
    assert catalog().get(record.id).disabled_auto_approve_tools == ["add"]
    dialog.filter.setText("structured")
    assert dialog.cards["add"].isVisible() and not dialog.cards["echo"].isVisible()


def test_discover_error_is_shown_inline(qtbot: QtBot, router: McpRouter) -> None:
    (record,) = add_servers(server_input("Dies", module="exit3"))
    dialog = DiscoverDialog(router, record)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: dialog.error.isVisible(), timeout=WAIT)
    assert "exit" in dialog.error.text().lower() or "code 3" in dialog.error.text()
    assert dialog.details.isVisible()
    assert dialog.refresh_button.isEnabled()


def test_discover_of_an_unknown_server_fails_with_its_kind(qtbot: QtBot, router: McpRouter) -> None:
    record = McpServerRecord.model_validate({"name": "ghost", "type": "stdio", "config": {"command": "x"}})
    dialog = DiscoverDialog(router, record)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: dialog.error.isVisible(), timeout=WAIT)
    assert dialog.error.text().startswith("ServerNotFound")

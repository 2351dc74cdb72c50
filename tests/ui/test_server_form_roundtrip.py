"""Issue 36: the typed server form keeps every field: a saved server of each transport, opened and saved
without a change, is written back byte for byte (the fields the form does not show included); an edit
goes to ``mcp:update`` as a typed change and changes only what was edited."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.models import McpActionResult, McpServerInput, McpServerRecord
from elftia_desktop.core.secrets import SecretVault
from elftia_desktop.ui.dialogs.server_form import McpServerForm
from tests.helpers.live_router import ROOT, add_servers

WAIT = 30_000
pytestmark = pytest.mark.timeout(120)

STDIO = {
    "name": "files",
    "type": "stdio",
    "scope": "local",
    "projectPath": "/home/me/project",
    "config": {
        "command": sys.executable,
        "args": ["-m", "tests.servers.basic", "--flag"],
        "env": {"MODE": "x", "GITHUB_TOKEN": "ghp_secret_value"},
        "cwd": str(ROOT),
        "timeout": {"connect": 5, "list": 7, "call": 30},
        "protocol": "legacy",
        "aNewerKey": {"kept": True},
    },
    "isTrusted": True,
    "disabledTools": ["rm"],
    "sandbox": {"enabled": True, "allowRead": ["/srv"], "net": "allow", "allowNet": ["api.github.com:443"]},
}
SSE = {
    "name": "events",
    "type": "sse",
    "config": {
        "url": "https://sse.example.com/sse",
        "headers": {"Authorization": "Bearer sk-live-abc", "X-Trace": "1"},
        "timeout": {"call": 12},
    },
    "isTrusted": True,
}
HTTP = {
    "name": "enterprise",
    "type": "http",
    "config": {
        "url": "https://api.example.com/mcp",
        "headers": {"X-Trace": "1"},
        "oauth": {
            "clientId": "cid",
            "clientSecret": "shh",
            "scopes": ["mcp:read"],
            "issuer": "https://as.example.com",
            "redirectPort": 8765,
            "identityAssertion": {
                "idpTokenEndpoint": "https://idp.example.com/token",
                "idpClientId": "desk",
                "idpIdToken": "eyJ.id.token",
            },
            "aNewerOAuthKey": "kept",
        },
    },
}


def open_form(qtbot: QtBot, router: McpRouter, spec: dict[str, Any]) -> McpServerForm:
    (record,) = add_servers(McpServerInput.model_validate(spec))
    form = McpServerForm(router, record=record)
    qtbot.addWidget(form)
    form.show()
    return form


def save(qtbot: QtBot, form: McpServerForm) -> McpActionResult:
    with qtbot.waitSignal(form.saved, timeout=WAIT) as saved:
        form.ui.save.click()
    result = saved.args[0]
    assert isinstance(result, McpActionResult) and result.success, result
    return result


@pytest.mark.parametrize("spec", [STDIO, SSE, HTTP], ids=["stdio", "sse", "http"])
def test_an_unchanged_server_is_saved_byte_identical(qtbot: QtBot, router: McpRouter, spec: dict[str, Any]) -> None:
    form = open_form(qtbot, router, spec)
    path = ConfigStore().path
    before = path.read_bytes()
    assert not form.is_dirty() and form.ui.save.isEnabled(), form.errors
    save(qtbot, form)
    assert path.read_bytes() == before


def test_an_edit_changes_only_the_field_edited(qtbot: QtBot, router: McpRouter) -> None:
    form = open_form(qtbot, router, STDIO)
    path = ConfigStore().path
    (before,) = json.loads(path.read_text(encoding="utf-8"))["mcpServers"]
    form.ui.call_timeout.setValue(45)
    assert form.is_dirty()
    saved = save(qtbot, form).server
    assert saved is not None and saved.config.timeout is not None and saved.config.timeout.call == 45
    (after,) = json.loads(path.read_text(encoding="utf-8"))["mcpServers"]
    assert after["config"].pop("timeout") == {"connect": 5.0, "list": 7.0, "call": 45.0}
    before["config"].pop("timeout")
    assert after.pop("updatedAt") != before.pop("updatedAt", None)
    assert after == before, "every other field, shown in the form or not, is as it was"


def test_a_bad_value_names_its_field_and_nothing_is_sent(qtbot: QtBot, router: McpRouter) -> None:
    form = open_form(qtbot, router, HTTP)
    form.ui.url.setText("api.example.com/mcp")
    assert "not an absolute http(s) URL" in form.ui.error_labels["url"].text()
    assert form.server() is None and form.change() is None and not form.ui.save.isEnabled()
    form.ui.auth.grant.setCurrentIndex(form.ui.auth.grant.findData("client_credentials"))
    form.ui.auth.client_id.clear()
    assert "client_credentials grant needs a client id" in form.errors["auth"]


def test_a_value_marked_secret_in_an_edit_leaves_the_config_file(qtbot: QtBot, router: McpRouter) -> None:
    """Marking a plain-named variable secret while editing moves its value to the keyring, as adding does."""
    form = open_form(qtbot, router, STDIO)
    (row,) = [r for r in form.ui.env._rows if r.key.text() == "MODE"]
    qtbot.mouseClick(row.secret, Qt.MouseButton.LeftButton)
    assert row.secret.isChecked()
    save(qtbot, form)
    text = ConfigStore().path.read_text(encoding="utf-8")
    (stored,) = json.loads(text)["mcpServers"]
    assert stored["config"]["env"]["MODE"] == "${secret:MODE}"
    assert '"x"' not in text
    assert SecretVault().resolve(McpServerRecord.model_validate(stored))[0]["MODE"] == "x"


def test_a_kept_secret_says_so_in_full_at_the_forms_size(qtbot: QtBot, router: McpRouter) -> None:
    """The saved-secret placeholder fits its field in the edit form (it was cut to "type to repla…")."""
    form = open_form(qtbot, router, STDIO)
    qtbot.waitExposed(form)
    (row,) = [r for r in form.ui.env._rows if r.key.text() == "GITHUB_TOKEN"]
    assert row.keeps_saved_value()
    room = row.value.contentsRect().width() - 8  # the line edit's own text margins
    assert row.value.fontMetrics().horizontalAdvance(row.value.placeholderText()) <= room
    assert "type a new value" in row.value.toolTip()

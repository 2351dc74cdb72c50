"""The form's Authentication section (issue 16): None / Header / OAuth, advanced fields folded.

The last test saves an OAuth server through the real router and signs in with the form's
Test against the real OAuth test server.
"""

from __future__ import annotations

from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.models import McpServerRecord
from elftia_desktop.core.secrets import SecretVault
from elftia_desktop.ui.dialogs.server_form import McpServerForm
from tests.helpers.live_router import live_router
from tests.helpers.oauth_gui import ThreadBrowser
from tests.servers.serve_http import serve_http

pytestmark = pytest.mark.timeout(240)


def _form(qtbot: QtBot, **kwargs: Any) -> McpServerForm:
    form = McpServerForm(**kwargs)
    qtbot.addWidget(form)
    form.show()
    form.ui.name.setText("remote")
    form.ui.transport.set_value("http")
    form.ui.url.setText("https://mcp.example.com/mcp")
    return form


def test_modes_and_folded_advanced_fields(qtbot: QtBot) -> None:
    form = _form(qtbot)
    auth = form.ui.auth
    assert form.ui.rows["auth"].isVisibleTo(form)
    assert auth.mode.currentData() == "none" and "oauth" not in form.draft().as_json()["config"]

    auth.mode.setCurrentIndex(1)
    auth.header_value.setText("Bearer sk-123")
    draft = form.draft()
    assert draft.headers == {"Authorization": "Bearer sk-123"} and "Authorization" in draft.secret_keys

    auth.mode.setCurrentIndex(2)
    assert not auth.method.isVisibleTo(form) and not auth.private_key.isVisibleTo(form)
    auth.client_id.setText("my-app")
    auth.client_secret.setText("shh")
    auth.scopes.setText("read write")
    auth.fold.click()
    assert auth.method.isVisibleTo(form) and auth.metadata_url.isVisibleTo(form)
    auth.method.setCurrentIndex(auth.method.findData("client_secret_post"))
    config = form.draft().as_json()["config"]
    assert config["oauth"] == {
        "clientId": "my-app",
        "clientSecret": "shh",
        "scopes": ["read", "write"],
        "tokenEndpointAuthMethod": "client_secret_post",
    }
    assert "headers" not in config or config["headers"] == {}
    assert form.validate() == {}


def test_bad_oauth_settings_are_shown_under_the_section(qtbot: QtBot) -> None:
    form = _form(qtbot)
    auth = form.ui.auth
    auth.mode.setCurrentIndex(2)
    auth.grant.setCurrentIndex(1)  # client credentials without a client id
    errors = form.validate()
    assert "client_credentials grant needs a client id" in errors["auth"]
    assert not form.ui.save.isEnabled()


def test_edit_shows_the_stored_auth(qtbot: QtBot) -> None:
    record = McpServerRecord.model_validate(
        {
            "name": "github",
            "type": "http",
            "config": {
                "url": "https://api.example.com/mcp",
                "headers": {"X-Trace": "1"},
                "oauth": {"clientId": "cid", "clientSecret": "${secret:clientSecret}", "redirectPort": 8765},
            },
        }
    )
    form = _form(qtbot, record=record)
    auth = form.ui.auth
    assert auth.mode.currentData() == "oauth" and auth.client_id.text() == "cid"
    assert auth.fold.isChecked() and auth.port.value() == 8765
    assert form.ui.headers.mapping() == {"X-Trace": "1"}
    change = form.change()
    assert change is not None and change.config is not None and change.config.oauth is not None
    assert change.config.oauth.client_secret == "${secret:clientSecret}"
    auth.mode.setCurrentIndex(0)
    change = form.change()
    assert change is not None
    assert change.to_updates()["config"]["oauth"] is None  # switching to None drops the oauth object


def test_edit_keeps_the_oauth_keys_the_form_does_not_show(qtbot: QtBot) -> None:
    assertion = {"idpTokenEndpoint": "https://idp.example.com/token", "idpClientId": "desk"}
    assertion["idpIdToken"] = "${secret:idpIdToken}"
    oauth = {"clientId": "cid", "clientSecret": "${secret:clientSecret}", "issuer": "https://as.example.com"}
    record = McpServerRecord.model_validate(
        {
            "name": "enterprise",
            "type": "http",
            "config": {"url": "https://api.example.com/mcp", "oauth": oauth | {"identityAssertion": assertion}},
        }
    )
    form = _form(qtbot, record=record)
    form.ui.auth.scopes.setText("mcp:read")
    change = form.change()
    assert change is not None
    edited = change.to_updates()["config"]["oauth"]
    assert {k: v for k, v in edited["identityAssertion"].items() if v is not None} == assertion
    assert edited["scopes"] == ["mcp:read"]


def test_form_test_signs_in(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISPLAY", "")
    monkeypatch.setenv("WAYLAND_DISPLAY", "")
    browser = ThreadBrowser()
    with serve_http("oauth") as url, live_router() as (router, _loop):
        router.signals.signInStarted.connect(browser.visit)
        form = _form(qtbot, router=router)
        form.ui.url.setText(url)
        form.ui.auth.mode.setCurrentIndex(2)
        form.ui.test.click()
        qtbot.waitUntil(lambda: "tools" in form.ui.test_result.text(), timeout=60_000)
        assert "✓" in form.ui.test_result.text() and len(browser.urls) == 1
        form.ui.save.click()
        qtbot.waitUntil(lambda: form.result_record is not None, timeout=60_000)
    saved = ServerCatalog(ConfigStore(), SecretVault()).find("remote")
    assert saved.config.oauth is not None and saved.config.oauth.client_id is None

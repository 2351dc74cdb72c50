"""Issue 36: the form's typed draft checks into an ``McpServerInput`` or field errors, keeps what the form does
not show, and ``McpServerUpdate`` sends only the fields given (a field given as None clears it)."""

from __future__ import annotations

from elftia_desktop.core.models import McpOAuthConfig, McpServerRecord, McpServerScope, McpServerTransport
from elftia_desktop.core.server_draft import FieldError, OAuthDraft, SandboxDraft, ServerDraft, field_error
from elftia_desktop.core.server_update import McpServerUpdate


def test_a_bad_draft_answers_each_error_with_its_field() -> None:
    draft = ServerDraft(
        name="",
        transport=McpServerTransport.HTTP,
        url="example.com/mcp",
        scope=McpServerScope.LOCAL,
        oauth=OAuthDraft(grant_type="client_credentials"),
    )
    check = draft.check()
    assert check.server is None
    assert check.errors == (FieldError("config.oauth.clientId", "The client_credentials grant needs a client id"),), (
        check.errors
    )
    assert field_error(("config", "env"), "GH: a line break").message == "GH: a line break"  # a key, not a path
    (unnamed,) = ServerDraft(name="", command="npx").check().errors
    assert unnamed == field_error((), "name: a server needs a name")
    assert unnamed.message == "A server needs a name"
    assert field_error((), "projectPath: a server with scope 'local' needs its project folder").path == "projectPath"
    assert field_error(("config", "env"), "Value error, bad").message == "Bad"


def test_a_good_draft_is_the_server_and_its_change_clears_the_other_transport() -> None:
    record = McpServerRecord.model_validate(
        {"name": "r", "type": "http", "config": {"url": "https://a.example/mcp", "protocol": "legacy", "x": 1}}
    )
    draft = ServerDraft(
        name=" files ",
        transport=McpServerTransport.STDIO,
        command="npx",
        args=("-y", "pkg"),
        sandbox=SandboxDraft(enabled=True, allow_read=("/srv",), net="loopback", allow_net=("ignored:1",)),
        call_timeout=30,
        record=record,
    )
    server = draft.check().server
    assert server is not None and server.name == "files" and server.config.args == ["-y", "pkg"]
    assert server.sandbox is not None and server.sandbox.allow_net == []  # hosts count only for "allow"
    updates = draft.change(server).to_updates()
    assert set(updates) == {"name", "type", "config", "scope", "projectPath", "sandbox"}, "no trust change asked"
    assert updates["config"]["url"] is None and updates["config"]["oauth"] is None  # cleared
    assert updates["config"]["protocol"] == "legacy" and updates["config"]["x"] == 1  # kept from the record
    assert updates["config"]["timeout"] == {"connect": None, "list": None, "call": 30.0}


def test_an_update_sends_only_the_fields_given() -> None:
    assert McpServerUpdate(is_active=False).to_updates() == {"isActive": False}
    change = McpServerUpdate(sandbox=None, project_path=None)
    assert change.to_updates() == {"projectPath": None, "sandbox": None}
    change.is_trusted = True
    assert change.to_updates()["isTrusted"] is True


def test_oauth_keeps_the_keys_the_form_does_not_show() -> None:
    saved = McpOAuthConfig.model_validate(
        {"clientId": "cid", "scopes": ["a"], "redirectPort": 8765, "aNewerKey": {"k": 1}}
    )
    draft = OAuthDraft.of(saved)
    assert draft.advanced and draft.scopes == ("a",)
    assert draft.as_json() == {"clientId": "cid", "scopes": ["a"], "redirectPort": 8765, "aNewerKey": {"k": 1}}
    edited = OAuthDraft(grant_type="authorization_code", client_id="other", kept=saved)
    assert edited.as_json() == {"clientId": "other", "aNewerKey": {"k": 1}}

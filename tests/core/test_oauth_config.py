"""The ``oauth`` config object (issue 16): validation, secrets to the vault, imports."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from keyring.backends.fail import Keyring as NoKeyring
from pydantic import ValidationError

from elftia_desktop.core.models import McpServerConfig, McpServerRecord
from elftia_desktop.core.secrets import SecretVault
from elftia_desktop.core.server_json import parse_servers_json
from elftia_desktop.integrations.app_formats import app_format
from elftia_desktop.integrations.detector import ServerSection
from elftia_desktop.integrations.importer import normalise_entry

URL = "https://mcp.example.com/mcp"


def _record(oauth: dict[str, object], kind: str = "http") -> McpServerRecord:
    return McpServerRecord.model_validate({"name": "x", "type": kind, "config": {"url": URL, "oauth": oauth}})


@pytest.mark.parametrize(
    ("oauth", "message"),
    [
        ({"grantType": "client_credentials"}, "oauth.clientId: the client_credentials grant needs a client id"),
        ({"grantType": "client_credentials", "clientId": "c"}, "oauth.clientSecret"),
        (
            {"grantType": "client_credentials", "clientId": "c", "tokenEndpointAuthMethod": "private_key_jwt"},
            "oauth.privateKey: private_key_jwt needs the PEM private key",
        ),
        ({"tokenEndpointAuthMethod": "private_key_jwt"}, "private_key_jwt works with grantType client_credentials"),
        ({"clientMetadataUrl": "http://insecure.example/c.json"}, "oauth.clientMetadataUrl: expected an https://"),
        ({"grantType": "password"}, "grantType"),
        ({"redirectPort": 70000}, "redirectPort"),
    ],
)
def test_bad_settings_name_the_field(oauth: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=re.escape(message)):
        _record(oauth)


def test_stdio_server_cannot_have_oauth() -> None:
    with pytest.raises(ValidationError, match=r"config\.oauth: OAuth sign-in works only for SSE and Streamable HTTP"):
        McpServerRecord.model_validate({"name": "x", "config": {"command": "npx", "oauth": {}}, "type": "stdio"})


def test_camel_case_keys_and_scope_string() -> None:
    config = McpServerConfig.model_validate({"url": URL, "oauth": {"clientId": "c", "scope": "read  write"}})
    assert config.oauth is not None and config.oauth.scopes == ["read", "write"]
    assert config.to_json_dict()["oauth"] == {
        "clientId": "c",
        "scopes": ["read", "write"],
        "grantType": "authorization_code",
        "signingAlgorithm": "RS256",
    }


def test_client_secret_and_private_key_go_to_the_vault(tmp_path: Path) -> None:
    vault = SecretVault(backend=NoKeyring(), fallback_path=tmp_path / "secrets.json")
    record = _record(
        {
            "grantType": "client_credentials",
            "clientId": "c",
            "tokenEndpointAuthMethod": "private_key_jwt",
            "privateKey": "-----BEGIN PRIVATE KEY-----x",
            "clientSecret": "s3cret",
        }
    )
    stored = vault.extract(record)
    assert stored.config.oauth is not None
    assert (stored.config.oauth.client_secret, stored.config.oauth.private_key) == (
        "${secret:clientSecret}",
        "${secret:privateKey}",
    )
    assert "s3cret" not in stored.model_dump_json() and "PRIVATE KEY" not in stored.model_dump_json()
    assert vault.resolve_oauth(stored) == {"clientSecret": "s3cret", "privateKey": "-----BEGIN PRIVATE KEY-----x"}
    vault.store(stored.id, "oauth", "tokens", "{}")
    vault.forget(stored)
    assert vault.load(stored.id, "oauth", "clientSecret") is None and vault.load(stored.id, "oauth", "tokens") is None


def test_pasted_json_and_imports_keep_the_oauth_object() -> None:
    (parsed,) = parse_servers_json(json.dumps({"mcpServers": {"linear": {"type": "http", "url": URL, "oauth": {}}}}))
    assert parsed.server is not None and parsed.server.config.oauth is not None
    entry = {"type": "streamableHttp", "url": URL, "oauth": {"clientId": "cline-app", "scope": "read"}}
    imported = normalise_entry(app_format("cline"), "linear", entry, ServerSection("mcpServers", {"linear": entry}))
    assert imported.error is None and imported.server is not None
    assert imported.server.config.oauth is not None and imported.server.config.oauth.client_id == "cline-app"
    assert not any("oauth" in w for w in imported.warnings)
    bad = normalise_entry(app_format("cline"), "x", {"url": URL, "oauth": "yes"}, ServerSection("mcpServers", {}))
    assert bad.error is not None and "oauth: expected an object" in bad.error

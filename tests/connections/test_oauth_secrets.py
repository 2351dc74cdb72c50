"""Where OAuth secrets live (issue 16): the keyring only; sign-out and removal delete them.

Tokens and the client secret are never in the config file, the logs, or an export.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from elftia_desktop.application import servers
from elftia_desktop.connections.service import McpService
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.secrets import SERVICE_NAME, SecretVault
from elftia_desktop.integrations.exporter import export_servers
from tests.connections.oauth_helpers import add_oauth
from tests.helpers.memory_keyring import MemoryKeyring
from tests.helpers.oauth_browser import Browser

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(180)]


@pytest.fixture
async def keyring_service(tmp_path: Path, memory_keyring: MemoryKeyring) -> AsyncIterator[McpService]:
    """A service whose vault uses the in-memory keyring."""
    vault = SecretVault(backend=memory_keyring, fallback_path=tmp_path / "secrets.json")
    service = McpService(ServerCatalog(ConfigStore(tmp_path / "mcp-config.json"), vault), runtime_dir=tmp_path / "rt")
    service.set_sign_in_prompt(Browser())
    try:
        yield service
    finally:
        await service.cleanup()


def _oauth_accounts(keyring: MemoryKeyring, server_id: str) -> set[str]:
    return {
        user for service, user in keyring.values if service == SERVICE_NAME and user.startswith(f"{server_id}:oauth:")
    }


async def test_sign_out_and_remove_delete_tokens(
    keyring_service: McpService, oauth_url: str, memory_keyring: MemoryKeyring
) -> None:
    service = keyring_service
    sid = await add_oauth(service, oauth_url, clientSecret="pre-shared", clientId="pre-registered")
    assert f"{sid}:oauth:clientSecret" in _oauth_accounts(memory_keyring, sid)
    # back to dynamic registration, as the app's form saves it (the user sees the new sign-in: still trusted)
    await servers.update(service, sid, {"config": {"url": oauth_url, "oauth": {}}, "isTrusted": True})
    assert f"{sid}:oauth:clientSecret" not in _oauth_accounts(memory_keyring, sid)  # the dropped secret went
    assert (await service.signed_in(sid, lambda: service.test(sid))).success
    assert _oauth_accounts(memory_keyring, sid) == {f"{sid}:oauth:tokens", f"{sid}:oauth:client"}
    tokens = json.loads(memory_keyring.values[(SERVICE_NAME, f"{sid}:oauth:tokens")])
    assert tokens["access_token"] and tokens["refresh_token"] and tokens["expires_at"] > 0

    status = await service.sign_out(sid)
    assert not status.signed_in
    assert _oauth_accounts(memory_keyring, sid) == set()

    assert (await service.signed_in(sid, lambda: service.test(sid))).success
    assert _oauth_accounts(memory_keyring, sid)
    await servers.remove(service, sid)
    assert _oauth_accounts(memory_keyring, sid) == set()


async def test_secrets_never_in_config_logs_or_export(
    keyring_service: McpService, oauth_url: str, memory_keyring: MemoryKeyring, caplog: pytest.LogCaptureFixture
) -> None:
    service = keyring_service
    caplog.set_level(logging.DEBUG)
    sid = await add_oauth(service, oauth_url)
    await servers.update(service, sid, {"config": {"url": oauth_url, "oauth": {"clientSecret": "s3cr3t-value"}}})
    await servers.update(service, sid, {"config": {"url": oauth_url, "oauth": {}}})
    sid2 = await add_oauth(service, oauth_url, name="with secret", clientId="cid", clientSecret="s3cr3t-value")
    assert (await service.signed_in(sid, lambda: service.call_tool(sid, "whoami", {}))).is_error is False
    tokens = json.loads(memory_keyring.values[(SERVICE_NAME, f"{sid}:oauth:tokens")])
    client = json.loads(memory_keyring.values[(SERVICE_NAME, f"{sid}:oauth:client")])
    secrets = [tokens["access_token"], tokens["refresh_token"], "s3cr3t-value"]
    if client.get("client_secret"):
        secrets.append(client["client_secret"])

    config_text = service.catalog.store.path.read_text()
    assert '"clientSecret": "${secret:clientSecret}"' in config_text
    records = await service.list_servers()
    exported = [export_servers(records, fmt).text for fmt in ("claude-code", "cursor", "vscode")]
    logged = "\n".join(r.getMessage() for r in caplog.records) + "\n".join(service.server_log(sid))
    for secret in secrets:
        assert secret not in config_text
        assert secret not in logged
        assert all(secret not in text for text in exported)
    assert memory_keyring.values[(SERVICE_NAME, f"{sid2}:oauth:clientSecret")] == "s3cr3t-value"

"""Sign-in discovered from the server's 401 challenge: no ``oauth`` object is needed.

A remote server that answers 401 with ``WWW-Authenticate`` goes to ``auth required`` and the
message names the ``login`` command; a foreground action or ``sign_in`` then signs in through
discovery (metadata, registration, PKCE, RFC 9207 ``iss``), and step-up adds scopes. A 401
without a challenge stays the plain HTTP error (a missing key, not a sign-in).
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest

from elftia_desktop.connections.oauth_storage import VaultTokenStorage
from elftia_desktop.connections.service import McpService
from elftia_desktop.core.errors import ServerAuthRequired
from elftia_desktop.core.models import ConnectionState
from tests.connections.oauth_helpers import grown, stats
from tests.connections.pool_helpers import add_server, http_input, stdio_input
from tests.connections.test_oauth_cli import _cli, _popen, _sign_in_through
from tests.helpers.oauth_browser import Browser
from tests.servers.serve_http import serve_http

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(180)]


@pytest.mark.parametrize("kind", ["sse", "http"])
async def test_a_challenge_leads_to_auth_required_and_a_sign_in(service: McpService, oauth_url: str, kind: str) -> None:
    browser = Browser()
    service.set_sign_in_prompt(browser)
    with serve_http("oauth", "sse") if kind == "sse" else contextlib.nullcontext(oauth_url) as url:
        before = stats(url)
        sid = await add_server(service, http_input("found", url, kind))
        assert service.connection_state(sid) is ConnectionState.AUTH_REQUIRED
        assert "elftia-mcp login found)" in (service.connection_error(sid) or "")
        assert browser.urls == []
        with pytest.raises(ServerAuthRequired, match="elftia-mcp login"):
            await service.call_tool(sid, "whoami", {})

        status = await service.sign_in(sid)
        assert status.signed_in and status.oauth and status.subject == "ada@example.com"
        assert len(browser.urls) == 1 and "code_challenge_method=S256" in browser.urls[0]
        assert service.connection_state(sid) is ConnectionState.CONNECTED
        assert grown(url, before, "registrations") == 1
        whoami = await service.call_tool(sid, "whoami", {})
        assert "mcp:read" in json.loads(whoami.content[0]["text"])["scopes"]
        stored = next(r for r in await service.list_servers() if r.id == sid)
        assert stored.config.oauth is None  # nothing was written into the configuration


async def test_step_up_accumulates_scopes_without_configuration(service: McpService, oauth_url: str) -> None:
    browser = Browser()
    service.set_sign_in_prompt(browser)
    sid = await add_server(service, http_input("found", oauth_url, "http"))
    assert (await service.signed_in(sid, lambda: service.test(sid))).success
    response = await service.signed_in(sid, lambda: service.call_tool(sid, "write", {"text": "x"}))
    assert response.is_error is False
    assert {"mcp:read", "mcp:write"} <= set(stats(oauth_url)["last_scopes"])
    assert len(browser.urls) == 2


async def test_no_sign_in_for_local_servers_or_own_headers(service: McpService) -> None:
    local = await add_server(service, stdio_input("local", "basic", is_active=False))
    with pytest.raises(ServerAuthRequired, match=r"local \(stdio\) server: there is nothing to sign in to"):
        await service.sign_in(local)
    assert not (await service.auth_status(local)).oauth


@pytest.mark.timeout(240)
def test_cli_login_on_a_server_without_oauth(tmp_path: Path, oauth_url: str) -> None:
    entry = {"mcpServers": {"found": {"type": "http", "url": oauth_url}}}
    assert _cli(tmp_path, "add-json", "-", "--trust", stdin=json.dumps(entry)).returncode == 0
    process = _popen(tmp_path, "call", "found", "whoami", "--no-browser")  # meets the challenge: signs in in place
    lines = _sign_in_through(process, "stderr")
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0 and b"mcp:read" in out, err
    assert any(line.startswith("Sign in to found") for line in lines)
    assert _cli(tmp_path, "logout", "found").returncode == 0

    process = _popen(tmp_path, "login", "found", "--no-browser")
    _sign_in_through(process, "stdout")
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert b"found: signed in as ada@example.com" in out
    called = _cli(tmp_path, "call", "found", "whoami")
    assert called.returncode == 0 and "mcp:read" in called.stdout, called.stderr
    saved = json.loads((tmp_path / "mcp-config.json").read_text())
    assert all(not server["config"].get("oauth") for server in saved["mcpServers"])  # no oauth object was needed


async def test_tokens_are_keyed_by_issuer(service: McpService, oauth_url: str) -> None:
    browser = Browser()
    service.set_sign_in_prompt(browser)
    sid = await add_server(service, http_input("found", oauth_url, "http"))
    await service.sign_in(sid)
    storage = VaultTokenStorage(service.catalog.vault, sid)
    client = storage.load_client()
    assert client is not None and client.issuer is not None  # the SDK bound the registration to its issuer
    assert storage.load_tokens() is not None
    raw = json.loads(service.catalog.vault.load(sid, "oauth", "tokens") or "{}")
    assert raw["issuer"] == client.issuer
    moved = client.model_copy(update={"issuer": "https://elsewhere.example/"})
    await storage.set_client_info(moved)  # the authorization server moved: the old tokens are not sent there
    assert storage.load_tokens() is None

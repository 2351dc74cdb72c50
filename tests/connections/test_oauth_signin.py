"""OAuth sign-in (issue 16) against the real OAuth test server, over SSE and Streamable HTTP.

The test drives the browser step itself (``tests/helpers/oauth_browser.py``): it fetches the
authorization URL from the test authorization server and follows its redirect to our
loopback callback server. The tests that only sign in to a default server (Streamable HTTP, no
options) share one per module (``oauth_url``) and read its counters as growth since they began;
the ones with options of their own (SSE, a token lifetime, a pre-registered client ...) start their own.
"""

from __future__ import annotations

import asyncio
import contextlib
import json

import pytest

from elftia_desktop.application import servers
from elftia_desktop.connections.oauth_callback import free_port
from elftia_desktop.connections.service import McpService
from elftia_desktop.core.errors import ServerAuthRequired, ServerStartFailed
from elftia_desktop.core.models import ConnectionState
from tests.connections.oauth_helpers import add_oauth, grown, revoke_all, stats
from tests.helpers.oauth_browser import Browser
from tests.servers.serve_http import serve_http

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(180)]


@pytest.mark.parametrize("kind", ["sse", "http"])
async def test_first_sign_in(service: McpService, oauth_url: str, kind: str) -> None:
    browser = Browser()
    service.set_sign_in_prompt(browser)
    own = serve_http("oauth", "sse") if kind == "sse" else contextlib.nullcontext(oauth_url)
    with own as url:
        before = stats(url)
        sid = await add_oauth(service, url, kind)
        # The add's background connect met the 401: no browser, state "auth required", no retry loop.
        assert service.connection_state(sid) is ConnectionState.AUTH_REQUIRED
        assert browser.urls == []
        with pytest.raises(ServerAuthRequired, match="sign-in required"):
            await service.call_tool(sid, "whoami", {})
        assert grown(url, before, "authorizations") == 0

        result = await service.signed_in(sid, lambda: service.test(sid))
        assert result.success, result.error
        assert result.tools == ["whoami", "write"]
        assert len(browser.urls) == 1 and "code_challenge_method=S256" in browser.urls[0]
        assert browser.answers[0][0] == 200 and "return to Elftia" in browser.answers[0][1]
        assert service.connection_state(sid) is ConnectionState.CONNECTED

        status = await service.auth_status(sid)
        assert status.signed_in and status.subject == "ada@example.com"
        assert "mcp:read" in status.scopes and "offline_access" in status.scopes
        assert grown(url, before, "registrations") == 1
        # A later background use needs no browser.
        whoami = await service.call_tool(sid, "whoami", {})
        assert json.loads(whoami.content[0]["text"])["scopes"] == ["mcp:read", "offline_access"]
        assert len(browser.urls) == 1


async def test_refresh_after_expiry_without_user_action(service: McpService) -> None:
    browser = Browser()
    service.set_sign_in_prompt(browser)
    with serve_http("oauth", extra=("--token-lifetime", "2")) as url:
        sid = await add_oauth(service, url)
        assert (await service.signed_in(sid, lambda: service.test(sid))).success
        await asyncio.sleep(2.5)
        await service.reconnect(sid)  # a new connection sends the stored, now expired, token
        assert service.connection_state(sid) is ConnectionState.CONNECTED
        assert stats(url)["refreshes"] == 1
        # A new run of the app (a new service on the same store) knows the stored expiry too.
        await asyncio.sleep(2.5)
        again = McpService(service.catalog, runtime_dir=service.catalog.store.path.parent / "runtime2")
        try:
            assert (await again.call_tool(sid, "whoami", {})).is_error is False
        finally:
            await again.cleanup()
        assert stats(url)["refreshes"] == 2
        assert len(browser.urls) == 1


async def test_revoked_token_leads_to_auth_required(service: McpService, oauth_url: str) -> None:
    browser = Browser()
    service.set_sign_in_prompt(browser)
    sid = await add_oauth(service, oauth_url)
    assert (await service.signed_in(sid, lambda: service.test(sid))).success
    revoke_all(oauth_url)
    with pytest.raises(ServerAuthRequired, match="sign-in required"):
        await service.call_tool(sid, "whoami", {})
    assert service.connection_state(sid) is ConnectionState.AUTH_REQUIRED
    before = stats(oauth_url)
    with pytest.raises(ServerAuthRequired):  # background use: no reconnect attempt, no browser
        await service.list_server_tools(sid)
    assert stats(oauth_url) == before and len(browser.urls) == 1

    response = await service.signed_in(sid, lambda: service.call_tool(sid, "whoami", {}))
    assert not response.is_error and len(browser.urls) == 2


async def test_wrong_state_is_rejected(service: McpService, oauth_url: str) -> None:
    browser = Browser(mode="forge")
    service.set_sign_in_prompt(browser)
    sid = await add_oauth(service, oauth_url)
    result = await service.signed_in(sid, lambda: service.test(sid))
    assert result.success, result.error
    assert browser.answers[0][0] == 400 and "does not belong" in browser.answers[0][1]
    assert browser.answers[1][0] == 200


async def test_scope_step_up(service: McpService, oauth_url: str) -> None:
    browser = Browser()
    service.set_sign_in_prompt(browser)
    sid = await add_oauth(service, oauth_url)
    assert (await service.signed_in(sid, lambda: service.test(sid))).success
    assert "mcp:write" not in stats(oauth_url)["last_scopes"]
    with pytest.raises(ServerAuthRequired):  # background: the 403 insufficient_scope opens no browser
        await service.call_tool(sid, "write", {"text": "x"})
    response = await service.signed_in(sid, lambda: service.call_tool(sid, "write", {"text": "x"}))
    assert response.content[0]["text"] == "wrote x"
    assert "mcp:write" in stats(oauth_url)["last_scopes"] and "mcp:read" in stats(oauth_url)["last_scopes"]
    assert len(browser.urls) == 2  # the sign-in, then the step-up (the reconnect used the stored tokens)
    assert "mcp%3Awrite" in browser.urls[1]


async def test_retry_limit(service: McpService, oauth_url: str) -> None:
    browser = Browser(mode="deny")
    service.set_sign_in_prompt(browser)
    sid = await add_oauth(service, oauth_url)
    result = await service.signed_in(sid, lambda: service.test(sid))
    assert not result.success
    assert "access_denied" in (result.error or "")
    assert len(browser.urls) == 3
    with pytest.raises(ServerAuthRequired, match="gave up after 3 attempts"):
        await service.signed_in(sid, lambda: service.call_tool(sid, "whoami", {}))
    assert len(browser.urls) == 6
    assert service.connection_state(sid) is ConnectionState.AUTH_REQUIRED


async def test_resource_mismatch_is_refused(service: McpService) -> None:
    browser = Browser()
    service.set_sign_in_prompt(browser)
    with serve_http("oauth", extra=("--resource-path", "/elsewhere")) as url:
        sid = await add_oauth(service, url)
        assert service.connection_state(sid) is ConnectionState.ERROR
        with pytest.raises(ServerStartFailed, match="different resource than its URL"):
            await service.signed_in(sid, lambda: service.call_tool(sid, "whoami", {}))
        assert browser.urls == [] and stats(url)["registrations"] == 0


async def test_time_at_the_browser_is_not_a_connect_timeout(service: McpService, oauth_url: str) -> None:
    browser = Browser(delay=3.0)
    service.set_sign_in_prompt(browser)
    sid = await add_oauth(service, oauth_url)
    await servers.update(service, sid, {"config": {"oauth_url": oauth_url, "oauth": {}, "timeout": {"connect": 1.5}}})
    result = await service.signed_in(sid, lambda: service.test(sid))
    assert result.success, result.error
    assert len(browser.urls) == 1


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post", "none"])
async def test_pre_registered_client(service: McpService, method: str) -> None:
    browser = Browser()
    service.set_sign_in_prompt(browser)
    port = free_port()
    extra = ("--redirect-port", str(port), "--client-id", "desk", "--client-secret", "pw", "--auth-method", method)
    with serve_http("oauth", extra=extra) as url:
        secret = {} if method == "none" else {"clientSecret": "pw"}
        sid = await add_oauth(
            service, url, clientId="desk", tokenEndpointAuthMethod=method, redirectPort=port, **secret
        )
        result = await service.signed_in(sid, lambda: service.test(sid))
        assert result.success, result.error
        assert f"redirect_uri=http%3A%2F%2F127.0.0.1%3A{port}%2Fcallback" in browser.urls[0]
        assert stats(url)["registrations"] == 0


async def test_client_id_metadata_document(service: McpService) -> None:
    browser = Browser()
    service.set_sign_in_prompt(browser)
    with serve_http("oauth", extra=("--cimd",)) as url:
        sid = await add_oauth(service, url, clientMetadataUrl="https://elftia.example/oauth/client.json")
        result = await service.signed_in(sid, lambda: service.test(sid))
        assert result.success, result.error
        assert "client_id=https%3A%2F%2Felftia.example%2Foauth%2Fclient.json" in browser.urls[0]
        assert stats(url)["registrations"] == 0 and stats(url)["cimd"] == "https://elftia.example/oauth/client.json"


async def test_a_metadata_document_url_falls_back_to_registration(service: McpService, oauth_url: str) -> None:
    browser = Browser()
    service.set_sign_in_prompt(browser)
    before = stats(oauth_url)  # the authorization server does not support client ID metadata documents
    sid = await add_oauth(service, oauth_url, clientMetadataUrl="https://elftia.example/oauth/client.json")
    result = await service.signed_in(sid, lambda: service.test(sid))
    assert result.success, result.error
    assert "client_id=https" not in browser.urls[0]
    assert grown(oauth_url, before, "registrations") == 1 and "cimd" not in stats(oauth_url)

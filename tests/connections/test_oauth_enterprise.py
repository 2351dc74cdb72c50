"""Enterprise-managed authorization (SEP-990) against a real identity provider + authorization server + MCP server.

``oauth.identityAssertion`` makes the pool exchange the user's ID token at the identity provider for an
identity assertion (ID-JAG), and that at the configured authorization server for an access token: no
browser, in the background too. The ID token is kept in the keyring like the client secret.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from elftia_desktop.connections.service import McpService
from elftia_desktop.core.models import ConnectionState, McpOAuthConfig
from tests.connections.oauth_helpers import add_oauth, base_of, stats
from tests.helpers.oauth_browser import Browser
from tests.servers.serve_http import serve_http

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]


def enterprise_oauth(url: str, id_token: str = "user-id-token") -> dict[str, Any]:
    """The ``oauth`` object of the test server: client ``desk`` at its issuer, ID token exchanged at ``/idp/token``."""
    origin = base_of(url)
    return {
        "clientId": "desk",
        "clientSecret": "pw",
        "issuer": origin,
        "tokenEndpointAuthMethod": "client_secret_basic",
        "identityAssertion": {
            "idpTokenEndpoint": f"{origin}/idp/token",
            "idpClientId": "desk-idp",
            "idpIdToken": id_token,
        },
    }


async def test_the_id_token_buys_an_access_token_without_a_browser(service: McpService) -> None:
    browser = Browser()
    service.set_sign_in_prompt(browser)
    with serve_http("enterprise") as url:
        sid = await add_oauth(service, url, **enterprise_oauth(url))
        # The add's background connect already signed in: nobody had to be there.
        assert service.connection_state(sid) is ConnectionState.CONNECTED
        answer = await service.call_tool(sid, "whoami", {})
        assert answer.content[0]["text"] == "Bearer enterprise-token"
        assert stats(url) == {"exchanges": 1, "grants": 1} and browser.urls == []
        saved = json.loads(service.catalog.store.path.read_text(encoding="utf-8"))
        text = json.dumps(saved)
        assert "user-id-token" not in text and '"idpIdToken": "${secret:idpIdToken}"' in text
        assert (await service.auth_status(sid)).signed_in


async def test_a_refused_token_exchange_says_so(service: McpService) -> None:
    with serve_http("enterprise") as url:
        sid = await add_oauth(service, url, **enterprise_oauth(url, id_token="stale-token"))
        result = await service.test(sid)
        assert not result.success
        assert "the identity provider refused the token exchange (HTTP 400): unexpected subject_token" in (
            result.error or ""
        )
        assert stats(url)["grants"] == 0


@pytest.mark.parametrize(
    ("drop", "message"),
    [
        ("issuer", "oauth.issuer: enterprise-managed authorization (identityAssertion) needs the MCP authorization"),
        ("clientSecret", "oauth.clientSecret: enterprise-managed authorization (identityAssertion) needs the client"),
    ],
)
def test_the_settings_the_sdk_needs_are_named(drop: str, message: str) -> None:
    settings = enterprise_oauth("http://127.0.0.1:1/mcp")
    del settings[drop]
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        McpOAuthConfig.model_validate(settings)

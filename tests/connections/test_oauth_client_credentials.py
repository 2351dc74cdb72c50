"""The ``client_credentials`` grant (issue 16): a client secret (basic and post) and a private key (private_key_jwt).

Any action that connects gets its token by itself: no sign-in prompt, no browser. The client-secret
tests share one ``--mode m2m`` server (``m2m_url``) and count the tokens it issued as growth.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from elftia_desktop.connections.service import McpService
from elftia_desktop.core.errors import ServerAuthRequired
from elftia_desktop.core.models import ConnectionState
from tests.connections.oauth_helpers import add_oauth, stats
from tests.helpers.oauth_browser import Browser
from tests.servers.serve_http import serve_http

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(180)]


@pytest.fixture(scope="module")
def m2m_url() -> Iterator[str]:
    """The OAuth test server in ``m2m`` mode (client secrets), one for the module."""
    with serve_http("oauth", extra=("--mode", "m2m")) as url:
        yield url


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post"])
async def test_client_secret(service: McpService, m2m_url: str, method: str) -> None:
    browser = Browser()
    service.set_sign_in_prompt(browser)
    tokens = stats(m2m_url).get("tokens", 0)
    sid = await add_oauth(
        service,
        m2m_url,
        grantType="client_credentials",
        clientId="m2m-client",
        clientSecret="m2m-secret",
        tokenEndpointAuthMethod=method,
    )
    assert service.connection_state(sid) is ConnectionState.CONNECTED  # the add's own connect got a token
    response = await service.call_tool(sid, "whoami", {})
    assert '"client_id": "m2m-client"' in response.content[0]["text"]
    assert stats(m2m_url) == {"tokens": tokens + 1, "last_auth_method": method}
    assert browser.urls == []
    status = await service.auth_status(sid)
    assert status.signed_in and status.grant_type == "client_credentials"


async def test_wrong_client_secret_is_a_clear_error(service: McpService, m2m_url: str) -> None:
    sid = await add_oauth(
        service, m2m_url, grantType="client_credentials", clientId="m2m-client", clientSecret="not-the-secret"
    )
    assert service.connection_state(sid) is ConnectionState.AUTH_REQUIRED
    with pytest.raises(ServerAuthRequired, match="Token exchange failed \\(401\\)"):
        await service.signed_in(sid, lambda: service.call_tool(sid, "whoami", {}))


async def test_private_key_jwt(service: McpService, tmp_path: Path) -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    public = tmp_path / "client.pub"
    public.write_bytes(
        key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    with serve_http("oauth", extra=("--mode", "m2m", "--public-key", str(public))) as url:
        sid = await add_oauth(
            service,
            url,
            grantType="client_credentials",
            clientId="m2m-client",
            tokenEndpointAuthMethod="private_key_jwt",
            privateKey=pem,
        )
        assert service.connection_state(sid) is ConnectionState.CONNECTED
        assert (await service.test(sid)).success
        assert stats(url)["last_auth_method"] == "private_key_jwt"
        record = next(r for r in await service.list_servers() if r.id == sid)
        assert record.config.oauth is not None and record.config.oauth.private_key == "${secret:privateKey}"
        assert "PRIVATE KEY" not in service.catalog.store.path.read_text()

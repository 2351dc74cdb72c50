"""DPoP (RFC 9449, issue 34) against the real OAuth test server run with ``--dpop``.

The server (``tests/servers/dpop_guard.py``) verifies every proof itself, demands a nonce at the
token endpoint and at the MCP endpoint, binds tokens to the proof key and refuses a bound token
sent as ``Bearer``: a call that succeeds went through all of it.
"""

from __future__ import annotations

import json
import time

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from elftia_desktop.connections.service import McpService
from elftia_desktop.core.dpop import DpopKey, access_token_hash
from elftia_desktop.core.models import ConnectionState
from tests.connections.oauth_helpers import add_oauth, stats
from tests.helpers.oauth_browser import Browser
from tests.servers.dpop_guard import thumbprint
from tests.servers.serve_http import serve_http

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(180)]


def test_proof_claims_and_signature() -> None:
    key = DpopKey.generate()
    proof = key.proof("post", "https://as.example/token?x=1#f", nonce="n-1", access_token="tok")
    header = jwt.get_unverified_header(proof)
    assert header["typ"] == "dpop+jwt" and header["alg"] == "ES256" and "d" not in header["jwk"]
    claims = jwt.decode(proof, jwt.PyJWK(header["jwk"], algorithm="ES256").key, algorithms=["ES256"])
    assert claims["htm"] == "POST" and claims["htu"] == "https://as.example/token"
    assert claims["nonce"] == "n-1" and claims["ath"] == access_token_hash("tok")
    assert abs(claims["iat"] - time.time()) < 60
    assert key.proof("GET", "https://rs.example/mcp") != key.proof("GET", "https://rs.example/mcp")  # fresh jti
    assert key.thumbprint() == thumbprint(header["jwk"])
    assert DpopKey.from_pem(key.to_pem()).thumbprint() == key.thumbprint()


def test_a_stored_key_that_is_not_one_is_a_value_error() -> None:
    """``VaultTokenStorage.dpop_key`` replaces an unreadable key on ``ValueError``; nothing else escapes."""
    ec_key = ec.generate_private_key(ec.SECP256R1())
    encrypted = ec_key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(b"secret"),
    ).decode()
    with pytest.raises(ValueError, match="cannot be read"):
        DpopKey.from_pem(encrypted)
    with pytest.raises(ValueError):
        DpopKey.from_pem("not a key")


@pytest.mark.parametrize(("transport", "kind"), [("streamable-http", "http"), ("sse", "sse")])
async def test_sign_in_with_dpop_and_nonces(service: McpService, transport: str, kind: str) -> None:
    browser = Browser()
    service.set_sign_in_prompt(browser)
    with serve_http("oauth", transport, extra=("--dpop",)) as url:  # type: ignore[arg-type]
        sid = await add_oauth(service, url, kind)
        result = await service.signed_in(sid, lambda: service.test(sid))
        assert result.success, result.error
        assert service.connection_state(sid) is ConnectionState.CONNECTED
        whoami = await service.call_tool(sid, "whoami", {})
        assert json.loads(whoami.content[0]["text"])["scopes"] == ["mcp:read", "offline_access"]

        dpop = stats(url)["dpop"]
        assert dpop["refused"] == []
        assert dpop["as_nonce_challenges"] == 1 and dpop["token_proofs"] == 1  # retried once, with the nonce
        assert dpop["rs_nonce_challenges"] == 1 and dpop["resource_proofs"] >= 3  # the nonce is reused after
        # The key pair is kept in the vault (never in the config), and it is the one the token is bound to.
        pem = service.catalog.vault.load(sid, "oauth", "dpop_key")
        assert pem is not None and dpop["thumbprints"] == [DpopKey.from_pem(pem).thumbprint()]
        assert "PRIVATE KEY" not in service.catalog.store.path.read_text()
        stored = json.loads(service.catalog.vault.load(sid, "oauth", "tokens") or "{}")
        assert stored["token_type"] == "DPoP"


async def test_bound_token_after_restart_and_refresh(service: McpService) -> None:
    browser = Browser()
    service.set_sign_in_prompt(browser)
    with serve_http("oauth", extra=("--dpop",)) as url:
        sid = await add_oauth(service, url)
        assert (await service.signed_in(sid, lambda: service.test(sid))).success
        await service.cleanup()
        # A new run of the app: the stored token goes out as DPoP with the stored key (no new sign-in) ...
        again = McpService(service.catalog, runtime_dir=service.catalog.store.path.parent / "runtime2")
        try:
            assert (await again.call_tool(sid, "whoami", {})).is_error is False
            vault = service.catalog.vault
            tokens = json.loads(vault.load(sid, "oauth", "tokens") or "{}")
            vault.store(sid, "oauth", "tokens", json.dumps(tokens | {"expires_at": time.time() - 60}))
            await again.reconnect(sid)  # ... and an expired one is refreshed with a proof of the same key
            assert again.connection_state(sid) is ConnectionState.CONNECTED
        finally:
            await again.cleanup()
        counted = stats(url)
        assert counted["refreshes"] == 1 and counted["authorizations"] == 1 and len(browser.urls) == 1
        assert counted["dpop"]["refused"] == []
        assert len(set(counted["dpop"]["thumbprints"])) == 1 and len(counted["dpop"]["thumbprints"]) == 2

"""DPoP (RFC 9449) on the SDK's OAuth providers: proofs at the token endpoint and the resource, nonce retries.

The SDK's providers speak bearer tokens only; ``DpopHooks`` wraps their flow (the requests it
yields and the responses it is sent) and adds what DPoP needs:

- a token request (to the token endpoint, POST) carries a ``DPoP`` proof when the authorization
  server's metadata lists ``ES256`` in ``dpop_signing_alg_values_supported`` (read here from the
  discovery answer: the SDK's metadata model drops that field), or when the current token is
  already DPoP-bound (its refresh must be proven with the same key);
- a token answer with ``token_type: DPoP`` marks the token bound (stored with it, so a restart
  knows) and is handed to the SDK as the bearer answer its model accepts;
- a bound token goes out as ``Authorization: DPoP <token>`` with a fresh proof naming it (``ath``);
- ``use_dpop_nonce`` (a 400 from the token endpoint, a 401 ``WWW-Authenticate: DPoP`` challenge
  from the resource) is answered by signing again with the server's ``DPoP-Nonce``, once; the
  last nonce of each origin is reused on later requests.

The key pair is the server's own, kept in the secrets vault (``VaultTokenStorage.dpop_key``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator
from typing import Any
from urllib.parse import urlsplit

import httpx2

from elftia_desktop.core.dpop import ALGORITHM, DpopKey, target_uri


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


async def _json_body(response: httpx2.Response) -> dict[str, Any] | None:
    """The JSON object a response carries (read here: only the auth flow's own answers are read)."""
    try:
        body = json.loads(await response.aread())
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


async def asks_for_nonce(response: httpx2.Response) -> bool:
    """Whether a response is a ``use_dpop_nonce`` challenge that names a nonce."""
    if "dpop-nonce" not in response.headers:
        return False
    if response.status_code == 401:
        challenge = response.headers.get("www-authenticate", "")
        return challenge.lower().startswith("dpop") and "use_dpop_nonce" in challenge
    if response.status_code == 400:
        body = await _json_body(response)
        return body is not None and body.get("error") == "use_dpop_nonce"
    return False


class DpopHooks:
    """Mixed into our ``OAuthClientProvider``-based providers (authorization code, client credentials), under
    ``FlowHooks``: DPoP where the server supports it. (The SDK's enterprise ``IdentityAssertionOAuthProvider``
    has another flow and goes without.)"""

    context: Any
    _dpop_key: DpopKey | None = None
    _dpop_nonces: dict[str, str] | None = None
    """The last ``DPoP-Nonce`` of each origin (the authorization server's, the resource's)."""
    _dpop_offered = False
    """The authorization server's metadata lists ES256 for DPoP proofs."""

    def _add_auth_header(self, request: httpx2.Request) -> None:
        tokens = self.context.current_tokens
        if tokens is not None and tokens.access_token and self._bound():
            request.headers["Authorization"] = f"DPoP {tokens.access_token}"
        else:
            super()._add_auth_header(request)  # type: ignore[misc]

    def _bound(self) -> bool:
        return bool(getattr(self.context.storage, "dpop_bound", False))

    async def _read_metadata(self, request: httpx2.Request, response: httpx2.Response) -> None:
        """Note whether authorization server metadata offers DPoP with ES256."""
        path = request.url.path
        if request.method != "GET" or response.status_code != 200 or "/.well-known/" not in path:
            return
        if "oauth-authorization-server" in path or "openid-configuration" in path:
            body = await _json_body(response) or {}
            algorithms = body.get("dpop_signing_alg_values_supported")
            self._dpop_offered = isinstance(algorithms, list) and ALGORITHM in algorithms

    def _is_token_request(self, request: httpx2.Request) -> bool:
        endpoint: str = self._get_token_endpoint()  # type: ignore[attr-defined]
        return request.method == "POST" and target_uri(str(request.url)) == target_uri(endpoint)

    async def _key(self) -> DpopKey:
        if self._dpop_key is None:
            key: DpopKey = await asyncio.to_thread(self.context.storage.dpop_key)
            self._dpop_key = key
            return key
        return self._dpop_key

    async def _sign(self, request: httpx2.Request) -> httpx2.Request:
        """Put a fresh proof on ``request`` when it needs one (a token request to a DPoP server, a bound token)."""
        request.headers.pop("DPoP", None)
        authorization = request.headers.get("Authorization", "")
        token: str | None = None
        if authorization.startswith("DPoP "):
            token = authorization.removeprefix("DPoP ")
        elif not (self._is_token_request(request) and (self._dpop_offered or self._bound())):
            return request
        url = str(request.url)
        nonce = self._nonces().get(_origin(url))
        request.headers["DPoP"] = (await self._key()).proof(request.method, url, nonce, token)
        return request

    def _nonces(self) -> dict[str, str]:
        if self._dpop_nonces is None:
            self._dpop_nonces = {}
        return self._dpop_nonces

    def _remember_nonce(self, request: httpx2.Request, response: httpx2.Response) -> bool:
        """Keep the server's ``DPoP-Nonce``; True when it is new (so a retry with it can succeed)."""
        nonce = response.headers.get("dpop-nonce")
        if "DPoP" not in request.headers or not nonce:
            return False
        origin = _origin(str(request.url))
        known = self._nonces().get(origin)
        self._nonces()[origin] = nonce
        return nonce != known

    async def _token_answer(self, request: httpx2.Request, response: httpx2.Response) -> httpx2.Response:
        """Note whether a token answer is DPoP-bound; the SDK is given it as the bearer answer it parses."""
        if not self._is_token_request(request) or response.status_code not in (200, 201):
            return response
        body = await _json_body(response)
        if body is None or not isinstance(body.get("token_type"), str):
            return response
        self.context.storage.dpop_bound = body["token_type"].lower() == "dpop"
        if not self.context.storage.dpop_bound:
            return response
        content = json.dumps(body | {"token_type": "Bearer"}).encode()
        framing = ("content-length", "content-encoding", "transfer-encoding")  # the new body is plain bytes
        headers = [(k, v) for k, v in response.headers.items() if k.lower() not in framing]
        return httpx2.Response(response.status_code, headers=headers, content=content, request=response.request)

    async def _auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        flow = super()._auth_flow(request)  # type: ignore[misc]
        try:
            outgoing = await flow.__anext__()
            while True:
                response = yield await self._sign(outgoing)
                await self._read_metadata(outgoing, response)
                if self._remember_nonce(outgoing, response) and await asks_for_nonce(response):
                    response = yield await self._sign(outgoing)  # once, with the nonce just given
                    self._remember_nonce(outgoing, response)
                outgoing = await flow.asend(await self._token_answer(outgoing, response))
        except StopAsyncIteration:
            return
        finally:
            await flow.aclose()

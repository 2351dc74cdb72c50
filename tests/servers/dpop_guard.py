"""An ASGI wrapper that makes the OAuth test server demand DPoP (RFC 9449) with nonces (``oauth.py --dpop``).

- The authorization server metadata lists ``dpop_signing_alg_values_supported: ["ES256"]``.
- ``POST /token`` needs a valid proof (``typ`` ``dpop+jwt``, ES256 over the embedded public ``jwk``,
  ``htm`` POST, ``htu`` the token endpoint, a recent ``iat``, an unused ``jti``) carrying the
  authorization server's nonce: without it the answer is 400 ``use_dpop_nonce`` with ``DPoP-Nonce``.
  Tokens it issues are bound to the proof key's thumbprint and answered as ``token_type: DPoP``.
- The MCP endpoint takes a bound token only as ``Authorization: DPoP <token>`` with a proof of the
  same key (``htm``/``htu`` of the request, ``ath`` the token's hash) carrying the resource's nonce:
  without it, 401 ``WWW-Authenticate: DPoP error="use_dpop_nonce"``. A bound token sent as ``Bearer``
  is refused. The verified request goes on to the SDK's bearer check.
Counts land in ``/test/stats`` under ``dpop``. Verification is written here independently of the client.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
from typing import Any

import jwt

AS_NONCE = "as-nonce-0001"
RS_NONCE = "rs-nonce-0001"
MCP_PATHS = ("/mcp", "/sse", "/messages/")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def thumbprint(jwk: dict[str, Any]) -> str:
    """RFC 7638 thumbprint of an EC public JWK."""
    members = {name: jwk[name] for name in ("crv", "kty", "x", "y")}
    return _b64(hashlib.sha256(json.dumps(members, sort_keys=True, separators=(",", ":")).encode()).digest())


class DpopGuard:
    """The wrapper; ``stats["dpop"]`` counts proofs, nonce challenges and refusals."""

    def __init__(self, app: Any, base: str, stats: dict[str, Any]) -> None:
        self.app = app
        self.base = base
        self.bound: dict[str, str] = {}
        """Access token -> thumbprint of the key it is bound to."""
        self.jtis: set[str] = set()
        self.stats: dict[str, Any] = {
            "token_proofs": 0,
            "resource_proofs": 0,
            "as_nonce_challenges": 0,
            "rs_nonce_challenges": 0,
            "thumbprints": [],
            "refused": [],
        }
        stats["dpop"] = self.stats

    def verify(self, proof: str | None, method: str, url: str, token: str | None = None) -> tuple[str | None, str]:
        """(thumbprint, nonce) of a valid proof, or (None, why)."""
        if not proof or "," in proof:
            return None, "missing or multiple DPoP proofs"
        try:
            header = jwt.get_unverified_header(proof)
            jwk = header["jwk"]
            if header.get("typ") != "dpop+jwt" or header.get("alg") != "ES256" or "d" in jwk:
                return None, "bad proof header"
            claims = jwt.decode(proof, jwt.PyJWK(jwk, algorithm="ES256").key, algorithms=["ES256"])
        except (jwt.PyJWTError, KeyError, ValueError) as exc:
            return None, f"proof does not verify: {exc}"
        if claims.get("htm") != method or claims.get("htu") != url:
            return None, f"htm/htu {claims.get('htm')} {claims.get('htu')} != {method} {url}"
        if abs(time.time() - claims.get("iat", 0)) > 300 or claims.get("jti") in self.jtis:
            return None, "stale iat or reused jti"
        if token is not None and claims.get("ath") != _b64(hashlib.sha256(token.encode()).digest()):
            return None, "ath does not match the token"
        self.jtis.add(claims["jti"])
        return thumbprint(jwk), str(claims.get("nonce"))

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode().lower(): v.decode() for k, v in scope.get("headers") or []}
        path = scope["path"]
        if path == "/.well-known/oauth-authorization-server":
            status, out, body = await self._inner(scope, receive)
            meta = json.loads(body) | {"dpop_signing_alg_values_supported": ["ES256"]}
            return await _answer(send, status, json.dumps(meta).encode(), out)
        if path == "/token" and scope["method"] == "POST":
            return await self._token(scope, receive, send, headers)
        if path in MCP_PATHS and "authorization" in headers:
            return await self._resource(scope, receive, send, headers)
        return await self.app(scope, receive, send)

    async def _token(self, scope: dict[str, Any], receive: Any, send: Any, headers: dict[str, str]) -> None:
        jkt, nonce = self.verify(headers.get("dpop"), "POST", f"{self.base}/token")
        if jkt is None:
            self.stats["refused"].append(nonce)
            return await _answer(send, 400, json.dumps({"error": "invalid_dpop_proof", "error_description": nonce}))
        if nonce != AS_NONCE:
            self.stats["as_nonce_challenges"] += 1
            body = json.dumps({"error": "use_dpop_nonce"})
            return await _answer(send, 400, body, [(b"dpop-nonce", AS_NONCE.encode())])
        self.stats["token_proofs"] += 1
        self.stats["thumbprints"].append(jkt)
        status, out, body = await self._inner(scope, receive)
        if status == 200:
            answer = json.loads(body)
            self.bound[answer["access_token"]] = jkt
            body = json.dumps(answer | {"token_type": "DPoP"}).encode()
        return await _answer(send, status, body, out)

    async def _resource(self, scope: dict[str, Any], receive: Any, send: Any, headers: dict[str, str]) -> None:
        scheme, _, token = headers["authorization"].partition(" ")
        if scheme != "DPoP":
            if token in self.bound:
                self.stats["refused"].append("a bound token sent as Bearer")
                return await _answer(send, 401, b"bound token", [(b"www-authenticate", b'DPoP error="invalid_token"')])
            return await self.app(scope, receive, send)
        jkt, nonce = self.verify(headers.get("dpop"), scope["method"], f"{self.base}{scope['path']}", token)
        if jkt is None or self.bound.get(token) != jkt:
            self.stats["refused"].append(nonce if jkt is None else "proof key is not the token's key")
            return await _answer(send, 401, b"bad proof", [(b"www-authenticate", b'DPoP error="invalid_dpop_proof"')])
        if nonce != RS_NONCE:
            self.stats["rs_nonce_challenges"] += 1
            extra = [(b"www-authenticate", b'DPoP error="use_dpop_nonce"'), (b"dpop-nonce", RS_NONCE.encode())]
            return await _answer(send, 401, b"use_dpop_nonce", extra)
        self.stats["resource_proofs"] += 1
        rewritten = [(k, v) for k, v in scope["headers"] if k.lower() != b"authorization"]
        rewritten.append((b"authorization", f"Bearer {token}".encode()))
        return await self.app(scope | {"headers": rewritten}, receive, send)

    async def _inner(self, scope: dict[str, Any], receive: Any) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
        start: dict[str, Any] = {}
        parts: list[bytes] = []

        async def capture(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            else:
                parts.append(message.get("body", b""))

        await self.app(scope, receive, capture)
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() not in (b"content-length", b"content-type")]
        return start["status"], headers, b"".join(parts)


async def _answer(send: Any, status: int, body: bytes | str, headers: list[tuple[bytes, bytes]] | None = None) -> None:
    data = body.encode() if isinstance(body, str) else body
    fixed = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": [*fixed, *(headers or [])]})
    await send({"type": "http.response.body", "body": data})

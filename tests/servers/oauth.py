"""An OAuth-protected MCP server built from the SDK's server-side auth, on 127.0.0.1.

Modes (``--mode``):
- ``code`` (default): the SDK's authorization server (metadata, dynamic client registration,
  ``/authorize`` that consents at once and sends ``iss``, ``/token`` with PKCE and refresh,
  ``/revoke``), protected resource metadata, and bearer token verification. Access tokens are
  HS256 JWTs naming the user (``ada@example.com``). The ``write`` tool needs scope
  ``mcp:write``: without it the server answers 403 ``insufficient_scope`` (step-up).
- ``m2m``: a ``client_credentials``-only token endpoint (``--client-id``, ``--client-secret``,
  ``--public-key`` for ``private_key_jwt``) in front of the same bearer-protected server.

``--redirect-port P`` pre-registers ``--client-id``/``--client-secret`` (``--auth-method``) with the
callback ``http://127.0.0.1:P/callback``; ``--cimd`` advertises client ID metadata documents (an
``https://`` client id is then accepted with any loopback redirect).
``--dpop``: DPoP-bound tokens with nonces, demanded at ``/token`` and the MCP endpoint (``dpop_guard.py``).
``--token-lifetime N``: seconds an access token lives. ``--resource-path P``: the protected
resource metadata names ``P`` instead of the MCP endpoint (a mismatch the client must refuse).
Test hooks: ``POST /test/revoke`` revokes every token; ``GET /test/stats`` counts what happened.

Run: ``python tests/servers/oauth.py --transport streamable-http`` (prints ``LISTENING <port>``).
"""

from __future__ import annotations

import argparse
import base64
import json
import secrets
import socket
import time
import warnings
from pathlib import Path
from typing import Any

import anyio
import jwt
import uvicorn
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthMetadata, OAuthToken
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types import ToolAnnotations
from pydantic import AnyHttpUrl, AnyUrl
from starlette.requests import Request
from starlette.responses import JSONResponse

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
SCOPES = ["mcp:read", "mcp:write", "offline_access"]
SIGNING_KEY = "test-server-signing-key-0123456789abcdef"
USER = "ada@example.com"


class LoopbackClient(OAuthClientInformationFull):
    """A client whose redirect may use any loopback port (RFC 8252 section 7.3): a CIMD client here."""

    def validate_redirect_uri(self, redirect_uri: Any) -> Any:
        if redirect_uri is not None and redirect_uri.host == "127.0.0.1":
            return redirect_uri
        return super().validate_redirect_uri(redirect_uri)


class Provider:
    """The SDK's ``OAuthAuthorizationServerProvider`` protocol, in memory, consenting at once."""

    def __init__(self, issuer: str, lifetime: int) -> None:
        self.issuer = issuer
        self.lifetime = lifetime
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.stats: dict[str, Any] = {"registrations": 0, "authorizations": 0, "refreshes": 0, "revoked": 0}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        if client_id.startswith("https://") and client_id not in self.clients:  # a client ID metadata document
            self.stats["cimd"] = client_id
            return LoopbackClient(client_id=client_id, token_endpoint_auth_method="none", scope=" ".join(SCOPES))
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        client_info.scope = " ".join(SCOPES)  # a server may widen what it registers
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info
        self.stats["registrations"] += 1
        self.stats["last_auth_method"] = client_info.token_endpoint_auth_method

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        code = AuthorizationCode(
            code=secrets.token_urlsafe(16),
            client_id=client.client_id or "",
            scopes=params.scopes or ["mcp:read"],
            expires_at=time.time() + 300,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        self.codes[code.code] = code
        self.stats["authorizations"] += 1
        self.stats["last_scopes"] = code.scopes
        self.stats["last_resource"] = params.resource
        return construct_redirect_uri(str(params.redirect_uri), code=code.code, state=params.state, iss=self.issuer)

    async def load_authorization_code(self, client: OAuthClientInformationFull, code: str) -> AuthorizationCode | None:
        return self.codes.get(code)

    def _mint(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        claims = {"sub": "user-1", "email": USER, "jti": secrets.token_hex(8), "scope": " ".join(scopes)}
        access = jwt.encode(claims, SIGNING_KEY, algorithm="HS256")
        expires = int(time.time()) + self.lifetime
        self.access[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=expires, resource=resource
        )
        refresh = secrets.token_urlsafe(16)
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes, resource=resource)
        return OAuthToken(access_token=access, expires_in=self.lifetime, scope=" ".join(scopes), refresh_token=refresh)

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, code: AuthorizationCode
    ) -> OAuthToken:
        del self.codes[code.code]
        return self._mint(code.client_id, code.scopes, code.resource)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        del self.refresh[refresh_token.token]
        self.stats["refreshes"] += 1
        return self._mint(refresh_token.client_id, scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or (found.expires_at is not None and found.expires_at < time.time()):
            return None
        return found

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)

    def revoke_all(self) -> None:
        self.stats["revoked"] += len(self.access) + len(self.refresh)
        self.access.clear()
        self.refresh.clear()


def advertise_cimd(app: Any) -> Any:
    """ASGI wrapper: the authorization server metadata says client ID metadata documents are supported."""

    async def wrapped(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] != "/.well-known/oauth-authorization-server":
            return await app(scope, receive, send)
        parts: list[bytes] = []
        start: dict[str, Any] = {}

        async def capture(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            else:
                parts.append(message.get("body", b""))

        await app(scope, receive, capture)
        body = json.dumps(json.loads(b"".join(parts)) | {"client_id_metadata_document_supported": True}).encode()
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
        await send(start | {"headers": [*headers, (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})
        return None

    return wrapped


def pre_register(provider: Provider, args: argparse.Namespace) -> None:
    """``--redirect-port``: a pre-registered client (``--client-id``/``--client-secret``) with that redirect URI."""
    provider.clients[args.client_id] = OAuthClientInformationFull(
        client_id=args.client_id,
        client_secret=args.client_secret if args.auth_method != "none" else None,
        redirect_uris=[AnyUrl(f"http://127.0.0.1:{args.redirect_port}/callback")],
        token_endpoint_auth_method=args.auth_method,
        grant_types=["authorization_code", "refresh_token"],
        scope=" ".join(SCOPES),
    )


def require_scope_for_write(app: Any, provider: Provider, metadata_url: str) -> Any:
    """ASGI wrapper: a ``tools/call`` of ``write`` without scope ``mcp:write`` gets 403 ``insufficient_scope``."""

    async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            return await app(scope, receive, send)
        chunks, more = [], True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(chunks)
        try:
            request = json.loads(body)
        except ValueError:
            request = None
        wants_write = isinstance(request, dict) and request.get("method") == "tools/call"
        wants_write = wants_write and (request.get("params") or {}).get("name") == "write"  # type: ignore[union-attr]
        if wants_write:
            header = dict(scope.get("headers") or []).get(b"authorization", b"").decode()
            token = provider.access.get(header.removeprefix("Bearer "))
            if token is not None and "mcp:write" not in token.scopes:
                challenge = (
                    f'Bearer error="insufficient_scope", scope="mcp:read mcp:write", resource_metadata="{metadata_url}"'
                )
                await send(
                    {
                        "type": "http.response.start",
                        "status": 403,
                        "headers": [(b"www-authenticate", challenge.encode())],
                    }
                )
                await send({"type": "http.response.body", "body": b"insufficient_scope"})
                return None
        sent = False

        async def replay() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return await app(scope, replay, send)

    return guarded


def add_tools(mcp: MCPServer) -> None:
    """``whoami`` and ``write`` (needs ``mcp:write``)."""

    @mcp.tool(annotations=ToolAnnotations(read_only_hint=True))
    def whoami() -> str:
        """The client id and scopes of the token."""
        token = get_access_token()
        return json.dumps({"client_id": token.client_id, "scopes": token.scopes} if token else {})

    @mcp.tool()
    def write(text: str) -> str:
        """Needs scope mcp:write."""
        return f"wrote {text}"


def add_test_routes(mcp: MCPServer, stats: dict[str, Any], revoke: Any) -> None:
    """``POST /test/revoke`` and ``GET /test/stats``."""

    @mcp.custom_route("/test/revoke", methods=["POST"])
    async def revoke_all(request: Request) -> JSONResponse:
        revoke()
        return JSONResponse({"ok": True})

    @mcp.custom_route("/test/stats", methods=["GET"])
    async def show_stats(request: Request) -> JSONResponse:
        return JSONResponse(stats)


class M2MVerifier:
    """Token verifier of the ``m2m`` mode."""

    def __init__(self) -> None:
        self.access: dict[str, AccessToken] = {}

    async def verify_token(self, token: str) -> AccessToken | None:
        return self.access.get(token)


def add_m2m_routes(
    mcp: MCPServer, args: argparse.Namespace, base: str, verifier: M2MVerifier, stats: dict[str, Any]
) -> None:
    """Authorization server metadata and a ``client_credentials`` token endpoint."""
    public_key = Path(args.public_key).read_text() if args.public_key else None

    @mcp.custom_route("/.well-known/oauth-authorization-server", methods=["GET"])
    async def as_metadata(request: Request) -> JSONResponse:
        meta = OAuthMetadata(
            issuer=AnyHttpUrl(base),
            authorization_endpoint=AnyHttpUrl(f"{base}/authorize"),
            token_endpoint=AnyHttpUrl(f"{base}/token"),
            grant_types_supported=["client_credentials"],
            token_endpoint_auth_methods_supported=["client_secret_basic", "client_secret_post", "private_key_jwt"],
            scopes_supported=["mcp:read"],
        )
        return JSONResponse(meta.model_dump(by_alias=True, mode="json", exclude_none=True))

    def client_ok(form: Any, authorization: str) -> str | None:
        if form.get("client_assertion") and public_key:
            claims = jwt.decode(
                form["client_assertion"], public_key, algorithms=["RS256", "ES256"], audience=[base, f"{base}/"]
            )
            return "private_key_jwt" if claims["iss"] == args.client_id else None
        basic = base64.b64decode(authorization[6:]).decode() if authorization.startswith("Basic ") else ""
        if basic == f"{args.client_id}:{args.client_secret}":
            return "client_secret_basic"
        if form.get("client_id") == args.client_id and form.get("client_secret") == args.client_secret:
            return "client_secret_post"
        return None

    @mcp.custom_route("/token", methods=["POST"])
    async def token_endpoint(request: Request) -> JSONResponse:
        form = await request.form()
        if form.get("grant_type") != "client_credentials":
            return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)
        try:
            method = client_ok(form, request.headers.get("authorization", ""))
        except jwt.PyJWTError as exc:
            return JSONResponse({"error": "invalid_client", "error_description": str(exc)}, status_code=401)
        if method is None:
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        access = secrets.token_urlsafe(16)
        verifier.access[access] = AccessToken(token=access, client_id=args.client_id, scopes=["mcp:read"])
        stats["tokens"] = stats.get("tokens", 0) + 1
        stats["last_auth_method"] = method
        body = OAuthToken(access_token=access, expires_in=args.token_lifetime, scope="mcp:read")
        return JSONResponse(body.model_dump(exclude_none=True), headers={"cache-control": "no-store"})


def build(args: argparse.Namespace, port: int) -> Any:
    """The ASGI app for the mode and transport on the command line."""
    base = f"http://127.0.0.1:{port}"
    path = "/sse" if args.transport == "sse" else "/mcp"
    resource = f"{base}{args.resource_path or path}"
    settings = AuthSettings(
        issuer_url=AnyHttpUrl(base),
        resource_server_url=AnyHttpUrl(resource),
        required_scopes=["mcp:read"],
        client_registration_options=ClientRegistrationOptions(
            enabled=True, valid_scopes=SCOPES, default_scopes=["mcp:read"]
        ),
        revocation_options=RevocationOptions(enabled=True),
        validate_token_resource=False,
    )
    if args.mode == "m2m":
        verifier = M2MVerifier()
        stats: dict[str, Any] = {}
        mcp = MCPServer(
            "oauth-m2m", token_verifier=verifier, auth=settings.model_copy(update={"client_registration_options": None})
        )
        add_m2m_routes(mcp, args, base, verifier, stats)
        add_test_routes(mcp, stats, verifier.access.clear)
    else:
        provider = Provider(str(AnyHttpUrl(base)), args.token_lifetime)  # the issuer as its metadata renders it
        if args.redirect_port:
            pre_register(provider, args)
        mcp = MCPServer("oauth", auth_server_provider=provider, auth=settings)
        add_test_routes(mcp, provider.stats, provider.revoke_all)
    add_tools(mcp)
    app = mcp.sse_app() if args.transport == "sse" else mcp.streamable_http_app()
    if args.mode == "code":
        metadata_url = f"{base}/.well-known/oauth-protected-resource{path}"
        app = require_scope_for_write(app, provider, metadata_url)
    if args.dpop:
        from dpop_guard import DpopGuard  # a sibling module (this file runs as a script)

        app = DpopGuard(app, base, provider.stats)
    return advertise_cimd(app) if args.cimd else app


def main() -> None:
    """Parse the command line, bind 127.0.0.1, print ``LISTENING <port>``, serve."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", choices=["sse", "streamable-http"], default="streamable-http")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--mode", choices=["code", "m2m"], default="code")
    parser.add_argument("--token-lifetime", type=int, default=3600)
    parser.add_argument("--resource-path")
    parser.add_argument("--client-id", default="m2m-client")
    parser.add_argument("--client-secret", default="m2m-secret")
    parser.add_argument("--public-key")
    parser.add_argument("--redirect-port", type=int, help="code mode: pre-register --client-id with this callback port")
    parser.add_argument("--auth-method", default="client_secret_basic", help="the pre-registered client's method")
    parser.add_argument("--cimd", action="store_true", help="advertise client ID metadata document support")
    parser.add_argument("--dpop", action="store_true", help="code mode: demand DPoP proofs and nonces")
    args = parser.parse_args()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(128)
    port = sock.getsockname()[1]
    app = build(args, port)
    print(f"LISTENING {port}", flush=True)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=1))
    anyio.run(lambda: server.serve(sockets=[sock]))


if __name__ == "__main__":
    main()

"""An MCP server behind enterprise-managed authorization (SEP-990): identity provider, authorization server, resource.

All three on one origin (HTTP only): ``/idp/token`` is the identity provider's RFC 8693 token exchange
(the ID token ``user-id-token`` of client ``desk-idp`` for an ID-JAG), ``/token`` the authorization
server's RFC 7523 jwt-bearer grant (client ``desk``/``pw`` by HTTP Basic, the ID-JAG for an access
token), ``/.well-known/oauth-authorization-server`` its metadata (issuer: the origin), and the MCP
endpoint answers 401 with a challenge unless that access token comes. ``/test/stats`` counts the
exchanges and grants. There is no ``/authorize``: a browser sign-in cannot happen here.

Run: ``python tests/servers/enterprise.py --transport streamable-http``.
"""

from __future__ import annotations

import base64
import json
import os
import sys
import warnings
from typing import Any
from urllib.parse import parse_qs

import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning

ID_TOKEN = "user-id-token"
ACCESS_TOKEN = "enterprise-token"
CLIENT = ("desk", "pw")
IDP_CLIENT = "desk-idp"
warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
mcp = MCPServer("enterprise")
READ_ONLY = types.ToolAnnotations(read_only_hint=True)
"""A test double: its tools run without asking (approvals themselves are tested on ``approvals.py``)."""
STATS = {"exchanges": 0, "grants": 0}


@mcp.tool(annotations=READ_ONLY)
def whoami(ctx: Context) -> str:
    """Which Authorization header the request carried."""
    return str((ctx.headers or {}).get("authorization", ""))


def _origin(scope: dict[str, Any]) -> str:
    return "http://" + dict(scope["headers"])[b"host"].decode()


def exchange(form: dict[str, str], origin: str) -> tuple[int, dict[str, Any]]:
    """The identity provider: an ID-JAG for the authorization server (``audience``) and the MCP server."""
    expected = {
        "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
        "requested_token_type": "urn:ietf:params:oauth:token-type:id-jag",
        "subject_token_type": "urn:ietf:params:oauth:token-type:id_token",
        "subject_token": ID_TOKEN,
        "client_id": IDP_CLIENT,
        "audience": origin,
        "resource": f"{origin}/mcp",
    }
    wrong = sorted(key for key, value in expected.items() if form.get(key) != value)
    if wrong:
        return 400, {"error": "invalid_grant", "error_description": f"unexpected {', '.join(wrong)}"}
    STATS["exchanges"] += 1
    jag = {"access_token": f"jag:{origin}", "issued_token_type": expected["requested_token_type"], "token_type": "N_A"}
    return 200, jag


def grant(form: dict[str, str], basic: str, origin: str) -> tuple[int, dict[str, Any]]:
    """The authorization server: the jwt-bearer grant of client ``desk`` with the ID-JAG."""
    if basic != "Basic " + base64.b64encode(":".join(CLIENT).encode()).decode():
        return 401, {"error": "invalid_client"}
    if (
        form.get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer"
        or form.get("assertion") != f"jag:{origin}"
    ):
        return 400, {"error": "invalid_grant"}
    STATS["grants"] += 1
    return 200, {"access_token": ACCESS_TOKEN, "token_type": "Bearer", "expires_in": 3600}


def metadata(origin: str) -> dict[str, Any]:
    """RFC 8414 metadata naming the origin as the issuer."""
    return {
        "issuer": origin,
        "authorization_endpoint": f"{origin}/authorize",
        "token_endpoint": f"{origin}/token",
        "response_types_supported": ["code"],
        "grant_types_supported": ["urn:ietf:params:oauth:grant-type:jwt-bearer"],
    }


async def _send_json(send: Any, status: int, body: dict[str, Any], extra: tuple[tuple[bytes, bytes], ...] = ()) -> None:
    headers = [(b"content-type", b"application/json"), *extra]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": json.dumps(body).encode()})


async def _form(receive: Any) -> dict[str, str]:
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    return {key: values[0] for key, values in parse_qs(body.decode()).items()}


def enterprise(app: Any) -> Any:
    """Wrap the MCP app with the identity provider, the authorization server and the bearer check."""

    async def serve(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        origin, path = _origin(scope), scope["path"]
        headers = dict(scope.get("headers") or [])
        if path == "/.well-known/oauth-authorization-server":
            await _send_json(send, 200, metadata(origin))
        elif path == "/idp/token":
            await _send_json(send, *exchange(await _form(receive), origin))
        elif path == "/token":
            await _send_json(send, *grant(await _form(receive), headers.get(b"authorization", b"").decode(), origin))
        elif path == "/test/stats":
            await _send_json(send, 200, STATS)
        elif headers.get(b"authorization") != f"Bearer {ACCESS_TOKEN}".encode():
            await _send_json(
                send, 401, {"error": "invalid_token"}, ((b"www-authenticate", b'Bearer error="invalid_token"'),)
            )
        else:
            await app(scope, receive, send)

    return serve


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _run import run

    run(mcp, wrap_app=enterprise)

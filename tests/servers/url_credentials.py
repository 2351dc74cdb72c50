"""A server that answers only requests to ``http://alice:pa55word@…/mcp?api_key=abc123def`` (else 401).

Proves that credentials kept in the keyring (``${secret:URL_PASSWORD}``, ``${secret:URL_QUERY_API_KEY}``
in the stored URL) are put back into the URL when the app connects.
Run: ``python -m tests.servers.url_credentials --transport streamable-http``.
"""

from __future__ import annotations

import base64
import os
import sys
import warnings
from typing import Any
from urllib.parse import parse_qs

import mcp_types as types
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning

USER, PASSWORD, API_KEY = "alice", "pa55word", "abc123def"
warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
mcp = MCPServer("url-credentials")
READ_ONLY = types.ToolAnnotations(read_only_hint=True)
"""A test double: its tools run without asking (approvals themselves are tested on ``approvals.py``)."""


@mcp.tool(annotations=READ_ONLY)
def ping() -> str:
    """Answer pong."""
    return "pong"


def require_credentials(app: Any) -> Any:
    """Wrap an ASGI app: 401 unless Basic alice:pa55word and ``?api_key=abc123def`` came with the request."""
    basic = b"Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode())

    async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            query = parse_qs(scope.get("query_string", b"").decode())
            if headers.get(b"authorization") != basic or query.get("api_key") != [API_KEY]:
                await send(
                    {"type": "http.response.start", "status": 401, "headers": [(b"content-type", b"text/plain")]}
                )
                await send({"type": "http.response.body", "body": b"missing or wrong credentials"})
                return
        await app(scope, receive, send)

    return guarded


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _run import run

    run(mcp, wrap_app=require_credentials)

"""A server that answers only requests with ``Authorization: Bearer secret-token`` (HTTP only, else 401).

Run: ``python -m tests.servers.auth --transport streamable-http`` (or ``sse``).
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any

import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning

TOKEN = "secret-token"
warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
mcp = MCPServer("auth")
READ_ONLY = types.ToolAnnotations(read_only_hint=True)
"""A test double: its tools run without asking (approvals themselves are tested on ``approvals.py``)."""


@mcp.tool(annotations=READ_ONLY)
def whoami(ctx: Context) -> str:
    """Which Authorization header the request carried."""
    headers = ctx.headers or {}
    return str(headers.get("authorization", ""))


def require_token(app: Any) -> Any:
    """Wrap an ASGI app: 401 unless the bearer token matches."""

    async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            if headers.get(b"authorization") != f"Bearer {TOKEN}".encode():
                await send(
                    {"type": "http.response.start", "status": 401, "headers": [(b"content-type", b"text/plain")]}
                )
                await send({"type": "http.response.body", "body": b"missing or wrong token"})
                return
        await app(scope, receive, send)

    return guarded


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _run import run

    run(mcp, wrap_app=require_token)

"""A server with one tool that sends the person to a URL (URL-mode elicitation).

On 2026-07-28 the question is an ``input_required`` round; in the handshake era the SDK asks mid-call.
Run: ``python -m tests.servers.linker`` or ``python tests/servers/linker.py``.
"""

from __future__ import annotations

import os
import sys
import warnings

import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
mcp = MCPServer("linker")


@mcp.tool()
async def link_account(ctx: Context) -> types.InputRequiredResult | str:
    """Send the person to a URL (URL-mode elicitation, as an ``input_required`` round on 2026-07-28)."""
    answer = (ctx.input_responses or {}).get("link")
    if answer is None:
        url = types.ElicitRequestURLParams(message="Link your account", url="https://example.com/link")
        return types.InputRequiredResult(input_requests={"link": types.ElicitRequest(params=url)}, request_state="s")
    assert isinstance(answer, types.ElicitResult)
    return f"link: {answer.action}"


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _run import run

    run(mcp)

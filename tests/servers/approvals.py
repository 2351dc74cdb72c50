"""A test server for approvals: tools with each kind of annotation, and a count of the calls that ran.

``read_note`` says ``readOnlyHint: true``; ``delete_note`` is destructive; ``post_note`` reaches
the open world; ``plain`` has no annotations. ``ran`` lists the calls that reached the server.

Run: ``python tests/servers/approvals.py``.
"""

from __future__ import annotations

import os
import sys
import warnings

import mcp_types as types
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
mcp = MCPServer("approvals", version="1.0.0")
RAN: list[str] = []


@mcp.tool(annotations=types.ToolAnnotations(read_only_hint=True))
def read_note(key: str) -> str:
    """Read a note."""
    RAN.append(f"read_note {key}")
    return f"note {key}"


@mcp.tool(annotations=types.ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False))
def delete_note(key: str) -> str:
    """Delete a note."""
    RAN.append(f"delete_note {key}")
    return f"deleted {key}"


@mcp.tool(annotations=types.ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=True))
def post_note(text: str) -> str:
    """Post a note to the world."""
    RAN.append(f"post_note {text}")
    return f"posted {text}"


@mcp.tool()
def plain() -> str:
    """A tool without annotations."""
    RAN.append("plain")
    return "plain ran"


@mcp.tool(annotations=types.ToolAnnotations(read_only_hint=True))
def ran() -> list[str]:
    """The calls that reached this server so far."""
    return list(RAN)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _run import run

    run(mcp)

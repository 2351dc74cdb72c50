"""A test server whose resource reads wait until the test opens their gate.

``gate://{name}`` answers once the file ``$GATE_DIR/{name}`` exists, so a test decides exactly
when a slow read returns (for example after it closed the window that asked).

Run: ``python -m tests.servers.gated`` (from the repo root), with ``GATE_DIR`` set.
"""

from __future__ import annotations

import asyncio
import os
import sys
import warnings
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
mcp = MCPServer("gated", version="1.0.0")


@mcp.resource("gate://{name}", mime_type="text/plain")
async def gate(name: str) -> str:
    """Wait for the gate file, then answer."""
    path = Path(os.environ["GATE_DIR"]) / name
    while True:  # a file is the gate: poll it (the test process cannot signal this one otherwise)
        if path.exists():
            return f"gate {name} opened"
        await asyncio.sleep(0.02)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _run import run

    run(mcp)

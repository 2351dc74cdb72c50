"""A server whose tool description lists a set: another order in every listing (like ``cli-mcp-server``).

``run_command``'s description says "Available commands: …"; the list is rotated by the number of
listings so far, counted in the file named by ``ORDER_STATE`` (so the count survives restarts) or
in memory. With ``ORDER_STATE`` holding ``grown``, the list has one more command (new content).

Run: ``python -m tests.servers.set_order`` or ``python tests/servers/set_order.py``.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Mapping
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types import Tool

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
ENV: Mapping[str, str] = globals().get("ENV", os.environ)
"""The environment this server reads: its process's (tests/helpers/memory_servers.py sets a copy's in memory)."""
COMMANDS = ["ls", "cat", "pwd", "echo", "date"]


class SetOrder(MCPServer):
    """Lists ``run_command`` with its commands in another order each time."""

    listings = 0

    def _commands(self) -> list[str]:
        state = ENV.get("ORDER_STATE")
        if not state:
            self.listings += 1
            count = self.listings
        else:
            path = Path(state)
            text = path.read_text().strip() if path.exists() else "0"
            if text == "grown":
                return [*COMMANDS, "rm"]
            count = int(text or "0") + 1
            path.write_text(str(count))
        shift = count % len(COMMANDS)
        return COMMANDS[shift:] + COMMANDS[:shift]

    async def list_tools(self) -> list[Tool]:
        """The tools; ``run_command``'s description lists the commands in this listing's order."""
        tools = await super().list_tools()
        text = f"Run a shell command. Available commands: {', '.join(self._commands())}"
        return [t.model_copy(update={"description": text}) if t.name == "run_command" else t for t in tools]


mcp = SetOrder("set-order", version="1.0.0")


@mcp.tool()
def run_command(command: str) -> str:
    """Run a shell command (the listing says which)."""
    return f"ran {command}"


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _run import run

    run(mcp)

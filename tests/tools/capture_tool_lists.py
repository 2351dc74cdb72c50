"""Capture ``tools/list`` results of real MCP servers into ``tests/tools/data/`` (run once, by hand).

Usage: ``.venv/bin/python tests/tools/capture_tool_lists.py``. Needs the network for ``npx``;
the tests only read the saved JSON.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

DATA = Path(__file__).parent / "data"
VENV_BIN = Path(sys.executable).parent

SERVERS: dict[str, tuple[str, list[str]]] = {
    "time": (str(VENV_BIN / "mcp-server-time"), []),
    "fetch": (str(VENV_BIN / "mcp-server-fetch"), []),
    "everything": ("npx", ["-y", "@modelcontextprotocol/server-everything"]),
    "filesystem": ("npx", ["-y", "@modelcontextprotocol/server-filesystem", tempfile.gettempdir()]),
    "memory": ("npx", ["-y", "@modelcontextprotocol/server-memory"]),
    "sequential-thinking": ("npx", ["-y", "@modelcontextprotocol/server-sequential-thinking"]),
}


async def capture(name: str, command: str, args: list[str]) -> dict[str, Any]:
    """The raw JSON of one server's tools/list, all pages."""
    params = StdioServerParameters(command=command, args=args)
    tools: list[dict[str, Any]] = []
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.list_tools()
        tools.extend(t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in result.tools)
    return {"server": name, "command": [command, *args], "tools": tools}


async def main() -> None:
    """Capture every server in ``SERVERS``; a failing one is reported and skipped."""
    for name, (command, args) in SERVERS.items():
        try:
            with anyio.fail_after(180):
                data = await capture(name, command, args)
        except Exception as exc:  # report and go on with the next server
            print(f"{name}: failed: {exc!r}", file=sys.stderr)
            continue
        (DATA / f"{name}.json").write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"{name}: {len(data['tools'])} tools")


if __name__ == "__main__":
    anyio.run(main)

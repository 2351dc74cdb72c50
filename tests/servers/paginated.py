"""A server with 25 tools (``tool_00`` .. ``tool_24``) that lists them 10 per page.

Run: ``python -m tests.servers.paginated`` or ``python tests/servers/paginated.py``.
"""

from __future__ import annotations

import os
import sys
import warnings

import mcp_types as types
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning

PAGE_SIZE = 10
TOOL_COUNT = 25


class PagingServer(MCPServer):
    """Answers tools/list in pages of ``PAGE_SIZE``; the cursor is the next start index."""

    async def _handle_list_tools(  # type: ignore[override]
        self, ctx: object, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        tools = await self.list_tools()
        start = int(params.cursor) if params is not None and params.cursor else 0
        end = start + PAGE_SIZE
        next_cursor = str(end) if end < len(tools) else None
        return types.ListToolsResult(tools=tools[start:end], next_cursor=next_cursor)


warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
mcp = PagingServer("paginated")


def _make(index: int) -> None:
    def tool(x: int = 0) -> str:
        return f"tool {index}: {x}"

    mcp.add_tool(tool, name=f"tool_{index:02d}", description=f"Tool number {index}")


for _i in range(TOOL_COUNT):
    _make(_i)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _run import run

    run(mcp)

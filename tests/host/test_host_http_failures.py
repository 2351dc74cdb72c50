"""A request that fails inside the host leaves a line with its cause in the host's log (``LogFailures``).

The SDK answers such a request with -32603 and nothing else; the host's log must say why. An error
the handler means to send (``MCPError``: a bad argument, an unknown tool) is the app's to read, not
logged. On the SDK's in-memory transport, with the middleware as the host installs it.
"""

from __future__ import annotations

import logging
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.server import Server
from mcp.shared.exceptions import MCPError

from elftia_desktop.host.http_sessions import LogFailures

pytestmark = pytest.mark.anyio


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    """``broken`` fails inside (a bug); any other name is refused on purpose."""
    if params.name == "broken":
        raise RuntimeError("the catalog is gone")
    raise MCPError(types.INVALID_PARAMS, f"no tool {params.name!r}")


async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    """Nothing to list."""
    return types.ListToolsResult(tools=[])


async def test_an_internal_error_is_logged_with_its_cause(caplog: pytest.LogCaptureFixture) -> None:
    server: Server[Any] = Server("failing", on_call_tool=call_tool, on_list_tools=list_tools)
    server.middleware.insert(0, LogFailures())
    caplog.set_level(logging.INFO, logger="elftia_desktop.host.http_sessions")
    async with Client(server) as client:
        with pytest.raises(MCPError) as internal:
            await client.call_tool("broken", {})
        assert internal.value.error.code == types.INTERNAL_ERROR
        assert "the catalog is gone" not in internal.value.error.message  # the app never sees the internals
        with pytest.raises(MCPError) as refused:
            await client.call_tool("missing", {})
        assert refused.value.error.code == types.INVALID_PARAMS
    records = [r for r in caplog.records if r.name == "elftia_desktop.host.http_sessions"]
    assert len(records) == 1  # the refusal on purpose is not logged
    assert records[0].levelno == logging.ERROR and "tools/call failed inside the host" in records[0].getMessage()
    assert records[0].exc_info is not None and str(records[0].exc_info[1]) == "the catalog is gone"

"""Tool channels: list tools, call one, switch one off or its auto-approval."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from elftia_desktop.application.tools import set_tool_flag
from elftia_desktop.bridge.plumbing import Done, Failed, RouterCore

if TYPE_CHECKING:
    from elftia_desktop.bridge.services import AppServices


class ToolChannels(RouterCore):
    """``mcp:list-server-tools``, ``mcp:list-all-tools``, ``mcp:call-tool``, ``mcp:set-tool``."""

    def list_server_tools(self, server_id: str, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:list-server-tools``."""
        return self._by_id(
            "mcp:list-server-tools", server_id, lambda s, i: s.mcp.list_server_tools(i), on_done, on_error
        )

    def list_all_tools(self, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:list-all-tools``: an ``McpToolListing`` of every active server."""
        return self._submit("mcp:list-all-tools", lambda s: s.mcp.list_all_active_server_tools(), on_done, on_error)

    def call_tool(self, params: dict[str, Any], on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:call-tool``: ``{serverId, toolName, args, callId}``; an OAuth server may ask to sign in first."""
        data, refused = self._validated("mcp:call-tool", "CallToolInput", params, on_error)
        if data is None:
            return refused
        call = data
        return self._submit(
            "mcp:call-tool",
            lambda s: s.mcp.signed_in(
                call.server_id, lambda: s.mcp.call_tool(call.server_id, call.tool_name, call.args, call.call_id)
            ),
            on_done,
            on_error,
        )

    def set_tool_flag(self, params: dict[str, Any], on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:set-tool``: enable/disable a tool or its auto-approval (``ToolToggleInput``)."""
        data, refused = self._validated("mcp:set-tool", "ToolToggleInput", params, on_error)
        if data is None:
            return refused
        toggle = data

        async def work(s: AppServices) -> Any:
            return await set_tool_flag(s.mcp, toggle.server_id, toggle.tool_name, toggle.flag, toggle.value)

        return self._submit("mcp:set-tool", work, on_done, on_error)

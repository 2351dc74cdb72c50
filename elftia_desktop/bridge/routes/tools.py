"""Tool channels: list tools, call one, switch one off or its auto-approval."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from elftia_desktop.application.tools import set_tool_flag
from elftia_desktop.bridge.pending import Pending
from elftia_desktop.bridge.plumbing import Route

if TYPE_CHECKING:
    from mcp.shared.dispatcher import ProgressFnT

    from elftia_desktop.bridge.channels import ToolToggleInput
    from elftia_desktop.bridge.services import AppServices
    from elftia_desktop.core.models import McpActionResult, MCPCallToolResponse, MCPTool, McpToolListing
    from elftia_desktop.engine.approval import Asker


class ToolRoute(Route):
    """``mcp:list-server-tools``, ``mcp:list-all-tools``, ``mcp:call-tool``, ``mcp:set-tool``."""

    def of_server(self, server_id: str) -> Pending[list[MCPTool]]:
        """``mcp:list-server-tools``: one server's tools."""
        return self._by_id("mcp:list-server-tools", server_id, lambda s, i: s.mcp.list_server_tools(i))

    def all_active(self) -> Pending[McpToolListing]:
        """``mcp:list-all-tools``: the tools of every active server; failing servers are in ``errors``."""
        return self._core.submit("mcp:list-all-tools", lambda s: s.mcp.list_all_active_server_tools())

    def call(
        self, server_id: str, tool_name: str, args: Mapping[str, object] | None = None, call_id: str | None = None
    ) -> Pending[MCPCallToolResponse]:
        """``mcp:call-tool``: call a tool once approved; an OAuth server may ask to sign in first."""
        from elftia_desktop.bridge.channels import CallToolInput

        channel = "mcp:call-tool"
        params = {"server_id": server_id, "tool_name": tool_name, "args": dict(args or {}), "call_id": call_id}
        approve = self._core.approve
        return self._core.call(
            channel,
            CallToolInput,
            params,
            lambda s, c: call_when_approved(s, c.server_id, c.tool_name, c.args, c.call_id, approve),
        )

    def set_flag(
        self, server_id: str, tool_name: str, flag: Literal["enabled", "autoApprove"], value: bool
    ) -> Pending[McpActionResult]:
        """``mcp:set-tool``: switch a tool on/off (``enabled``) or its auto-approval (``autoApprove``)."""
        from elftia_desktop.bridge.channels import ToolToggleInput

        params = {"server_id": server_id, "tool_name": tool_name, "flag": flag, "value": value}
        return self._core.call("mcp:set-tool", ToolToggleInput, params, _set_flag)


async def _set_flag(s: AppServices, toggle: ToolToggleInput) -> McpActionResult:
    return await set_tool_flag(s.mcp, toggle.server_id, toggle.tool_name, toggle.flag, toggle.value)


async def call_when_approved(
    s: AppServices, server_id: str, tool_name: str, args: dict[str, Any], call_id: str | None, approve: Asker | None
) -> MCPCallToolResponse:
    """A call from the window: the user is asked first for a tool that is not auto-approved; a refusal is an
    error result. An OAuth server may ask to sign in first (in place)."""
    refusal = await refusal_of(s, server_id, tool_name, args, approve)
    return refusal if refusal is not None else await call_signed_in(s, server_id, tool_name, args, call_id)


async def refusal_of(
    s: AppServices, server_id: str, tool_name: str, args: dict[str, Any], approve: Asker | None
) -> MCPCallToolResponse | None:
    """None when the call may run (auto-approved, or the user allowed it); else the refusal as an error result."""
    from elftia_desktop.core.models import MCPCallToolResponse
    from elftia_desktop.engine.approval import check_approval

    refusal = await check_approval(s.mcp, server_id, tool_name, args, approve)
    if refusal is None:
        return None
    return MCPCallToolResponse(is_error=True, content=[{"type": "text", "text": refusal.text}])


async def call_signed_in(
    s: AppServices,
    server_id: str,
    tool_name: str,
    args: dict[str, Any],
    call_id: str | None,
    progress: ProgressFnT | None = None,
) -> MCPCallToolResponse:
    """The call itself (an OAuth server may ask to sign in first); ``progress`` gets its progress notifications."""
    response: MCPCallToolResponse = await s.mcp.signed_in(
        server_id, lambda: s.mcp.call_tool(server_id, tool_name, args, call_id, progress_callback=progress)
    )
    return response

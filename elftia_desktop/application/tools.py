"""Actions on one server's tools: hide or offer a tool, run it with or without asking."""

from __future__ import annotations

import asyncio
from typing import Literal

from elftia_desktop.application import messages
from elftia_desktop.application.servers import Target, target_catalog, update
from elftia_desktop.core.models import McpActionResult

ToolFlag = Literal["enabled", "autoApprove"]
"""``enabled``: the tool is offered to agents; ``autoApprove``: it runs without asking first."""


async def set_tool_flag(target: Target, server_id: str, tool_name: str, flag: ToolFlag, value: bool) -> McpActionResult:
    """Switch one flag of one tool (the server's ``disabledTools`` / ``disabledAutoApproveTools`` list)."""
    record = await asyncio.to_thread(target_catalog(target).get, server_id)
    field = "disabledTools" if flag == "enabled" else "disabledAutoApproveTools"
    current = record.disabled_tools if flag == "enabled" else record.disabled_auto_approve_tools
    names = [n for n in current if n != tool_name]
    if not value:
        names.append(tool_name)
    result = await update(target, server_id, {field: names})
    if result.success and result.server is not None:
        result.message = messages.tool_switched(tool_name, result.server.name, flag, value)
    return result

"""Actions on one server's tools: hide or offer a tool, run it with or without asking."""

from __future__ import annotations

import asyncio

from elftia_desktop.application import messages
from elftia_desktop.application.servers import Target, failed, target_parts
from elftia_desktop.core.catalog import ToolFlag
from elftia_desktop.core.errors import ElftiaError
from elftia_desktop.core.models import McpActionResult

__all__ = ["ToolFlag", "set_tool_flag"]


async def set_tool_flag(target: Target, server_id: str, tool_name: str, flag: ToolFlag, value: bool) -> McpActionResult:
    """Switch one flag of one tool (the server's ``disabledTools`` / ``disabledAutoApproveTools`` list).

    One locked read-modify-write of the config file (``ServerCatalog.set_tool_flag``): a switch made
    meanwhile elsewhere is kept. On a running service the server's tool list follows.
    """
    catalog, edits = target_parts(target)
    try:
        before, after = await asyncio.to_thread(catalog.set_tool_flag, server_id, tool_name, flag, value)
    except ElftiaError as exc:
        return failed(exc)
    if edits is not None:
        await edits.updated(before, after)
    return McpActionResult(
        success=True, message=messages.tool_switched(tool_name, after.name, flag, value), server=after
    )

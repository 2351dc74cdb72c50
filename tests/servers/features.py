"""A test server for the gateway: progress, a call that notes its cancellation, completions, logs.

Run: ``python -m tests.servers.features`` or ``python tests/servers/features.py``.
"""

from __future__ import annotations

import asyncio
import os
import sys
import warnings
from pathlib import Path

import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
mcp = MCPServer("features", version="1.0.0")
READ_ONLY = types.ToolAnnotations(read_only_hint=True)
"""A test double: its tools run without asking (approvals themselves are tested on ``approvals.py``)."""
COLOURS = ["red", "green", "blue", "grey"]


@mcp.tool(annotations=READ_ONLY)
async def count(steps: int, ctx: Context) -> str:
    """Report progress once per step, then answer."""
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step}")
        await asyncio.sleep(0.01)
    return f"counted {steps}"


@mcp.tool(annotations=READ_ONLY)
async def wait(seconds: float, marker: str) -> str:
    """Sleep; ``marker``.started exists once it runs; when cancelled, write 'cancelled' into ``marker``."""
    Path(marker + ".started").touch()  # noqa: ASYNC240 - a test server: one tiny local write
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        Path(marker).write_text("cancelled", encoding="utf-8")  # noqa: ASYNC240 - being cancelled: no await here
        raise
    return f"waited {seconds}"


@mcp.tool(annotations=READ_ONLY)
async def shout(message: str, ctx: Context) -> str:
    """Send ``message`` as a warning log message."""
    await ctx.warning(message, logger_name="loud")
    return "shouted"


@mcp.prompt()
def paint(colour: str) -> str:
    """A prompt whose argument completes to colour names."""
    return f"Paint it {colour}"


@mcp.completion()
async def complete(
    ref: types.PromptReference | types.ResourceTemplateReference,
    argument: types.CompletionArgument,
    context: types.CompletionContext | None,
) -> types.Completion | None:
    """Colours starting with what was typed."""
    if isinstance(ref, types.PromptReference) and ref.name == "paint":
        return types.Completion(values=[c for c in COLOURS if c.startswith(argument.value)])
    return None


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _run import run

    run(mcp)

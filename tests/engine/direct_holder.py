"""A process that holds direct connections to the built-in servers and then ends without closing them.

``python direct_holder.py exit``: print the server pids, then leave ``asyncio.run`` and exit normally
(atexit must kill the servers). ``python direct_holder.py wait``: print the pids, then wait to be
signalled (the SIGTERM/SIGINT handler must kill the servers).
"""

from __future__ import annotations

import asyncio
import sys

from elftia_desktop.engine.direct_adapter import DirectServerSpec, load_direct_mcp_tools


async def hold(mode: str) -> None:
    """Load the built-in servers and report their pids on stdout."""
    tools, connections = await load_direct_mcp_tools(
        [DirectServerSpec.builtin("clock"), DirectServerSpec.builtin("notes")]
    )
    print("PIDS", *[c.pid for c in connections], flush=True)
    print("TOOLS", len(tools), flush=True)
    if mode == "wait":
        await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(hold(sys.argv[1]))
    sys.exit(0)

"""A process that holds direct connections to the built-in servers and then ends without closing them.

``python direct_holder.py exit``: print the server pids, then leave ``asyncio.run`` and exit normally
(atexit must kill the servers). ``python direct_holder.py wait``: print the pids, then wait to be
signalled (the SIGTERM/SIGINT handler must kill the servers).
"""

from __future__ import annotations

import asyncio
import faulthandler
import signal
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
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # the test asks for the stacks of a holder that hangs
    # Like an app started from a terminal: a shell job without job control (CI started with `cmd &`) starts it
    # with SIGINT ignored, which Python and asyncio respect, and Ctrl+C would do nothing.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    asyncio.run(hold(sys.argv[1]))
    sys.exit(0)

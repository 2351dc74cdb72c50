"""A stdio server that saves its state when its stdin closes, the way the memory server writes its file.

After the session ends it spends about half a second writing ``FLUSH_FILE`` in chunks (with
work between them), then writes ``complete`` on the last line and exits 0. A client that
escalates to SIGTERM while it is still writing leaves the file without that line.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time

from mcp.server.mcpserver import MCPServer

mcp = MCPServer("flush-on-eof")


@mcp.tool()
def ping() -> str:
    """Answer pong."""
    return "pong"


def flush(path: str, seconds: float = 0.6) -> None:
    """Write the state slowly: busy work and a write per chunk, then the closing line."""
    digest = b"state"
    deadline = time.monotonic() + seconds
    with open(path, "w", encoding="ascii") as handle:
        while time.monotonic() < deadline:
            for _ in range(2000):
                digest = hashlib.sha256(digest).digest()
            handle.write(digest.hex() + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        handle.write("complete\n")


if __name__ == "__main__":
    mcp.run()
    flush(os.environ["FLUSH_FILE"])
    sys.exit(0)

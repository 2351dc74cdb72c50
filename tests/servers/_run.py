"""Shared ``__main__`` of the test servers.

Over stdio by default (``--linger``: keep running after stdin closes, like a server that
ignores EOF); with ``--transport sse|streamable-http [--port N]`` the server binds
127.0.0.1 (port 0: a free one), prints ``LISTENING <port>`` on stdout, then serves.
"""

from __future__ import annotations

import argparse
import socket
import sys
from collections.abc import Callable
from typing import Any

import anyio
import uvicorn

AppWrapper = Callable[[Any], Any]


def run(mcp: Any, argv: list[str] | None = None, wrap_app: AppWrapper | None = None) -> None:
    """Serve ``mcp`` on the transport named on the command line; ``wrap_app`` wraps the ASGI app."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", choices=["stdio", "sse", "streamable-http"], default="stdio")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument(
        "--linger", action="store_true", help="stdio: stay alive after stdin closes (a stubborn server)"
    )
    args = parser.parse_args(argv)
    if args.transport == "stdio":
        mcp.run()
        if args.linger:
            import time

            while True:
                time.sleep(3600)
        return
    app = mcp.sse_app() if args.transport == "sse" else mcp.streamable_http_app()
    if wrap_app is not None:
        app = wrap_app(app)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(128)
    print(f"LISTENING {sock.getsockname()[1]}", flush=True)
    # a client's open stream (a 2026-07-28 subscriptions/listen) must not hold the shutdown for long
    config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
    try:
        anyio.run(lambda: server.serve(sockets=[sock]))
    except KeyboardInterrupt:
        sys.exit(0)

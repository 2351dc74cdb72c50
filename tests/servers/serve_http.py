"""Start the test servers: command lines for stdio, and a helper serving one over HTTP.

    from tests.servers.serve_http import server_command, serve_http

    server_command("basic")           # [sys.executable, ".../tests/servers/basic.py"] for stdio
    with serve_http("basic", "sse") as url:              # http://127.0.0.1:PORT/sse
        ...
    with serve_http("auth", "streamable-http") as url:   # http://127.0.0.1:PORT/mcp
        ...

The server runs as a real subprocess on 127.0.0.1 on a free port (it binds port 0 and
reports the port); it is killed (SIGKILL) when the block ends: nothing of a test server's own
shutdown is under test, and a graceful one waits up to a second for its clients' open streams.
Servers: basic, paginated, list_changed, hang_init, exit3, auth, oauth (see each module's docstring).
"""

from __future__ import annotations

import selectors
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

SERVERS_DIR = Path(__file__).resolve().parent
HttpTransport = Literal["sse", "streamable-http"]


def server_command(name: str, *extra: str) -> list[str]:
    """The command line that runs test server ``name`` over stdio."""
    return [sys.executable, str(SERVERS_DIR / f"{name}.py"), *extra]


def _wait_for_port(process: subprocess.Popen[str], timeout: float) -> int:
    assert process.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if selector.select(timeout=0.2):
            line = process.stdout.readline()
            if line.startswith("LISTENING "):
                return int(line.split()[1])
            if not line and process.poll() is not None:
                break
    raise RuntimeError(f"test server did not start (exit code {process.poll()})")


@contextmanager
def serve_http(
    name: str,
    transport: HttpTransport = "streamable-http",
    timeout: float = 60.0,
    port: int = 0,
    extra: tuple[str, ...] = (),
) -> Iterator[str]:
    """Serve test server ``name`` over SSE or Streamable HTTP (on ``port``, 0: a free one); yields its URL.

    ``extra``: more arguments for the server (``oauth`` takes ``--mode``, ``--token-lifetime`` ...).
    """
    process = subprocess.Popen(
        server_command(name, "--transport", transport, "--port", str(port), *extra),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        port = _wait_for_port(process, timeout)
        path = "/sse" if transport == "sse" else "/mcp"
        yield f"http://127.0.0.1:{port}{path}"
    finally:  # killed: its graceful shutdown would wait up to a second for the clients' open streams
        process.kill()
        process.wait(timeout=10)

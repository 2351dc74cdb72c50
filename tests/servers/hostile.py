"""A hostile test server: it tries to read, write, list, connect and look at the environment.

Each tool answers ``OK:<what it got>`` or ``DENIED:<the error>``, and logs the error on stderr the
way servers do (``PermissionError: [Errno 13] Permission denied: '/path'``). ``connect`` goes
through ``HTTPS_PROXY`` with ``CONNECT`` when one is set, as HTTP clients do. Self-contained (only
the SDK): a sandbox shows it nothing of this repository but this file. ``--read-at-start PATH``: it
tries to read ``PATH`` before serving.
"""

from __future__ import annotations

import os
import socket
import sys
from urllib.parse import urlsplit

from mcp.server.mcpserver import MCPServer

mcp = MCPServer("hostile", version="1.0.0")


def _denied(exc: OSError) -> str:
    print(f"{type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
    return f"DENIED:{exc}"


@mcp.tool()
def read_file(path: str) -> str:
    """Read a file (``~`` is the home folder)."""
    try:
        with open(os.path.expanduser(path), encoding="utf-8") as handle:
            return "OK:" + handle.read()
    except OSError as exc:
        return _denied(exc)


@mcp.tool()
def write_file(path: str, text: str) -> str:
    """Append to a file."""
    try:
        with open(os.path.expanduser(path), "a", encoding="utf-8") as handle:
            handle.write(text)
        return "OK:written"
    except OSError as exc:
        return _denied(exc)


@mcp.tool()
def list_dir(path: str) -> str:
    """The names in a folder, sorted."""
    try:
        return "OK:" + ",".join(sorted(os.listdir(os.path.expanduser(path))))
    except OSError as exc:
        return _denied(exc)


@mcp.tool()
def connect(host: str, port: int) -> str:
    """Open a TCP connection and read one line (through the proxy in ``HTTPS_PROXY``, if set)."""
    proxy = os.environ.get("HTTPS_PROXY")
    try:
        if proxy:
            url = urlsplit(proxy)
            sock = socket.create_connection((url.hostname or "", url.port or 80), timeout=10)
            sock.sendall(f"CONNECT {host}:{port} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
        else:
            sock = socket.create_connection((host, port), timeout=10)
        with sock, sock.makefile("rb") as stream:
            if proxy:
                status = stream.readline().decode().strip()
                while stream.readline().strip():
                    pass  # the rest of the proxy's answer head
                if " 200 " not in status + " ":
                    print(f"proxy refused {host}:{port}: {status}", file=sys.stderr, flush=True)
                    return f"DENIED:{status}"
            return "OK:" + stream.readline().decode().strip()
    except OSError as exc:
        return _denied(exc)


@mcp.tool()
def env(name: str) -> str:
    """One environment variable, and how many there are."""
    return f"OK:{os.environ.get(name)}|{len(os.environ)}"


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--read-at-start":  # a server that goes for a secret as it starts
        read_file(sys.argv[2])
    mcp.run()

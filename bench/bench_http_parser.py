"""uvicorn's HTTP parsers, h11 against httptools: ``.venv/bin/python bench/bench_http_parser.py [--requests N]``.

The gateway's HTTP endpoint runs on uvicorn, whose ``http="auto"`` picks httptools (C) when it is
installed and h11 (pure Python) otherwise. This measures what that choice costs per request on the
server side, the way the SDK's Streamable HTTP client talks: a ``tools/call`` POST with the MCP
headers, answered as an event stream, the client closing the response after the event it waited for
(so each call opens a new connection, as it does against the gateway and the proxies alike). A bare
ASGI app answers, so only uvicorn's own work is measured: its process's CPU time (user + system,
``/proc``, so Linux only) per request, each parser in a fresh server process, alternating ``--rounds`` times.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx2

BODY = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"basic__echo","arguments":{"text":"hi"}}}'
HEADERS = {
    "authorization": "Bearer 0123456789abcdef0123456789abcdef",
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-session-id": "0123456789abcdef",
    "mcp-protocol-version": "2025-11-25",
}
ANSWER = b'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}\n\n'
SERVER = """
import uvicorn

async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    while (await receive()).get("more_body"):
        pass
    headers = [(b"content-type", b"text/event-stream"), (b"mcp-session-id", b"0123456789abcdef")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": %r, "more_body": True})
    await send({"type": "http.response.body", "body": b"", "more_body": False})

uvicorn.run(app, host="127.0.0.1", port=%d, http=%r, log_level="warning", access_log=False, lifespan="off")
"""
WARMUP = 50
TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def free_port() -> int:
    """A free port on 127.0.0.1."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_listening(port: int, process: subprocess.Popen[bytes], limit: float = 30) -> None:
    """Until the server accepts on ``port`` (uvicorn prints nothing at level warning to wait on)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        assert process.poll() is None, f"the server exited with {process.returncode}"
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listened on {port} within {limit:.0f} s")


def cpu_per_request(parser: str, requests: int) -> float:
    """Microseconds of the server's CPU per request with uvicorn's ``parser``."""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-c", SERVER % (ANSWER, port, parser)])
    try:
        wait_listening(port, process)
        url = f"http://127.0.0.1:{port}/mcp"
        with httpx2.Client() as client:
            for index in range(WARMUP + requests):
                if index == WARMUP:
                    started = cpu_seconds(process.pid)
                with client.stream("POST", url, content=BODY, headers=HEADERS) as response:
                    next(response.iter_bytes())  # the event; then closed before the end, as the SDK client does
        return (cpu_seconds(process.pid) - started) / requests * 1e6
    finally:
        process.terminate()
        process.wait(timeout=30)


def main() -> None:
    """Alternate the two parsers and print the server's CPU per request of each round."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=1500)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    figures: dict[str, list[float]] = {"h11": [], "httptools": []}
    for _ in range(args.rounds):
        for name, values in figures.items():
            values.append(cpu_per_request(name, args.requests))
    for name, values in figures.items():
        print(f"{name}: " + ", ".join(f"{value:.0f}" for value in values) + " us of server CPU per request")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()

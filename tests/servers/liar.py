"""A server that speaks neither era properly (raw JSON-RPC over stdio or HTTP), for the bad-input tests.

Over stdio by default; ``--transport streamable-http [--port N]``: one JSON answer per POST on
127.0.0.1 (``LISTENING <port>`` on stdout), 202 for a notification, 405 for the GET stream.

``--mode old``: ``server/discover`` is unknown and ``initialize`` answers protocol version ``1999-01-01``.
``--mode future``: both answer ``-32022`` naming only ``2099-01-01`` (a modern-only server we cannot speak).
``--mode silent``: reads every request and never answers.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any


def answer(request: dict, mode: str) -> dict | None:
    """The reply to one request (None: no reply)."""
    rid, method = request.get("id"), request.get("method")
    if rid is None or mode == "silent":
        return None
    if mode == "future":
        error = {"code": -32022, "message": "unsupported protocol version", "data": {"supported": ["2099-01-01"]}}
        return {"jsonrpc": "2.0", "id": rid, "error": error}
    if method == "initialize":
        result = {"protocolVersion": "1999-01-01", "capabilities": {}, "serverInfo": {"name": "liar", "version": "0"}}
        return {"jsonrpc": "2.0", "id": rid, "result": result}
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"Method not found: {method}"}}


async def http_app(scope: dict, receive: Any, send: Any, mode: str) -> None:
    """The same answers over HTTP: the JSON-RPC reply as the POST's JSON body."""
    if scope["type"] != "http":
        return
    if scope["method"] != "POST":
        await send({"type": "http.response.start", "status": 405, "headers": []})
        await send({"type": "http.response.body", "body": b""})
        return
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    request = json.loads(body)
    if request.get("id") is not None and mode == "silent":
        await asyncio.Event().wait()  # never answers
    reply = answer(request, mode)
    status, payload = (202, b"") if reply is None else (200, json.dumps(reply).encode())
    await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": payload})


def serve(mode: str, port: int) -> None:
    """Serve the answers over HTTP on 127.0.0.1."""
    import socket

    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(16)
    print(f"LISTENING {sock.getsockname()[1]}", flush=True)

    async def app(scope: dict, receive: Any, send: Any) -> None:
        await http_app(scope, receive, send, mode)

    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off", timeout_graceful_shutdown=1))
    asyncio.run(server.serve(sockets=[sock]))


def main() -> None:
    """Answer stdin line by line until it closes (or serve over HTTP)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=["old", "future", "silent"], default="old")
    parser.add_argument("--transport", choices=["stdio", "streamable-http"], default="stdio")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    if args.transport == "streamable-http":
        serve(args.mode, args.port)
        return
    for line in sys.stdin:
        reply = answer(json.loads(line), args.mode)
        if reply is not None:
            print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()

"""A server that speaks neither era properly (raw JSON-RPC over stdio), for the bad-input tests.

``--mode old``: ``server/discover`` is unknown and ``initialize`` answers protocol version ``1999-01-01``.
``--mode future``: both answer ``-32022`` naming only ``2099-01-01`` (a modern-only server we cannot speak).
``--mode silent``: reads every request and never answers.
"""

from __future__ import annotations

import argparse
import json
import sys


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


def main() -> None:
    """Answer stdin line by line until it closes."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=["old", "future", "silent"], default="old")
    mode = parser.parse_args().mode
    for line in sys.stdin:
        reply = answer(json.loads(line), mode)
        if reply is not None:
            print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()

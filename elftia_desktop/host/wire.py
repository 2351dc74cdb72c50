"""The host's messages: one JSON object per line, and the versioned hello that opens a connection.

Every message is one line of UTF-8 JSON (compact, so it holds no newline) ended by ``\n``, both
ways, as on an MCP server's stdio. The client's first line is a hello ``{"elftiaHost": VERSION,
"role": ..., "token": ...}`` (the token only on a TCP endpoint, ``platform/endpoint.py``); the host
answers ``{"elftiaHost": VERSION, "ok": true, "pid": N}`` or ``{"ok": false, "error": "...", "kind":
...}`` and closes. After the hello a ``gateway`` connection carries the app's MCP JSON-RPC
messages, one per line, both ways; a ``command`` connection carries ``{"op": ...}`` requests and
answers (see ``commands.py``).
Standard library only: the attaching side must start fast.
"""

from __future__ import annotations

import json
import socket
from typing import Any

VERSION = 1
"""The protocol version; a host refuses a hello of another version (the client falls back)."""
REPLAY_ID = "elftia-host-replay"
"""The id of the app's ``initialize`` as a new host gets it from the shim (its answer is not passed on)."""
MAX_FRAME = 64 * 1024 * 1024
"""The longest line either side accepts (a tool result with images fits)."""
_CHUNK = 1 << 16


class WireError(Exception):
    """The other side broke the protocol, refused the hello, or went away."""


class HostRefused(WireError):
    """The host answered the hello with a refusal; ``kind`` names the error class when it is the user's input."""

    def __init__(self, message: str, kind: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind


def frame(payload: bytes) -> bytes:
    """``payload`` as one line (``WireError`` when it is too long or holds a line break)."""
    if len(payload) > MAX_FRAME:
        raise WireError(f"a message of {len(payload)} bytes is larger than the limit of {MAX_FRAME}")
    if b"\n" in payload:
        raise WireError("a message holds a line break (each message is one line)")
    return payload + b"\n"


def encode(message: dict[str, Any]) -> bytes:
    """A JSON object as one line."""
    return frame(json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode())


def decode(payload: bytes) -> dict[str, Any]:
    """A line's JSON object; ``WireError`` when it is not one."""
    try:
        message = json.loads(payload)
    except ValueError as exc:
        raise WireError(f"a message that is not JSON: {exc}") from exc
    if not isinstance(message, dict):
        raise WireError(f"expected a JSON object, got {type(message).__name__}")
    return message


def read_frame(sock: socket.socket) -> bytes | None:
    """The next line from a blocking socket (without its ``\\n``); None when the other side closed.

    Reads nothing past the line (it peeks first), so the socket can change hands after it.
    ``WireError`` when the connection closed in the middle of a line, or the line is too long.
    """
    parts: list[bytes] = []
    size = 0
    while True:
        peeked = sock.recv(_CHUNK, socket.MSG_PEEK)
        if not peeked:
            if parts:
                raise WireError("the connection closed in the middle of a message")
            return None
        end = peeked.find(b"\n")
        taken = sock.recv(len(peeked) if end < 0 else end + 1)
        size += len(taken)
        if size > MAX_FRAME + 1:
            raise WireError(f"a message longer than the limit of {MAX_FRAME} bytes")
        if taken.endswith(b"\n"):
            parts.append(taken[:-1])
            return b"".join(parts)
        parts.append(taken)


def hello(role: str, **fields: Any) -> dict[str, Any]:
    """The opening frame of a client of ``role``."""
    return {"elftiaHost": VERSION, "role": role, **fields}


def check_hello_reply(reply: dict[str, Any]) -> dict[str, Any]:
    """The host's answer to a hello, or ``WireError`` with its reason."""
    if reply.get("elftiaHost") != VERSION:
        raise WireError(f"the host speaks version {reply.get('elftiaHost')!r}, this command version {VERSION}")
    if not reply.get("ok"):
        raise HostRefused(str(reply.get("error") or "the host refused the connection"), reply.get("kind"))
    return reply

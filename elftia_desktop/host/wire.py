"""The host's messages: length-prefixed JSON frames, and the versioned hello that opens a connection.

A frame is a 4-byte big-endian length followed by that many bytes of UTF-8 JSON. The client's
first frame is a hello ``{"elftiaHost": VERSION, "role": ...}``; the host answers
``{"elftiaHost": VERSION, "ok": true, "pid": N}`` or ``{"ok": false, "error": "...", "kind": ...}`` and
closes.
After the hello a ``gateway`` connection carries one MCP JSON-RPC message per frame, both ways,
unless the hello came with the app's pipes and the welcome says ``"adopted": true``: the connection
is then the control link of ``adopt_link.py``. A ``command`` connection carries ``{"op": ...}``
requests and answers (see ``host.py``).
Standard library only: the attaching side must start fast.
"""

from __future__ import annotations

import json
import socket
import struct
from typing import Any

VERSION = 1
"""The protocol version; a host refuses a hello of another version (the client falls back)."""
REPLAY_ID = "elftia-host-replay"
"""The id of the app's ``initialize`` as a new host gets it from the shim (its answer is not passed on)."""
MAX_FRAME = 64 * 1024 * 1024
"""The largest frame either side accepts (a tool result with images fits)."""
_HEADER = struct.Struct(">I")


class WireError(Exception):
    """The other side broke the protocol, refused the hello, or went away."""


class HostRefused(WireError):
    """The host answered the hello with a refusal; ``kind`` names the error class when it is the user's input."""

    def __init__(self, message: str, kind: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind


def frame(payload: bytes) -> bytes:
    """``payload`` with its length prefix."""
    if len(payload) > MAX_FRAME:
        raise WireError(f"a message of {len(payload)} bytes is larger than the limit of {MAX_FRAME}")
    return _HEADER.pack(len(payload)) + payload


def encode(message: dict[str, Any]) -> bytes:
    """A JSON object as one frame."""
    return frame(json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode())


def payload_size(header: bytes) -> int:
    """The length a frame header announces; ``WireError`` when it is over the limit."""
    size: int = _HEADER.unpack(header)[0]
    if size > MAX_FRAME:
        raise WireError(f"a message of {size} bytes announced; the limit is {MAX_FRAME}")
    return size


def decode(payload: bytes) -> dict[str, Any]:
    """A frame's JSON object; ``WireError`` when it is not one."""
    try:
        message = json.loads(payload)
    except ValueError as exc:
        raise WireError(f"a message that is not JSON: {exc}") from exc
    if not isinstance(message, dict):
        raise WireError(f"expected a JSON object, got {type(message).__name__}")
    return message


def _read_exactly(sock: socket.socket, size: int) -> bytes | None:
    chunks: list[bytes] = []
    remaining = size
    while remaining:
        chunk = sock.recv(min(remaining, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def read_frame(sock: socket.socket) -> bytes | None:
    """The next frame's payload from a blocking socket; None when the other side closed."""
    header = _read_exactly(sock, _HEADER.size)
    if header is None:
        return None
    payload = _read_exactly(sock, payload_size(header))
    if payload is None:
        raise WireError("the connection closed in the middle of a message")
    return payload


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

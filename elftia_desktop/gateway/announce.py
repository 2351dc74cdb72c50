"""What the gateway announces in its ``initialize`` answer, without the SDK.

The gateway's SDK server (``server.py``) takes its name and instructions from here, and the
attached ``elftia-mcp serve`` (``host/shim.py``) answers ``initialize`` itself with the same
values before the pool host is reached; ``tests/host/test_shim_initialize.py`` checks that both
answers are the same for every protocol version and both modes.
"""

from __future__ import annotations

from typing import Any

SERVER_NAME = "elftia"
INSTRUCTIONS = (
    "Tools, prompts and resources of the MCP servers configured in Elftia. Tool and prompt names are 'server__name'."
)
HUB_INSTRUCTIONS = (
    "Elftia's hub: use find_tools with keywords to find a tool among every MCP server configured in Elftia, "
    "then call it with call_tool."
)
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""The protocol versions the SDK server accepts through ``initialize`` (``mcp_types.HANDSHAKE_PROTOCOL_VERSIONS``)."""
CAPABILITIES: dict[str, Any] = {
    "completions": {},
    "logging": {},
    "prompts": {"listChanged": True},
    "resources": {"listChanged": True, "subscribe": False},
    "tools": {"listChanged": True},
}
"""The capabilities the gateway's server announces (every kind, ``list_changed`` for the three lists)."""


def initialize_result(requested_version: str, *, hub: bool, version: str) -> dict[str, Any]:
    """The ``initialize`` result the SDK server gives a client asking for ``requested_version``."""
    negotiated = requested_version if requested_version in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
    return {
        "capabilities": CAPABILITIES,
        "instructions": HUB_INSTRUCTIONS if hub else INSTRUCTIONS,
        "protocolVersion": negotiated,
        "serverInfo": {"name": SERVER_NAME, "version": version},
    }

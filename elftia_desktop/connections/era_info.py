"""What a connection agreed on: the protocol era, its version and both sides' capabilities.

Also the per-server ``protocol`` setting (``auto`` | ``legacy`` | a modern version) checked
against the versions the SDK speaks, with an error naming the field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import mcp_types as types
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from elftia_desktop.connections.errors import leaf_exception
from elftia_desktop.core.errors import ServerStartFailed
from elftia_desktop.core.extensions import declared, short_label
from elftia_desktop.core.models import McpServerRecord
from elftia_desktop.core.text_rules import quoted

MODES = ("auto", "legacy", *MODERN_PROTOCOL_VERSIONS)
"""What a server's ``protocol`` field may say."""


@dataclass(frozen=True)
class EraInfo:
    """What the two sides agreed on: era, protocol version and both capability sets."""

    era: str
    """``modern`` (``server/discover``, 2026-07-28+) or ``handshake`` (``initialize``)."""
    protocol_version: str
    mode: str
    """What was asked for: ``auto``, ``legacy`` or a pinned modern version."""
    server_capabilities: dict[str, Any]
    client_capabilities: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        """JSON form (``discover``, ``test --json``)."""
        return {
            "era": self.era,
            "protocolVersion": self.protocol_version,
            "mode": self.mode,
            "serverCapabilities": self.server_capabilities,
            "clientCapabilities": self.client_capabilities,
            "extensions": self.extensions,
        }

    @property
    def extensions(self) -> list[str]:
        """The extension identifiers the server declared (``capabilities.extensions``)."""
        return declared(self.server_capabilities)

    @property
    def card_label(self) -> str:
        """The protocol and the server's extensions in a few words: ``2026-07-28 · apps, skills``."""
        extensions = short_label(self.extensions)
        return f"{self.label} · {extensions}" if extensions else self.label

    @property
    def label(self) -> str:
        """Short, for the card and messages: ``2026-07-28``, or ``handshake 2025-11-25``."""
        return self.protocol_version if self.era == "modern" else f"handshake {self.protocol_version}"

    def summary(self) -> str:
        """One line for the server log."""
        server = ", ".join(sorted(self.server_capabilities)) or "none"
        client = ", ".join(sorted(self.client_capabilities)) or "none"
        extensions = ", ".join(self.extensions) or "none"
        return (
            f"[protocol] {self.era} era, version {self.protocol_version} (mode {self.mode}); "
            f"server offers: {server}; we offer: {client}; server extensions: {extensions}"
        )


def mode_of(record: McpServerRecord) -> str:
    """The record's ``protocol`` field (default ``auto``); ``ValueError`` naming the field if we do not speak it."""
    mode = record.config.protocol or "auto"
    if mode not in MODES:
        hint = ' (a handshake-era version: use "legacy")' if mode in HANDSHAKE_PROTOCOL_VERSIONS else ""
        raise ValueError(f"{record.name}: the protocol field says {quoted(mode)}, not one of {', '.join(MODES)}{hint}")
    return mode


def era_info(session: ClientSession, mode: str) -> EraInfo:
    """The agreed era of a connected session."""
    caps = session.server_capabilities or types.ServerCapabilities()
    version = session.protocol_version or ""
    client_caps = session._build_capabilities(version)  # the capability ad the session sent
    return EraInfo(
        era="modern" if session.discover_result is not None else "handshake",
        protocol_version=version,
        mode=mode,
        server_capabilities=caps.model_dump(mode="json", by_alias=True, exclude_none=True),
        client_capabilities=client_caps.model_dump(mode="json", by_alias=True, exclude_none=True),
    )


def synthetic_init(session: ClientSession, fallback_name: str) -> types.InitializeResult | None:
    """The handshake's result, or for a modern session the same facts from its discover result."""
    if session.initialize_result is not None:
        return session.initialize_result
    if session.discover_result is None:
        return None
    info = session.server_info or types.Implementation(name=fallback_name, version="")
    return types.InitializeResult(
        protocol_version=session.protocol_version or "",
        capabilities=session.server_capabilities or types.ServerCapabilities(),
        server_info=info,
        instructions=session.instructions,
    )


def attempted(mode: str) -> str:
    """What a connection in ``mode`` tries, in words (for messages about a start that did not finish)."""
    return {
        "auto": "server/discover (2026-07-28), then the initialize handshake",
        "legacy": "the initialize handshake (protocol 'legacy')",
    }.get(mode, f"protocol {mode} (pinned)")


def era_failure(exc: BaseException, record: McpServerRecord, mode: str) -> ServerStartFailed | None:
    """A failure to agree on an era, in words (what was tried, what came back); None for any other failure."""
    leaf = leaf_exception(exc)
    tried = attempted(mode)
    if isinstance(leaf, MCPError) and leaf.code == types.UNSUPPORTED_PROTOCOL_VERSION:
        data = leaf.error.data if isinstance(leaf.error.data, dict) else {}
        named = ", ".join(map(str, data.get("supported") or [])) or "no versions"
        came = f"the server supports only {named}"
    elif isinstance(leaf, RuntimeError) and str(leaf).startswith(_VERSION_COMPLAINTS):
        came = f"the server answered: {str(leaf).rstrip('.')}"
    else:
        return None
    return ServerStartFailed(
        f"no protocol version in common. Tried {tried}; {came}", record.id, server_name=record.name
    )


_VERSION_COMPLAINTS = ("Unsupported protocol version from the server", "No mutually supported modern protocol version")

"""The texts of a server card's protocol chip (version, era, extensions) and of its last-call badge."""

from __future__ import annotations

import time
from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from elftia_desktop.bridge.signals import ToolCalled


@dataclass(frozen=True)
class ProtocolLabel:
    """The protocol chip's text ("" hides it), tooltip and accessible name."""

    shown: str
    tip: str
    accessible: str


def protocol_label(text: str) -> ProtocolLabel:
    """The chip of ``text``: ``2026-07-28``, or ``handshake 2025-11-25`` for the initialize handshake era, then
    ``" · apps, skills"`` when the server declared extensions ("": no connection)."""
    protocol, _, extensions = text.partition(" · ")
    version = protocol.removeprefix("handshake ")
    handshake = protocol.startswith("handshake ")
    shown = f"protocol {version}" + (" (handshake)" if handshake else "")
    shown += f" · {extensions}" if extensions else ""
    era = "the initialize handshake era"
    if not handshake:
        era = "no handshake (server/discover, each request carries its version)"
    tip = f"The MCP protocol version this connection agreed on: {version}, {era}"
    if extensions:
        tip += f"\nExtensions the server declared: {extensions}"
    accessible = f"Protocol: {version}" + (f", extensions: {extensions}" if extensions else "")
    return ProtocolLabel(shown if protocol else "", tip, accessible)


def last_call_html(last: ToolCalled, color: str, error_color: str) -> str:
    """The last-call badge: a link (``activity``) in ``color`` naming the tool, its time, a bad outcome and when."""
    took = f"{last.duration_ms:.0f} ms" if last.duration_ms < 1000 else f"{last.duration_ms / 1000:.1f} s"
    mark = "" if last.ok else f" <span style='color:{error_color}'>{escape(last.outcome)}</span>"
    when = time.strftime("%H:%M", time.localtime(last.at))
    return (
        f"<a href='activity' style='color:{color}; text-decoration:none'>"
        f"last call: {escape(last.tool_name)} · {took}{mark} · {when}</a>"
    )

"""A small Qt-free event emitter for ``McpService``.

Events (name -> payload)::

    "server:connected"  {serverId}
    "connection:state"  {serverId, state, error, reason}   reason: the error without the server's name
    "servers:changed"   {}
    "tool:called"       {serverId, toolName, callId, outcome, duration, success, at, caller}
    "tool:progress"     {serverId, toolName, callId, progress, total, message}
    "tools:changed"     {serverId}
    "log"               {serverId, line}
    "lists:changed"     {serverId, kind}                 kind: prompts | resources
    "log:message"       {serverId, level, logger, data}  a server's notifications/message
    "server:icon"       {serverId, path}                 its icon, checked and kept in the data folder
    "task:status"       {serverId, serverName, toolName, taskId, callId, status, statusMessage, startedAt, updatedAt}

Callbacks run synchronously on the service loop and must not block; the bridge re-emits
them as Qt signals. A callback that raises is logged and does not stop the others.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

EventCallback = Callable[[dict[str, Any]], None]
EVENT_NAMES = frozenset(
    {
        "server:connected",
        "connection:state",
        "servers:changed",
        "tool:called",
        "tool:progress",
        "tools:changed",
        "log",
        "lists:changed",
        "log:message",
        "server:icon",
        "task:status",
    }
)


class ServiceEvents:
    """Named events with synchronous subscribers."""

    def __init__(self) -> None:
        self._subscribers: dict[str, list[EventCallback]] = {}

    def on(self, name: str, callback: EventCallback) -> Callable[[], None]:
        """Subscribe ``callback`` to ``name``; returns a function that unsubscribes it."""
        if name not in EVENT_NAMES:
            raise ValueError(f"unknown event {name!r}; known: {', '.join(sorted(EVENT_NAMES))}")
        callbacks = self._subscribers.setdefault(name, [])
        callbacks.append(callback)

        def unsubscribe() -> None:
            """Stop calling the callback (idempotent)."""
            if callback in callbacks:
                callbacks.remove(callback)

        return unsubscribe

    def emit(self, name: str, payload: dict[str, Any]) -> None:
        """Call every subscriber of ``name`` with ``payload``."""
        for callback in list(self._subscribers.get(name, ())):
            try:
                callback(payload)
            except Exception:
                log.exception("event handler for %r failed", name)

"""The service's events, one frozen dataclass each, and a small Qt-free emitter typed by event class.

Events (class: fields)::

    ServerConnected         server_id                      a connection was just made
    ConnectionStateChanged  server_id, state, error, reason, protocol
                            reason: the error without the server's name; protocol: the agreed
                            protocol and extensions while connected (``2026-07-28 · apps``)
    ServersChanged          (none)                         the server list changed
    ToolCalled              server_id, tool_name, outcome, duration_ms, at, call_id, caller
                            outcome: ok | error | failed | cancelled | task; caller: the attached app
    ToolProgress            server_id, tool_name, call_id, progress, total, message
    ToolsChanged            server_id                      its tool list changed
    LogLine                 server_id, line                one line of the server's log
    ListsChanged            server_id, kind                kind: prompts | resources
    LogMessage              server_id, level, logger, data a server's notifications/message
    ServerIcon              server_id, path                its icon, checked and kept in the data folder
    TaskStatus              server_id, server_name, tool_name, task_id, call_id, status,
                            status_message, started_at, updated_at, poll_interval_ms

``events.on(ToolCalled, callback)`` subscribes ``callback`` (typed for that class) and returns a
function that unsubscribes it; ``events.emit(ToolCalled(...))`` calls every subscriber of the
event's class. Callbacks run synchronously on the service loop and must not block; the bridge
re-emits them as Qt signals carrying the same objects. A callback that raises is logged and does
not stop the others. :class:`TaskStatus` is also the JSON the pool host sends its commands
(``taskStatus`` frames) and keeps in ``tasks.json``: :meth:`TaskStatus.as_json` and
:meth:`TaskStatus.from_json` are that format's one writer and reader. Standard library only: the
CLI's attached commands (``host/client.py``) read these without loading the SDK.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

if TYPE_CHECKING:
    from mcp_types import LoggingLevel

    from elftia_desktop.core.models import ConnectionState

log = logging.getLogger(__name__)

TERMINAL = frozenset({"completed", "failed", "cancelled"})
"""The statuses a task ends with (the tasks extension's terminal states)."""
CallOutcome = Literal["ok", "error", "failed", "cancelled", "task"]
"""How a tool call ended: answered, answered with ``isError``, failed, cancelled, handed over as a task."""


@dataclass(frozen=True)
class ServiceEvent:
    """The base of every service event."""


@dataclass(frozen=True)
class ServerConnected(ServiceEvent):
    """A connection to the server was just made."""

    server_id: str


@dataclass(frozen=True)
class ConnectionStateChanged(ServiceEvent):
    """A server's connection state changed."""

    server_id: str
    state: ConnectionState
    error: str | None = None
    """Why it failed, with the server's name; None when it did not."""
    reason: str | None = None
    """The error without the server's name."""
    protocol: str | None = None
    """The agreed protocol with the server's extensions (``2026-07-28 · apps, skills``) while connected."""


@dataclass(frozen=True)
class ServersChanged(ServiceEvent):
    """The server list changed (added, updated or removed here)."""


@dataclass(frozen=True)
class ToolCalled(ServiceEvent):
    """A tool call ended."""

    server_id: str
    tool_name: str
    outcome: CallOutcome
    duration_ms: float
    at: float
    """When it ended (seconds since the epoch)."""
    call_id: str | None = None
    caller: str | None = None
    """The attached app that made the call (the window hosts the pool); None for this process's own calls."""

    @property
    def ok(self) -> bool:
        """True when the tool answered without error."""
        return self.outcome == "ok"


@dataclass(frozen=True)
class ToolProgress(ServiceEvent):
    """A progress notification of a call started with a call id."""

    server_id: str
    tool_name: str
    call_id: str
    progress: float
    total: float | None
    message: str | None


@dataclass(frozen=True)
class ToolsChanged(ServiceEvent):
    """A server's tool list changed (its notification, or a review of changed tools)."""

    server_id: str


@dataclass(frozen=True)
class LogLine(ServiceEvent):
    """One new line of a server's log."""

    server_id: str
    line: str


@dataclass(frozen=True)
class ListsChanged(ServiceEvent):
    """A server's prompts or resources changed."""

    server_id: str
    kind: str
    """``prompts`` or ``resources``."""


@dataclass(frozen=True)
class LogMessage(ServiceEvent):
    """A server's ``notifications/message``."""

    server_id: str
    level: LoggingLevel
    logger: str | None
    data: Any
    """The message's data as the server sent it (any JSON)."""


@dataclass(frozen=True)
class ServerIcon(ServiceEvent):
    """A server's icon was fetched, checked and kept in the data folder."""

    server_id: str
    path: Path


@dataclass(frozen=True)
class TaskStatus(ServiceEvent):
    """A task's new state (the tasks extension): whose it is and where it stands."""

    server_id: str
    server_name: str
    tool_name: str
    task_id: str
    call_id: str | None
    status: str
    """``working``, ``input_required``, ``completed``, ``failed`` or ``cancelled``."""
    status_message: str | None
    started_at: float
    updated_at: float
    poll_interval_ms: int | None = None

    @property
    def ended(self) -> bool:
        """Whether it reached a terminal status."""
        return self.status in TERMINAL

    def as_json(self) -> dict[str, Any]:
        """The state as JSON (a ``taskStatus`` frame's fields, an entry of ``tasks.json``)."""
        return {
            "serverId": self.server_id,
            "serverName": self.server_name,
            "toolName": self.tool_name,
            "taskId": self.task_id,
            "callId": self.call_id,
            "status": self.status,
            "statusMessage": self.status_message,
            "startedAt": self.started_at,
            "updatedAt": self.updated_at,
            "pollIntervalMs": self.poll_interval_ms,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TaskStatus:
        """A state as :meth:`as_json` wrote it; ``ValueError`` names the field that is not what it should be."""
        if not isinstance(data, Mapping):
            raise ValueError(f"a task's state must be a JSON object, not {type(data).__name__}")
        text = {key: data.get(key) for key in ("serverId", "serverName", "toolName", "taskId", "status")}
        for key, value in text.items():
            if not isinstance(value, str):
                raise ValueError(f"a task's {key!r} must be text, not {type(value).__name__}")
        call_id, message, poll = data.get("callId"), data.get("statusMessage"), data.get("pollIntervalMs")
        if call_id is not None and not isinstance(call_id, str):
            raise ValueError(f"a task's 'callId' must be text or null, not {type(call_id).__name__}")
        if poll is not None and not isinstance(poll, int):
            raise ValueError(f"a task's 'pollIntervalMs' must be a whole number or null, not {type(poll).__name__}")
        started = _seconds(data, "startedAt")
        return cls(
            str(text["serverId"]),
            str(text["serverName"]),
            str(text["toolName"]),
            str(text["taskId"]),
            call_id,
            str(text["status"]),
            None if message is None else str(message),
            started,
            _seconds(data, "updatedAt") if data.get("updatedAt") is not None else started,
            poll,
        )


def _seconds(data: Mapping[str, Any], key: str) -> float:
    """A time field (seconds since the epoch) of a task's JSON."""
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"a task's {key!r} must be a number (seconds since the epoch), not {type(value).__name__}")
    return float(value)


EVENT_TYPES: tuple[type[ServiceEvent], ...] = (
    ServerConnected,
    ConnectionStateChanged,
    ServersChanged,
    ToolCalled,
    ToolProgress,
    ToolsChanged,
    LogLine,
    ListsChanged,
    LogMessage,
    ServerIcon,
    TaskStatus,
)
"""Every event class (what :meth:`ServiceEvents.on` accepts)."""

E = TypeVar("E", bound=ServiceEvent)


class ServiceEvents:
    """Events by class with synchronous subscribers."""

    def __init__(self) -> None:
        self._subscribers: dict[type[ServiceEvent], list[Callable[[Any], None]]] = {}

    def on(self, kind: type[E], callback: Callable[[E], None]) -> Callable[[], None]:
        """Subscribe ``callback`` to the events of class ``kind``; returns a function that unsubscribes it."""
        if kind not in EVENT_TYPES:
            known = ", ".join(t.__name__ for t in EVENT_TYPES)
            raise ValueError(f"{kind.__name__} is not a service event; known: {known}")
        callbacks = self._subscribers.setdefault(kind, [])
        callbacks.append(callback)

        def unsubscribe() -> None:
            """Stop calling the callback (idempotent)."""
            if callback in callbacks:
                callbacks.remove(callback)

        return unsubscribe

    def emit(self, event: ServiceEvent) -> None:
        """Call every subscriber of the event's class with ``event``."""
        for callback in list(self._subscribers.get(type(event), ())):
            try:
                callback(event)
            except Exception:
                log.exception("event handler for %s failed", type(event).__name__)

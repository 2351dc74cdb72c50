"""Every Qt signal the router emits, in one documented class, and the typed payloads they carry.

The service events a signal carries (``ConnectionStateChanged``, ``ToolCalled``, ``TaskStatus``) are
the dataclasses of ``connections/events.py``, re-exported here for the widgets (``ui/`` imports
nothing of ``connections``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QImage

from elftia_desktop.connections.events import ConnectionStateChanged as ConnectionStateChanged
from elftia_desktop.connections.events import TaskStatus as TaskStatus
from elftia_desktop.connections.events import ToolCalled as ToolCalled

if TYPE_CHECKING:
    from elftia_desktop.engine.approval import ApprovalRequest


@dataclass(frozen=True)
class ElicitationRequest:
    """A server asks the user for input; answer it with ``McpRouter.answer_elicitation(ticket, ...)``."""

    ticket: int
    server_id: str
    message: str
    schema: dict[str, object]
    """The JSON schema of the requested input."""


@dataclass(frozen=True)
class ApprovalQuestion:
    """A tool that is not auto-approved is about to run; answer with ``McpRouter.answer_approval(ticket, ...)``."""

    ticket: int
    request: ApprovalRequest
    """Server, tool, arguments and annotations."""


@dataclass(frozen=True)
class SignInStarted:
    """A sign-in waits for the browser."""

    server_id: str
    server_name: str
    url: str
    """The authorization URL."""
    browser_opened: bool
    """False when no browser could be opened: the UI shows the URL to copy."""


class RouterSignals(QObject):
    """The router's signals, all delivered on the UI thread.

    Signals:
        finished(int, str, object): request id, channel, result; after every successful request.
        failed(int, str, object): request id, channel, ``BridgeError``; after every failed request.
        unanswered(int, str, object): as ``failed``, for a failure nobody who asked shows (no
            ``on_error``, or its receiver is gone); the status bar shows these.
        busyChanged(bool): True while any request runs.
        connectionStateChanged(object): a server's new state, as a :class:`ConnectionStateChanged`
            (``reason``: why it failed, without the server's name; ``protocol``: the protocol agreed
            on, ``2026-07-28 · apps`` or ``handshake 2025-11-25``, None while not connected).
        serverIconChanged(str, QImage): server id, its icon (from ``serverInfo.icons``; https or data only,
            checked, SVG drawn without scripts), once it was fetched after a connect.
        serversChanged(): the server list changed (here, or in the config file by another process).
        agentsChanged(): another process changed the agents file (``elftia-mcp agents ...``).
        settingsChanged(): another process saved the settings; they are in force already.
        toolsChanged(str): a server's tool list changed (server id).
        toolCalled(object): a finished tool call, as a :class:`ToolCalled`.
        taskStatus(object): a task's new state, as a :class:`TaskStatus`.
        logLine(str, str): source (a server id, or ``deps:<command>`` for an install), one log line.
        elicitationRequested(object): a server asks for input, as an :class:`ElicitationRequest`.
        approvalRequested(object): a tool waits for the user's approval, as an :class:`ApprovalQuestion`.
        signInStarted(object): a sign-in waits for the browser, as a :class:`SignInStarted`.
        poolChanged(object): who is attached to the window's pool host, as a ``bridge.pool_host.PoolState``.
    """

    finished = Signal(int, str, object)
    failed = Signal(int, str, object)
    unanswered = Signal(int, str, object)
    busyChanged = Signal(bool)
    connectionStateChanged = Signal(object)
    serverIconChanged = Signal(str, QImage)
    serversChanged = Signal()
    agentsChanged = Signal()
    settingsChanged = Signal()
    toolsChanged = Signal(str)
    toolCalled = Signal(object)
    taskStatus = Signal(object)
    logLine = Signal(str, str)
    elicitationRequested = Signal(object)
    approvalRequested = Signal(object)
    signInStarted = Signal(object)
    poolChanged = Signal(object)

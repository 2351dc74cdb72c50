"""Service events re-emitted as the router's Qt signals, and the service's questions to the user.

:meth:`EventRelay.wire` runs once, on the service loop, right after the services are built
(``ServiceLoop.when_built``): it subscribes to the service events (``connections/events.py``), and
installs the elicitation handler and the sign-in prompt. Nothing else subscribes to them for the
window. The signals carry the events' own dataclasses (a ``ConnectionStateChanged``, a
``ToolCalled``, a ``TaskStatus``): the widgets read their attributes. It also holds
the open approval questions (:meth:`EventRelay.approve`): a tool that is not auto-approved,
called from the window or, while the window hosts the pool, by an app that cannot be asked.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QMetaMethod

from elftia_desktop.bridge.icons import rasterize
from elftia_desktop.bridge.signals import (
    ApprovalQuestion,
    ElicitationRequest,
    RouterSignals,
    SignInStarted,
)
from elftia_desktop.connections.events import (
    ConnectionStateChanged,
    LogLine,
    ServerIcon,
    ServersChanged,
    TaskStatus,
    ToolCalled,
    ToolsChanged,
)

if TYPE_CHECKING:
    from elftia_desktop.bridge.services import AppServices
    from elftia_desktop.core.approvals import Answer
    from elftia_desktop.core.models import McpServerRecord
    from elftia_desktop.engine.approval import ApprovalRequest

ElicitationOutcome = tuple[str, dict[str, Any] | None]


class EventRelay:
    """Turns service events into :class:`RouterSignals` and holds the open elicitations."""

    def __init__(self, signals: RouterSignals, next_ticket: Callable[[], int]) -> None:
        self._signals = signals
        self._next_ticket = next_ticket
        self._elicitations: dict[int, asyncio.Future[ElicitationOutcome]] = {}
        self._approvals: dict[int, asyncio.Future[Answer | None]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._drawing: set[asyncio.Task[None]] = set()
        self.wired = 0
        """How many times :meth:`wire` ran (once per services)."""

    def wire(self, services: AppServices) -> None:
        """Subscribe to the services' events (on the service loop, once per services)."""
        self.wired += 1
        self._loop = asyncio.get_running_loop()
        s = self._signals
        events = services.mcp.events
        events.on(ConnectionStateChanged, s.connectionStateChanged.emit)
        events.on(ServersChanged, lambda _e: s.serversChanged.emit())
        events.on(ToolsChanged, lambda e: s.toolsChanged.emit(e.server_id))
        events.on(ToolCalled, s.toolCalled.emit)
        events.on(TaskStatus, s.taskStatus.emit)
        events.on(LogLine, lambda e: s.logLine.emit(e.server_id, e.line))
        events.on(ServerIcon, self._icon)
        services.mcp.set_elicitation_handler(self.elicit)
        services.mcp.set_sign_in_prompt(self._show_sign_in)

    def _icon(self, event: ServerIcon) -> None:
        """Draw a server's new icon in a worker thread, then emit ``serverIconChanged``."""

        async def draw() -> None:
            """The icon drawn off the loop, then the signal."""
            image = await asyncio.to_thread(rasterize, event.path)
            if image is not None:
                self._signals.serverIconChanged.emit(event.server_id, image)

        task = asyncio.get_running_loop().create_task(draw())
        self._drawing.add(task)
        task.add_done_callback(self._drawing.discard)

    async def elicit(self, server_id: str, message: str, schema: dict[str, Any]) -> ElicitationOutcome:
        """Ask the user in the window (``elicitationRequested``) and wait for the answer."""
        ticket = self._next_ticket()
        future: asyncio.Future[ElicitationOutcome] = asyncio.get_running_loop().create_future()
        self._elicitations[ticket] = future
        self._signals.elicitationRequested.emit(ElicitationRequest(ticket, server_id, message, schema))
        try:
            return await future
        finally:
            self._elicitations.pop(ticket, None)

    def answer(self, ticket: int, action: str, content: dict[str, Any] | None) -> None:
        """Settle an elicitation (from the UI thread); an unknown or settled ticket is ignored."""
        future = self._elicitations.get(ticket)
        if future is None or self._loop is None:
            return

        def settle() -> None:
            """Answer the waiting elicitation (once)."""
            if not future.done():
                future.set_result((action, content))

        self._loop.call_soon_threadsafe(settle)

    async def approve(self, request: ApprovalRequest) -> Answer | None:
        """Ask the user in the window (``approvalRequested``) and wait for the answer; None when no view listens."""
        if not self._signals.isSignalConnected(QMetaMethod.fromSignal(self._signals.approvalRequested)):
            return None
        ticket = self._next_ticket()
        future: asyncio.Future[Answer | None] = asyncio.get_running_loop().create_future()
        self._approvals[ticket] = future
        self._signals.approvalRequested.emit(ApprovalQuestion(ticket, request))
        try:
            return await future
        finally:
            self._approvals.pop(ticket, None)

    def answer_approval(self, ticket: int, answer: Answer) -> None:
        """Settle an approval question (from the UI thread); an unknown or settled ticket is ignored."""
        future = self._approvals.get(ticket)
        if future is None or self._loop is None:
            return

        def settle() -> None:
            """Answer the waiting question (once)."""
            if not future.done():
                future.set_result(answer)

        self._loop.call_soon_threadsafe(settle)

    async def _show_sign_in(self, record: McpServerRecord, url: str) -> None:
        from elftia_desktop.connections.oauth_prompt import open_in_browser

        opened = await open_in_browser(url)
        self._signals.signInStarted.emit(SignInStarted(record.id, record.name, url, opened))

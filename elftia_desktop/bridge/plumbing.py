"""The router's shared plumbing: requests, validation, delivery, service events, elicitation.

Each method validates its parameters with the pydantic models first (the original's
``secureHandle`` guard: a bad call is refused, never half-run), submits the work to the
service loop and returns a request id at once. The outcome arrives on the UI thread as the
``finished`` or ``failed`` signal and, when given, through the ``on_done`` / ``on_error``
callbacks. Service events are re-emitted as Qt signals.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import itertools
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Signal, Slot

from elftia_desktop.bridge.errors import BridgeError, to_bridge_error
from elftia_desktop.bridge.service_loop import ServiceLoop

if TYPE_CHECKING:
    from elftia_desktop.bridge.services import AppServices

Done = Callable[[Any], None]
Failed = Callable[[BridgeError], None]
Work = Callable[["AppServices"], Coroutine[Any, Any, Any]]


class RouterCore(QObject):
    """Submits channel work to the service loop and delivers outcomes on the UI thread.

    The channels themselves live in ``bridge/routes/`` (one module per feature) and are
    joined into :class:`~elftia_desktop.bridge.router.McpRouter`.

    Signals:
        finished(int, str, object): request id, channel, result.
        failed(int, str, object): request id, channel, ``BridgeError``.
        busyChanged(bool): True while any request runs.
        connectionStateChanged(str, str, str): server id, state, error text ("" when none).
        serversChanged(): the server list changed.
        toolCalled(object): ``{serverId, toolName, duration, success}``.
        toolsChanged(str): a server's tool list changed.
        logLine(str, str): server id, one log line.
        elicitationRequested(int, str, str, object): ticket, server id, message, requested schema.
    """

    finished = Signal(int, str, object)
    failed = Signal(int, str, object)
    busyChanged = Signal(bool)
    connectionStateChanged = Signal(str, str, str)
    serversChanged = Signal()
    toolCalled = Signal(object)
    toolsChanged = Signal(str)
    logLine = Signal(str, str)
    elicitationRequested = Signal(int, str, str, object)
    _delivered = Signal(int, bool, object)

    def __init__(self, loop: ServiceLoop[AppServices], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._loop = loop
        self._ids = itertools.count(1)
        self._pending: dict[int, tuple[str, Done | None, Failed | None]] = {}
        self._elicitations: dict[int, asyncio.Future[tuple[str, dict[str, Any] | None]]] = {}
        self._delivered.connect(self._deliver, Qt.ConnectionType.QueuedConnection)
        self._events_wired = False

    # -- plumbing ----------------------------------------------------------------------------

    def _submit(self, channel: str, work: Work, on_done: Done | None, on_error: Failed | None) -> int:
        request_id = next(self._ids)
        self._pending[request_id] = (channel, on_done, on_error)
        if len(self._pending) == 1:
            self.busyChanged.emit(True)

        async def run(services: AppServices) -> Any:
            self._wire_events(services)
            return await work(services)

        future = self._loop.submit(run)
        future.add_done_callback(lambda f: self._finish(request_id, f))
        return request_id

    def _finish(self, request_id: int, future: concurrent.futures.Future[Any]) -> None:
        # Runs on the service loop thread: hand over to the UI thread through a queued signal.
        if future.cancelled():  # the loop stopped (quit) or the work was cancelled: say so, never raise here
            self._delivered.emit(request_id, False, BridgeError("Cancelled", "The request was cancelled"))
            return
        error = future.exception()
        if error is None:
            self._delivered.emit(request_id, True, future.result())
        else:
            self._delivered.emit(request_id, False, to_bridge_error(error))

    def _refuse(self, channel: str, error: Exception, on_error: Failed | None) -> int:
        request_id = next(self._ids)
        self._pending[request_id] = (channel, None, on_error)
        if len(self._pending) == 1:
            self.busyChanged.emit(True)
        self._delivered.emit(request_id, False, to_bridge_error(error))
        return request_id

    @Slot(int, bool, object)
    def _deliver(self, request_id: int, ok: bool, payload: object) -> None:
        channel, on_done, on_error = self._pending.pop(request_id, ("", None, None))
        if not self._pending:
            self.busyChanged.emit(False)
        if ok:
            self.finished.emit(request_id, channel, payload)
            if on_done is not None:
                on_done(payload)
        else:
            self.failed.emit(request_id, channel, payload)
            if on_error is not None:
                on_error(payload)  # type: ignore[arg-type]

    def _validated(
        self, channel: str, model_name: str, params: dict[str, Any], on_error: Failed | None
    ) -> tuple[Any, int]:
        # The models load on first use (the service loop imports them at start), so the
        # window never waits for pydantic.
        from pydantic import ValidationError

        from elftia_desktop.bridge import channels
        from elftia_desktop.core import models

        model = getattr(channels, model_name, None) or getattr(models, model_name)
        try:
            return model.model_validate(params), 0
        except ValidationError as exc:
            return None, self._refuse(channel, exc, on_error)

    def _wire_events(self, services: AppServices) -> None:
        if self._events_wired:
            return
        self._events_wired = True
        events = services.mcp.events
        events.on(
            "connection:state",
            lambda p: self.connectionStateChanged.emit(p["serverId"], str(p["state"]), p.get("error") or ""),
        )
        events.on("servers:changed", lambda p: self.serversChanged.emit())
        events.on("tool:called", lambda p: self.toolCalled.emit(dict(p)))
        events.on("tools:changed", lambda p: self.toolsChanged.emit(p["serverId"]))
        events.on("log", lambda p: self.logLine.emit(p["serverId"], p["line"]))
        services.mcp.set_elicitation_handler(self._elicit)

    # -- elicitation: the server asks the user for input ---------------------------------------

    async def _elicit(self, server_id: str, message: str, schema: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
        ticket = next(self._ids)
        future: asyncio.Future[tuple[str, dict[str, Any] | None]] = asyncio.get_running_loop().create_future()
        self._elicitations[ticket] = future
        self.elicitationRequested.emit(ticket, server_id, message, schema)
        try:
            return await future
        finally:
            self._elicitations.pop(ticket, None)

    def answer_elicitation(self, ticket: int, action: str, content: dict[str, Any] | None = None) -> None:
        """Answer an ``elicitationRequested``: action accept, decline or cancel."""
        from elftia_desktop.bridge.channels import ElicitationAnswer

        answer = ElicitationAnswer.model_validate({"action": action, "content": content})
        future = self._elicitations.get(ticket)
        if future is None:
            return

        def settle() -> None:
            if not future.done():
                future.set_result((answer.action, answer.content))

        self._loop.loop.call_soon_threadsafe(settle)

    def _by_id(
        self,
        channel: str,
        server_id: str,
        work: Callable[[AppServices, str], Coroutine[Any, Any, Any]],
        on_done: Done | None,
        on_error: Failed | None,
    ) -> int:
        data, refused = self._validated(channel, "McpServerRemoveInput", {"id": server_id}, on_error)
        if data is None:
            return refused
        valid_id = data.id
        return self._submit(channel, lambda s: work(s, valid_id), on_done, on_error)

"""The router's shared plumbing: submit work to the service loop, deliver the outcome on the UI thread.

A route method validates its parameters first (the original's ``secureHandle`` guard: a bad call
is refused, never half-run), then :meth:`RouterCore.submit` runs the work on the service loop and
returns a request id at once. The outcome comes back on the UI thread as the ``finished`` or
``failed`` signal of :class:`~elftia_desktop.bridge.signals.RouterSignals` and, when given, through
the ``on_done`` / ``on_error`` callbacks.

Callbacks belong to a ``receiver`` (the page or dialog that asked): when the receiver has been
destroyed by the time the result arrives, its callbacks are dropped, never called.
"""

from __future__ import annotations

import concurrent.futures
import itertools
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import shiboken6
from PySide6.QtCore import QObject, Qt, Signal, Slot

from elftia_desktop.bridge.errors import BridgeError, ErrorCategory, to_bridge_error
from elftia_desktop.bridge.service_loop import ServiceLoop
from elftia_desktop.bridge.signals import RouterSignals

if TYPE_CHECKING:
    from pydantic import BaseModel

    from elftia_desktop.bridge.services import AppServices
    from elftia_desktop.engine.approval import Asker

T = TypeVar("T")
M = TypeVar("M", bound="BaseModel")

Done = Callable[[T], None]
"""A success callback; ``Done[McpServerRecord]`` receives the record."""
Failed = Callable[[BridgeError], None]
"""An error callback."""


@dataclass(frozen=True)
class Reply(Generic[T]):
    """Where a request's outcome goes: callbacks and the QObject that owns them."""

    channel: str
    """The original IPC channel name (``mcp:add`` ...), carried by ``finished`` / ``failed``."""
    receiver: QObject | None = None
    """The page or dialog that asked; once it is destroyed, the callbacks are dropped."""
    on_done: Done[T] | None = None
    on_error: Failed | None = None

    def __post_init__(self) -> None:
        if (self.on_done is not None or self.on_error is not None) and self.receiver is None:
            raise TypeError(f"{self.channel}: callbacks need a receiver (the QObject that owns them)")

    def alive(self) -> bool:
        """Whether the callbacks may run (their receiver still exists)."""
        return self.receiver is None or shiboken6.isValid(self.receiver)


class RouterCore(QObject):
    """Submits route work to the service loop and delivers outcomes on the UI thread (see the module docstring)."""

    _delivered = Signal(int, bool, object)

    def __init__(self, loop: ServiceLoop[AppServices], signals: RouterSignals) -> None:
        super().__init__(signals)
        self.loop = loop
        """The service loop the work runs on."""
        self.signals = signals
        self.approve: Asker | None = None
        """Asks the user before a tool that is not auto-approved runs from the window (the event relay's)."""
        self._ids = itertools.count(1)
        self._pending: dict[int, Reply[Any]] = {}
        self._delivered.connect(self._deliver, Qt.ConnectionType.QueuedConnection)

    def next_id(self) -> int:
        """A fresh id (requests and elicitation tickets share the counter)."""
        return next(self._ids)

    def submit(self, reply: Reply[T], work: Callable[[AppServices], Awaitable[T]]) -> int:
        """Run ``work(services)`` on the service loop; the outcome goes to ``reply``. Returns the request id."""
        request_id = self._open(reply)

        async def run(services: AppServices) -> T:
            """The work, on the service loop."""
            return await work(services)

        future = self.loop.submit(run)
        future.add_done_callback(lambda f: self._finish(request_id, f))
        return request_id

    def call(
        self,
        reply: Reply[T],
        model: type[M],
        params: Mapping[str, object],
        work: Callable[[AppServices, M], Awaitable[T]],
    ) -> int:
        """Validate ``params`` with ``model``, then submit ``work(services, request)``.

        Invalid parameters are refused: the request fails with ``InvalidParameters`` naming the
        field, and nothing is run.
        """
        from pydantic import ValidationError

        try:
            request = model.model_validate(dict(params))
        except ValidationError as exc:
            return self.refuse(reply, exc)
        return self.submit(reply, lambda services: work(services, request))

    def refuse(self, reply: Reply[Any], error: Exception) -> int:
        """Fail a request without running it (delivered like every outcome: later, on the UI thread)."""
        request_id = self._open(reply)
        self._delivered.emit(request_id, False, to_bridge_error(error))
        return request_id

    def _open(self, reply: Reply[Any]) -> int:
        request_id = self.next_id()
        self._pending[request_id] = reply
        if len(self._pending) == 1:
            self.signals.busyChanged.emit(True)
        return request_id

    def _finish(self, request_id: int, future: concurrent.futures.Future[Any]) -> None:
        # Runs on the service loop thread: hand over to the UI thread through a queued signal.
        if future.cancelled():  # the loop stopped (quit) or the work was cancelled: say so, never raise here
            self._delivered.emit(
                request_id,
                False,
                BridgeError("Cancelled", "The request was cancelled", category=ErrorCategory.CANCELLED),
            )
            return
        error = future.exception()
        if error is None:
            self._delivered.emit(request_id, True, future.result())
        else:
            self._delivered.emit(request_id, False, to_bridge_error(error))

    @Slot(int, bool, object)
    def _deliver(self, request_id: int, ok: bool, payload: object) -> None:
        reply = self._pending.pop(request_id, None)
        if reply is None:
            return
        if not self._pending:
            self.signals.busyChanged.emit(False)
        if ok:
            self.signals.finished.emit(request_id, reply.channel, payload)
        else:
            self.signals.failed.emit(request_id, reply.channel, payload)
        if not ok and (reply.on_error is None or not reply.alive()):
            self.signals.unanswered.emit(request_id, reply.channel, payload)  # no page shows this failure
        if not reply.alive():
            return  # the page or dialog that asked is gone: nobody to tell
        if ok and reply.on_done is not None:
            reply.on_done(payload)
        elif not ok and reply.on_error is not None:
            assert isinstance(payload, BridgeError)
            reply.on_error(payload)


class Route:
    """One feature's channels: a plain object over the shared :class:`RouterCore`."""

    def __init__(self, core: RouterCore) -> None:
        self._core = core

    def _by_id(self, reply: Reply[T], server_id: str, work: Callable[[AppServices, str], Awaitable[T]]) -> int:
        """Validate a server id (non-empty), then submit ``work(services, server_id)``."""
        from elftia_desktop.core.models import McpServerRemoveInput

        return self._core.call(reply, McpServerRemoveInput, {"id": server_id}, lambda s, r: work(s, r.id))

"""The router's shared plumbing: submit work to the service loop, deliver the outcome on the UI thread.

A route method validates its parameters first (the original's ``secureHandle`` guard: a bad call
is refused, never half-run), then :meth:`RouterCore.submit` runs the work on the service loop and
returns a :class:`~elftia_desktop.bridge.pending.Pending` at once. The outcome comes back on the UI
thread as the ``finished`` or ``failed`` signal of :class:`~elftia_desktop.bridge.signals.RouterSignals`
and through the callbacks given to ``Pending.then`` (dropped when their receiver was destroyed).
"""

from __future__ import annotations

import concurrent.futures
import itertools
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from PySide6.QtCore import QObject, Qt, Signal, Slot

from elftia_desktop.bridge.errors import BridgeError, ErrorCategory, to_bridge_error
from elftia_desktop.bridge.pending import Pending, Progress
from elftia_desktop.bridge.service_loop import ServiceLoop
from elftia_desktop.bridge.signals import RouterSignals

if TYPE_CHECKING:
    from pydantic import BaseModel

    from elftia_desktop.bridge.services import AppServices
    from elftia_desktop.engine.approval import Asker

T = TypeVar("T")
M = TypeVar("M", bound="BaseModel")

Report = Callable[[Progress], None]
"""Sends one progress report of a request to its ``Pending`` (callable from the service loop)."""


class RouterCore(QObject):
    """Submits route work to the service loop and delivers outcomes on the UI thread (see the module docstring)."""

    _delivered = Signal(int, bool, object)
    _progressed = Signal(int, object)

    def __init__(self, loop: ServiceLoop[AppServices], signals: RouterSignals) -> None:
        super().__init__(signals)
        self.loop = loop
        """The service loop the work runs on."""
        self.signals = signals
        self.approve: Asker | None = None
        """Asks the user before a tool that is not auto-approved runs from the window (the event relay's)."""
        self._ids = itertools.count(1)
        self._pending: dict[int, Pending[Any]] = {}
        self._delivered.connect(self._deliver, Qt.ConnectionType.QueuedConnection)
        self._progressed.connect(self._progress, Qt.ConnectionType.QueuedConnection)

    def next_id(self) -> int:
        """A fresh id (requests and elicitation tickets share the counter)."""
        return next(self._ids)

    def submit(self, channel: str, work: Callable[[AppServices], Awaitable[T]]) -> Pending[T]:
        """Run ``work(services)`` on the service loop; the outcome goes to the returned ``Pending``."""
        pending: Pending[T] = self._open(channel)
        self._start(pending, work)
        return pending

    def call(
        self,
        channel: str,
        model: type[M],
        params: Mapping[str, object],
        work: Callable[[AppServices, M], Awaitable[T]],
    ) -> Pending[T]:
        """Validate ``params`` with ``model``, then submit ``work(services, request)``.

        Invalid parameters are refused: the request fails with ``InvalidParameters`` naming the
        field, and nothing is run.
        """
        return self.call_reporting(channel, model, params, lambda s, request, _report: work(s, request))

    def call_reporting(
        self,
        channel: str,
        model: type[M],
        params: Mapping[str, object],
        work: Callable[[AppServices, M, Report], Awaitable[T]],
    ) -> Pending[T]:
        """As :meth:`call`; ``work`` also gets a ``report(Progress)`` that reaches this request's progress slot."""
        return self.validated(channel, lambda: model.model_validate(dict(params)), work)

    def validated(
        self, channel: str, build: Callable[[], M], work: Callable[[AppServices, M, Report], Awaitable[T]]
    ) -> Pending[T]:
        """As :meth:`call_reporting` with the request model built by ``build()`` (its constructor validates)."""
        from pydantic import ValidationError

        pending: Pending[T] = self._open(channel)
        try:
            request = build()
        except ValidationError as exc:
            self._delivered.emit(pending.request_id, False, to_bridge_error(exc))
            return pending
        request_id = pending.request_id

        def report(progress: Progress) -> None:
            """Queue a progress report for the UI thread."""
            self._progressed.emit(request_id, progress)

        self._start(pending, lambda s: work(s, request, report))
        return pending

    def refuse(self, channel: str, error: Exception) -> Pending[Any]:
        """Fail a request without running it (delivered like every outcome: later, on the UI thread)."""
        pending: Pending[Any] = self._open(channel)
        self._delivered.emit(pending.request_id, False, to_bridge_error(error))
        return pending

    def _open(self, channel: str) -> Pending[Any]:
        pending: Pending[Any] = Pending(channel, self.next_id())
        self._pending[pending.request_id] = pending
        if len(self._pending) == 1:
            self.signals.busyChanged.emit(True)
        return pending

    def _start(self, pending: Pending[T], work: Callable[[AppServices], Awaitable[T]]) -> None:
        async def run(services: AppServices) -> T:
            """The work, on the service loop."""
            return await work(services)

        future = self.loop.submit(run)
        request_id = pending.request_id
        future.add_done_callback(lambda f: self._finish(request_id, f))
        pending.attach(future)

    def _finish(self, request_id: int, future: concurrent.futures.Future[Any]) -> None:
        # Runs on the service loop thread (or where cancel() ran): hand over to the UI thread, queued.
        if future.cancelled():  # cancelled, or the loop stopped (quit): say so, never raise here
            cancelled = BridgeError("Cancelled", "The request was cancelled", category=ErrorCategory.CANCELLED)
            self._delivered.emit(request_id, False, cancelled)
            return
        error = future.exception()
        if error is None:
            self._delivered.emit(request_id, True, future.result())
        else:
            self._delivered.emit(request_id, False, to_bridge_error(error))

    @Slot(int, object)
    def _progress(self, request_id: int, progress: Progress) -> None:
        pending = self._pending.get(request_id)
        if pending is not None:
            pending.report(progress)

    @Slot(int, bool, object)
    def _deliver(self, request_id: int, ok: bool, payload: object) -> None:
        pending = self._pending.pop(request_id, None)
        if pending is None:
            return
        if not self._pending:
            self.signals.busyChanged.emit(False)
        if ok:
            self.signals.finished.emit(request_id, pending.channel, payload)
        else:
            self.signals.failed.emit(request_id, pending.channel, payload)
        ours = pending.cancelled and isinstance(payload, BridgeError) and payload.cancelled  # the app cancelled it
        if not ok and not pending.answered and not ours:
            self.signals.unanswered.emit(request_id, pending.channel, payload)  # no page shows this failure
        pending.settle(ok, payload)


class Route:
    """One feature's channels: a plain object over the shared :class:`RouterCore`."""

    def __init__(self, core: RouterCore) -> None:
        self._core = core

    def _by_id(self, channel: str, server_id: str, work: Callable[[AppServices, str], Awaitable[T]]) -> Pending[T]:
        """Validate a server id (non-empty), then submit ``work(services, server_id)``."""
        from elftia_desktop.core.models import McpServerRemoveInput

        return self._core.call(channel, McpServerRemoveInput, {"id": server_id}, lambda s, r: work(s, r.id))

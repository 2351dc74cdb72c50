"""``Pending[T]``: one request in flight, as the object a route method returns.

``router.servers.test(server_id).then(self, on_done, on_error)``: the callbacks belong to
``self`` (a QObject, the page or dialog that asked) and run on the UI thread while it lives.
``.progress(self, slot)`` receives this request's progress only (a :class:`Progress`).
``.cancel()`` cancels the work on the service loop (for a tool call, the SDK sends
``notifications/cancelled`` upstream); the receiver given to ``then`` or ``progress`` being
destroyed cancels the request the same way. A cancelled request ends through ``on_error`` with a
``BridgeError`` whose ``cancelled`` is true (when its receiver still lives).

The outcome is delivered later, on the UI thread, never during the route call: attach ``then``
right away, in the same turn of the event loop.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

import shiboken6
from PySide6.QtCore import QMetaObject, QObject

from elftia_desktop.bridge.errors import BridgeError

T = TypeVar("T")

Done = Callable[[T], None]
"""A success callback; ``Done[McpServerRecord]`` receives the record."""
Failed = Callable[[BridgeError], None]
"""An error callback."""


@dataclass(frozen=True)
class Progress:
    """One progress report of a request: a tool's ``notifications/progress``, or an install's output line."""

    message: str | None
    progress: float | None = None
    total: float | None = None
    """None when the server does not know the total."""


def _alive(receiver: QObject | None) -> bool:
    return receiver is not None and shiboken6.isValid(receiver)


class Pending(Generic[T]):
    """One request: attach its receiver's callbacks, follow its progress, cancel it (see the module docstring)."""

    def __init__(self, channel: str, request_id: int) -> None:
        self.channel = channel
        """The original IPC channel name (``mcp:add`` ...), carried by ``finished`` / ``failed``."""
        self.request_id = request_id
        """The id ``finished`` / ``failed`` carry."""
        self._future: concurrent.futures.Future[T] | None = None
        self._receivers: list[tuple[QObject, QMetaObject.Connection]] = []
        self._on_done: Done[T] | None = None
        self._on_error: Failed | None = None
        self._done_receiver: QObject | None = None
        self._on_progress: Callable[[Progress], None] | None = None
        self._progress_receiver: QObject | None = None
        self.cancelled = False
        """True once :meth:`cancel` ran (by hand or because a receiver was destroyed)."""
        self.finished = False
        """True once the outcome was delivered."""

    def then(self, receiver: QObject, on_done: Done[T] | None = None, on_error: Failed | None = None) -> Pending[T]:
        """Call ``on_done(result)`` or ``on_error(error)`` on the UI thread while ``receiver`` lives."""
        if self._done_receiver is not None:
            raise RuntimeError(f"{self.channel}: then() was already called for this request")
        self._done_receiver, self._on_done, self._on_error = receiver, on_done, on_error
        self._bind(receiver)
        return self

    def progress(self, receiver: QObject, slot: Callable[[Progress], None]) -> Pending[T]:
        """Pass this request's progress reports to ``slot`` on the UI thread while ``receiver`` lives."""
        self._progress_receiver, self._on_progress = receiver, slot
        self._bind(receiver)
        return self

    def cancel(self) -> None:
        """Cancel the work on the service loop (nothing happens once the outcome was delivered)."""
        if self.finished or self.cancelled:
            return
        self.cancelled = True
        if self._future is not None:
            self._future.cancel()  # the loop's task is cancelled through call_soon_threadsafe

    @property
    def answered(self) -> bool:
        """Whether a living receiver takes a failure (else the status bar shows it as ``unanswered``)."""
        return self._on_error is not None and _alive(self._done_receiver)

    # -- used by RouterCore ------------------------------------------------------------------

    def attach(self, future: concurrent.futures.Future[T]) -> None:
        """The service loop's future of the work (cancelled by :meth:`cancel`)."""
        self._future = future
        if self.cancelled:
            future.cancel()

    def report(self, progress: Progress) -> None:
        """Hand a progress report to the progress slot (UI thread)."""
        if not self.finished and self._on_progress is not None and _alive(self._progress_receiver):
            self._on_progress(progress)

    def settle(self, ok: bool, payload: object) -> None:
        """Deliver the outcome to the callbacks (UI thread), then let go of the receivers."""
        self.finished = True
        self._unbind()
        if not _alive(self._done_receiver):
            return
        if ok and self._on_done is not None:
            self._on_done(payload)  # type: ignore[arg-type]  # the future's result is a T
        elif not ok and self._on_error is not None:
            assert isinstance(payload, BridgeError)
            self._on_error(payload)

    def _bind(self, receiver: QObject) -> None:
        if self.finished or any(bound is receiver for bound, _ in self._receivers):
            return
        self._receivers.append((receiver, receiver.destroyed.connect(self._receiver_gone)))

    def _receiver_gone(self) -> None:
        self.cancel()

    def _unbind(self) -> None:
        receivers, self._receivers = self._receivers, []
        for receiver, connection in receivers:
            if shiboken6.isValid(receiver):
                QObject.disconnect(connection)

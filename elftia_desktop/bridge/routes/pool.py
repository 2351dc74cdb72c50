"""Pool host channels: who is attached to the window's pool, and what quitting does with them.

The state arrives as ``poolChanged`` (a ``PoolState``) whenever a client or a call comes or goes;
:attr:`PoolRoute.state` is the latest one, on the UI thread, for the quit guard.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal, Slot

from elftia_desktop.bridge.pending import Pending
from elftia_desktop.bridge.plumbing import Route, RouterCore
from elftia_desktop.bridge.pool_host import PoolState, QuitChoice, WindowPool

if TYPE_CHECKING:
    from elftia_desktop.bridge.services import AppServices


class _StateRelay(QObject):
    """Brings a state from the service loop to the UI thread, where ``poolChanged`` is emitted.

    Emitting ``poolChanged`` itself on the UI thread means its receivers run at once, never from
    a queued call that outlives them.
    """

    arrived = Signal(object)

    def __init__(self, route: PoolRoute, parent: QObject) -> None:
        super().__init__(parent)
        self._route = route
        self.arrived.connect(self._deliver, Qt.ConnectionType.QueuedConnection)

    @Slot(object)
    def _deliver(self, state: PoolState) -> None:
        self._route.state = state
        self._route.signals.poolChanged.emit(state)


class PoolRoute(Route):
    """``pool:state``, ``pool:quit-choice`` and ``pool:prepare-quit``."""

    def __init__(self, core: RouterCore, pool: WindowPool | None) -> None:
        """``pool``: the window's pool host; its state reaches ``poolChanged`` (set here, before it starts)."""
        super().__init__(core)
        self.pool = pool
        self.signals = core.signals
        self.state = PoolState(False, problem=None if pool is not None else "This window does not host the pool.")
        """The latest state (updated on the UI thread, right before ``poolChanged``)."""
        self._relay = _StateRelay(self, core)
        if pool is not None:
            pool.on_state = self._relay.arrived.emit

    def refresh(self) -> Pending[PoolState]:
        """``pool:state``: the current state (also emitted as ``poolChanged``)."""

        async def work(services: AppServices) -> PoolState:
            """``pool:state`` on the service loop."""
            state = services.pool.state() if services.pool is not None else self.state
            self._relay.arrived.emit(state)
            return state

        return self._core.submit("pool:state", work)

    def set_quit_choice(self, choice: QuitChoice) -> None:
        """``pool:quit-choice``: what quitting does while apps are attached (``ask``, ``keep``, ``stop``)."""
        if choice not in ("ask", "keep", "stop"):
            raise ValueError(f"quit choice: expected ask, keep or stop, got {choice!r}")
        pool = self.pool
        if pool is not None:
            self._core.loop.loop.call_soon_threadsafe(setattr, pool, "quit_choice", choice)

    def prepare_quit(self, keep: bool) -> Pending[None]:
        """``pool:prepare-quit``: stop accepting apps; ``keep``: their calls finish and a daemon takes the pool
        over when the window has quit; else their servers stop with the window."""

        async def work(services: AppServices) -> None:
            """``pool:prepare-quit`` on the service loop."""
            if services.pool is not None:
                await services.pool.prepare_quit(keep)

        return self._core.submit("pool:prepare-quit", work)

"""Quitting the desktop app: every way out ends in one bounded shutdown, and no server outlives it.

The ways out: closing the window (Qt quits after the last window), Ctrl+Q, SIGTERM, SIGINT and
SIGHUP (a POSIX signal reaches Python only when Python code runs, so a socket pair is the
signal wakeup fd and a ``QSocketNotifier`` on it wakes the Qt loop; the handler then asks
Qt to quit), and the end of the desktop session (``commitDataRequest`` closes the servers
early, ``aboutToQuit`` follows). :meth:`QuitController.shutdown` then closes every connection
in parallel within ``QUIT_BUDGET`` seconds (the spec's order per server: stdin, SIGTERM,
SIGKILL), SIGKILLs every process group still alive, synchronously, and the runtime file of
server processes goes with them.

Other apps attached to the window's pool host: closing the window and Ctrl+Q go through the
window's quit guard first (it asks, or follows the saved choice, and lets the apps' calls finish);
a signal or a logout cannot ask, so the pool host (``bridge/pool_host.py``) hands the pool to a
daemon unless the saved choice is "stop". Either way the clients are disconnected before the
servers close, and the daemon starts only after they are gone.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
import time
from collections.abc import Callable, Coroutine
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, QSocketNotifier, Qt, QTimer
from PySide6.QtGui import QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import QWidget

from elftia_desktop.bridge.service_loop import ServiceLoop
from elftia_desktop.connections.process_tracker import close_all_tracked, kill_all_tracked

log = logging.getLogger(__name__)

QUIT_BUDGET = 3.0
"""Seconds from the request to quit until the service loop is stopped and every server process is gone."""
GRACEFUL_LIMIT = 2.0
"""Seconds the servers get to close gracefully (in parallel) before every group left is SIGKILLed."""
AFTER_KILL = 0.5
"""Seconds the connections then get to notice their dead servers and end cleanly."""
QUIT_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGINT", "SIGHUP") if hasattr(signal, name))

Cleanup = Callable[[Any], Coroutine[Any, Any, None]]


class QuitController(QObject):
    """Owns the app's quit path (see the module docstring); :meth:`install` it once, before ``exec``.

    Signals: none; it reacts to ``QGuiApplication.aboutToQuit`` and ``commitDataRequest``.
    """

    def __init__(self, app: QGuiApplication, loop: ServiceLoop[Any], close_services: Cleanup) -> None:
        """``close_services(services)`` closes the pool on the service loop; it is bounded here."""
        super().__init__(app)
        self._app = app
        self._loop = loop
        self._close_services = close_services
        self._done = False
        self._forced: Callable[[], None] = lambda: None
        self._notifier: QSocketNotifier | None = None
        self._sockets: tuple[socket.socket, socket.socket] | None = None
        self._previous_wakeup_fd = -1
        self._previous_handlers: dict[int, Any] = {}
        self.duration: float | None = None
        """Seconds the last shutdown took (it is logged)."""

    def install(
        self,
        window: QWidget | None = None,
        quit_request: Callable[[], None] | None = None,
        forced: Callable[[], None] | None = None,
    ) -> None:
        """Hook the quit signals, Ctrl+Q on ``window`` (it runs ``quit_request``, default: quit), the
        session's end and POSIX signals. ``forced`` runs first when a quit cannot ask (a signal, the
        session's end): the window then lets its close through (Qt cancels a quit a window refuses)."""
        self._forced = forced or (lambda: None)
        self._app.aboutToQuit.connect(self.shutdown)
        self._app.commitDataRequest.connect(self._close_for_logout)
        if window is not None:
            # Not StandardKey.Quit: it is empty on Windows and some Linux platforms ("Ctrl" is Cmd on macOS).
            shortcut = QShortcut(QKeySequence("Ctrl+Q"), window)
            shortcut.setContext(Qt.ShortcutContext.ApplicationShortcut)
            shortcut.activated.connect(quit_request or self._app.quit)
        self._install_signal_wakeup()

    def _install_signal_wakeup(self) -> None:
        reader, writer = socket.socketpair()
        for end in (reader, writer):
            end.setblocking(False)
        try:
            self._previous_wakeup_fd = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
        except ValueError:  # not the main thread: the signals keep their default action
            reader.close()
            writer.close()
            return
        self._sockets = (reader, writer)
        self._notifier = QSocketNotifier(reader.fileno(), QSocketNotifier.Type.Read, self)
        self._notifier.activated.connect(self._drain_wakeup)
        for signum in QUIT_SIGNALS:
            self._previous_handlers[signum] = signal.signal(signum, self._on_signal)

    def _drain_wakeup(self) -> None:
        """Python has run the signal handler by the time this slot runs; empty the socket."""
        if self._sockets is not None:
            with contextlib.suppress(OSError):
                while self._sockets[0].recv(512):
                    pass

    def _on_signal(self, signum: int, _frame: object) -> None:
        log.info("signal %d: quitting", signum)
        self._forced()
        # A timer, not quit() itself: quit() does nothing if the signal came before exec() started the loop.
        QTimer.singleShot(0, QCoreApplication.quit)

    def _close_for_logout(self, _manager: object) -> None:
        """The session is ending: close the servers now (they reconnect on use if the logout is cancelled).

        It blocks the UI thread for at most ``QUIT_BUDGET`` s on purpose: the session manager ends
        the app once this handler returns.
        """
        self._forced()
        if not self._loop.built:
            return
        future = self._loop.submit(self._bounded_close)
        with contextlib.suppress(Exception):
            future.result(timeout=QUIT_BUDGET)
        kill_all_tracked()

    async def _bounded_close(self, services: Any) -> None:
        work = asyncio.gather(self._close_services(services), close_all_tracked(), return_exceptions=True)
        try:
            await asyncio.wait_for(asyncio.shield(work), GRACEFUL_LIMIT)
        except TimeoutError:
            log.warning("servers did not close within %.1f s; killing what is left", GRACEFUL_LIMIT)
            kill_all_tracked()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(work, AFTER_KILL)

    def shutdown(self) -> None:
        """Close every server in parallel (bounded), stop the service loop, SIGKILL what is left. Idempotent."""
        if self._done:
            return
        self._done = True
        started = time.monotonic()
        self._loop.stop(cleanup=self._bounded_close, timeout=QUIT_BUDGET)
        killed = kill_all_tracked()
        self.duration = time.monotonic() - started
        log.info("quit in %.2f s (%d server group(s) had to be killed)", self.duration, killed)
        self._restore_signals()

    def _restore_signals(self) -> None:
        for signum, handler in self._previous_handlers.items():
            with contextlib.suppress(ValueError, TypeError):
                signal.signal(signum, handler)
        self._previous_handlers.clear()
        if self._sockets is not None:
            with contextlib.suppress(ValueError):
                signal.set_wakeup_fd(self._previous_wakeup_fd)
            if self._notifier is not None:
                self._notifier.setEnabled(False)
            for end in self._sockets:
                end.close()
            self._sockets = None

"""``McpProcessTracker``: the safety net for stdio servers the engine starts directly.

Three layers, as in the original:

* ``close_connection``: a graceful close (at most 3 s), then SIGKILL to the server's process group;
* ``close_all``: every tracked connection, concurrently;
* at interpreter exit (``atexit``) and on SIGTERM/SIGINT, every tracked group is killed
  synchronously, then the previous signal handler runs (so the app's own handling goes on).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any, ClassVar, Protocol, runtime_checkable

from elftia_desktop.connections.process_tracker import ProcessTracker, process_argv
from elftia_desktop.core.paths import data_dir

log = logging.getLogger(__name__)

GRACEFUL_CLOSE_TIMEOUT = 3.0
"""Seconds a connection gets to close itself before its process group is killed."""
AFTER_KILL_TIMEOUT = 5.0
"""Seconds to wait for a connection's owner task once its process group was killed."""

SignalHandler = Callable[[int, FrameType | None], Any] | int | None


@runtime_checkable
class TrackedConnection(Protocol):
    """What the tracker needs of a connection: its process group and a graceful close."""

    @property
    def pid(self) -> int | None:
        """The server's pid, which is also its process group id; None when unknown or not started."""
        ...

    async def aclose(self) -> None:
        """Close the session and the transport (the server exits when its stdin closes)."""
        ...


def kill_group(pgid: int) -> bool:
    """SIGKILL the process group ``pgid``; False when it was gone already."""
    if sys.platform == "win32" or pgid <= 1:
        return False
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        return False
    except PermissionError:
        log.warning("not allowed to kill process group %d", pgid)
        return False
    return True


class McpProcessTracker:
    """One per process (:meth:`instance`): tracks direct connections and kills their servers when needed."""

    _instance: ClassVar[McpProcessTracker | None] = None
    _instance_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, runtime_dir: Path | None = None) -> None:
        self._runtime_dir = runtime_dir
        self._runtime: ProcessTracker | None = None
        self._tracked: dict[int, TrackedConnection] = {}
        self._lock = threading.Lock()
        self._hooks_installed = False
        self._previous: dict[int, SignalHandler] = {}

    @classmethod
    def instance(cls) -> McpProcessTracker:
        """The process-wide tracker."""
        with cls._instance_lock:
            if cls._instance is None:
                cls._instance = cls()
            return cls._instance

    def track(self, connection: TrackedConnection) -> None:
        """Watch ``connection`` until it is closed through the tracker.

        Its process is also recorded in the runtime file, so that if this app is killed outright
        (no exit hook runs) the next start of the service kills it (``kill_leftovers``).
        """
        with self._lock:
            self._tracked[id(connection)] = connection
        pid = connection.pid
        if pid is not None:
            self._runtime_file().add("direct", pid, process_argv(pid) or [])
        self._install_hooks()

    def untrack(self, connection: TrackedConnection) -> None:
        """Stop watching ``connection`` (it was closed some other way)."""
        with self._lock:
            self._tracked.pop(id(connection), None)
        if connection.pid is not None and self._runtime is not None:
            self._runtime.remove(connection.pid)

    def _runtime_file(self) -> ProcessTracker:
        if self._runtime is None:
            self._runtime = ProcessTracker(self._runtime_dir or data_dir() / "runtime", tag="direct")
        return self._runtime

    def tracked(self) -> list[TrackedConnection]:
        """The connections being watched."""
        with self._lock:
            return list(self._tracked.values())

    async def close_connection(self, connection: TrackedConnection) -> None:
        """Close gracefully within 3 s; otherwise kill the process group. Then forget the connection."""
        try:
            closing = asyncio.ensure_future(connection.aclose())
            done, _ = await asyncio.wait({closing}, timeout=GRACEFUL_CLOSE_TIMEOUT)
            if not done:
                pid = connection.pid
                log.warning("server %s did not close within %.0f s; killing its group", pid, GRACEFUL_CLOSE_TIMEOUT)
                if pid is not None:
                    kill_group(pid)
                await asyncio.wait({closing}, timeout=AFTER_KILL_TIMEOUT)
            if closing.done() and not closing.cancelled() and closing.exception() is not None:
                log.warning("closing a direct MCP connection failed: %s", closing.exception())
        finally:
            if connection.pid is not None:
                kill_group(connection.pid)  # what the server left running in its group
            self.untrack(connection)

    async def close_all(self) -> None:
        """Close every tracked connection concurrently."""
        await asyncio.gather(*(self.close_connection(c) for c in self.tracked()))

    def kill_all_sync(self) -> int:
        """Kill every tracked process group now, without awaiting anything; how many were alive."""
        with self._lock:
            connections = list(self._tracked.values())
            self._tracked.clear()
        alive = sum(kill_group(c.pid) for c in connections if c.pid is not None)
        if self._runtime is not None:
            self._runtime.kill_all()  # the groups are gone: this empties the runtime file
        return alive

    def _install_hooks(self) -> None:
        if self._hooks_installed:
            return
        self._hooks_installed = True
        atexit.register(self.kill_all_sync)
        if threading.current_thread() is not threading.main_thread():
            log.debug("tracker hooks installed off the main thread: atexit only, no signal handlers")
            return
        for signum in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(ValueError, OSError):
                self._previous[signum] = signal.signal(signum, self._on_signal)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self.kill_all_sync()
        previous = self._previous.get(signum)
        if callable(previous):
            previous(signum, frame)
        elif previous == signal.SIG_DFL:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)

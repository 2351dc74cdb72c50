"""The one tracker of every server process the app starts, its runtime file, and an earlier run's leftovers.

Every stdio server (the pool's and the engine's direct sessions) runs through
``stdio_process.open_stdio`` in its own process group and is recorded here on spawn and
forgotten on exit. One :class:`ProcessTracker` per runtime folder (``for_dir``) keeps
``mcp-servers-<pid>.json`` there: the owner's pid, start time and boot id, and each live
server's pid (= its process group), start time and command line.

Three safety nets use it:

* quitting: :func:`kill_all_tracked` SIGKILLs every group still alive, synchronously (the
  app's quit path calls it after the graceful close; ``atexit`` calls it too);
* a signal in a headless process: SIGTERM/SIGINT kill every group, then the default action
  runs (installed only where nobody else handles the signal, so the app keeps its own);
* the next start: :func:`kill_leftovers` reads the files of owners that are gone and kills
  what is still alive, identified by pid plus start time (``proc_identity``), never by
  command line: a leader that ``exec``'d is still ours, a dead leader's group members are
  found by their group and start times, and a reused pid belongs to a stranger and is left alone.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import logging
import os
import signal
import threading
import time
import weakref
from dataclasses import asdict, dataclass
from pathlib import Path
from types import FrameType
from typing import Any, ClassVar, Protocol

from elftia_desktop.core.atomic_file import atomic_write_text
from elftia_desktop.platform import groups, proc_identity

log = logging.getLogger(__name__)

FILE_PREFIX = "mcp-servers-"
GRACEFUL_CLOSE_TIMEOUT = 3.0
"""Seconds a tracked connection gets to close itself before its process group is killed."""


@dataclass
class TrackedProcess:
    """One started server process."""

    server_id: str
    pid: int
    pgid: int
    start_time: str
    argv: list[str]


class TrackedConnection(Protocol):
    """A connection the tracker can close: its server's pid (= process group) and a graceful close."""

    @property
    def pid(self) -> int | None:
        """The server's pid; None before it started."""
        ...

    async def aclose(self) -> None:
        """Close the session and stop the server."""
        ...


def _started_after(member: str, leader: str) -> bool:
    """Whether a group member started no earlier than its recorded leader (so it can be of that group)."""
    if member.isdigit() and leader.isdigit():
        return int(member) >= int(leader)
    try:
        parse = "%a %b %d %H:%M:%S %Y"  # ps lstart
        return time.mktime(time.strptime(" ".join(member.split()), parse)) >= time.mktime(
            time.strptime(" ".join(leader.split()), parse)
        )
    except ValueError:
        return False


def kill_recorded(entry: TrackedProcess) -> bool:
    """SIGKILL what is left of a recorded server group, touching no stranger; whether anything was killed.

    The leader alive with its recorded start time: the whole group (exec does not change it).
    The pid now taken by another process: the group is gone (a pid in use as a group id is
    never handed out), nothing is sent. The leader gone: each member of its group that
    started after it, each checked and signalled by pid and start time.
    """
    leader = proc_identity.start_time(entry.pid)
    if leader == entry.start_time:
        if entry.pgid == entry.pid:
            return groups.kill_group(entry.pgid)
        return proc_identity.kill_if_same(entry.pid, entry.start_time)
    if leader is not None:
        return False
    members = [
        (pid, stamp)
        for pid, stamp in proc_identity.group_members(entry.pgid)
        if _started_after(stamp, entry.start_time)
    ]
    return sum(proc_identity.kill_if_same(pid, stamp) for pid, stamp in members) > 0


class ProcessTracker:
    """Knows every server process of this app in one runtime folder; get it with :meth:`for_dir`."""

    _by_dir: ClassVar[dict[Path, ProcessTracker]] = {}
    _class_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, runtime_dir: Path) -> None:
        """A tracker writing ``mcp-servers-<pid>.json`` in ``runtime_dir`` (prefer :meth:`for_dir`)."""
        self.runtime_dir = runtime_dir
        self.path = runtime_dir / f"{FILE_PREFIX}{os.getpid()}.json"
        self._owner_start = proc_identity.start_time(os.getpid()) or ""
        self._boot = proc_identity.boot_id()
        self._entries: dict[int, TrackedProcess] = {}
        self._connections: dict[int, TrackedConnection] = {}
        self._lock = threading.RLock()  # RLock: a signal handler may run while this thread holds it
        _TRACKERS.add(self)

    @classmethod
    def for_dir(cls, runtime_dir: Path) -> ProcessTracker:
        """The process-wide tracker of ``runtime_dir`` (the pool and the engine share it)."""
        key = runtime_dir.absolute()
        with cls._class_lock:
            tracker = cls._by_dir.get(key)
            if tracker is None:
                tracker = cls._by_dir[key] = cls(runtime_dir)
            return tracker

    # -- the runtime file ----------------------------------------------------------------------

    def add(self, server_id: str, pid: int, argv: list[str]) -> None:
        """Record a started server (its pid is its process group)."""
        start = proc_identity.start_time(pid)
        if start is None:
            return
        with self._lock:
            self._entries[pid] = TrackedProcess(server_id, pid, pid, start, list(argv))
            self._write()

    def remove(self, pid: int) -> None:
        """Forget a server that has exited."""
        with self._lock:
            if self._entries.pop(pid, None) is not None:
                self._write()

    def pids(self) -> list[int]:
        """The recorded server pids."""
        with self._lock:
            return list(self._entries)

    def kill_all_sync(self) -> int:
        """SIGKILL every recorded group still alive, now, awaiting nothing; how many were alive.

        The runtime file goes with them. Safe from any thread, a signal handler and ``atexit``.
        """
        with self._lock:
            entries = list(self._entries.values())
            self._entries.clear()
            self._connections.clear()
            killed = sum(kill_recorded(entry) for entry in entries)
            self._write()
        if killed:
            log.info("killed %d server process group(s) that were still running", killed)
        return killed

    def _write(self) -> None:
        data: dict[str, Any] = {
            "ownerPid": os.getpid(),
            "ownerStartTime": self._owner_start,
            "bootId": self._boot,
            "servers": [asdict(e) for e in self._entries.values()],
        }
        try:
            if self._entries:
                self.runtime_dir.mkdir(parents=True, exist_ok=True)
                # No fsync: it is written on the service loop, and no server outlives a power loss.
                atomic_write_text(self.path, json.dumps(data, indent=2), durable=False)
            else:
                self.path.unlink(missing_ok=True)
        except OSError as exc:
            log.warning("cannot write the runtime file %s: %s", self.path, exc)

    # -- connections held outside the pool (the engine's direct sessions) ------------------------

    def track(self, connection: TrackedConnection) -> None:
        """Watch ``connection`` until it is closed through :meth:`close_connection` (or ``untrack``)."""
        with self._lock:
            self._connections[id(connection)] = connection
        install_signal_hooks()

    def untrack(self, connection: TrackedConnection) -> None:
        """Stop watching ``connection``."""
        with self._lock:
            self._connections.pop(id(connection), None)

    def tracked(self) -> list[TrackedConnection]:
        """The connections being watched."""
        with self._lock:
            return list(self._connections.values())

    async def close_connection(self, connection: TrackedConnection) -> None:
        """Close gracefully within 3 s, else kill the process group; then forget the connection."""
        closing = asyncio.ensure_future(connection.aclose())
        try:
            done, _ = await asyncio.wait({closing}, timeout=GRACEFUL_CLOSE_TIMEOUT)
            if not done:
                log.warning(
                    "server %s did not close within %.0f s; killing its group", connection.pid, GRACEFUL_CLOSE_TIMEOUT
                )
                self._kill_pid(connection.pid)
                await asyncio.wait({closing}, timeout=GRACEFUL_CLOSE_TIMEOUT)
            if closing.done() and not closing.cancelled() and closing.exception() is not None:
                log.warning("closing a server connection failed: %s", closing.exception())
        finally:
            self._kill_pid(connection.pid)  # whatever the server left running in its group
            self.untrack(connection)

    def _kill_pid(self, pid: int | None) -> None:
        with self._lock:
            entry = self._entries.pop(pid, None) if pid is not None else None
            if entry is not None:
                kill_recorded(entry)
                self._write()

    async def close_all(self) -> None:
        """Close every tracked connection concurrently (each bounded by :meth:`close_connection`)."""
        await asyncio.gather(*(self.close_connection(c) for c in self.tracked()))


_TRACKERS: weakref.WeakSet[ProcessTracker] = weakref.WeakSet()


def kill_all_tracked() -> int:
    """SIGKILL every group any tracker of this process still records; how many were alive."""
    return sum(tracker.kill_all_sync() for tracker in list(_TRACKERS))


async def close_all_tracked() -> None:
    """Close every connection any tracker of this process watches (the engine's direct sessions)."""
    await asyncio.gather(*(tracker.close_all() for tracker in list(_TRACKERS)))


atexit.register(kill_all_tracked)


def _owner_alive(data: dict[str, Any]) -> bool:
    pid = data.get("ownerPid")
    return isinstance(pid, int) and pid != os.getpid() and proc_identity.start_time(pid) == data.get("ownerStartTime")


def kill_leftovers(runtime_dir: Path) -> list[TrackedProcess]:
    """Kill server groups recorded by app processes that are gone; returns what was killed.

    A file whose owner still runs (another window, the CLI) is left alone; one from an earlier
    boot is dropped without signalling anything.
    """
    killed: list[TrackedProcess] = []
    if not runtime_dir.is_dir():
        return killed
    boot = proc_identity.boot_id()
    for path in runtime_dir.glob(f"{FILE_PREFIX}*.json"):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}
        if not isinstance(data, dict) or _owner_alive(data):
            continue
        same_boot = not boot or data.get("bootId", boot) == boot
        for raw in data.get("servers", []) if same_boot else []:
            try:
                entry = TrackedProcess(**raw)
            except TypeError:
                continue
            if kill_recorded(entry):
                killed.append(entry)
                log.info("killed server process group %d left by an earlier run: %s", entry.pgid, entry.argv)
        path.unlink(missing_ok=True)
    return killed


_previous: dict[int, Any] = {}


def install_signal_hooks() -> None:
    """On SIGTERM/SIGINT, kill every tracked group, then let the default action run.

    Only for a signal nobody handles yet (the app installs its own graceful quit), and only
    from the main thread (Python's rule); otherwise the ``atexit`` hook is the net.
    """
    if _previous or threading.current_thread() is not threading.main_thread():
        return
    for signum in (signal.SIGTERM, signal.SIGINT):
        current = signal.getsignal(signum)
        if current in (signal.SIG_DFL, signal.default_int_handler):
            _previous[signum] = current
            signal.signal(signum, _on_signal)


def _on_signal(signum: int, frame: FrameType | None) -> None:
    kill_all_tracked()
    previous = _previous.get(signum)
    if callable(previous):
        previous(signum, frame)
    else:
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

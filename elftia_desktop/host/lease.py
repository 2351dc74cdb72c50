"""The data folder's host lock, and the window taking the pool over from a running daemon.

One host per data folder: whoever hosts holds an exclusive lock on the host's lock file in the
data folder (``platform/lock.py``; released by the OS when the process dies, so a killed host
never blocks the next one).

The desktop window hosts the pool when it runs. When it starts while a daemon hosts, it asks
the daemon to hand over (``{"op": "handover"}``): the daemon stops accepting, lets its calls in
flight finish, closes its clients' connections, stops its servers and exits; the window then
gets the lock and listens, and the clients reconnect on their next call. Until then the window
starts none of its servers, so no server ever runs twice for one data folder. A client that
reconnects in between finds no claim and starts a daemon, which finds the lock taken and exits
at once; the client waits for the window's claim and attaches to it.
Blocking (file locks, sockets): call from a worker thread. Standard library only.
"""

from __future__ import annotations

import logging
import os
import time

from elftia_desktop.core.errors import ElftiaError
from elftia_desktop.host import attach, client
from elftia_desktop.host.location import HostLocation
from elftia_desktop.platform.lock import FileLock, read_note

log = logging.getLogger(__name__)

TAKEOVER_LIMIT = 20.0
"""Seconds the window waits for a daemon to hand over (its calls get ``DRAIN_LIMIT`` of them to finish)."""
RETRY_EVERY = 0.5
"""Seconds between two handover requests while the lock stays taken (a daemon may still be starting)."""


class AlreadyRunning(Exception):
    """Another host holds this data folder's lock."""


class HostLock(FileLock):
    """The exclusive lock of one data folder's host, held from :meth:`acquire` until :meth:`release`."""

    def __init__(self, location: HostLocation) -> None:
        super().__init__(location.lock)
        self.location = location

    def acquire(self, note: bytes = b"") -> bool:
        """Take the lock, noting this process's pid in it (``holder``)."""
        return super().acquire(note or str(os.getpid()).encode())


def holder(location: HostLocation) -> int | None:
    """The pid of the process that holds the data folder's lock (None when it cannot be read)."""
    text = read_note(location.lock).decode("ascii", "replace").strip()
    return int(text) if text.isdigit() else None


def _ask_handover() -> int | None:
    """Ask the running host to hand over; its pid, or None when none listens (yet).

    ``AlreadyRunning`` when it refuses (a window, or a host that does not know the request).
    """
    try:
        sock, _reply = attach.connect("command", start=False)
    except (attach.NoHost, OSError):
        return None
    with sock:
        try:
            reply = client.request(sock, {"op": "handover"})
        except ElftiaError as exc:
            raise AlreadyRunning(f"the running pool host does not hand over: {exc}") from exc
        except OSError:
            return None
    pid = reply.get("pid")
    return pid if isinstance(pid, int) else None


def take_over(location: HostLocation, limit: float = TAKEOVER_LIMIT) -> HostLock:
    """The lock of ``location``, asking a running daemon to hand over first.

    ``AlreadyRunning`` when the host refuses, or has not let go after ``limit`` seconds.
    """
    lock = HostLock(location)
    deadline = time.monotonic() + limit
    asked_at = float("-inf")
    while not lock.acquire():
        if time.monotonic() >= deadline:
            raise AlreadyRunning(
                f"another pool host (pid {holder(location) or '?'}) keeps {location.data_dir} and did not hand over"
            )
        if time.monotonic() - asked_at >= RETRY_EVERY:
            asked_at = time.monotonic()
            pid = _ask_handover()
            if pid is not None:
                log.info("pool host %d hands its pool over to this window", pid)
        time.sleep(0.05)
    return lock

"""The background daemon that hosts the pool when the window does not: ``elftia-mcp daemon run``.

One per data folder: the daemon holds an exclusive lock on the host's lock file while it runs; a
second one finds it taken and exits at once (its starter then attaches to the first). When the
desktop window starts it takes the pool over (``lease.py``): this daemon finishes its calls in
flight, closes its clients' connections, stops its servers and exits. It opens
the services with the saved settings, serves until stopped (``daemon stop``, SIGTERM, SIGINT) or
idle with no client (never, with ``stay``), and stops every server it started on the way out. Logs go to stderr (the
host's log file when started on demand).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Iterator

from elftia_desktop.host.lease import AlreadyRunning, HostLock
from elftia_desktop.host.location import HostLocation, host_location

__all__ = ["AlreadyRunning", "host_lock", "run_daemon"]

log = logging.getLogger(__name__)


@contextlib.contextmanager
def host_lock(location: HostLocation) -> Iterator[None]:
    """Hold the data folder's host lock for the block; ``AlreadyRunning`` when another host has it."""
    lock = HostLock(location)
    if not lock.acquire():
        raise AlreadyRunning(f"a pool host already runs for {location.data_dir}")
    try:
        yield
    finally:
        lock.release()


async def _serve(location: HostLocation, idle: float | None, stay: bool) -> None:
    # loaded only once this process holds the lock: a daemon that loses the start race exits without them
    from elftia_desktop.application.services import open_services
    from elftia_desktop.host.host import DEFAULT_IDLE, Host

    async with open_services(builtin_servers=False) as services:
        for notice in services.notices:
            log.warning("%s", notice)
        for leftover in services.mcp.leftovers_killed:
            log.info("stopped a leftover server process %d of an earlier host: %s", leftover.pid, leftover.argv)
        host = Host(services, location, idle=idle if idle is not None else DEFAULT_IDLE, stay=stay)
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            try:
                loop.add_signal_handler(signum, host.stop)
            except NotImplementedError:  # Windows: no signal handlers on the loop
                signal.signal(signum, lambda _signum, _frame: loop.call_soon_threadsafe(host.stop))
        await host.run()


def run_daemon(idle: float | None = None, *, stay: bool = False) -> None:
    """Host this data folder's pool until stopped (``stay``: not when empty); ``AlreadyRunning`` when another has it."""
    location = host_location()
    with host_lock(location):
        asyncio.run(_serve(location, idle, stay))

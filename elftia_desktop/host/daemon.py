"""The background daemon that hosts the pool when the window does not: ``elftia-mcp daemon run``.

One per data folder: the daemon holds an exclusive lock on the host's lock file while it runs; a
second one finds it taken and exits at once (its starter then attaches to the first). It opens
the services with the saved settings, serves until stopped (``daemon stop``, SIGTERM, SIGINT) or
idle with no client, and stops every server it started on the way out. Logs go to stderr (the
host's log file when started on demand).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import signal
from collections.abc import Iterator

from elftia_desktop.connections.service import McpService
from elftia_desktop.core.agent_store import AgentStore
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.first_run import seed_default_agent
from elftia_desktop.core.secrets import SecretVault
from elftia_desktop.core.settings_store import SettingsStore
from elftia_desktop.host.host import DEFAULT_IDLE, Host
from elftia_desktop.host.location import HostLocation, host_location

log = logging.getLogger(__name__)


class AlreadyRunning(Exception):
    """Another host holds this data folder's lock."""


@contextlib.contextmanager
def host_lock(location: HostLocation) -> Iterator[None]:
    """Hold the data folder's host lock for the block; ``AlreadyRunning`` when another host has it."""
    fd = os.open(location.lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            raise AlreadyRunning(f"a pool host already runs for {location.data_dir}") from exc
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        yield
    finally:
        os.close(fd)


def _open_service() -> McpService:
    """The pool on the saved config and settings (blocking: it reads files and stops leftovers)."""
    agents = AgentStore()
    seed_default_agent(agents)
    store = ConfigStore()
    for notice in [*store.notices, *agents.notices]:
        log.warning("%s", notice)
    service = McpService(ServerCatalog(store, SecretVault(), agents))
    for leftover in service.leftovers_killed:
        log.info("stopped a leftover server process %d of an earlier host: %s", leftover.pid, leftover.argv)
    settings = SettingsStore().load()
    service.set_defaults(settings.connect_timeout, settings.call_timeout, settings.log_lines)
    return service


async def _serve(location: HostLocation, idle: float) -> None:
    service = await asyncio.to_thread(_open_service)
    host = Host(service, location, idle=idle)
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, host.stop)
    await host.run()


def run_daemon(idle: float | None = None) -> None:
    """Host this data folder's pool until stopped; ``AlreadyRunning`` when another host has it."""
    location = host_location()
    with host_lock(location):
        asyncio.run(_serve(location, idle if idle is not None else DEFAULT_IDLE))

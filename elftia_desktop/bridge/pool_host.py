"""The window as the pool host: gateways and CLI commands share the window's servers while it runs.

:class:`WindowPool` lives on the service loop. While the services are built
(``build_services``) it takes this data folder's host lock, asking a running daemon to hand its
pool over first (``host/lease.py``); only then may the window start servers, so a server never
runs twice. Once the services are built (a ``when_built`` hook after the event relay's, so the
host's answer to a server's questions wins and falls back to the window's dialog) it serves the
host socket with the window's own ``McpService``. When the lock cannot be had in time, the
window runs as before, without hosting, and :attr:`PoolState.problem` says why.

Quitting: :meth:`WindowPool.prepare_quit` (the window's quit dialog or its setting) stops
accepting; with ``keep`` the calls in flight finish first. :meth:`WindowPool.close` then closes the
clients' connections (before the servers close), and :meth:`WindowPool.release`, after the
servers are gone, gives the lock up and, when apps were attached and the choice was to keep
them running, starts the background daemon (in a worker thread), which their next call reaches;
when start at login is on it always starts one, that stays (``daemon run --stay``).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from elftia_desktop.platform import endpoint

if TYPE_CHECKING:
    from elftia_desktop.bridge.services import AppServices
    from elftia_desktop.engine.approval import Asker
    from elftia_desktop.host.clients import Client, ElicitFn
    from elftia_desktop.host.host import Host
    from elftia_desktop.host.lease import HostLock

log = logging.getLogger(__name__)

QuitChoice = Literal["ask", "keep", "stop"]
"""What quitting does while apps are attached: ask, keep their servers running in a daemon, or stop them."""
COALESCE = 0.1
"""Seconds changes of the clients are gathered before the window is told (calls come and go fast)."""
ROLE_NAMES = {
    "gateway": "elftia-mcp serve",
    "http": "HTTP client",
    "listener": "elftia-mcp serve --http",
    "command": "elftia-mcp call",
}
"""What a client is called before (or without) its app's ``clientInfo``."""
APP_ROLES = ("gateway", "http")
"""An app's session through the gateway (stdio, or one HTTP session): it uses the pool while attached."""


@dataclass(frozen=True)
class PoolClient:
    """One app attached to the window's pool."""

    role: str
    """``gateway`` (an app's ``elftia-mcp serve``), ``http`` (an app's session with ``serve --http``),
    ``listener`` (the ``serve --http`` process) or ``command`` (``elftia-mcp call``)."""
    name: str
    """The app's ``clientInfo`` name, or the command's name."""
    version: str | None
    pid: int | None
    agent: str | None
    hub: bool
    since: float
    servers: tuple[str, ...]
    """Ids of the servers it called."""
    calls_in_flight: int

    @property
    def label(self) -> str:
        """The name with its version."""
        return f"{self.name} {self.version}" if self.version else self.name


@dataclass(frozen=True)
class PoolState:
    """Whether the window hosts the pool, and who is attached."""

    hosting: bool
    clients: tuple[PoolClient, ...] = ()
    socket: str = ""
    problem: str | None = None
    """Why the window does not host (another host kept the data folder, no runtime folder ...)."""

    @property
    def users(self) -> list[PoolClient]:
        """The clients that use the pool: gateways, and commands with a call (a ``status`` request is not one)."""
        return [c for c in self.clients if c.role in APP_ROLES or c.calls_in_flight or c.servers]

    def users_of(self, server_id: str) -> list[PoolClient]:
        """The attached apps that called ``server_id``."""
        return [c for c in self.users if server_id in c.servers]


def _pool_client(client: Client) -> PoolClient:
    return PoolClient(
        role=client.role,
        name=client.name or ROLE_NAMES.get(client.role, client.role),
        version=client.version,
        pid=client.pid,
        agent=client.agent,
        hub=client.hub,
        since=client.since,
        servers=tuple(client.servers),
        calls_in_flight=client.calls,
    )


def _in_use(client: Client) -> bool:
    """Whether quitting would take something from this client (a ``status`` request is not a user)."""
    return client.role in APP_ROLES or client.calls > 0 or bool(client.servers)


class WindowPool:
    """The window's pool host (see the module docstring); every method runs on the service loop."""

    def __init__(self) -> None:
        self.on_state: Callable[[PoolState], None] = lambda _state: None
        """Told (on the service loop) when the state changed; the router re-emits it as ``poolChanged``."""
        self.fallback: ElicitFn | None = None
        """Who answers a server's question during the window's own calls (the event relay)."""
        self.approve: Asker | None = None
        """Who approves a tool call of an attached app that cannot be asked itself (the event relay)."""
        self.quit_choice: QuitChoice = "ask"
        self.keep_running: bool | None = None
        """The answer of the quit dialog (None: not asked; the quit choice decides, "ask" keeping them)."""
        self.host: Host | None = None
        self._lock: HostLock | None = None
        self._task: asyncio.Task[None] | None = None
        self._problem: str | None = None
        self._pending: asyncio.TimerHandle | None = None
        self._handing_over = False

    async def acquire(self) -> None:
        """Take the host lock (a running daemon hands over first); on failure the window just does not host."""
        from elftia_desktop.host.attach import supported

        if not supported():  # ELFTIA_NO_DAEMON: nobody would attach
            self._problem = "Elftia does not share its servers with other apps (ELFTIA_NO_DAEMON is set)"
            return
        from elftia_desktop.host.lease import AlreadyRunning, take_over
        from elftia_desktop.host.location import host_location
        from elftia_desktop.platform.runtime import UnsafeRuntimeFolder

        try:
            location = host_location()
            self._lock = await asyncio.to_thread(take_over, location)
        except (AlreadyRunning, UnsafeRuntimeFolder, OSError) as exc:
            self._problem = f"The window does not host the pool: {exc}"
            log.warning("%s", self._problem)

    def start(self, services: AppServices) -> None:
        """Serve the host socket with the window's services (a ``when_built`` hook, on the loop)."""
        if self._lock is None:
            self._publish()
            return
        from elftia_desktop.host.host import Host

        self.host = Host(
            services,
            self._lock.location,
            idle=None,
            kind="window",
            changed=self._changed,
            fallback=self.fallback,
            approve=self.approve,
        )
        self._task = asyncio.get_running_loop().create_task(self.host.run(), name="window-pool-host")
        self._task.add_done_callback(self._ended)
        self._publish()

    def _ended(self, task: asyncio.Task[None]) -> None:
        """The host stopped (the quit), or failed (its socket could not be opened): say so."""
        if not task.cancelled() and (error := task.exception()) is not None:
            self._problem = f"The window stopped sharing its servers: {error}"
            log.warning("%s", self._problem)
        self._publish()

    def state(self) -> PoolState:
        """The current state."""
        if self.host is None or self._task is None or self._task.done():
            return PoolState(False, problem=self._problem)
        clients = tuple(_pool_client(c) for c in self.host.clients())
        return PoolState(True, clients, endpoint.describe(self.host.address))

    def _changed(self) -> None:
        if self._pending is None:
            self._pending = asyncio.get_running_loop().call_later(COALESCE, self._publish)

    def _publish(self) -> None:
        self._pending = None
        self.on_state(self.state())

    async def prepare_quit(self, keep: bool) -> None:
        """Stop accepting clients before the quit; with ``keep`` the calls in flight finish first."""
        self.keep_running = keep
        await self.close()

    async def close(self) -> None:
        """Close the clients' connections (before the servers close) and stop serving; idempotent."""
        if self.host is None or self._task is None:
            return
        if not self._task.done():
            self._handing_over = self._hand_over()
            self.host.stop(drain=self._handing_over)
        await asyncio.gather(self._task, return_exceptions=True)

    def _hand_over(self) -> bool:
        assert self.host is not None
        if not any(_in_use(c) for c in self.host.clients()):
            return False
        if self.keep_running is not None:
            return self.keep_running
        return self.quit_choice != "stop"

    async def release(self) -> None:
        """Give the lock up (after the servers stopped) and start the daemon when the apps keep their servers."""
        if self._lock is None:
            return
        location = self._lock.location
        self._lock.release()
        self._lock = None
        stay = await asyncio.to_thread(_starts_at_login)
        if self._handing_over or stay:
            from elftia_desktop.host.attach import spawn_daemon

            child = await asyncio.to_thread(spawn_daemon, location, stay=stay)
            log.info("handed the pool over to the background daemon %d (window %d quits)", child.pid, os.getpid())


def _starts_at_login() -> bool:
    """Whether start at login is on: the host that stays then takes over when the window quits (the
    apps given the HTTP URL need one; the one started at login gave its pool to the window)."""
    from elftia_desktop.platform import autostart

    try:
        return autostart.enabled(autostart.Machine.current())
    except autostart.AutostartError:
        return False

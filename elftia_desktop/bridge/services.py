"""The services the UI reaches through the router: the application's (``application.services``) plus the window's own.

Everything heavy (the mcp SDK, the keyring, the config file) is opened by
:func:`~elftia_desktop.application.services.open_services` on the service loop, so the window
shows at once.
"""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from elftia_desktop.application.services import Services, open_services

if TYPE_CHECKING:
    from elftia_desktop.bridge.pool_host import WindowPool
    from elftia_desktop.deps.checker import DependencyChecker
    from elftia_desktop.deps.installer import DependencyInstaller


CLOSE_TIMEOUT = 10.0
"""Seconds long work may take to clean up after being cancelled at quit."""


def _checker() -> DependencyChecker:
    from elftia_desktop.deps.checker import DependencyChecker

    return DependencyChecker()


def _installer() -> DependencyInstaller:
    from elftia_desktop.deps.installer import DependencyInstaller

    return DependencyInstaller()


@dataclass
class AppServices(Services):
    """Everything behind the router; lives on the service loop."""

    deps: DependencyChecker = field(default_factory=_checker)
    installer: DependencyInstaller = field(default_factory=_installer)
    startup: asyncio.Task[dict[str, str]] | None = None
    """Connecting the active servers at start, when the settings ask for it."""
    running: set[asyncio.Task[Any]] = field(default_factory=set)
    """Long work (installs) that must be stopped, and clean up after itself, when the app quits."""
    opened: AsyncExitStack = field(default_factory=AsyncExitStack)
    """Closes what ``open_services`` opened (every connection)."""
    pool: WindowPool | None = None
    """The window's pool host (``bridge/pool_host.py``), when this window hosts for other apps."""

    def start(self) -> None:
        """Connect the active, trusted servers now when the settings say "at start" (sync)."""
        if self.settings.startup == "at-start" and self.startup is None:
            self.startup = asyncio.get_running_loop().create_task(self.mcp.connect_active(), name="connect-at-start")

    async def close(self) -> None:
        """Close the pool host's clients, stop long work (an install removes what it started), close every
        connection; then the pool host gives its lock up (and hands over to a daemon when asked)."""
        if self.pool is not None:
            await self.pool.close()
        if self.startup is not None and not self.startup.done():
            self.startup.cancel()
        for task in self.running:
            task.cancel()
        if self.running:
            await asyncio.wait(self.running, timeout=CLOSE_TIMEOUT)
        await self.opened.aclose()
        if self.pool is not None:
            await self.pool.release()


async def build_services(pool: WindowPool | None = None) -> AppServices:
    """Open the application's services (the assembly point) and add the window's own.

    ``pool``: host the pool for other apps; its lock is taken (a running daemon hands over) before
    any server may start.
    """
    # pydantic's submodules are imported explicitly first: shiboken's import hook (PySide6 is
    # loaded by now) inspects modules mid-import and trips over pydantic's lazy __getattr__ when
    # pydantic.fields is reached through "from pydantic import Field".
    import pydantic.fields
    import pydantic.types  # noqa: F401

    opened = AsyncExitStack()
    core = await opened.enter_async_context(open_services(builtin_servers=True))
    services = AppServices(**vars(core), opened=opened, pool=pool)
    if pool is not None:
        await pool.acquire()
    if services.catalog.vault.warning:  # secrets in a file: the window says so at start
        services.notices.append(services.catalog.vault.warning)
    services.start()
    return services

"""The services the UI reaches through the router, built on the service loop.

Everything heavy (the mcp SDK, the keyring, the config file) is imported and opened inside
:func:`build_services`, which runs on the service loop, so the window shows at once.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from elftia_desktop.connections.service import McpService
    from elftia_desktop.core.agent_store import AgentStore
    from elftia_desktop.core.catalog import ServerCatalog
    from elftia_desktop.core.settings_store import AppSettings, SettingsStore
    from elftia_desktop.deps.checker import DependencyChecker
    from elftia_desktop.deps.installer import DependencyInstaller


CLOSE_TIMEOUT = 10.0
"""Seconds long work may take to clean up after being cancelled at quit."""


@dataclass
class AppServices:
    """Everything behind the router; lives on the service loop."""

    catalog: ServerCatalog
    mcp: McpService
    deps: DependencyChecker
    installer: DependencyInstaller
    agents: AgentStore
    """The agents (``agents.json``); the catalog keeps them consistent when a server is removed."""
    settings_store: SettingsStore
    settings: AppSettings
    """The settings in force (saved ones, or the defaults)."""
    notices: list[str] = field(default_factory=list)
    """Problems found while starting (config recovered, secrets in a file ...)."""
    startup: asyncio.Task[dict[str, str]] | None = None
    """Connecting the active servers at start, when the settings ask for it."""
    running: set[asyncio.Task[Any]] = field(default_factory=set)
    """Long work (installs) that must be stopped, and clean up after itself, when the app quits."""

    def apply_settings(self, settings: AppSettings) -> None:
        """Put ``settings`` in force: default timeouts and log size of every connection (sync)."""
        self.settings = settings
        self.mcp.set_defaults(settings.connect_timeout, settings.call_timeout, settings.log_lines)

    def start(self) -> None:
        """Connect the active, trusted servers now when the settings say "at start" (sync)."""
        if self.settings.startup == "at-start" and self.startup is None:
            self.startup = asyncio.get_running_loop().create_task(self.mcp.connect_active(), name="connect-at-start")

    async def close(self) -> None:
        """Stop long work (an install removes what it started), then close every connection."""
        if self.startup is not None and not self.startup.done():
            self.startup.cancel()
        for task in self.running:
            task.cancel()
        if self.running:
            await asyncio.wait(self.running, timeout=CLOSE_TIMEOUT)
        await self.mcp.cleanup()


async def build_services() -> AppServices:
    """Open the config store, the agents and secrets off the UI thread and start the MCP service."""
    # pydantic's submodules are imported explicitly first: shiboken's import hook (PySide6 is
    # loaded by now) inspects modules mid-import and trips over pydantic's lazy __getattr__ when
    # pydantic.fields is reached through "from pydantic import Field".
    import pydantic.fields
    import pydantic.types  # noqa: F401

    def open_stores() -> tuple[ServerCatalog, AgentStore, SettingsStore, AppSettings]:
        from elftia_desktop.core.agent_store import AgentStore
        from elftia_desktop.core.catalog import ServerCatalog
        from elftia_desktop.core.config_store import ConfigStore
        from elftia_desktop.core.first_run import seed_builtin_servers, seed_default_agent
        from elftia_desktop.core.secrets import SecretVault
        from elftia_desktop.core.settings_store import SettingsStore

        agents = AgentStore()
        catalog = ServerCatalog(ConfigStore(), SecretVault(), agents)
        seed_builtin_servers(catalog)
        seed_default_agent(agents)
        settings_store = SettingsStore()
        return catalog, agents, settings_store, settings_store.load()

    catalog, agents, settings_store, settings = await asyncio.to_thread(open_stores)
    from elftia_desktop.connections.service import McpService
    from elftia_desktop.deps.checker import DependencyChecker
    from elftia_desktop.deps.installer import DependencyInstaller

    notices = list(catalog.store.notices) + list(agents.notices) + list(settings_store.notices)
    if catalog.vault.warning:
        notices.append(catalog.vault.warning)
    # McpService stops an earlier run's leftover servers as it is built (a /proc scan, `ps` on
    # macOS): a worker thread does that, not the service loop.
    mcp = await asyncio.to_thread(McpService, catalog)
    services = AppServices(
        catalog=catalog,
        mcp=mcp,
        deps=DependencyChecker(),
        installer=DependencyInstaller(),
        agents=agents,
        settings_store=settings_store,
        settings=settings,
        notices=notices,
    )
    services.apply_settings(settings)
    services.start()
    return services

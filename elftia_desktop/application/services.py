"""The one assembly point: everything the window, the CLI and the gateway run on, opened and closed together.

:func:`open_stores` opens the stores (config, secrets vault, agents, saved settings) and seeds a
fresh install (the built-in servers, the "Assistant" agent); it touches files and the keyring,
so it is synchronous and runs in a worker thread where a loop is running. :func:`open_services`
adds ``McpService`` with the saved settings applied, runs its ``start()`` (stopping an earlier
run's leftover servers) and, on exit, closes every connection. Nothing else builds ``McpService``.

The mcp SDK is imported only by :func:`open_services`, so commands that merely read the stores
start fast.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from elftia_desktop.core.agent_store import AgentStore
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.settings_store import AppSettings, SettingsStore

if TYPE_CHECKING:
    from elftia_desktop.connections.oauth_gate import SignInPrompt
    from elftia_desktop.connections.service import McpService


@dataclass
class Stores:
    """The app's files and secrets, opened (a fresh install seeded)."""

    catalog: ServerCatalog
    agents: AgentStore
    settings_store: SettingsStore
    settings: AppSettings
    """The settings in force (the saved ones, or the defaults)."""
    notices: list[str] = field(default_factory=list)
    """Problems found while loading the files (config recovered from its backup ...), for the UI or CLI to show."""


@dataclass
class Services(Stores):
    """The stores and the MCP service built on them, with the saved settings in force."""

    mcp: McpService = field(kw_only=True)

    def apply_settings(self, settings: AppSettings) -> None:
        """Put ``settings`` in force: default timeouts and log size of every connection (sync)."""
        self.settings = settings
        self.mcp.set_defaults(settings.connect_timeout, settings.call_timeout, settings.log_lines)


def open_stores(*, builtin_servers: bool) -> Stores:
    """Open the config store, the secrets vault, the agents and the saved settings (blocking).

    A fresh install gets the "Assistant" agent, and with ``builtin_servers`` the built-in servers
    (the window's first start; the CLI and the gateway leave the server list as the user made it).
    """
    from elftia_desktop.core.config_store import ConfigStore
    from elftia_desktop.core.first_run import seed_builtin_servers, seed_default_agent
    from elftia_desktop.core.secrets import SecretVault

    agents = AgentStore()
    catalog = ServerCatalog(ConfigStore(), SecretVault(), agents)
    if builtin_servers:
        seed_builtin_servers(catalog)
    seed_default_agent(agents)
    settings_store = SettingsStore()
    settings = settings_store.load()
    notices = [*catalog.store.notices, *agents.notices, *settings_store.notices]
    return Stores(catalog, agents, settings_store, settings, notices)


@asynccontextmanager
async def open_services(
    *, builtin_servers: bool, sign_in_prompt: SignInPrompt | None = None, runtime_dir: Path | None = None
) -> AsyncIterator[Services]:
    """Open the stores (in a worker thread) and start ``McpService`` on them; close every connection on exit.

    ``builtin_servers``: seed a fresh install with the built-in servers (see :func:`open_stores`).
    ``sign_in_prompt``: who shows an OAuth authorization URL during foreground actions (None: nobody).
    ``runtime_dir``: where started processes are recorded (default: ``{data dir}/runtime``).
    """
    stores = await asyncio.to_thread(open_stores, builtin_servers=builtin_servers)
    from elftia_desktop.connections.service import McpService

    if runtime_dir is None:
        runtime_dir = stores.catalog.store.path.parent / "runtime"
    mcp = McpService(stores.catalog, runtime_dir=runtime_dir)
    services = Services(**vars(stores), mcp=mcp)
    services.apply_settings(stores.settings)
    mcp.set_sign_in_prompt(sign_in_prompt)
    try:
        await mcp.start()
        yield services
    finally:
        await mcp.cleanup()

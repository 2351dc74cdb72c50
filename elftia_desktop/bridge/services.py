"""The services the UI reaches through the router, built on the service loop.

Everything heavy (the mcp SDK, the keyring, the config file) is imported and opened inside
:func:`build_services`, which runs on the service loop, so the window shows at once.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from elftia_desktop.connections.service import McpService
    from elftia_desktop.core.agent_store import AgentStore
    from elftia_desktop.core.catalog import ServerCatalog
    from elftia_desktop.deps.checker import DependencyChecker
    from elftia_desktop.deps.installer import DependencyInstaller


@dataclass
class AppServices:
    """Everything behind the router; lives on the service loop."""

    catalog: ServerCatalog
    mcp: McpService
    deps: DependencyChecker
    installer: DependencyInstaller
    agents: AgentStore
    """The agents (``agents.json``); the catalog keeps them consistent when a server is removed."""
    notices: list[str] = field(default_factory=list)
    """Problems found while starting (config recovered, secrets in a file ...)."""

    async def close(self) -> None:
        """Close every connection (bounded by the service's own timeouts)."""
        await self.mcp.cleanup()


async def build_services() -> AppServices:
    """Open the config store, the agents and secrets off the UI thread and start the MCP service."""
    # pydantic's submodules are imported explicitly first: shiboken's import hook (PySide6 is
    # loaded by now) inspects modules mid-import and trips over pydantic's lazy __getattr__ when
    # pydantic.fields is reached through "from pydantic import Field".
    import pydantic.fields
    import pydantic.types  # noqa: F401

    def open_stores() -> tuple[ServerCatalog, AgentStore]:
        from elftia_desktop.core.agent_store import AgentStore
        from elftia_desktop.core.catalog import ServerCatalog
        from elftia_desktop.core.config_store import ConfigStore
        from elftia_desktop.core.first_run import seed_builtin_servers, seed_default_agent
        from elftia_desktop.core.secrets import SecretVault

        agents = AgentStore()
        catalog = ServerCatalog(ConfigStore(), SecretVault(), agents)
        seed_builtin_servers(catalog)
        seed_default_agent(agents)
        return catalog, agents

    catalog, agents = await asyncio.to_thread(open_stores)
    from elftia_desktop.connections.service import McpService
    from elftia_desktop.deps.checker import DependencyChecker
    from elftia_desktop.deps.installer import DependencyInstaller

    notices = list(catalog.store.notices) + list(agents.notices)
    if catalog.vault.warning:
        notices.append(catalog.vault.warning)
    return AppServices(
        catalog=catalog,
        mcp=McpService(catalog),
        deps=DependencyChecker(),
        installer=DependencyInstaller(),
        agents=agents,
        notices=notices,
    )

"""Opening the app's stores from the CLI, with their notices printed as warnings."""

from __future__ import annotations

from elftia_desktop.cli.output import warn
from elftia_desktop.core.agent_store import AgentStore
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.secrets import SecretVault


def open_catalog() -> ServerCatalog:
    """The server catalog on the user's config file, with the agents; load problems go to stderr."""
    store = ConfigStore()
    vault = SecretVault()
    agents = open_agents()
    for notice in store.notices:
        warn(notice)
    return ServerCatalog(store, vault, agents)


def open_agents() -> AgentStore:
    """The agents (seeded with "Assistant" on a fresh install); load problems go to stderr."""
    from elftia_desktop.core.first_run import seed_default_agent

    agents = AgentStore()
    seed_default_agent(agents)
    for notice in agents.notices:
        warn(notice)
    return agents

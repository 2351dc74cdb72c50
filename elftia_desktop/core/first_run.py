"""What a fresh install starts with: the built-in servers, so the app does something real
with no Node and no network, and one agent ("Assistant", auto) so the tool picker shows them."""

from __future__ import annotations

from elftia_desktop.core.agent_store import AgentStore
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.models import Agent, McpMode, McpServerRecord
from elftia_desktop.core.presets import load_presets, preset_to_input


def seed_builtin_servers(catalog: ServerCatalog) -> list[McpServerRecord]:
    """Add every built-in preset when the config file did not exist yet; returns what was added."""
    if not catalog.store.fresh or catalog.all():
        return []
    added = []
    for preset in load_presets():
        if preset.install_source == "builtin":
            record = catalog.add(preset_to_input(preset), on_conflict="skip")
            if record is not None:
                added.append(record)
    return added


DEFAULT_AGENT_NAME = "Assistant"
"""The agent a fresh install starts with (auto mode: every active server)."""


def seed_default_agent(agents: AgentStore) -> Agent | None:
    """Add "Assistant" (auto) when ``agents.json`` did not exist yet (nor its ``.bak``); returns it."""
    if not agents.fresh or agents.list():
        return None
    agents.fresh = False
    return agents.add(Agent(name=DEFAULT_AGENT_NAME, mcp_mode=McpMode.AUTO))

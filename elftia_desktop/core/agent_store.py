"""The agents and which MCP servers and tools each may use: ``{data dir}/agents.json``.

Shape ``{"version": N, "agents": [agent, ...]}`` (a bare list is read too), with the machinery
of the server list (:class:`core.json_store.JsonListStore`): locked read-modify-write, atomic
save with ``.bak``, a corrupt file moved aside and reported, a newer version refused, an entry
that no longer validates kept verbatim. Names are unique, case-insensitive. Agents reference
servers by id, so a renamed server stays selected; a removed one is taken out of every agent
by :meth:`AgentStore.forget_server`, which says which agents lost it.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from pydantic.alias_generators import to_camel

from elftia_desktop.core.errors import AgentNotFound, ConfigError, DuplicateAgentName
from elftia_desktop.core.json_store import JsonListStore, describe_validation_error
from elftia_desktop.core.models import Agent, new_agent_id, now_ms
from elftia_desktop.core.text_rules import name_key, quoted

AGENTS_VERSION = 1
AGENTS_FILE_NAME = "agents.json"
_IMMUTABLE_FIELDS = {"id", "createdAt"}
_AgentsChange = Callable[[builtins.list[Agent]], builtins.list[Agent]]


def _find(agents: builtins.list[Agent], name_or_id: str) -> Agent:
    wanted = name_or_id.strip().lower()
    for agent in agents:
        if agent.id == name_or_id:
            return agent
    for agent in agents:
        if name_key(agent.name) == name_key(wanted):
            return agent
    names = ", ".join(a.name for a in agents) or "none defined"
    raise AgentNotFound(f"No agent named {quoted(name_or_id)} (agents: {names})")


def _check_name_free(agents: builtins.list[Agent], name: str, own_id: str | None = None) -> None:
    clash = next((a for a in agents if name_key(a.name) == name_key(name) and a.id != own_id), None)
    if clash is not None:
        raise DuplicateAgentName(f"name: an agent named {quoted(clash.name)} exists already")


def _uses(agent: Agent, server_id: str) -> bool:
    chosen = (agent.selected_tools or {}) | (agent.selected_skills or {})
    return server_id in agent.selected_servers or server_id in chosen


class AgentStore(JsonListStore[Agent]):
    """The agents on disk, safe for concurrent writers (the GUI and ``elftia-mcp``)."""

    model = Agent
    list_key = "agents"
    version = AGENTS_VERSION
    entry_label = "Agent"

    def __init__(self, path: Path | None = None) -> None:
        from elftia_desktop.core.paths import data_dir

        super().__init__(path if path is not None else data_dir() / AGENTS_FILE_NAME)

    def list(self) -> builtins.list[Agent]:
        """All agents in file order, re-read when another process changed the file."""
        return self._items()

    def get(self, name_or_id: str) -> Agent:
        """The agent with that id or name (case-insensitive); ``AgentNotFound`` names the known ones."""
        return _find(self.list(), name_or_id)

    def add(self, agent: Agent) -> Agent:
        """Save a new agent; ``DuplicateAgentName`` when the name is taken."""

        def change(agents: builtins.list[Agent]) -> Agent:
            """Append the agent (a fresh id when its id is taken)."""
            _check_name_free(agents, agent.name)
            if any(a.id == agent.id for a in agents):
                agent.id = new_agent_id()
            agents.append(agent)
            return agent.model_copy(deep=True)

        return self.mutate(change)

    def update(self, name_or_id: str, changes: Mapping[str, Any]) -> Agent:
        """Merge ``changes`` (camelCase or snake_case keys) into an agent; returns the new agent.

        A key that is present counts, so ``{"selectedTools": None}`` means every tool again.
        """
        camel = {to_camel(key): value for key, value in changes.items()}
        bad = _IMMUTABLE_FIELDS & camel.keys()
        if bad:
            raise ConfigError(f"{sorted(bad)[0]}: cannot be changed")

        def change(agents: builtins.list[Agent]) -> Agent:
            """Merge the fields into the stored agent and validate the result."""
            before = _find(agents, name_or_id)
            merged = before.model_dump(mode="json", by_alias=True) | camel | {"updatedAt": now_ms()}
            try:
                after = Agent.model_validate(merged)
            except ValidationError as exc:
                raise ConfigError(describe_validation_error(exc)) from exc
            _check_name_free(agents, after.name, before.id)
            agents[agents.index(before)] = after
            return after.model_copy(deep=True)

        return self.mutate(change)

    def remove(self, name_or_id: str) -> Agent:
        """Delete an agent; returns what was removed."""

        def change(agents: builtins.list[Agent]) -> Agent:
            """Remove the agent from the list."""
            agent = _find(agents, name_or_id)
            agents.remove(agent)
            return agent

        return self.mutate(change)

    def duplicate(self, name_or_id: str, name: str | None = None) -> Agent:
        """A copy of an agent under ``name`` (default ``"<name> copy"``, numbered when taken)."""

        def change(agents: builtins.list[Agent]) -> Agent:
            """Append the copy under a free name."""
            source = _find(agents, name_or_id)
            wanted = name or f"{source.name} copy"
            if name is None:
                taken, n, base = {a.name.lower() for a in agents}, 2, wanted
                while wanted.lower() in taken:
                    wanted, n = f"{base} {n}", n + 1
            copy = Agent.model_validate(source.model_dump() | {"id": new_agent_id(), "name": wanted})
            copy.created_at, copy.updated_at = now_ms(), None
            _check_name_free(agents, copy.name)
            agents.append(copy)
            return copy.model_copy(deep=True)

        return self.mutate(change)

    # -- keeping agents consistent with the server list -------------------------------------

    def agents_using(self, server_id: str) -> builtins.list[Agent]:
        """The agents that selected the server or chose some of its tools or skills."""
        return [agent for agent in self.list() if _uses(agent, server_id)]

    def forget_server(self, server_id: str) -> builtins.list[Agent]:
        """Take a removed server out of every agent; returns the agents that lost it (as changed)."""

        def change(agents: builtins.list[Agent]) -> builtins.list[Agent]:
            """Drop the server from each agent that used it."""
            changed = []
            for agent in agents:
                if _uses(agent, server_id):
                    agent.selected_servers = [s for s in agent.selected_servers if s != server_id]
                    for selection in (agent.selected_tools, agent.selected_skills):
                        if selection is not None:
                            selection.pop(server_id, None)
                    agent.updated_at = now_ms()
                    changed.append(agent.model_copy(deep=True))
            return changed

        return self._mutate_if_any(server_id, change)

    def replace_server(self, old_id: str, new_id: str) -> builtins.list[Agent]:
        """Point every agent that used ``old_id`` at ``new_id`` (a server replaced on import)."""

        def change(agents: builtins.list[Agent]) -> builtins.list[Agent]:
            """Replace ``old_id`` by ``new_id`` in each agent that used it."""
            changed = []
            for agent in agents:
                if _uses(agent, old_id):
                    agent.selected_servers = [new_id if s == old_id else s for s in agent.selected_servers]
                    agent.selected_servers = list(dict.fromkeys(agent.selected_servers))
                    for selection in (agent.selected_tools, agent.selected_skills):
                        if selection is not None and old_id in selection:
                            selection[new_id] = selection.pop(old_id)
                    agent.updated_at = now_ms()
                    changed.append(agent.model_copy(deep=True))
            return changed

        return self._mutate_if_any(old_id, change)

    def _mutate_if_any(self, server_id: str, change: _AgentsChange) -> builtins.list[Agent]:
        """Run ``change`` under the lock only when some agent uses the server (no needless write)."""
        with self._lock.hold():
            if not self.agents_using(server_id):
                return []
            result: builtins.list[Agent] = self.mutate(change)
            return result
